"""The run request: what a run is asked, in a few typed values.

``linksync.plan``, ``linksync.apply`` and their forms over targets take the sources (or
the targets), the target's settings and these values: frozen dataclasses whose fields
carry their line of help (``help(Reading)``), the flag that sets them and the profile
key they fall back on (``linksync.pipeline.fields``)::

    linksync.apply(
        ["links/"],
        settings,
        reading=Reading(date_format="dmy", check_destinations=True),
        sync=SyncPolicy(mode="mirror", owner_tag="managed"),
        outputs=Outputs(reports=["out/results.csv"]),
    )

``Reading``: how the sources are read and checked. ``SyncPolicy``: what the run may do
to the workspace. ``Notify``: the alert at the run's end. ``Outputs``: what an apply
writes beside the workspace (``PlanOutputs``: a plan's). ``Hooks``: what a front end
hears and says while the run goes. ``Connection``: how every target of a run over
targets is reached (one run has it in its resolved ``settings``).

A field left None (or an empty text or list) is "not given": the profile's setting
where the field names a profile key, else the default. The command line builds these
values from its flags (``fields.from_flags``), the page from its choices, a profile
from its keys (``fields.from_profile``); a run lays the values given over the
profile's (``fields.over``). The values a lower layer reads stay there: the readers
get ``linksync.sources.options.ReadOptions``, the engine
``linksync.sync.options.SyncOptions``, both made of these by ``pipeline.inputs``.

A new option is written in three places: its field here (its help, flag and profile
key), its flag (``linksync.cli``), its profile key (``linksync.config.profiles``);
``tests/pipeline/test_request.py`` keeps the three in agreement.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

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
        "only these workbook sheets.", default=None, flag="--sheet"
    )
    mapping: Mapping[str, str] | None = option(
        "{HEADER: FIELD}: read column HEADER as FIELD ('ignore' skips it), over the profile's "
        "columns.",
        default=None,
        flag="--map",
        profile="columns",
    )
    encoding: str | None = option(
        "the encoding of CSV files (default: detected).",
        default=None,
        flag="--encoding",
        profile="encoding",
    )
    date_format: str | None = option(
        "dmy, mdy, iso or a strptime pattern, for dates that are not ISO 8601.",
        default=None,
        flag="--date-format",
        profile="date_format",
    )
    timezone: str | None = option(
        "the IANA zone of date-times written without one (default UTC).",
        default=None,
        flag="--timezone",
        profile="timezone",
    )
    empty_values: Sequence[str] | None = option(
        "cell texts read as empty (N/A, -, TBD).",
        default=None,
        flag="--empty-value",
        profile="empty_values",
    )
    workbook_password_file: PathArg | None = option(
        "the password of encrypted workbooks, read from this file (else from the variable the "
        "profile's workbook_password_env names).",
        default=None,
        flag="--workbook-password-file",
    )
    workbook_password: str | None = option(
        "the password of encrypted workbooks itself, held in memory only (a front end's, as "
        "the page asks for it; over workbook_password_file); never shown, logged or saved.",
        default=None,
        repr=False,
    )
    include_hidden: bool | None = option(
        "read the rows a workbook hides (else they are skipped, and named).",
        default=None,
        flag="--include-hidden/--no-include-hidden",
        profile="include_hidden",
    )
    strict: bool | None = option(
        "every warning about the sources is an error.",
        default=None,
        flag="--strict/--no-strict",
        profile="strict",
    )
    fix_invisible: bool = option(
        "strip invisible characters (each fix warned).", default=False, flag="--fix-invisible"
    )
    fix_utm_case: bool = option(
        "lower the case and replace spaces in UTM values the profile's utm_rules refuse (each "
        "fix warned).",
        default=False,
        flag="--fix-utm-case",
    )
    check_destinations: bool | None = option(
        "request each destination URL first and report dead ones on their rows.",
        default=None,
        flag="--check-destinations/--no-check-destinations",
        profile="check_destinations",
    )
    changed_since: str | None = option(
        "a git ref: read only the source files changed since it (and their versions there), "
        "and plan only the links declared differently (linksync.pipeline.changed).",
        default=None,
        flag="--changed-since",
    )


@request_value
class SyncPolicy:
    """What the run may do to the workspace (None: the profile's setting, else the
    default); made into the engine's ``SyncOptions`` over the profile's."""

    mode: Mode | str | None = option(
        "what the sync may do: upsert (default), create-only, update-only, mirror.",
        default=None,
        flag="--mode",
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
        "update or delete links another owner tag marks.", default=None, flag="--allow-takeover"
    )
    reset_passwords: bool | None = option(
        "send passwords even when set already.", default=None, flag="--reset-passwords"
    )
    max_deletes: int | None = option(
        "refuse a plan with more deletes than this.",
        default=None,
        flag="--max-deletes",
        profile="limits.max_deletes",
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
        "rows without a slug: stable (a slug derived from domain and URL; default) or random "
        "(the service picks one).",
        default=None,
        flag="--slugless",
        profile="slugless",
    )
    ignore_changes: Sequence[str] | None = option(
        "fields left to people (url, description, tags, apple, google, password): sent when a "
        "link is created, never updated nor reported as drift; over each file's own.",
        default=None,
        flag="--ignore-changes",
        profile="ignore_changes",
    )
    ignore: Sequence[str | Mapping[str, str]] | None = option(
        "links left alone, never created, updated nor deleted: slug patterns (promo-*) and "
        "tags (tag:NAME, or {'tag': NAME}); with every file's defaults: ignore:.",
        default=None,
        flag="--ignore",
        profile="ignore",
    )
    retire_to: str | None = option(
        "mirror mode: instead of deleting a link no source declares, point it at this URL "
        "and tag it retired.",
        default=None,
        flag="--retire-to",
        profile="retire_to",
    )
    ai_slug: bool = option("fill empty slugs from the AI tool.", default=False, flag="--ai-slug")
    ai_og: bool = option("fill empty descriptions from the AI tool.", default=False, flag="--ai-og")


@request_value
class Notify:
    """The alert at the run's end (``linksync.pipeline.notify``; None: the profile's)."""

    urls: Sequence[str] | None = option(
        "apprise URLs to alert (slack://, workflows://, mailtos://, json://...); secrets, never "
        "printed.",
        default=None,
        flag="--notify",
        profile="notify",
        repr=False,
    )
    on: Sequence[str] | str | None = option(
        "when: failed, drift, stopped, always (default failed and stopped).",
        default=None,
        flag="--notify-on",
        profile="notify_on",
    )


@request_value
class Outputs:
    """What an apply writes beside the workspace, and what it must never write."""

    reports: Sequence[PathArg] = option(
        "report files (.csv .xlsx .json .jsonl .md .xml).", default=(), flag="--report"
    )
    annotate: Sequence[PathArg] = option(
        "an annotated copy of each spreadsheet source, in order.", default=(), flag="--annotate"
    )
    qr: PathArg | None = option("a zip of QR codes of the short links.", default=None, flag="--qr")
    journal: PathArg | bool | None = option(
        "None: .linksync/runs/<run-id>.jsonl; a path; False: none.", default=None, flag="--journal"
    )
    lock: PathArg | bool | None = option(
        "None: the target's own lock; a path; False: none.", default=None, flag="--lock"
    )
    lock_wait: float = option(
        "seconds to wait for another run's lock.", default=0.0, flag="--lock-wait"
    )
    reads: Sequence[PathArg] = option(
        "more files the run must never write (a front end's uploads).", default=()
    )


@request_value
class PlanOutputs:
    """What a plan gives beside its ``Planned``."""

    out: PathArg | None = option(
        "save the plan as JSON here (checked before the first request, written atomically), for "
        "apply(plan=...).",
        default=None,
        flag="--out",
    )
    detailed_exitcode: bool = option(
        "exit_code 3 when the plan has changes.", default=False, flag="--detailed-exitcode"
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
        "requests in flight at most, per target.", default=None, flag="--concurrency"
    )
    proxy: str | None = option(
        "send every request through this proxy, http://[user:pass@]host:port.",
        default=None,
        flag="--proxy",
        repr=False,
    )
    ca_bundle: str | None = option(
        "trust the CA certificates of this PEM file for https.", default=None, flag="--ca-bundle"
    )
    system_trust: bool = option(
        "trust what the operating system trusts.", default=False, flag="--system-trust"
    )

    @property
    def network(self) -> NetworkFlags:
        from linksync.config import NetworkFlags

        return NetworkFlags(self.proxy, self.ca_bundle, self.system_trust)
