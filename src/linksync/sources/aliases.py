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
"Tags (comma separated)", "Short link ending", "Custom back-half", "Expiration", and
the same in German, French, Spanish, Italian, Dutch and Portuguese ("Ziel-URL",
"Lien court", "Descripción", "Data di scadenza").

Columns that are clearly metadata of an export (ids, click counts, creation dates,
QR codes) are not read, and listed as such; any other unknown column is reported once
per sheet.

Two kinds of header are read with care:

- ``LOOSE``: aliases that are common words, meaning the field in one sheet and
  something else in the next ("Notes", "Name", "Content", "Campaign", "Source",
  "Target", "Pass"). A column matched by one is listed as a guess; a guess into a field
  that changes where the link sends or who may open it (``HELD_FIELDS``: the URL, a
  ``utm_*`` parameter, the query, the password) is not read at all until the header is
  the field's exact name (``utm_content``, "UTM Content", "Campaign content") or the
  column is mapped (``--map Content=utm_content``).
- ``ROW_STATES``: headers that read as the state of a row ("Status", "Action",
  "Archived", "Active"...). linksync does not act on them: a cell whose value asks for
  something else than sending the row ("cancelled", "delete", ``TRUE`` under
  "Archived") is a warning on its row, unless the column is mapped (``--map
  Status=ignore``).
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

#: Pseudo-field: a column read as a whole query string (``--map Campaign=query``), each
#: ``name=value`` pair merged into the destination URL. Only ever chosen, never guessed.
QUERY = "query"

#: Pseudo-field of the columns whose header reads as a row state (``ROW_STATES``): their
#: cells are read only to say on each row that linksync does not act on them.
ROW_STATE = "row_state"

#: Every field a column can feed, in a stable order (and ``QUERY``, which only a
#: mapping names).
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

#: The same headers in German, French, Spanish, Italian, Dutch and Portuguese, as
#: campaign sheets and localised exports write them (ranked after the English words;
#: with and without accents). A localised short link column is split as any other: a
#: cell holding only a back-half is an error on its row, never a generated slug.
_LOCALISED: dict[str, tuple[str, ...]] = {
    "url": (
        "ziel-url", "zieladresse", "lange url", "url de destination", "url longue",
        "url cible", "url de destino", "url larga", "url di destinazione", "url lunga",
        "doel-url", "bestemmings-url", "url longa",
    ),
    SHORT_URL: (
        "kurzlink", "kurz-url", "lien court", "url courte", "lien raccourci", "enlace corto",
        "url corta", "link breve", "url breve", "korte link", "korte url", "link curto",
        "url curta",
    ),
    "description": (
        "beschreibung", "descripción", "descripcion", "descrizione", "beschrijving",
        "omschrijving", "descrição", "descricao",
    ),
    "tags": (
        "schlagwörter", "schlagworte", "étiquettes", "etiquettes", "mots-clés", "mots-cles",
        "etiquetas", "etichette",
    ),
    "expires_at": (
        "ablaufdatum", "gültig bis", "gueltig bis", "läuft ab", "date d'expiration",
        "date d'échéance", "fecha de caducidad", "fecha de vencimiento", "data di scadenza",
        "scadenza", "vervaldatum", "verloopt op", "data de expiração", "data de expiracao",
        "data de validade",
    ),
}  # fmt: skip
ALIASES = {f: (*words, *_LOCALISED.get(f, ())) for f, words in ALIASES.items()}

#: Aliases of ``ALIASES`` that are loose words (see module docstring): a column matched
#: by one is a guess. Every other alias names its field unmistakably: the field's own
#: name, its API name, a column of another product's export, or a phrase of the
#: field ("Destination URL", "Back-half", "Campaign source", "UTM Campaign").
LOOSE: dict[str, tuple[str, ...]] = {
    "url": ("target", "website"),
    "slug": ("key", "code", "path", "alias", "keyword", "vanity"),
    "domain": ("host",),
    "description": ("memo", "name", "label", "note", "notes", "comment", "comments"),
    "tags": ("labels", "categories", "category", "keywords"),
    "password": ("pass",),
    "expires_at": ("end date",),
    SHORT_URL: ("short", "link"),
    "utm_source": ("source",),
    "utm_medium": ("medium",),
    "utm_campaign": ("campaign",),
    "utm_term": ("term",),
    "utm_content": ("content",),
}

#: Fields a loose guess is never applied to: they change where the link sends (the
#: URL, its query and UTM parameters) or who may open it (the password).
HELD_FIELDS: frozenset[str] = frozenset({"url", "password", QUERY, *UTM_FIELDS})

#: Values of a row-state column that agree with sending the row as declared.
_YES = ("true", "yes", "y", "1", "on", "x")
_NO = ("false", "no", "n", "0", "off")
_FINE = ("active", "live", "enabled", "on", "ok", "published", "approved", "ready", "yes", "true")
_SEND = ("create", "update", "upsert", "keep", "add", "new", "sync")

#: Headers that read as a row's state -> the values that agree with sending the row
#: (compared case-insensitively); any other value is a warning on its row.
ROW_STATES: dict[str, tuple[str, ...]] = {
    "status": _FINE,
    "state": _FINE,
    "link status": _FINE,
    "row status": _FINE,
    "action": _SEND,
    "active": _YES,
    "is active": _YES,
    "enabled": _YES,
    "enable": _YES,
    "live": _YES,
    "is live": _YES,
    "published": _YES,
    "approved": _YES,
    "include": _YES,
    "archived": _NO,
    "is archived": _NO,
    "archive": _NO,
    "inactive": _NO,
    "disabled": _NO,
    "delete": _NO,
    "deleted": _NO,
    "to delete": _NO,
    "remove": _NO,
    "removed": _NO,
    "cancelled": _NO,
    "canceled": _NO,
    "paused": _NO,
    "hidden": _NO,
    "skip": _NO,
    "exclude": _NO,
}

#: The columns linksync appends to an annotated copy of a sheet
#: (``linksync.report.annotate``): read again, its "Status" is linksync's own, not a
#: row state.
ANNOTATION_RUN: tuple[str, ...] = ("short link", "status", "error")

#: Export metadata columns: not read, and listed as such.
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
    "qr code",
    "qr",
    "has password",
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
