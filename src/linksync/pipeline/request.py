"""The run request: what a run is asked, in a few typed values.

``linksync.plan``, ``linksync.apply`` and their forms over targets take the sources (or
the targets), the target's settings and these values: frozen dataclasses whose fields
carry their line of help (``help(Reading)``, and the flag's ``--help``), the flag that
sets them and the profile key they fall back on (``linksync.pipeline.fields``)::

    linksync.apply(["links/"], settings, sync=SyncPolicy(mode="mirror", owner_tag="managed"))

``Reading``: how the sources are read and checked; ``SyncPolicy``: what the run may do;
``Notify``: the alert at the run's end; ``Outputs`` (``PlanOutputs``): what an apply (a
plan) writes; ``Hooks``: what a front end hears and says while the run goes;
``Connection``: how every target of a run over targets is reached.

A field left None (or an empty text or list) is "not given": the profile's setting
where the field names a profile key, else the default. The command line makes its
flags of the fields (``linksync.cli.flags``), the page builds the values from its
choices, a profile from its keys (``fields.from_profile``); a run lays the values given
over the profile's (``fields.over``); ``pipeline.inputs`` makes them into what the
readers and the engine read (``ReadOptions``, ``SyncOptions``).

A new option is its field here (help, flag, profile key) and its profile key
(``linksync.config.profiles``); ``tests/pipeline/test_request.py`` keeps the flags, the
keys and the fields in agreement.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from linksync.api.defaults import DEFAULT_CONCURRENCY, MAX_CONCURRENCY
from linksync.pipeline.fields import option, request_value

if TYPE_CHECKING:  # names of types only: the request loads neither engine nor writers
    from linksync.config import NetworkFlags
    from linksync.pipeline.events import RunEvents
    from linksync.pipeline.preflight import PathArg
    from linksync.sync.options import Mode
    from linksync.sync.results import CancelSignal, ProgressSink


@request_value
class Reading:
    """How the sources are read and checked (None: the profile's setting)."""

    sheets: Sequence[str] | None = option(
        "only these workbook sheets. A name with control or direction characters may be typed "
        "as linksync prints it (Links\\u202e\\u0007).",
        default=None,
        flag="--sheet",
    )
    mapping: Mapping[str, str] | None = option(
        "read column HEADER as FIELD (url, slug, domain, description, tags, password, "
        "expires_at, apple, google, short_url, utm_*; 'query' to merge its name=value&... "
        "cells into the URL; 'ignore' to skip it), over the profile's columns and the built-in "
        "aliases, for CSV and Excel.",
        default=None,
        flag="--map HEADER=FIELD",
        profile="columns",
    )
    encoding: str | None = option(
        "the encoding of CSV files (e.g. cp1252, cp1251, gb18030, shift_jis, utf-16); default: "
        "detected, with a warning (UNCERTAIN_ENCODING) when the guess is not certain; a short "
        "file that reads as text in several encodings is not read until this names one.",
        default=None,
        flag="--encoding ENCODING",
        profile="encoding",
    )
    date_format: str | None = option(
        "how to read dates that are not ISO 8601: dmy (31/12/2026), mdy (12/31/2026), iso or a "
        "strptime pattern (%d.%m.%Y). Without it such dates are errors.",
        default=None,
        flag="--date-format FORMAT",
        profile="date_format",
    )
    timezone: str | None = option(
        "the time zone of date-times written without one (Excel dates, CSV and YAML text such "
        "as 2027-03-31 23:59): an IANA name such as America/New_York; default UTC. A time with "
        "Z or an offset is kept as written.",
        default=None,
        flag="--timezone ZONE",
        profile="timezone",
    )
    empty_values: Sequence[str] | None = option(
        "read cells holding these texts (e.g. N/A, -, TBD; any case) as empty. Without it such "
        "placeholders are errors naming the cell.",
        default=None,
        flag="--empty-value TEXT",
        profile="empty_values",
    )
    workbook_password_file: PathArg | None = option(
        "the password of encrypted (password-protected) workbooks, read from this file (one "
        "trailing line break ignored); they are decrypted in memory. Never printed. Or name an "
        "environment variable holding it with the profile's workbook_password_env:.",
        default=None,
        flag="--workbook-password-file FILE",
    )
    workbook_password: str | None = option(
        "the password of encrypted workbooks itself, in memory only (the page's, over "
        "workbook_password_file); never shown, logged or saved.",
        default=None,
        repr=False,
    )
    include_hidden: bool | None = option(
        "read the rows a workbook hides (by a filter, or by hand), and its hidden sheets of "
        "links. Without it they are skipped and named: a warning per sheet, and each hidden "
        "row a skipped row of the plan, the reports and the annotated copy; a mirror deletes "
        "nothing meanwhile. Profile key: include_hidden: true.",
        default=None,
        flag="--include-hidden/--no-include-hidden",
        profile="include_hidden",
    )
    strict: bool | None = option(
        "every warning about the sources is an error (its row is not sent; a file-level one "
        "stops apply): for CI. --no-strict overrides a profile's strict: true.",
        default=None,
        flag="--strict/--no-strict",
        profile="strict",
    )
    fix_invisible: bool = option(
        "strip invisible characters (zero-width spaces, BOMs, bidi controls...) and report each "
        "fix as a warning, instead of marking the row invalid.",
        default=False,
        flag="--fix-invisible",
    )
    fix_utm_case: bool = option(
        "lower the case and replace spaces in UTM values the profile's utm_rules refuse, and "
        "report each fix as a warning, instead of marking the row invalid.",
        default=False,
        flag="--fix-utm-case",
    )
    check_destinations: bool | None = option(
        "request each distinct destination URL (and apple/google targets) once before anything "
        "is sent, politely (HEAD, 2 at a time per host, 20/s in all), and report dead ones on "
        "their rows: 404/410, other 4xx, 5xx, timeouts, DNS and TLS failures, redirect loops, "
        "redirects to another host, http:// to https://. Warnings (errors under --strict). A "
        "progress line on a terminal past 2 s. Profile key: check_destinations: true.",
        default=None,
        flag="--check-destinations/--no-check-destinations",
        profile="check_destinations",
    )
    changed_since: str | None = option(
        "read only the source files git says changed since REF (a branch, tag or commit: "
        "origin/main, HEAD~1; committed, staged or not, and untracked files), and their "
        "versions at REF; plan only the links declared differently (added, changed, removed: a "
        "mirror deletes only the removed ones, never links of files not read); validate checks "
        "every row of those files. Outside a git repository, or a REF git does not know: exit "
        "2. A full run (without it) stays the reconciliation: drift, hand edits.",
        default=None,
        flag="--changed-since REF",
    )


@request_value
class SyncPolicy:
    """What the run may do to the workspace (None: the profile's setting, else the
    default); made into the engine's ``SyncOptions`` over the profile's."""

    mode: Mode | str | None = option(
        "what the sync may do: upsert (default), create-only, update-only, mirror.",
        default=None,
        flag="--mode",
        choices="linksync.sync.options:MODES",
    )
    default_domain: str | None = option(
        "the domain of rows that name none.", default=None, profile="default_domain"
    )
    system_domain: str | None = option(
        "the service's own domain (default: the built-in sandbox's, or learnt from the workspace).",
        default=None,
        profile="system_domain",
    )
    scope_domains: Sequence[str] | None = option(
        "mirror scope: the only domains where links may be deleted.", default=None, flag="--domain"
    )
    owner_tag: str | None = option(
        "only links with this tag may be deleted; added to every link created.",
        default=None,
        flag="--owner-tag",
        profile="owner_tag",
    )
    allow_replace: bool | None = option(
        "delete and create again the links whose expiry differs.",
        default=None,
        flag="--allow-replace",
    )
    allow_takeover: bool | None = option(
        "update or delete links another owner tag marks (same prefix as --owner-tag).",
        default=None,
        flag="--allow-takeover",
    )
    reset_passwords: bool | None = option(
        "send passwords even when set already.", default=None, flag="--reset-passwords"
    )
    max_deletes: int | None = option(
        "refuse a plan with more deletes than this.",
        default=None,
        flag="--max-deletes",
        profile="limits.max_deletes",
        bounds=(0, None),
    )
    max_change_ratio: float | None = option(
        "refuse a plan changing more than this share of the links in scope (default 0.30).",
        default=None,
        profile="limits.max_change_ratio",
    )
    min_existing: int | None = option(
        "the ratio check applies from this many links in scope on (default 10).",
        default=None,
        profile="limits.min_existing",
    )
    force: bool | None = option(
        "apply even above the safety thresholds.", default=None, flag="--force"
    )
    slugless: str | None = option(
        "rows without a slug: stable (default: a slug derived from domain and URL, so runs "
        "racing on any number of machines make one link) or random (the service picks one; "
        "only the run lock on one machine prevents doubles).",
        default=None,
        flag="--slugless",
        profile="slugless",
        choices="linksync.sync.slugs:SLUGLESS_MODES",
    )
    ignore_changes: Sequence[str] | None = option(
        "fields left to people (url, description, tags, apple, google, password): sent when a "
        "link is created, never updated nor reported as drift; over the profile's and each "
        "file's own.",
        default=None,
        flag="--ignore-changes FIELD",
        profile="ignore_changes",
    )
    ignore: Sequence[str | Mapping[str, str]] | None = option(
        "links left alone, never created, updated nor deleted: slug patterns (promo-*) and "
        "tags (tag:NAME, or {'tag': NAME}); over the profile's, with each file's own.",
        default=None,
        flag="--ignore PATTERN",
        profile="ignore",
    )
    retire_to: str | None = option(
        "mirror mode: retire instead of delete: a link no source declares is pointed at URL "
        "and tagged 'retired' (printed codes keep working); counted as a delete by the safety "
        "limits.",
        default=None,
        flag="--retire-to URL",
        profile="retire_to",
    )
    ai_slug: bool = option("fill empty slugs from the AI tool.", default=False, flag="--ai-slug")
    ai_og: bool = option("fill empty descriptions from the AI tool.", default=False, flag="--ai-og")


@request_value
class Notify:
    """The alert at the run's end (``linksync.pipeline.notify``; None: the profile's)."""

    urls: Sequence[str] | None = option(
        "at the run's end, alert these apprise URLs (slack://, workflows:// for Teams, "
        "discord://, mailtos://, json://...), over the profile's. Secrets: never printed. Not "
        "delivered: a warning, the exit code unchanged. LINKSYNC_NOTIFY keeps them off the "
        "command line, separated by spaces or new lines.",
        default=None,
        flag="--notify URL",
        profile="notify",
        env="LINKSYNC_NOTIFY",
        repr=False,
    )
    on: str | Sequence[str] | None = option(
        "when to alert: failed, drift, stopped, always, comma-separated (default: failed,stopped).",
        default=None,
        flag="--notify-on WHEN",
        profile="notify_on",
    )


@request_value
class Outputs:
    """What an apply writes beside the workspace, and what it must never write."""

    reports: Sequence[PathArg] = option(
        "write a report to each of these files (.csv .xlsx .json .jsonl .md .xml).",
        default=(),
        flag="--report PATH",
    )
    annotate: Sequence[PathArg] = option(
        "write an annotated copy of each spreadsheet source here (same extension), in the order "
        "of the sources.",
        default=(),
        flag="--annotate PATH",
    )
    qr: PathArg | None = option(
        "write a QR code (SVG and PNG) of each short link to this .zip, and add a QR code column "
        "to the annotated copies.",
        default=None,
        flag="--qr FILE",
    )
    journal: PathArg | bool | None = option(
        "the run's journal, .jsonl (default .linksync/runs/<run-id>.jsonl; in Python False: none).",
        default=None,
        flag="--journal PATH",
    )
    lock: PathArg | bool | None = option(
        "the lock file against overlapping runs (default: one per target, in the user's state "
        "folder; LINKSYNC_STATE_DIR moves it; in Python False: none).",
        default=None,
        flag="--lock PATH",
    )
    lock_wait: float = option(
        "wait this long for another run's lock instead of exiting 2 at once.",
        default=0,
        flag="--lock-wait SECONDS",
        bounds=(0, None),
    )
    reads: Sequence[PathArg] = option(
        "more files the run must never write (a front end's uploads).", default=()
    )


@request_value
class PlanOutputs:
    """What a plan gives beside its ``Planned``."""

    out: PathArg | None = option(
        "save the plan as JSON (.json) here, for apply --plan (apply(plan=...)): checked before "
        "the first request, written atomically; with several targets one file each "
        "(plans/{target}.json).",
        default=None,
        flag="--out PATH",
    )
    detailed_exitcode: bool = option(
        "exit 3 (exit_code 3) when the plan has changes.", default=False, flag="--detailed-exitcode"
    )


@request_value
class Hooks:
    """What a front end hears and says while the run goes (none: a scheduler's run)."""

    events: RunEvents | None = option(
        "a RunEvents: what the front end is told, and the plan's confirmation (default: nothing "
        "told, every plan confirmed).",
        default=None,
    )
    on_progress: ProgressSink | None = option(
        "a ProgressSink told of each row an apply sends and of the rate limiter's wait.",
        default=None,
    )
    cancel: CancelSignal | None = option(
        "set it from any thread: an apply stops sending and keeps its reports.", default=None
    )
    logger: logging.Logger | None = option(
        "the run's structured events (default: logging.getLogger('linksync')).", default=None
    )


@request_value
class Connection:
    """How every target of a run over targets is reached (over each target's profile)."""

    insecure: bool = option(
        "allow plain http:// to a host other than localhost.", default=False, flag="--insecure"
    )
    concurrency: int | None = option(
        f"requests in flight at most (default {DEFAULT_CONCURRENCY}), per target: a ceiling; "
        "below it about rate x latency are kept in flight, new connections opened a few at a "
        "time.",
        default=None,
        flag="--concurrency",
        bounds=(1, MAX_CONCURRENCY),
    )
    proxy: str | None = option(
        "send every request through this proxy, http://[user:pass@]host:port [profile proxy:; "
        "else env HTTPS_PROXY, HTTP_PROXY, ALL_PROXY with NO_PROXY].",
        default=None,
        flag="--proxy URL",
        repr=False,
    )
    ca_bundle: str | None = option(
        "trust the CA certificates of this PEM file for https [profile ca_bundle:; else env "
        "SSL_CERT_FILE / SSL_CERT_DIR, or the bundled CAs].",
        default=None,
        flag="--ca-bundle FILE",
    )
    system_trust: bool = option(
        "trust what the operating system trusts (its certificate store, as browsers do) "
        "[profile trust: system].",
        default=False,
        flag="--system-trust",
    )

    @property
    def network(self) -> NetworkFlags:
        from linksync.config import NetworkFlags

        return NetworkFlags(self.proxy, self.ca_bundle, self.system_trust)
