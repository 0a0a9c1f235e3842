"""Flags of how sources are read, shared by ``validate``, ``plan`` and ``apply``.

Each flag sets a field of the run's ``linksync.pipeline.request.Reading`` (the field
names the flag, and the profile key of the same meaning: ``columns``, ``encoding``,
``date_format``, ``empty_values``, ``strict``, ``check_destinations``,
``include_hidden``; ``workbook_password_env`` for ``--workbook-password-file``); a flag
given wins over the profile. ``--changed-since`` has no profile key: the ref is the
run's, never the same from one run to the next.
"""

from __future__ import annotations

from collections.abc import Callable

import click

from linksync.cli.common import F, with_options

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
    click.option(
        "--changed-since",
        metavar="REF",
        help="Read only the source files git says changed since REF (a branch, tag or "
        "commit: origin/main, HEAD~1; committed, staged or not, and untracked files), and "
        "their versions at REF; plan only the links declared differently (added, changed, "
        "removed: a mirror deletes only the removed ones, never links of files not read); "
        "validate checks every row of those files. Outside a git repository, or a REF git "
        "does not know: exit 2. A full run (without it) stays the reconciliation: drift, "
        "hand edits.",
    ),
)


def source_flags(fn: F) -> F:
    """Add the flags; the command turns them into its ``Reading`` with
    ``given_flags`` (``linksync.cli.common``)."""
    return with_options(fn, _FLAGS)
