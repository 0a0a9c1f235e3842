"""The page's words for the column step: what each field a column can feed is called
in the list beside each column. The columns themselves, with the field each feeds, how
it was matched and example values, are ``linksync.sources.preview``'s ``SheetPreview``
values, as ``linksync.pipeline.checking.check`` returns them."""

from __future__ import annotations

from linksync.sources.aliases import COLUMN_FIELDS, SHORT_URL

#: Each field a column can feed, in words for the list (``COLUMN_FIELDS`` order).
FIELD_LABELS: dict[str, str] = {
    "url": "Destination URL",
    "slug": "Slug (back-half)",
    "domain": "Domain",
    "description": "Title / description",
    "tags": "Tags",
    "password": "Password",
    "expires_at": "Expiry date",
    "apple": "iOS URL",
    "google": "Android URL",
    SHORT_URL: "Full short link (domain and slug)",
    "utm_source": "UTM source",
    "utm_medium": "UTM medium",
    "utm_campaign": "UTM campaign",
    "utm_term": "UTM term",
    "utm_content": "UTM content",
}
assert tuple(FIELD_LABELS) == COLUMN_FIELDS, "one label per field a column can feed"
