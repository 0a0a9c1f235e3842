"""What a starter file holds: the headers the readers know, example rows, and (xlsx)
the words of an Instructions sheet. ``linksync.export.template`` writes it.

Every example row passes ``validate`` (a test reads each template back), so a user
can run ``linksync validate`` on a fresh template and see a clean result. With the
team's UTM rules (a profile's ``utm_rules:``), ``layout`` adds a column for every UTM
parameter the rules require or list values for, and the example rows carry allowed
values.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from linksync.errors import ConfigError
from linksync.model.utm_rules import UTM_PARAMETERS, UtmRules

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

#: Example rows: header -> cell, the other cells empty (the expiry as a datetime).
EXAMPLES: tuple[dict[str, str | datetime], ...] = (
    {
        "Destination URL": "https://example.com/spring-sale",
        "Slug": "spring-sale",
        "Title": "Spring sale landing page",
        "Tags": "sale, spring-2026",
        "Expires": datetime(2030, 12, 31, 23, 59),
        "utm_source": "newsletter",
        "utm_medium": "email",
        "utm_campaign": "spring-2026",
    },
    {
        "Destination URL": "https://example.com/app",
        "Slug": "get-app",
        "Title": "Get the app",
        "Tags": "app",
        "iOS URL": "https://apps.apple.com/app/id123456789",
        "Android URL": "https://play.google.com/store/apps/details?id=com.example.app",
    },
    {
        "Destination URL": "https://example.com/events/webinar",
        "Title": "Webinar sign-up (slug left to the service)",
        "Tags": "events",
    },
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


#: An example value for a required UTM parameter without an allowed list.
_EXAMPLE_UTM = {"utm_source": "newsletter", "utm_medium": "email", "utm_campaign": "spring-2026"}


def layout(rules: UtmRules | None = None) -> tuple[list[str], list[list[str | datetime]]]:
    """Headers and example rows, following the UTM rules: a column for each parameter
    they require or list values for; each example's UTM cell an allowed value (the
    first) when its own is not one, and filled when the parameter is required."""
    headers = list(HEADERS)
    rows = [[row.get(h, "") for h in HEADERS] for row in EXAMPLES]
    if rules is None or rules.empty:
        return headers, rows
    allowed = dict(rules.allowed or {})
    required = tuple(rules.required or ())
    for name in UTM_PARAMETERS:
        if (name in allowed or name in required) and name not in headers:
            headers.append(name)
            for row in rows:
                row.append("")
    for name in UTM_PARAMETERS:
        if name not in headers:
            continue
        c = headers.index(name)
        values = allowed.get(name)
        for row in rows:
            value = row[c]
            if values and value and value not in values:
                row[c] = values[0]
            elif name in required and not value:
                row[c] = values[0] if values else _EXAMPLE_UTM.get(name, "example")
    return headers, rows


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
