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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from linksync.pipeline.fields import documented, meta, normalize
from linksync.pipeline.preflight import PathArg
from linksync.sync.options import Mode

if TYPE_CHECKING:
    from linksync.config import NetworkFlags
    from linksync.pipeline.events import RunEvents
    from linksync.sync.results import CancelSignal, ProgressSink


@documented
@dataclass(frozen=True)
class Reading:
    """How the sources are read and checked (None: the profile's setting)."""

    sheets: Sequence[str] | None = field(
        default=None, metadata=meta("only these workbook sheets.", flag="--sheet")
    )
    mapping: Mapping[str, str] | None = field(
        default=None,
        metadata=meta(
            "{HEADER: FIELD}: read column HEADER as FIELD ('ignore' skips it), over the "
            "profile's columns.",
            flag="--map",
            profile="columns",
        ),
    )
    encoding: str | None = field(
        default=None,
        metadata=meta(
            "the encoding of CSV files (default: detected).", flag="--encoding", profile="encoding"
        ),
    )
    date_format: str | None = field(
        default=None,
        metadata=meta(
            "dmy, mdy, iso or a strptime pattern, for dates that are not ISO 8601.",
            flag="--date-format",
            profile="date_format",
        ),
    )
    timezone: str | None = field(
        default=None,
        metadata=meta(
            "the IANA zone of date-times written without one (default UTC).",
            flag="--timezone",
            profile="timezone",
        ),
    )
    empty_values: Sequence[str] | None = field(
        default=None,
        metadata=meta(
            "cell texts read as empty (N/A, -, TBD).", flag="--empty-value", profile="empty_values"
        ),
    )
    workbook_password_file: PathArg | None = field(
        default=None,
        metadata=meta(
            "the password of encrypted workbooks, read from this file (else from the variable "
            "the profile's workbook_password_env names).",
            flag="--workbook-password-file",
        ),
    )
    include_hidden: bool | None = field(
        default=None,
        metadata=meta(
            "read the rows a workbook hides (else they are skipped, and named).",
            flag="--include-hidden/--no-include-hidden",
            profile="include_hidden",
        ),
    )
    strict: bool | None = field(
        default=None,
        metadata=meta(
            "every warning about the sources is an error.",
            flag="--strict/--no-strict",
            profile="strict",
        ),
    )
    fix_invisible: bool = field(
        default=False,
        metadata=meta("strip invisible characters (each fix warned).", flag="--fix-invisible"),
    )
    fix_utm_case: bool = field(
        default=False,
        metadata=meta(
            "lower the case and replace spaces in UTM values the profile's utm_rules refuse "
            "(each fix warned).",
            flag="--fix-utm-case",
        ),
    )
    check_destinations: bool | None = field(
        default=None,
        metadata=meta(
            "request each destination URL first and report dead ones on their rows.",
            flag="--check-destinations/--no-check-destinations",
            profile="check_destinations",
        ),
    )

    def __post_init__(self) -> None:
        normalize(self)
        if self.mapping is not None:  # a profile's columns: may be numbers in YAML
            object.__setattr__(self, "mapping", {str(k): str(v) for k, v in self.mapping.items()})


@documented
@dataclass(frozen=True)
class SyncPolicy:
    """What the run may do to the workspace (None: the profile's setting, else the
    default); made into the engine's ``SyncOptions`` over the profile's."""

    mode: Mode | str | None = field(
        default=None,
        metadata=meta(
            "what the sync may do: upsert (default), create-only, update-only, mirror.",
            flag="--mode",
        ),
    )
    default_domain: str | None = field(
        default=None, metadata=meta("the domain of rows that name none.", profile="default_domain")
    )
    system_domain: str | None = field(
        default=None,
        metadata=meta(
            "the service's own domain (default: the built-in sandbox's, or learnt from "
            "the workspace).",
            profile="system_domain",
        ),
    )
    scope_domains: Sequence[str] | None = field(
        default=None,
        metadata=meta(
            "mirror scope: the only domains where links may be deleted.", flag="--domain"
        ),
    )
    owner_tag: str | None = field(
        default=None,
        metadata=meta(
            "only links with this tag may be deleted; added to every link created.",
            flag="--owner-tag",
            profile="owner_tag",
        ),
    )
    allow_replace: bool | None = field(
        default=None,
        metadata=meta(
            "delete and create again the links whose expiry differs.", flag="--allow-replace"
        ),
    )
    allow_takeover: bool | None = field(
        default=None,
        metadata=meta("update or delete links another owner tag marks.", flag="--allow-takeover"),
    )
    reset_passwords: bool | None = field(
        default=None,
        metadata=meta("send passwords even when set already.", flag="--reset-passwords"),
    )
    max_deletes: int | None = field(
        default=None,
        metadata=meta(
            "refuse a plan with more deletes than this.",
            flag="--max-deletes",
            profile="limits.max_deletes",
        ),
    )
    max_change_ratio: float | None = field(
        default=None,
        metadata=meta(
            "refuse a plan changing more than this share of the links in scope (default 0.30).",
            profile="limits.max_change_ratio",
        ),
    )
    min_existing: int | None = field(
        default=None,
        metadata=meta(
            "the ratio check applies from this many links in scope on (default 10).",
            profile="limits.min_existing",
        ),
    )
    force: bool | None = field(
        default=None, metadata=meta("apply even above the safety thresholds.", flag="--force")
    )
    slugless: str | None = field(
        default=None,
        metadata=meta(
            "rows without a slug: stable (a slug derived from domain and URL; default) or "
            "random (the service picks one).",
            flag="--slugless",
            profile="slugless",
        ),
    )
    ai_slug: bool = field(
        default=False, metadata=meta("fill empty slugs from the AI tool.", flag="--ai-slug")
    )
    ai_og: bool = field(
        default=False, metadata=meta("fill empty descriptions from the AI tool.", flag="--ai-og")
    )

    def __post_init__(self) -> None:
        normalize(self)


@documented
@dataclass(frozen=True)
class Notify:
    """The alert at the run's end (``linksync.pipeline.notify``; None: the profile's)."""

    urls: Sequence[str] | None = field(  # tokens: no repr
        default=None,
        repr=False,
        metadata=meta(
            "apprise URLs to alert (slack://, workflows://, mailtos://, json://...); secrets, "
            "never printed.",
            flag="--notify",
            profile="notify",
        ),
    )
    on: Sequence[str] | str | None = field(
        default=None,
        metadata=meta(
            "when: failed, drift, stopped, always (default failed and stopped).",
            flag="--notify-on",
            profile="notify_on",
        ),
    )

    def __post_init__(self) -> None:
        normalize(self)


@documented
@dataclass(frozen=True)
class Outputs:
    """What an apply writes beside the workspace, and what it must never write."""

    reports: Sequence[PathArg] = field(
        default=(),
        metadata=meta("report files (.csv .xlsx .json .jsonl .md .xml).", flag="--report"),
    )
    annotate: Sequence[PathArg] = field(
        default=(),
        metadata=meta("an annotated copy of each spreadsheet source, in order.", flag="--annotate"),
    )
    qr: PathArg | None = field(
        default=None, metadata=meta("a zip of QR codes of the short links.", flag="--qr")
    )
    journal: PathArg | bool | None = field(
        default=None,
        metadata=meta(
            "None: .linksync/runs/<run-id>.jsonl; a path; False: none.", flag="--journal"
        ),
    )
    lock: PathArg | bool | None = field(
        default=None,
        metadata=meta("None: the target's own lock; a path; False: none.", flag="--lock"),
    )
    lock_wait: float = field(
        default=0.0, metadata=meta("seconds to wait for another run's lock.", flag="--lock-wait")
    )
    reads: Sequence[PathArg] = field(
        default=(), metadata=meta("more files the run must never write (a front end's uploads).")
    )

    def __post_init__(self) -> None:
        normalize(self)


@documented
@dataclass(frozen=True)
class PlanOutputs:
    """What a plan gives beside its ``Planned``."""

    out: PathArg | None = field(
        default=None,
        metadata=meta(
            "save the plan as JSON here (checked before the first request, written "
            "atomically), for apply(plan=...).",
            flag="--out",
        ),
    )
    detailed_exitcode: bool = field(
        default=False,
        metadata=meta("exit_code 3 when the plan has changes.", flag="--detailed-exitcode"),
    )

    def __post_init__(self) -> None:
        normalize(self)


@documented
@dataclass(frozen=True)
class Hooks:
    """What a front end hears and says while the run goes (none: a scheduler's run)."""

    events: RunEvents | None = field(
        default=None,
        metadata=meta(
            "a RunEvents: what the front end is told, and the plan's confirmation (default: "
            "nothing told, every plan confirmed)."
        ),
    )
    on_progress: ProgressSink | None = field(
        default=None,
        metadata=meta(
            "a ProgressSink told of each row an apply sends and of the rate limiter's wait."
        ),
    )
    cancel: CancelSignal | None = field(
        default=None,
        metadata=meta("set it from any thread: an apply stops sending and keeps its reports."),
    )
    logger: logging.Logger | None = field(
        default=None,
        metadata=meta("the run's structured events (default: logging.getLogger('linksync'))."),
    )


@documented
@dataclass(frozen=True)
class Connection:
    """How every target of a run over targets is reached (over each target's profile)."""

    insecure: bool = field(
        default=False,
        metadata=meta("allow plain http:// to a host other than localhost.", flag="--insecure"),
    )
    concurrency: int | None = field(
        default=None, metadata=meta("requests in flight at most, per target.", flag="--concurrency")
    )
    proxy: str | None = field(  # may hold credentials: no repr
        default=None,
        repr=False,
        metadata=meta(
            "send every request through this proxy, http://[user:pass@]host:port.", flag="--proxy"
        ),
    )
    ca_bundle: str | None = field(
        default=None,
        metadata=meta("trust the CA certificates of this PEM file for https.", flag="--ca-bundle"),
    )
    system_trust: bool = field(
        default=False,
        metadata=meta("trust what the operating system trusts.", flag="--system-trust"),
    )

    @property
    def network(self) -> NetworkFlags:
        from linksync.config import NetworkFlags

        return NetworkFlags(self.proxy, self.ca_bundle, self.system_trust)
