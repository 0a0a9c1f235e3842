"""What a run is asked: the sync options (the caller's over the profile's defaults) and
the reading options of its sources; reading and validating the sources; refusing
sources with an error that belongs to no row, and a mirror over sources that did not
declare what it would delete (``refuse_undeclared``).

The readers and validation are imported when a run reads its sources, not with this
module (``linksync plan --help`` stays light); the spreadsheet readers bring pandas
only when a spreadsheet is read (a plan of YAML files loads numpy, not pandas).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from typing import TYPE_CHECKING, Any

from linksync.config import Settings
from linksync.config.profiles import refuse_unknown
from linksync.errors import ConfigError, FileProblems, MirrorRefused
from linksync.model import LinkSpec, Problem, Severity
from linksync.model.utm_rules import UtmRules
from linksync.pipeline.collector import fewer_collections
from linksync.sync.options import SyncOptions
from linksync.sync.safety import mirror_refusal, undeclared
from linksync.sync.slugs import Slugless

if TYPE_CHECKING:
    from linksync.api.network import Network
    from linksync.config.profiles import Profile
    from linksync.sources import SourceBatch
    from linksync.validate import Validation

#: Source files (CSV, Excel, YAML, a folder of YAML), or the desired links themselves.
Sources = Sequence[str | PathLike[str] | LinkSpec]

#: Keys of a profile's ``limits:`` block (safety thresholds of plan/apply).
LIMIT_KEYS = frozenset({"max_deletes", "max_change_ratio", "min_existing"})


@dataclass(frozen=True, slots=True)
class Reading:
    """How the sources are read: ``--sheet``, ``--map HEADER=FIELD``, ``--encoding``,
    ``--date-format``, ``--empty-value``, ``--strict``, ``--fix-invisible``,
    ``--workbook-password-file`` (None or empty: the profile's setting, else the
    default). ``workbook_password`` is what ``over`` read from the file, or from the
    variable the profile's ``workbook_password_env`` names."""

    sheets: Sequence[str] | None = None
    mapping: Mapping[str, str] | None = None
    encoding: str | None = None
    date_format: str | None = None
    timezone: str | None = None
    empty_values: Iterable[str] = ()
    strict: bool | None = None
    fix_invisible: bool = False
    #: ``--fix-utm-case``; ``utm_rules``: the profile's (set by ``over``).
    fix_utm_case: bool = False
    utm_rules: UtmRules | None = None
    workbook_password_file: str | PathLike[str] | None = None
    workbook_password: str | None = field(default=None, repr=False, compare=False)
    #: ``--include-hidden`` (None: the profile's ``include_hidden:``).
    include_hidden: bool | None = None
    #: ``--check-destinations`` (None: the profile's ``check_destinations:``), and the
    #: proxy and TLS trust of the target the check uses (``over`` sets it).
    check_destinations: bool | None = None
    network: Network | None = field(default=None, repr=False, compare=False)
    #: ``progress(done, total)`` while destinations are checked (``RunEvents.checking``).
    destination_progress: Callable[[int, int], None] | None = field(
        default=None, repr=False, compare=False
    )

    def over(self, settings: Settings) -> Reading:
        """These options over the profile's (``columns``, ``encoding``, ``date_format``,
        ``timezone``, ``empty_values``, ``strict``, ``workbook_password_env``,
        ``utm_rules``, ``check_destinations``, ``include_hidden``), the destination check
        going through the target's proxy and TLS trust."""
        from linksync.api.network import Network

        target = settings.target
        network = self.network or Network(target.proxy, target.ca_bundle, target.system_trust)
        return self.over_profile(settings.profile, network=network)

    def over_profile(self, prof: Profile, *, network: Network | None = None) -> Reading:
        """``over`` for a profile alone (``linksync validate``: no target)."""
        from linksync.sources.encrypted import workbook_password

        password = self.workbook_password or workbook_password(
            password_file=self.workbook_password_file, env_name=prof.workbook_password_env
        )
        columns = {**{str(k): str(v) for k, v in prof.columns.items()}, **(self.mapping or {})}
        return replace(
            self,
            mapping=columns or None,
            encoding=self.encoding or prof.encoding,
            date_format=self.date_format or prof.date_format,
            timezone=self.timezone or prof.timezone,
            empty_values=tuple(self.empty_values) or prof.empty_values,
            strict=prof.strict if self.strict is None else self.strict,
            workbook_password=password,
            include_hidden=(
                prof.include_hidden if self.include_hidden is None else self.include_hidden
            ),
            utm_rules=self.utm_rules or prof.utm_rules,
            check_destinations=(
                prof.check_destinations
                if self.check_destinations is None
                else self.check_destinations
            ),
            network=network or self.network,
        )


def source_paths(sources: Sources) -> list[str | PathLike[str]]:
    """The sources that are files (not LinkSpec objects)."""
    return [s for s in sources if not isinstance(s, LinkSpec)]


def load_specs(
    sources: Sources, reading: Reading | None = None, *, default_domain: str | None = None
) -> Validation:
    """Read (paths) or take (LinkSpec objects) the desired links and validate them."""
    return read_and_validate(sources, reading, default_domain=default_domain)[1]


@fewer_collections()
def read_and_validate(
    sources: Sources, reading: Reading | None = None, *, default_domain: str | None = None
) -> tuple[SourceBatch | None, Validation]:
    """``load_specs``, with what was read (None for LinkSpec objects): the sheets and
    files ``linksync validate`` summarises."""
    from linksync.sources import ReadOptions, read_sources
    from linksync.validate import validate

    reading = reading or Reading()
    items = list(sources)
    batch: SourceBatch | None = None
    if items and all(isinstance(s, LinkSpec) for s in items):
        read: SourceBatch | list[LinkSpec] = [s for s in items if isinstance(s, LinkSpec)]
    elif any(isinstance(s, LinkSpec) for s in items):
        raise ConfigError("give either source paths or LinkSpec objects, not both")
    else:
        options = ReadOptions.build(
            sheets=reading.sheets,
            mapping=reading.mapping,
            encoding=reading.encoding,
            date_format=reading.date_format,
            timezone=reading.timezone,
            empty_values=reading.empty_values,
            workbook_password=reading.workbook_password,
            include_hidden=bool(reading.include_hidden),
        )
        batch = read = read_sources(source_paths(items), options=options)
    validation = validate(
        read,
        fix_invisible=reading.fix_invisible,
        default_domain=default_domain,
        strict=bool(reading.strict),
        utm_rules=reading.utm_rules,
        fix_utm_case=reading.fix_utm_case,
    )
    if not items:
        validation = replace(
            validation,
            problems=(NO_SOURCES, *validation.problems),
            file_problems=(NO_SOURCES, *validation.file_problems),
        )
    return batch, _destinations(validation, reading)


#: The file-level problem of a run given no source at all (an empty list of LinkSpec
#: objects): it declares nothing, so a mirror refuses it (``refuse_undeclared``).
NO_SOURCES = Problem(
    "EMPTY_SOURCE",
    "no sources given (an empty list declares no link; to empty a mirror's scope, plan "
    "from a file that says `links: []`)",
    None,
    None,
    Severity.WARNING,
)


def _destinations(validation: Validation, reading: Reading) -> Validation:
    """With ``check_destinations``: the findings of a destination check on the rows
    (``linksync.validate.dest_findings``), its summary in ``validation.notes``."""
    if not reading.check_destinations:
        return validation
    from linksync.validate.dest_findings import check_destinations

    checked, done = check_destinations(
        validation,
        strict=bool(reading.strict),
        network=reading.network,
        progress=reading.destination_progress,
    )
    return replace(checked, notes=(*checked.notes, done.summary()))


def refuse_file_errors(validation: Validation) -> None:
    """Raise ``FileProblems`` when the sources have an error that belongs to no row."""
    errors = [p for p in validation.file_problems if p.severity is Severity.ERROR]
    if errors:
        first = errors[0]
        raise FileProblems(
            f"{first.where()}: {first.message} (the sources have file-level errors; "
            "nothing applied)",
            validation.file_problems,
            path=first.provenance.source if first.provenance else None,
        )


def refuse_undeclared(validation: Validation, options: SyncOptions) -> None:
    """Raise ``MirrorRefused`` (exit 2, before any request) when a mirror's sources
    have a file-level error or declared nothing (``EMPTY_SOURCE``, whatever its
    severity): the deletes it would plan follow from no declaration. ``force`` does not
    pass it."""
    if not options.deletes:
        return
    reason = mirror_refusal(validation.file_problems)
    if reason is not None:
        raise MirrorRefused(reason, undeclared(validation.file_problems))


def options_from(settings: Settings, options: SyncOptions | None, **given: Any) -> SyncOptions:
    """Options: the caller's, else the profile's defaults (domain, owner tag, limits),
    overridden by ``given`` values (``SyncOptions`` fields) that are not None."""
    if options is not None:
        base = options
    else:
        limits = settings.limits
        refuse_unknown(limits, LIMIT_KEYS, "profile limits")
        base = SyncOptions(
            default_domain=settings.default_domain,
            owner_tag=settings.owner_tag,
            slugless=Slugless(settings.slugless or Slugless.STABLE),
            max_deletes=limits.get("max_deletes"),
            max_change_ratio=float(limits.get("max_change_ratio", 0.30)),
            min_existing=int(limits.get("min_existing", 10)),
        )
    changes = {k: v for k, v in given.items() if v is not None}
    if base.system_domain is None and settings.system_domain is not None:
        changes.setdefault("system_domain", settings.system_domain)
    return replace(base, **changes) if changes else base
