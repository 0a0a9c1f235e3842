"""Column header words: the aliases of each field and the export columns ignored.

Headers are compared after ``normalize_header``: case-folded, with every space and
punctuation character removed, so ``Destination URL``, ``destination_url`` and
``DESTINATION-URL`` are the same column.

The aliases cover the words people use in campaign sheets and the column names of
other products' CSV exports, so such a file imports without a hand-written mapping:

- Bitly: its link records and exports use ``link`` / ``Bitlink`` (the short link),
  ``long_url``, ``title``, ``tags``, ``custom_bitlinks`` / "Custom back-half",
  ``created_at``, ``clicks`` (field list of the Bitlinks entity in Coupler.io's Bitly
  data overview; "back-half" is Bitly's own word in its API docs).
- Dub: "Link", "Domain", "Key", "URL" / "Destination URL", "Title", "Description",
  "Tags", "Expires At", "iOS", "Android", "Clicks", "Created At", "ID" (Dub's link
  export and its documented link fields: ``key``, ``domain``, ``url``, ``ios``,
  ``android``, ``expiresAt``).
- Short.io: "Original URL", "Short URL", "Path", "Title", "Tags", "Expires At",
  "iPhone URL" / "Android URL", "Password", "Created At", "Clicks" (its API fields
  ``originalURL``, ``path``, ``iphoneURL``, ``androidURL``; the shortcm-cli importer
  names "path", "original URL", "title", "created at" columns).
- Shlink: "Short URL", "Long URL", "Short code", "Title", "Tags", "Domain",
  "Created at", "Visits" (its short URL record: ``shortCode``, ``shortUrl``,
  ``longUrl``, ``dateCreated``, ``tags``, ``title``, ``domain``).

Headers marketers write in their own sheets are covered as well: "Campaign tags",
"Tags (comma separated)", "Short link ending", "Custom back-half", "Expiration".

Columns that are clearly metadata of an export (ids, click counts, creation dates,
QR codes, archive flags) are ignored silently; any other unknown column is reported
once per sheet.
"""

from __future__ import annotations

from linksync.model import LINK_FIELDS

#: Pseudo-field: a full short URL (``https://go.example.com/spring``), split into
#: domain and slug.
SHORT_URL = "short_url"

#: UTM parameters merged into the destination URL's query.
UTM_FIELDS: tuple[str, ...] = (
    "utm_source",
    "utm_medium",
    "utm_campaign",
    "utm_term",
    "utm_content",
)

#: Every field a column can feed, in a stable order.
COLUMN_FIELDS: tuple[str, ...] = (*LINK_FIELDS, SHORT_URL, *UTM_FIELDS)

#: Field -> header words, best first. When two columns of one sheet match the same
#: field, the one whose alias comes first wins and the other is reported as unknown.
ALIASES: dict[str, tuple[str, ...]] = {
    "url": (
        "url",
        "destination url",
        "destination",
        "long url",
        "original url",
        "target url",
        "target",
        "landing page",
        "landing page url",
        "landing url",
        "redirect url",
        "redirect to",
        "full url",
        "website",
        "web address",
        "link url",
        "destination link",
    ),
    "slug": (
        "slug",
        "key",
        "short code",
        "back-half",
        "custom back-half",
        "custom ending",
        "short link ending",
        "short url ending",
        "link ending",
        "url ending",
        "custom slug",
        "custom alias",
        "alias",
        "path",
        "keyword",
        "short key",
        "short path",
        "code",
        "vanity",
        "vanity url",
    ),
    "domain": (
        "domain",
        "short domain",
        "branded domain",
        "custom domain",
        "host",
        "hostname",
    ),
    "description": (
        "description",
        "title",
        "memo",
        "name",
        "link name",
        "label",
        "note",
        "notes",
        "comment",
        "comments",
        "link title",
    ),
    "tags": (
        "tags",
        "tag",
        "labels",
        "categories",
        "category",
        "keywords",
        # what marketers write: the separator said in the header
        "campaign tags",
        "link tags",
        "tags (comma separated)",
        "comma separated tags",
        "tags (separated by commas)",
        "tag list",
    ),
    "password": ("password", "link password", "passcode", "pass"),
    "expires_at": (
        "expires at",
        "expires",
        "expiry",
        "expiry date",
        "expiration",
        "expiration date",
        "expiration time",
        "expire at",
        "expire",
        "expires on",
        "end date",
        "valid until",
        "valid to",
    ),
    "apple": (
        "apple",
        "ios",
        "ios url",
        "ios link",
        "iphone url",
        "iphone",
        "apple url",
        "app store url",
        "ios destination",
        "ios redirect",
    ),
    "google": (
        "google",
        "android",
        "android url",
        "android link",
        "google play url",
        "play store url",
        "android destination",
        "android redirect",
    ),
    SHORT_URL: (
        "custom bitlinks",
        "custom bitlink",
        "short url",
        "short link",
        "shortened url",
        "short",
        "link",
        "bitlink",
        "bitly link",
        "tiny url",
    ),
    "utm_source": ("utm_source", "source", "campaign source"),
    "utm_medium": ("utm_medium", "medium", "campaign medium"),
    "utm_campaign": ("utm_campaign", "campaign", "campaign name"),
    "utm_term": ("utm_term", "term", "campaign term"),
    "utm_content": ("utm_content", "content", "campaign content"),
}

#: Export metadata columns ignored without a word.
IGNORED: tuple[str, ...] = (
    "id",
    "idstring",
    "link id",
    "clicks",
    "total clicks",
    "click count",
    "visits",
    "visits count",
    "engagements",
    "created",
    "created at",
    "created date",
    "date created",
    "creation date",
    "updated",
    "updated at",
    "modified",
    "last modified",
    "archived",
    "qr code",
    "qr",
    "has password",
    "status",
    "action",
    "result",
    "message",
    "error",
    "error constant",
    "error code",
    "http status",
    "request id",
    "attempts",
    "changed fields",
    "user",
    "created by",
    "owner",
    "group",
    "group guid",
    "workspace",
    "folder",
)
