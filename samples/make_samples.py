"""Write the campaign samples: samples/campaign.xlsx and samples/campaign.csv.

    python samples/make_samples.py            # rewrites both files next to this script

The campaign is the table below. The workbook has two sheets (Spring, Summer), each
with a title row and a note row above the header, headers in marketing words, Excel
dates, and four deliberately bad rows:

- Spring row 8: a zero-width space (U+200B) pasted inside the destination URL;
- Spring row 11: the reserved slug ``admin``;
- Summer row 6: ``beach-days`` again, already declared on Spring row 9 (duplicate);
- Summer row 9: an expiry in the past (2020-01-31).

The CSV is the same campaign as Excel's "CSV UTF-8 (comma delimited)" saves one sheet
holding both tables: UTF-8 with BOM, commas, dates as displayed (yyyy-mm-dd hh:mm).
Links use the system domain (no Domain column), so the sandbox creates every valid row.
``tests/sources/test_samples.py`` reads both files and compares every cell with the
``EXPECTED_*`` tables here.
"""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path

import xlsxwriter  # type: ignore[import-untyped]

HERE = Path(__file__).resolve().parent
ZWSP = "\u200b"

SPRING_HEADERS = (
    "Destination URL",
    "Back-half",
    "Title",
    "Tags",
    "Expires",
    "iOS URL",
    "Android URL",
    "Campaign source",
    "Campaign medium",
    "utm_campaign",
    "Approved by",
)
SUMMER_HEADERS = (
    "Long URL",
    "Custom ending",
    "Memo",
    "Labels",
    "Expiration",
    "utm_source",
    "utm_medium",
    "utm_campaign",
)

APPLE = "https://apps.apple.com/app/id1234567890"
GOOGLE = "https://play.google.com/store/apps/details?id=com.example.shop"
D = datetime

# Spring: (url, slug, title, tags, expires, ios, android, source, medium, campaign, approver)
SPRING: tuple[tuple[object, ...], ...] = (
    (
        "https://shop.example.com/spring",
        "spring-sale",
        "Spring sale landing page",
        "sale, spring-2026",
        D(2030, 6, 30, 23, 59),
        "",
        "",
        "newsletter",
        "email",
        "spring-2026",
        "Ana",
    ),
    (
        "https://shop.example.com/spring/shoes",
        "spring-shoes",
        "Shoes — spring edit",
        "sale; shoes",
        D(2030, 6, 30),
        "",
        "",
        "newsletter",
        "email",
        "spring-2026",
        "Ana",
    ),
    (
        "https://shop.example.com/app",
        "get-app",
        "Get the app",
        "app|mobile",
        "",
        APPLE,
        GOOGLE,
        "",
        "",
        "",
        "Ben",
    ),
    (
        "https://shop.example.com/spring/bags?color=green",
        "spring-bags",
        "Bags in green",
        "sale, bags",
        D(2030, 5, 31, 12, 0),
        "",
        "",
        "instagram",
        "social",
        "spring-2026",
        "Ana",
    ),
    (
        f"https://shop.example.com/spring/{ZWSP}hats",
        "spring-hats",
        "Hats (pasted URL)",
        "sale",
        "",
        "",
        "",
        "newsletter",
        "email",
        "spring-2026",
        "Ana",
    ),
    (
        "https://shop.example.com/beach",
        "beach-days",
        "Beach days teaser",
        "teaser",
        D(2030, 8, 31, 23, 59),
        "",
        "",
        "",
        "",
        "",
        "Ben",
    ),
    (
        "https://shop.example.com/stores",
        "2026",
        "Store finder (numeric slug)",
        "stores",
        "",
        "",
        "",
        "",
        "",
        "",
        "Ben",
    ),
    (
        "https://shop.example.com/admin-offers",
        "admin",
        "Admin offers (reserved slug)",
        "internal",
        "",
        "",
        "",
        "",
        "",
        "",
        "Cara",
    ),
    (
        "https://shop.example.com/spring/gift-cards#top",
        "gift-cards",
        "Gift cards",
        "sale, gifts, sale",
        D(2030, 12, 31, 23, 59),
        "",
        "",
        "newsletter",
        "email",
        "spring-2026",
        "Cara",
    ),
    (
        "https://shop.example.com/faq",
        "",
        "FAQ (slug left to the service)",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "Cara",
    ),
)

# Summer: (url, slug, memo, labels, expiration, source, medium, campaign)
SUMMER: tuple[tuple[object, ...], ...] = (
    (
        "https://shop.example.com/summer",
        "summer-sale",
        "Summer sale",
        "sale, summer-2026",
        D(2030, 9, 30, 23, 59),
        "newsletter",
        "email",
        "summer-2026",
    ),
    (
        "https://shop.example.com/summer/swim",
        "swimwear",
        "Swimwear",
        "sale; swim",
        D(2030, 9, 30),
        "facebook",
        "cpc",
        "summer-2026",
    ),
    (
        "https://shop.example.com/summer/beach",
        "beach-days",
        "Beach days (again)",
        "sale",
        "",
        "",
        "",
        "",
    ),
    (
        "https://shop.example.com/summer/sandals",
        "sandals",
        "Sandals",
        "shoes",
        "",
        "newsletter",
        "email",
        "summer-2026",
    ),
    (
        "https://shop.example.com/summer/sunglasses",
        "007",
        "Sunglasses (slug 007)",
        "accessories",
        D(2031, 1, 15, 8, 30),
        "",
        "",
        "",
    ),
    (
        "https://shop.example.com/winter-clearance",
        "winter-clearance",
        "Last winter's clearance",
        "clearance",
        D(2020, 1, 31, 23, 59),
        "",
        "",
        "",
    ),
    (
        "https://shop.example.com/summer/hats?size=m",
        "summer-hats",
        "Hats",
        "hats",
        "",
        "instagram",
        "social",
        "summer-2026",
    ),
    (
        "https://shop.example.com/summer/kids",
        "summer-kids",
        "Kids corner",
        "kids, summer-2026",
        D(2030, 8, 15, 12, 0),
        "newsletter",
        "email",
        "summer-2026",
    ),
)

TITLE_ROWS = {
    "Spring": ("Spring campaign 2026 — short links", "Owner: marketing. Times are UTC."),
    "Summer": ("Summer campaign 2026 — short links", "Draft, to be approved."),
}
#: Spreadsheet row of the first data row on each sheet (title, note, header above).
FIRST_ROW = 4

SHOP = "https://shop.example.com"
NL_SPRING = "utm_source=newsletter&utm_medium=email&utm_campaign=spring-2026"
IG_SPRING = "utm_source=instagram&utm_medium=social&utm_campaign=spring-2026"
NL_SUMMER = "utm_source=newsletter&utm_medium=email&utm_campaign=summer-2026"
FB_SUMMER = "utm_source=facebook&utm_medium=cpc&utm_campaign=summer-2026"
IG_SUMMER = "utm_source=instagram&utm_medium=social&utm_campaign=summer-2026"


# What linksync must read, per row: (sheet, row, url, slug, description, tags, expires_at,
# apple, google). Written out, not computed by linksync's code.
EXPECTED_SPRING = [
    (
        "Spring",
        4,
        f"{SHOP}/spring?{NL_SPRING}",
        "spring-sale",
        "Spring sale landing page",
        ("sale", "spring-2026"),
        "2030-06-30T23:59:00.000Z",
        None,
        None,
    ),
    (
        "Spring",
        5,
        f"{SHOP}/spring/shoes?{NL_SPRING}",
        "spring-shoes",
        "Shoes — spring edit",
        ("sale", "shoes"),
        "2030-06-30T00:00:00.000Z",
        None,
        None,
    ),
    (
        "Spring",
        6,
        "https://shop.example.com/app",
        "get-app",
        "Get the app",
        ("app", "mobile"),
        None,
        APPLE,
        GOOGLE,
    ),
    (
        "Spring",
        7,
        f"{SHOP}/spring/bags?color=green&{IG_SPRING}",
        "spring-bags",
        "Bags in green",
        ("sale", "bags"),
        "2030-05-31T12:00:00.000Z",
        None,
        None,
    ),
    (
        "Spring",
        8,
        f"{SHOP}/spring/{ZWSP}hats?{NL_SPRING}",
        "spring-hats",
        "Hats (pasted URL)",
        ("sale",),
        None,
        None,
        None,
    ),
    (
        "Spring",
        9,
        "https://shop.example.com/beach",
        "beach-days",
        "Beach days teaser",
        ("teaser",),
        "2030-08-31T23:59:00.000Z",
        None,
        None,
    ),
    (
        "Spring",
        10,
        "https://shop.example.com/stores",
        "2026",
        "Store finder (numeric slug)",
        ("stores",),
        None,
        None,
        None,
    ),
    (
        "Spring",
        11,
        "https://shop.example.com/admin-offers",
        "admin",
        "Admin offers (reserved slug)",
        ("internal",),
        None,
        None,
        None,
    ),
    (
        "Spring",
        12,
        f"{SHOP}/spring/gift-cards?{NL_SPRING}#top",
        "gift-cards",
        "Gift cards",
        ("sale", "gifts"),
        "2030-12-31T23:59:00.000Z",
        None,
        None,
    ),
    (
        "Spring",
        13,
        "https://shop.example.com/faq",
        None,
        "FAQ (slug left to the service)",
        None,
        None,
        None,
        None,
    ),
]
EXPECTED_SUMMER = [
    (
        "Summer",
        4,
        f"{SHOP}/summer?{NL_SUMMER}",
        "summer-sale",
        "Summer sale",
        ("sale", "summer-2026"),
        "2030-09-30T23:59:00.000Z",
        None,
        None,
    ),
    (
        "Summer",
        5,
        f"{SHOP}/summer/swim?{FB_SUMMER}",
        "swimwear",
        "Swimwear",
        ("sale", "swim"),
        "2030-09-30T00:00:00.000Z",
        None,
        None,
    ),
    (
        "Summer",
        6,
        "https://shop.example.com/summer/beach",
        "beach-days",
        "Beach days (again)",
        ("sale",),
        None,
        None,
        None,
    ),
    (
        "Summer",
        7,
        f"{SHOP}/summer/sandals?{NL_SUMMER}",
        "sandals",
        "Sandals",
        ("shoes",),
        None,
        None,
        None,
    ),
    (
        "Summer",
        8,
        "https://shop.example.com/summer/sunglasses",
        "007",
        "Sunglasses (slug 007)",
        ("accessories",),
        "2031-01-15T08:30:00.000Z",
        None,
        None,
    ),
    (
        "Summer",
        9,
        "https://shop.example.com/winter-clearance",
        "winter-clearance",
        "Last winter's clearance",
        ("clearance",),
        "2020-01-31T23:59:00.000Z",
        None,
        None,
    ),
    (
        "Summer",
        10,
        f"{SHOP}/summer/hats?size=m&{IG_SUMMER}",
        "summer-hats",
        "Hats",
        ("hats",),
        None,
        None,
        None,
    ),
    (
        "Summer",
        11,
        f"{SHOP}/summer/kids?{NL_SUMMER}",
        "summer-kids",
        "Kids corner",
        ("kids", "summer-2026"),
        "2030-08-15T12:00:00.000Z",
        None,
        None,
    ),
]

#: The deliberately bad rows: (sheet, row, field, constant).
EXPECTED_PROBLEMS = [
    ("Spring", 8, "url", "INVALID_URL"),
    ("Spring", 11, "slug", "RESERVED_SLUG"),
    ("Summer", 6, "slug", "DUPLICATE_IN_SOURCE"),
    ("Summer", 9, "expires_at", "INVALID_EXPIRY"),
]


def write_xlsx(path: Path) -> None:
    wb = xlsxwriter.Workbook(str(path), {"strings_to_urls": False})
    try:
        title = wb.add_format({"bold": True, "font_size": 14})
        head = wb.add_format({"bold": True, "bg_color": "#FCE4D6", "border": 1})
        when = wb.add_format({"num_format": "yyyy-mm-dd hh:mm"})
        day = wb.add_format({"num_format": "yyyy-mm-dd"})
        for name, headers, rows in (
            ("Spring", SPRING_HEADERS, SPRING),
            ("Summer", SUMMER_HEADERS, SUMMER),
        ):
            ws = wb.add_worksheet(name)
            ws.write_string(0, 0, TITLE_ROWS[name][0], title)
            ws.write_string(1, 0, TITLE_ROWS[name][1])
            for c, h in enumerate(headers):
                ws.write_string(2, c, h, head)
                ws.set_column(c, c, 30 if c == 0 else 16)
            for r, row in enumerate(rows, start=FIRST_ROW - 1):
                for c, v in enumerate(row):
                    if isinstance(v, datetime):
                        fmt = day if (v.hour, v.minute) == (0, 0) else when
                        ws.write_datetime(r, c, v, fmt)
                    elif isinstance(v, str) and v:
                        if v.isdigit() and not v.startswith("0"):
                            ws.write_number(r, c, int(v))  # a slug typed as a number
                        else:
                            ws.write_string(r, c, v)
            ws.freeze_panes(FIRST_ROW - 1, 0)
    finally:
        wb.close()


def _shown(v: object) -> str:
    if isinstance(v, datetime):
        return v.strftime("%Y-%m-%d" if (v.hour, v.minute) == (0, 0) else "%Y-%m-%d %H:%M")
    return str(v)


def write_csv(path: Path) -> None:
    """Both tables in one sheet under the Spring headers, as Excel saves CSV UTF-8."""
    width = len(SPRING_HEADERS)
    with path.open("w", encoding="utf-8-sig", newline="") as fh:
        w = csv.writer(fh, lineterminator="\r\n")
        w.writerow(["Spring and summer campaigns 2026 — short links"] + [""] * (width - 1))
        w.writerow(["Owner: marketing. Times are UTC."] + [""] * (width - 1))
        w.writerow(SPRING_HEADERS)
        for row in SPRING:
            w.writerow([_shown(v) for v in row])
        for url, slug, memo, labels, exp, source, medium, campaign in SUMMER:
            w.writerow(
                [
                    _shown(v)
                    for v in (url, slug, memo, labels, exp, "", "", source, medium, campaign)
                ]
                + [""]
            )


def main() -> None:
    write_xlsx(HERE / "campaign.xlsx")
    write_csv(HERE / "campaign.csv")
    print(f"wrote {HERE / 'campaign.xlsx'} and {HERE / 'campaign.csv'}")


if __name__ == "__main__":
    main()
