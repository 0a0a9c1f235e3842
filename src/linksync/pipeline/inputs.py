"""A run's request made into what the layers below read: the engine's ``SyncOptions``
(``sync_options``: the ``SyncPolicy`` over the profile's) and how the sources are read
(``SourceReading``: the ``Reading`` over the profile's); reading and validating the
sources (the readers get ``ReadOptions``, made of the ``Reading`` fields it takes); refusing
sources with an error that belongs to no row, and a mirror over sources that did not
declare what it would delete (``refuse_undeclared``).

The readers and validation are imported when a run reads its sources, not with this
module (``linksync plan --help`` stays light); the Excel reader brings pandas only
when a workbook is read (a plan of YAML or CSV files loads numpy, not pandas; the CSV
reader loads it for a big file with quoted values only).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from typing import TYPE_CHECKING

from linksync.config.profiles import refuse_unknown
from linksync.errors import ConfigError, FileProblems, MirrorRefused
from linksync.model import LinkSpec, Problem, Severity
from linksync.model.utm_rules import UtmRules
from linksync.pipeline.collector import fewer_collections
from linksync.pipeline.fields import from_profile, given, over
from linksync.pipeline.request import Reading, SyncPolicy
from linksync.safe.secrets import Secrets

if TYPE_CHECKING:
    from linksync.api.network import Network
    from linksync.config import Settings
    from linksync.config.profiles import Profile
    from linksync.sources import ReadOptions, SourceBatch
    from linksync.sync.options import SyncOptions
    from linksync.validate import Validation

#: Source files (CSV, Excel, YAML, a folder of YAML), or the desired links themselves.
Sources = Sequence[str | PathLike[str] | LinkSpec]

#: Keys of a profile's ``limits:`` block (safety thresholds of plan/apply).
LIMIT_KEYS = frozenset({"max_deletes", "max_change_ratio", "min_existing"})
_READING_FIELDS = frozenset(Reading.__dataclass_fields__)


@dataclass(frozen=True)
class SourceReading:
    """How a run reads its sources: the ``Reading`` asked, over the profile's
    (``SourceReading.of``), and what the run adds to it: the team's UTM rules (the
    profile's ``utm_rules:``), the password of encrypted workbooks (``Reading``'s
    ``workbook_password``, else from ``--workbook-password-file``, else the variable
    the profile's ``workbook_password_env`` names), the proxy and TLS trust a destination check goes
    through, and ``progress(done, total)`` while it goes (``RunEvents.checking``)."""

    reading: Reading = field(default_factory=Reading)
    utm_rules: UtmRules | None = None
    workbook_password: str | None = field(default=None, repr=False, compare=False)
    network: Network | None = field(default=None, repr=False, compare=False)
    progress: Callable[[int, int], None] | None = field(default=None, repr=False, compare=False)
    #: A password a YAML file refers to and that cannot be read is an error on its
    #: link; False: a warning (``validate``, which may run where secrets are not).
    secrets_needed: bool = True

    @classmethod
    def of(
        cls,
        reading: Reading | None,
        profile: Profile,
        *,
        network: Network | None = None,
        progress: Callable[[int, int], None] | None = None,
        secrets_needed: bool = True,
    ) -> SourceReading:
        """``reading`` over ``profile``'s (a field left None: the profile's key);
        ``secrets_needed``: False for ``validate`` (``SourceReading.secrets_needed``)."""
        from linksync.sources.encrypted import workbook_password

        read = over(reading or Reading(), from_profile(Reading, profile))
        password = read.workbook_password or workbook_password(
            password_file=read.workbook_password_file, env_name=profile.workbook_password_env
        )
        return cls(read, profile.utm_rules, password, network, progress, secrets_needed)

    @classmethod
    def for_target(
        cls,
        reading: Reading | None,
        settings: Settings,
        *,
        progress: Callable[[int, int], None] | None = None,
    ) -> SourceReading:
        """``of`` the target's profile, a destination check going through the target's
        proxy and TLS trust."""
        from linksync.api.network import Network

        target = settings.target
        network = Network(target.proxy, target.ca_bundle, target.system_trust)
        return cls.of(reading, settings.profile, network=network, progress=progress)

    def without_checks(self) -> SourceReading:
        """Read for the passwords only (a saved plan's sources, ``saved_sources``): no
        destination check, every file given read whole."""
        asked = replace(self.reading, check_destinations=False, changed_since=None)
        return replace(self, reading=asked)


def source_paths(sources: Sources) -> list[str | PathLike[str]]:
    """The sources that are files (not LinkSpec objects)."""
    return [s for s in sources if not isinstance(s, LinkSpec)]


def load_specs(
    sources: Sources, reading: SourceReading | None = None, *, default_domain: str | None = None
) -> Validation:
    """Read (paths) or take (LinkSpec objects) the desired links and validate them."""
    return read_and_validate(sources, reading, default_domain=default_domain)[1]


@fewer_collections()
def read_and_validate(
    sources: Sources, reading: SourceReading | None = None, *, default_domain: str | None = None
) -> tuple[SourceBatch | None, Validation]:
    """``load_specs``, with what was read (None for LinkSpec objects): the sheets and
    files ``linksync validate`` summarises. The readers get the ``Reading`` fields that
    ``ReadOptions.build`` takes, by name."""
    from linksync.sources import read_sources

    setup = reading or SourceReading()
    items = list(sources)
    batch: SourceBatch | None = None
    if items and all(isinstance(s, LinkSpec) for s in items):
        read: SourceBatch | list[LinkSpec] = [s for s in items if isinstance(s, LinkSpec)]
    elif any(isinstance(s, LinkSpec) for s in items):
        raise ConfigError("give either source paths or LinkSpec objects, not both")
    else:
        batch = read = read_sources(source_paths(items), options=read_options(setup))
    validation = checked(read, setup, default_domain=default_domain)
    if not items:
        validation = replace(
            validation,
            problems=(NO_SOURCES, *validation.problems),
            file_problems=(NO_SOURCES, *validation.file_problems),
        )
    return batch, with_destinations(validation, setup)


def read_options(setup: SourceReading) -> ReadOptions:
    """What the readers are told: the ``Reading`` fields ``ReadOptions.build`` takes,
    by name, and the workbook password."""
    from linksync.sources import ReadOptions

    asked = setup.reading
    names = inspect.signature(ReadOptions.build).parameters.keys() & _READING_FIELDS
    names -= {"workbook_password"}  # as SourceReading resolved it: given below
    return ReadOptions.build(
        **{name: getattr(asked, name) for name in names},
        workbook_password=setup.workbook_password,
        secrets_needed=setup.secrets_needed,
    )


def checked(
    read: SourceBatch | Sequence[LinkSpec], setup: SourceReading, *, default_domain: str | None
) -> Validation:
    """``read`` validated as ``setup`` asks (``linksync.validate.validate``)."""
    from linksync.validate import validate

    asked = setup.reading
    return validate(
        read,
        fix_invisible=asked.fix_invisible,
        default_domain=default_domain,
        strict=bool(asked.strict),
        utm_rules=setup.utm_rules,
        fix_utm_case=asked.fix_utm_case,
    )


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


def with_destinations(validation: Validation, setup: SourceReading) -> Validation:
    """With ``check_destinations``: the findings of a destination check on the rows
    (``linksync.validate.dest_findings``), its summary in ``validation.notes``."""
    if not setup.reading.check_destinations:
        return validation
    from linksync.validate.dest_findings import check_destinations

    found, done = check_destinations(
        validation,
        strict=bool(setup.reading.strict),
        network=setup.network,
        progress=setup.progress,
    )
    return replace(found, notes=(*found.notes, done.summary()))


#: Characters a password a file refers to has at least to be looked for in what a run
#: writes (``source_secrets``): a shorter one would cut words out of every line.
MIN_SECRET_CHARS = 8


def source_secrets(validation: Validation) -> tuple[str, ...]:
    """The passwords the YAML files referred to (``{env: NAME}``, ``{file: PATH}``), as
    resolved: secrets of the run, redacted wherever they could appear (those of at
    least ``MIN_SECRET_CHARS``; none is ever written)."""
    found: set[str] = set()
    for frame in validation.frames:
        if frame.provenances is None:
            continue
        values = frame.values["password"]
        for i, prov in enumerate(frame.provenances):
            if prov.declared is not None and prov.declared.password_from:
                value = values[i]
                if isinstance(value, str) and len(value) >= MIN_SECRET_CHARS:
                    found.add(value)
    return tuple(found)


def keep_secrets(values: Sequence[str], secrets: Secrets, logger: logging.Logger) -> None:
    """Add ``values`` to the run's ``secrets`` and to those of the log's handlers."""
    for value in values:
        secrets.add(value)
        for handler in logger.handlers:
            if isinstance(getattr(handler, "secrets", None), Secrets):
                handler.secrets.add(value)  # type: ignore[attr-defined]


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
    """Raise ``MirrorRefused`` (exit 2, before any write) when a mirror's sources
    have a file-level error or declared nothing (``EMPTY_SOURCE``, whatever its
    severity): the deletes it would plan follow from no declaration. ``force`` does not
    pass it."""
    from linksync.sync.safety import mirror_refusal, undeclared

    if not options.deletes:
        return
    reason = mirror_refusal(validation.file_problems)
    if reason is not None:
        raise MirrorRefused(reason, undeclared(validation.file_problems))


def sync_options(policy: SyncPolicy, settings: Settings) -> SyncOptions:
    """The engine's options: ``policy`` over the profile's (its default domain, owner
    tag, slugless and ``limits:``), the system domain the profile or the built-in
    sandbox names when the policy names none."""
    from linksync.sync.options import SyncOptions

    refuse_unknown(settings.limits, LIMIT_KEYS, "profile limits")
    asked = given(over(policy, from_profile(SyncPolicy, settings.profile)))
    values = {k: v for k, v in asked.items() if k in SyncOptions.__dataclass_fields__}
    if "system_domain" not in values and settings.system_domain is not None:
        values["system_domain"] = settings.system_domain
    for name, kind in (("max_change_ratio", float), ("min_existing", int)):
        if name in values:
            values[name] = kind(values[name])
    return SyncOptions(**values)
