"""The one table of error constants (see ``linksync.errors``): for each constant its
HTTP status and code, meaning, origin, whether it is retried and what it stops for the
rest of a run. The lowest module of the package: the exception tree
(``linksync.errors.tree``) reads it, and names the class an answer raises for each
constant that has its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Origin(StrEnum):
    """Where a constant comes from."""

    SERVICE = "service"  # in the service interface's error table
    DESIGN = "design"  # decided where the interface says "not shown" (docs/service.md)
    LOCAL = "local"  # found by linksync itself, never sent by the service


class Stop(StrEnum):
    """What a failure stops for the rest of a run (the executor reads it)."""

    RUN = "run"  # nothing more is sent
    WRITES = "writes"  # no write can succeed: the run stops too
    CREATES = "creates"  # no more creates or replaces; updates and deletes go on


@dataclass(frozen=True, slots=True)
class ErrorDef:
    """One constant: HTTP status and code (service constants), what it means, where it
    comes from, whether it is retried, and what it stops for the rest of a run
    (``stops``, with ``stop_reason``: the words of the summary)."""

    constant: str
    http_status: int | None
    code: int | None
    meaning: str
    origin: Origin
    retryable: bool = False
    stops: Stop | None = None
    stop_reason: str | None = None


def _local(*found: tuple[str, str]) -> tuple[ErrorDef, ...]:
    """linksync's own findings, as (constant, meaning): no HTTP status or code, never
    retried, stopping nothing."""
    return tuple(
        ErrorDef(constant, None, None, meaning, Origin.LOCAL) for constant, meaning in found
    )


_TABLE: tuple[ErrorDef, ...] = (
    ErrorDef(
        "INVALID_URL",
        400,
        40001,
        "Destination URL malformed or without http:// or https://",
        Origin.SERVICE,
    ),
    ErrorDef(
        "INVALID_SLUG",
        400,
        40002,
        "Invalid characters or longer than 2,048 bytes",
        Origin.SERVICE,
    ),
    ErrorDef("RESERVED_SLUG", 400, 40003, "Slug reserved for system use", Origin.SERVICE),
    ErrorDef(
        "INVALID_EXPIRY",
        400,
        40004,
        "Expiry in the past or not valid ISO 8601",
        Origin.SERVICE,
    ),
    ErrorDef(
        "UNAUTHORIZED",
        401,
        40101,
        "Missing or invalid bearer credential",
        Origin.SERVICE,
        stops=Stop.RUN,
        stop_reason="the API key was refused (401 UNAUTHORIZED)",
    ),
    ErrorDef(
        "FORBIDDEN",
        403,
        40301,
        "Key lacks write permission",
        Origin.SERVICE,
        stops=Stop.WRITES,
        stop_reason="the API key may not write (403 FORBIDDEN)",
    ),
    ErrorDef(
        "QUOTA_EXCEEDED",
        403,
        40302,
        "Plan's link limit or custom domain allocation exceeded",
        Origin.SERVICE,
        stops=Stop.CREATES,
        stop_reason="the link quota is used up (403 QUOTA_EXCEEDED)",
    ),
    ErrorDef(
        "LINK_NOT_FOUND",
        404,
        40401,
        "Slug not present on the specified domain",
        Origin.SERVICE,
    ),
    ErrorDef(
        "DOMAIN_NOT_FOUND",
        404,
        40402,
        "Custom domain not registered in this workspace",
        Origin.SERVICE,
    ),
    ErrorDef(
        "SLUG_EXISTS",
        409,
        40901,
        "Slug already used on the chosen domain",
        Origin.SERVICE,
    ),
    ErrorDef(
        "RATE_LIMITED",
        429,
        42901,
        "Request rate above the plan's limit",
        Origin.SERVICE,
        retryable=True,
    ),
    ErrorDef(
        "INTERNAL_ERROR",
        500,
        50001,
        "Unexpected edge error; retry with exponential backoff",
        Origin.SERVICE,
        retryable=True,
    ),
    ErrorDef(
        "EDGE_UNAVAILABLE",
        503,
        50301,
        "Transient edge fault; retry after a short delay",
        Origin.SERVICE,
        retryable=True,
    ),
    # --- decided where the interface says "not shown" (docs/service.md) ----------------
    ErrorDef(
        "INVALID_REQUEST",
        400,
        40000,
        "Bad JSON, wrong types, invalid role or host name, or a field that cannot change",
        Origin.DESIGN,
    ),
    ErrorDef("NOT_FOUND", 404, 40400, "Unknown route", Origin.DESIGN),
    ErrorDef("DOMAIN_EXISTS", 409, 40902, "Custom domain already registered", Origin.DESIGN),
    ErrorDef("MEMBER_EXISTS", 409, 40903, "Member or invitation already exists", Origin.DESIGN),
    # --- local: linksync's own findings; never sent by the service ---------------------
    *_local(
        ("MISSING_URL", "Row has no destination URL"),
        (
            "EMPTY_SOURCE",
            "A source holds nothing to read (an empty file or sheet, a header without rows, "
            "a folder without link files) or files a folder source does not read",
        ),
        (
            "MISSING_URL_COLUMN",
            "No column of destination URLs among the headers of a file or sheet",
        ),
        ("UNKNOWN_COLUMN", "A column (or YAML key) linksync does not know is ignored"),
        (
            "GUESSED_COLUMN",
            "A column whose header is a loose word for the URL, a utm_* parameter or the "
            "password is not read until it is mapped (--map HEADER=FIELD)",
        ),
        (
            "ROW_STATE_COLUMN",
            "A column whose header reads as a row state (Status, Action, Archived) holds a "
            "value linksync does not act on: the row is sent as declared",
        ),
        (
            "REPEATED_HEADER",
            "A row inside the data repeats the header (two tables on one sheet): it and the "
            "rows under it are not read",
        ),
        (
            "SECTION_TITLE",
            "A title row between rows of links (one cell after an empty row, such as "
            '"Old links (do not use)"): it and the rows under it are not read',
        ),
        (
            "UNKNOWN_KEY",
            "A YAML key linksync does not know: that link (a key of a link) or that file (a "
            "top-level or defaults: key) is not sent",
        ),
        (
            "COMMENT_IN_VALUE",
            "YAML reads a #word after a plain value as a comment (url: https://e.com/p #top): "
            "the value may be cut short, so that link (or that file, in defaults:) is not sent",
        ),
        ("CONFLICTING_COLUMNS", "Two columns give the same field and their values differ"),
        (
            "URL_PARAM_REPLACED",
            "A column (utm_*) replaced a parameter the destination URL already had",
        ),
        (
            "URL_PARAM_ADDED",
            "A column read as the whole query (--map HEADER=query) added parameters to the "
            "destination URL",
        ),
        (
            "UTM_QUERY_VALUE",
            "A utm_* cell holds a query string or a URL, not one value",
        ),
        (
            "MIXED_ENCODING",
            "A file mixes UTF-8 lines and lines in another encoding (read as cp1252)",
        ),
        (
            "UNCHECKED_FORMAT",
            "The workbook format (.xls, .xlsb, .ods) hides error cells, number formats, "
            "hyperlinks, formulas without a saved value, hidden rows, merged cells and "
            "struck-through cells, so they are not checked",
        ),
        (
            "FORMULA_WITHOUT_VALUE",
            "A formula cell has no saved value (a workbook a program wrote, never opened and "
            "saved in Excel), so what it shows is not known",
        ),
        ("HIDDEN_ROW", "A row the workbook hides (by a filter or by hand) is not read"),
        ("HIDDEN_COLUMN", "A column the workbook hides is read"),
        ("HIDDEN_SHEET", "A sheet the workbook hides holds links and is not read"),
        (
            "UNREAD_SHEET",
            "A sheet without a header naming its columns holds web addresses and is not read",
        ),
        ("STRUCK_THROUGH", "A cell is struck through, as a cancelled row is often marked"),
        ("MERGED_CELLS", "A merged cell over several data rows gives its value to each"),
        (
            "DATE_ORDER",
            'A header names the order of its dates ("Expires (MM/DD/YYYY)"): they are read '
            "in that order, or the file is refused when the date format reads another",
        ),
        (
            "AMBIGUOUS_TIME",
            "A local date-time occurs twice in the time zone (clocks set back): the first "
            "occurrence is used",
        ),
        (
            "PASSWORD_NOT_IN_PLAN",
            "A saved plan holds no link passwords: the sources must be given to apply it",
        ),
        (
            "PASSWORD_NOT_SENT",
            "A row gives a password for a link that has one, which the service never shows "
            "and no run from this machine recorded: not sent (--reset-passwords)",
        ),
        (
            "MISSING_SECRET",
            "A password a YAML file refers to ({env: NAME}, {file: PATH}) cannot be read: the "
            "variable is not set, the file is missing or empty (a warning under validate)",
        ),
        (
            "SECRET_IN_SOURCE",
            "A password is written in clear in a YAML file (in git for everyone who can read "
            "it): refer to it instead, {env: NAME}",
        ),
        (
            "UNCERTAIN_ENCODING",
            "A file is not UTF-8 and its encoding is not certain: read as the likeliest with a "
            "warning, or not read when its text is too short to tell; name it with --encoding "
            "(or the profile's encoding:)",
        ),
        ("DUPLICATE_IN_SOURCE", "Same domain and slug declared twice in the sources"),
        ("INVALID_FIELD", "A value has the wrong type or shape (tags, description, password, ...)"),
        # --- the team's UTM rules (utm_rules:, linksync.validate.utm) ---------------------
        ("UTM_MISSING", "A UTM parameter the team's utm_rules require is missing from the URL"),
        (
            "UTM_NOT_ALLOWED",
            "A UTM value is not among the utm_rules' allowed values, or does not match its pattern",
        ),
        (
            "UTM_CASE",
            "A UTM value is not lowercase as the utm_rules want (or was lowered: --fix-utm-case)",
        ),
        (
            "UTM_SPACES",
            "A UTM value has spaces the utm_rules forbid (or they were replaced: --fix-utm-case)",
        ),
        ("UTM_TOO_LONG", "A UTM value is longer than the utm_rules' max_length"),
        ("AMBIGUOUS_MATCH", "A row without slug matches several links with the same URL"),
        ("DOMAIN_NOT_ACTIVE", "Custom domain is registered but not active yet"),
        ("REPLACE_REQUIRED", "expiresAt differs and cannot be patched; run with --allow-replace"),
        (
            "OWNED_BY_OTHER",
            "The link is marked by another owner's tag; the write would take it over "
            "(--allow-takeover)",
        ),
        (
            "OWNER_TAG_UNUSED",
            "No link of the workspace and no row carries the owner tag: a mirror scoped by "
            "it deletes nothing (a misspelt tag?)",
        ),
        ("STALE_PLAN", "The remote link changed since the saved plan was made"),
        (
            "PLAN_MISMATCH",
            "The saved plan does not fit this apply (another workspace, a source not its own "
            "or changed since, an option it was not made with): nothing done; plan again",
        ),
        ("QUOTA_WOULD_EXCEED", "Creating this row would pass the plan's link quota"),
        (
            "NOT_ATTEMPTED",
            "Row not attempted: an earlier failure stopped the run or this kind of write",
        ),
    ),
    ErrorDef(
        "INTERRUPTED",
        None,
        None,
        "The run was interrupted (Ctrl-C, or cancelled from the page): no new requests, "
        "those in flight finished",
        Origin.LOCAL,
        stops=Stop.RUN,
        stop_reason="the run was interrupted",
    ),
    ErrorDef(
        "TRANSPORT_ERROR",
        None,
        None,
        "No HTTP response: connection refused, reset or timed out",
        Origin.LOCAL,
        retryable=True,
    ),
    ErrorDef(
        "CERTIFICATE_ERROR",
        None,
        None,
        "The service's TLS certificate did not verify (an unknown CA, a name mismatch, "
        "expired): trust its CA (SSL_CERT_FILE, --ca-bundle) or the system's store",
        Origin.LOCAL,
        stops=Stop.RUN,
        stop_reason="the service's TLS certificate was refused (CERTIFICATE_ERROR)",
    ),
    ErrorDef(
        "PROXY_AUTH_ERROR",
        None,
        None,
        "The proxy refused linksync's credentials or asked for some (407, or 401 to "
        "CONNECT): give them in the proxy URL (--proxy, proxy:, HTTPS_PROXY)",
        Origin.LOCAL,
        stops=Stop.RUN,
        stop_reason="the proxy refused linksync's credentials (PROXY_AUTH_ERROR)",
    ),
    *_local(
        (
            "UNEXPECTED_RESPONSE",
            "The service answered something that is not its error shape (proxy page, empty body)",
        ),
        # --- what ended a whole target of a run over several (linksync.model.outcome) ------------
        ("CONFIG_ERROR", "A profile, target, flag, variable or output is wrong: nothing done"),
        ("LOCK_HELD", "Another linksync run holds the lock of this workspace: nothing done"),
        ("UNSAFE_PLAN", "The plan crosses a safety threshold: nothing done; --force to apply"),
        (
            "MIRROR_REFUSED",
            "A mirror's source was not read, declared nothing or has a file-level problem: "
            "nothing deleted, nothing done (--force does not pass it)",
        ),
        ("FILE_ERROR", "A file the run reads or writes cannot be used (missing, no access)"),
        ("UNEXPECTED_ERROR", "linksync failed in a way it does not foresee (a bug)"),
        # --- a destination check (--check-destinations; linksync.validate.destinations) ------
        ("DEST_NOT_FOUND", "The destination answers 404 Not Found or 410 Gone"),
        ("DEST_CLIENT_ERROR", "The destination answers another 4xx status (401, 403, 429)"),
        ("DEST_SERVER_ERROR", "The destination answers a 5xx status: its server fails"),
        ("DEST_TIMEOUT", "The destination does not answer within the check's timeout"),
        ("DEST_UNREACHABLE", "The destination's host is not found or refuses connections"),
        ("DEST_TLS_ERROR", "The destination's HTTPS certificate is not trusted, or TLS fails"),
        ("DEST_REDIRECT_LOOP", "The destination redirects in a loop, or past the hop limit"),
        ("DEST_OTHER_HOST", "The destination redirects to another host (the final URL shown)"),
        ("DEST_HTTPS_AVAILABLE", "An http:// destination redirects to https://: use that"),
        (
            "DEST_UTM_DROPPED",
            "The destination redirects to a URL without utm_* parameters the row's URL carries",
        ),
    ),
)

ERRORS: dict[str, ErrorDef] = {e.constant: e for e in _TABLE}
"""Every constant, keyed by name."""

BY_CODE: dict[int, ErrorDef] = {e.code: e for e in _TABLE if e.code is not None}
"""Service and design constants, keyed by five-digit code."""


def code_of(constant: str) -> int | None:
    e = ERRORS.get(constant)
    return e.code if e else None
