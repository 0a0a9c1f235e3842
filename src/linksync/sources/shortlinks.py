"""A short-link column (``https://go.example.com/spring``) read into domain and slug.

The short link fills the slug and the domain where their own columns are empty. Where
it cannot be split (a query string, a fragment, a path of several segments, not a URL)
or where it disagrees with the slug column or the domain column of the same row, the
row is an error naming the cell (and both values): nothing is guessed or generated in
its place, and neither column wins in silence. Slugs compare as the service compares
them (case-insensitively), domains as host names (lower case).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from linksync.model import Severity
from linksync.rules import strip_invisible
from linksync.sources.cleaning import factorize
from linksync.sources.columns import map_flag
from linksync.sources.normalize import short_url_parts

#: (index in the frame, field, constant, message, severity, column header).
ShortFinding = tuple[int, str, str, str, Severity, str]


def _shown(text: str) -> str:
    return repr(text if len(text) <= 80 else text[:79] + "…")


def split_short(
    short: np.ndarray,
    values: dict[str, np.ndarray],
    n: int,
    headers: Mapping[str, str],
) -> list[ShortFinding]:
    """Fill ``values["domain"]`` and ``values["slug"]`` from the short links (module
    docstring); returns the findings. ``headers``: field -> header of the short-link,
    slug and domain columns the sheet has."""
    factor_codes, uniques = factorize(short)
    parts = [short_url_parts(u) for u in uniques]
    domain = values.get("domain")
    slug = values.get("slug")
    new_domain = domain.copy() if domain is not None else np.full(n, None, dtype=object)
    new_slug = slug.copy() if slug is not None else np.full(n, None, dtype=object)
    head = headers["short_url"]
    found: list[ShortFinding] = []
    for i in np.flatnonzero(factor_codes >= 0).tolist():
        got = parts[factor_codes[i]]
        if isinstance(got, str):
            message = (
                f"the short link {_shown(str(short[i]))} cannot be split into a domain and a "
                f"slug: {got}; a short link is https://DOMAIN/SLUG with nothing after the "
                "slug (or give the slug in its own column); nothing is sent for this row"
            )
            found.append((i, "slug", "INVALID_FIELD", message, Severity.ERROR, head))
            continue
        host, path = got
        if new_domain[i] is None:
            new_domain[i] = host
        elif _fold(str(new_domain[i])) != _fold(host):
            other = headers.get("domain", "domain")
            found.append(_disagree(i, "domain", other, str(new_domain[i]), head, host, short[i]))
        if new_slug[i] is None:
            new_slug[i] = path
        elif _fold(str(new_slug[i])) != _fold(path):
            other = headers.get("slug", "slug")
            found.append(_disagree(i, "slug", other, str(new_slug[i]), head, path, short[i]))
    values["domain"] = new_domain
    values["slug"] = new_slug
    return found


def _fold(slug: str) -> str:
    return strip_invisible(slug).casefold()


def _disagree(
    i: int, fname: str, other: str, value: str, head: str, part: str, short: object
) -> ShortFinding:
    message = (
        f'columns "{other}" and "{head}" disagree on the {fname}: {_shown(value)} in '
        f'"{other}", {_shown(part)} in "{head}" ({_shown(str(short))}); correct one of '
        f"them, or read one column only ({map_flag(head, 'ignore')})"
    )
    return (i, fname, "CONFLICTING_COLUMNS", message, Severity.ERROR, head)
