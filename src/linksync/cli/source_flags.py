"""Flags of how sources are read, shared by ``validate``, ``plan`` and ``apply``.

Each flag has a profile key of the same meaning (``columns``, ``encoding``,
``date_format``, ``empty_values``, ``strict``, ``check_destinations``,
``include_hidden``, and ``workbook_password_env`` for
``--workbook-password-file``); a flag given wins over the profile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from linksync.cli.common import F, with_options
from linksync.errors import ConfigError

_FLAGS: tuple[Callable[[F], F], ...] = (
    click.option(
        "--map",
        "maps",
        multiple=True,
        metavar="HEADER=FIELD",
        help="Read column HEADER as FIELD (url, slug, domain, description, tags, password, "
        "expires_at, apple, google, short_url, utm_*; 'query' to merge its name=value&... "
        "cells into the URL; 'ignore' to skip); repeatable. Overrides the profile's "
        "columns: and the built-in aliases, for CSV and Excel.",
    ),
    click.option(
        "--encoding",
        metavar="ENCODING",
        help="Encoding of CSV files (e.g. cp1252, cp1251, gb18030, shift_jis, utf-16); "
        "default: detected, with a warning (UNCERTAIN_ENCODING) when the guess is not "
        "certain; a short file that reads as text in several encodings is not read "
        "until this names one.",
    ),
    click.option(
        "--date-format",
        metavar="FORMAT",
        help="How to read dates that are not ISO 8601: dmy (31/12/2026), mdy (12/31/2026) "
        "or a strptime pattern (%d.%m.%Y). Without it such dates are errors.",
    ),
    click.option(
        "--timezone",
        metavar="ZONE",
        help="Time zone of date-times written without one (Excel dates, CSV and YAML "
        "text such as 2027-03-31 23:59): an IANA name such as America/New_York; "
        "default UTC. A time with Z or an offset is kept as written.",
    ),
    click.option(
        "--empty-value",
        "empty_values",
        multiple=True,
        metavar="TEXT",
        help="Read cells holding TEXT (e.g. N/A, -, TBD; any case) as empty; repeatable. "
        "Without it such placeholders are errors naming the cell.",
    ),
    click.option(
        "--workbook-password-file",
        metavar="FILE",
        type=click.Path(dir_okay=False),
        help="The password of encrypted (password-protected) workbooks, read from FILE "
        "(one trailing line break ignored); they are decrypted in memory. Never printed. "
        "Or name an environment variable holding it with the profile's "
        "workbook_password_env:.",
    ),
    click.option(
        "--include-hidden/--no-include-hidden",
        default=None,
        help="Read the rows a workbook hides (by a filter, or by hand). Without it they "
        "are skipped and named: a warning per sheet, and each one a skipped row of the "
        "plan, the reports and the annotated copy. Profile key: include_hidden: true.",
    ),
    click.option(
        "--strict/--no-strict",
        default=None,
        help="Every warning about the sources is an error (its row is not sent; a "
        "file-level one stops apply): for CI. --no-strict overrides a profile's "
        "strict: true.",
    ),
    click.option(
        "--check-destinations/--no-check-destinations",
        default=None,
        help="Request each distinct destination URL (and apple/google targets) once "
        "before anything is sent, politely (HEAD, 2 at a time per host, 20/s in all), and "
        "report dead ones on their rows: 404/410, other 4xx, 5xx, timeouts, DNS and TLS "
        "failures, redirect loops, redirects to another host, http:// to https://. "
        "Warnings (errors under --strict). A progress line on a terminal past 2 s. "
        "Profile key: check_destinations: true.",
    ),
)


def source_flags(fn: F) -> F:
    """Add the flags; the command receives maps, encoding, date_format, timezone,
    empty_values, workbook_password_file, include_hidden, strict, check_destinations."""
    return with_options(fn, _FLAGS)


def parse_maps(pairs: tuple[str, ...]) -> dict[str, str]:
    """``("Ziel=url",)`` -> ``{"Ziel": "url"}``."""
    out: dict[str, str] = {}
    for pair in pairs:
        header, sep, fname = pair.rpartition("=")
        if not sep or not header.strip():
            raise ConfigError(f"--map expects HEADER=FIELD (got {pair!r})")
        out[header.strip()] = fname.strip()
    return out


def pop_source_flags(kw: dict[str, Any]) -> dict[str, Any]:
    """Take the flags out of a command's keyword arguments, as ``linksync.plan`` and
    ``linksync.apply`` take them."""
    return {
        "mapping": parse_maps(tuple(kw.pop("maps", ()) or ())),
        "encoding": kw.pop("encoding", None),
        "date_format": kw.pop("date_format", None),
        "timezone": kw.pop("timezone", None),
        "empty_values": tuple(kw.pop("empty_values", ()) or ()),
        "workbook_password_file": kw.pop("workbook_password_file", None),
        "include_hidden": kw.pop("include_hidden", None),
        "strict": kw.pop("strict", None),
        "check_destinations": kw.pop("check_destinations", None),
    }
