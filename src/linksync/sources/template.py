"""Starter files: the right headers, example rows, and (xlsx) an Instructions sheet.

Every example row passes ``validate`` (a test reads each template back), so a user
can run ``linksync validate`` on a fresh template and see a clean result.
"""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path

import xlsxwriter  # type: ignore[import-untyped]

from linksync.errors import ConfigError
from linksync.safe.outputs import atomic_path

FORMATS: tuple[str, ...] = ("xlsx", "csv", "yaml")

#: Header -> what goes in it (the Instructions sheet, in this order).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("Destination URL", "Required. Where the short link goes; starts with https:// or http://."),
    (
        "Slug",
        "The part after the domain (spring-sale). Letters and digits, single hyphens "
        "between groups. Leave empty to let the service pick one.",
    ),
    ("Domain", "Your custom short domain. Leave empty for the workspace's default domain."),
    ("Title", "A name or memo for the link (sent as its description)."),
    ("Tags", "Comma-separated: sale, spring-2026. Separators , ; | all work."),
    (
        "Expires",
        "Optional date or date-time (UTC) after which the link stops working. An Excel "
        "date, or text such as 2030-12-31 or 2030-12-31T23:59:59Z. Must be in the future.",
    ),
    ("iOS URL", "Optional: where iPhone and iPad visitors go instead."),
    ("Android URL", "Optional: where Android visitors go instead."),
    ("Password", "Optional: visitors must enter it before the redirect."),
    ("utm_source", "Optional UTM parameters: added to the destination URL's query."),
    ("utm_medium", "Optional, e.g. email, social, cpc."),
    ("utm_campaign", "Optional, e.g. spring-2026."),
)

HEADERS: tuple[str, ...] = tuple(h for h, _ in COLUMNS)

#: Example rows (cells in HEADERS order; the expiry as a datetime).
EXAMPLES: tuple[tuple[str | datetime, ...], ...] = (
    (
        "https://example.com/spring-sale",
        "spring-sale",
        "",
        "Spring sale landing page",
        "sale, spring-2026",
        datetime(2030, 12, 31, 23, 59),
        "",
        "",
        "",
        "newsletter",
        "email",
        "spring-2026",
    ),
    (
        "https://example.com/app",
        "get-app",
        "",
        "Get the app",
        "app",
        "",
        "https://apps.apple.com/app/id123456789",
        "https://play.google.com/store/apps/details?id=com.example.app",
        "",
        "",
        "",
        "",
    ),
    (
        "https://example.com/events/webinar",
        "",
        "",
        "Webinar sign-up (slug left to the service)",
        "events",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
    ),
)

INSTRUCTIONS_INTRO = (
    "How to fill in the Links sheet",
    "One row per short link. Header names may be changed to your own words "
    "(e.g. 'Long URL', 'Back-half', 'Memo'): linksync recognises common names.",
    "Empty cells leave the link's current value alone when it already exists.",
    "Check the file without touching anything: linksync validate <this file>",
    "",
)

YAML_TEMPLATE = """\
# Links as code: one file, or a directory of *.yaml files.
# Check with: linksync validate <this file or directory>
defaults:                 # optional, applies to every link of this file
  tags: [spring-2026]     # merged with each link's own tags
  utm: {source: newsletter, medium: email, campaign: spring-2026}
links:                    # a list, or a mapping keyed by slug
  - slug: spring-sale
    url: https://example.com/spring-sale
    description: Spring sale landing page
    tags: [sale]
    expiresAt: "2030-12-31T23:59:59Z"
  - slug: get-app
    url: https://example.com/app
    description: Get the app
    apple: https://apps.apple.com/app/id123456789
    google: https://play.google.com/store/apps/details?id=com.example.app
  - url: https://example.com/events/webinar   # no slug: the service picks one
    description: Webinar sign-up
    tags: []              # [] or null clears (here: no tags, not even the defaults)
"""


def format_for(path: str | Path, fmt: str | None) -> str:
    """The template format: given, else from the file extension."""
    if fmt:
        fmt = fmt.lower()
    else:
        suffix = Path(path).suffix.lower().lstrip(".")
        fmt = {"yml": "yaml", "xlsm": "xlsx"}.get(suffix, suffix)
    if fmt not in FORMATS:
        raise ConfigError(f"template format must be one of {', '.join(FORMATS)} (got {fmt!r})")
    return fmt


def write_template(path: str | Path, fmt: str | None = None) -> str:
    """Write a starter file (atomically: a failure leaves what was at ``path``);
    returns the format written."""
    fmt = format_for(path, fmt)
    with atomic_path(path) as out:
        if fmt == "xlsx":
            _write_xlsx(out)
        elif fmt == "csv":
            _write_csv(out)
        else:
            out.write_text(YAML_TEMPLATE, encoding="utf-8")
    return fmt


def _cell_text(v: str | datetime) -> str:
    return v.strftime("%Y-%m-%d %H:%M") if isinstance(v, datetime) else v


def _write_csv(out: Path) -> None:
    # UTF-8 with BOM, as Excel's "CSV UTF-8" saves it, so Excel opens it correctly.
    with out.open("w", encoding="utf-8-sig", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(HEADERS)
        for row in EXAMPLES:
            w.writerow([_cell_text(v) for v in row])


def _write_xlsx(out: Path) -> None:
    wb = xlsxwriter.Workbook(str(out), {"strings_to_urls": False})
    try:
        head = wb.add_format({"bold": True, "bg_color": "#DDEBF7", "border": 1})
        when = wb.add_format({"num_format": "yyyy-mm-dd hh:mm"})
        ws = wb.add_worksheet("Links")
        for c, h in enumerate(HEADERS):
            ws.write_string(0, c, h, head)
            ws.set_column(c, c, 34 if c in (0, 6, 7) else 16)
        for r, row in enumerate(EXAMPLES, start=1):
            for c, v in enumerate(row):
                if isinstance(v, datetime):
                    ws.write_datetime(r, c, v, when)
                elif v:
                    ws.write_string(r, c, v)
        ws.freeze_panes(1, 0)
        ws.autofilter(0, 0, len(EXAMPLES), len(HEADERS) - 1)
        info = wb.add_worksheet("Instructions")
        bold = wb.add_format({"bold": True})
        wrap = wb.add_format({"text_wrap": True, "valign": "top"})
        info.set_column(0, 0, 22)
        info.set_column(1, 1, 90)
        r = 0
        for line in INSTRUCTIONS_INTRO:
            info.write_string(r, 0, line, bold if r == 0 else None)
            r += 1
        info.write_string(r, 0, "Column", bold)
        info.write_string(r, 1, "What to put in it", bold)
        for header, text in COLUMNS:
            r += 1
            info.write_string(r, 0, header, bold)
            info.write_string(r, 1, text, wrap)
    finally:
        wb.close()
