"""What an apply may ask of a saved plan: a stricter mode, tighter limits, ``--force``.

A saved plan is applied as it was made. ``options_for_saved`` takes what an apply was
given (keywords or flags, and the profile's ``limits:``) and returns the options the
plan runs with, or refuses (``SavedPlanMismatch``: exit 2, nothing done), naming every
conflict at once:

- a limit (``max_deletes``, ``max_change_ratio``, ``min_existing``) only tightens: the
  tightest of the plan's, the profile's and the flag's holds, and the thresholds are
  judged again with it (``rejudge``), as for a fresh plan; a looser one is a note, and
  the plan's limit holds;
- a mode other than the plan's is refused when it does what the plan's mode did not
  (the plan never planned those writes), or when the plan holds writes it does not do
  (``--mode create-only`` on a plan with updates or deletes); a stricter mode that
  the plan's writes fit is applied;
- an option that shapes the plan (scope, owner tag, default domain, replace, takeover,
  passwords, slugless, what is left to people) must be the plan's own: another value
  is refused;
- ``--force`` at apply time passes the thresholds; the plan's own ``force`` holds only
  while no limit was tightened at apply time.

The config file may have changed since the plan was made: ``config_conflicts`` names
each option that shapes a plan which the profile now sets (an ``ignore:`` entry added,
another ``owner_tag`` or ``default_domain``) to a value the plan was not made with, so
an apply never writes what the config file now says to leave alone or put elsewhere.
The plan records what the profile gave when it was made (``config_record``), so a
plan made with a flag over the profile's value still applies.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from linksync.errors import ConfigError, SavedPlanMismatch
from linksync.model import Action
from linksync.sync.options import Mode, SyncOptions
from linksync.sync.plan import Plan
from linksync.sync.safety import threshold_reason

#: The limits an apply may tighten.
LIMITS: tuple[str, ...] = ("max_deletes", "max_change_ratio", "min_existing")
#: The options that shape a plan: given to its apply, they must be the plan's.
SHAPING: tuple[str, ...] = (
    "default_domain",
    "system_domain",
    "scope_domains",
    "owner_tag",
    "allow_replace",
    "allow_takeover",
    "reset_passwords",
    "slugless",
    "ignore_changes",
    "ignore",
    "retire_to",
)
#: The flag of an option (the library's keyword for those without one).
FLAGS: Mapping[str, str] = {
    "mode": "--mode",
    "scope_domains": "--domain",
    "owner_tag": "--owner-tag",
    "allow_replace": "--allow-replace",
    "allow_takeover": "--allow-takeover",
    "reset_passwords": "--reset-passwords",
    "max_deletes": "--max-deletes",
    "slugless": "--slugless",
    "retire_to": "--retire-to",
    "force": "--force",
    "ignore_changes": "--ignore-changes",
    "ignore": "--ignore",
}
_UPSERT = frozenset({Action.CREATE, Action.UPDATE, Action.REPLACE})
#: The writes each mode does.
WRITES_OF: Mapping[Mode, frozenset[Action]] = {
    Mode.CREATE_ONLY: frozenset({Action.CREATE}),
    Mode.UPDATE_ONLY: frozenset({Action.UPDATE, Action.REPLACE}),
    Mode.UPSERT: _UPSERT,
    Mode.MIRROR: _UPSERT | {Action.DELETE, Action.RETIRE},
}


@dataclass(frozen=True, slots=True)
class Rebound:
    """The options a saved plan runs with, and the notes on what was not taken."""

    options: SyncOptions
    notes: tuple[str, ...] = ()


def options_for_saved(
    plan: Plan,
    given: Mapping[str, Any],
    limits: Mapping[str, Any] | None = None,
    *,
    plan_name: str = "",
) -> Rebound:
    """The options ``plan`` runs with under the ``given`` options (``SyncOptions``
    fields, None: not given) and the profile's ``limits`` (see module docstring)."""
    saved = plan.options
    name = plan_name or "(a Plan object)"
    problems: list[str] = []
    changes: dict[str, Any] = {}
    mode = _mode(given.get("mode"))
    if mode is not None and mode is not saved.mode:
        conflict = mode_conflict(plan, mode)
        if conflict is not None:
            problems.append(conflict)
        else:
            changes["mode"] = mode
    for field in SHAPING:
        value = given.get(field)
        if value is not None and _normal(saved, field, value) != getattr(saved, field):
            problems.append(_differs(field, _normal(saved, field, value), getattr(saved, field)))
    if problems:
        raise SavedPlanMismatch(
            f"the saved plan {name} was not made with {'; '.join(problems)}: apply it "
            "without them, or plan again with them"
        )
    notes: list[str] = []
    tightened = False
    for field in LIMITS:
        planned = current = getattr(saved, field)
        for value, where in _asks(field, given, limits or {}):
            if _tighter(field, value, current):
                current, tightened = value, True
            elif _tighter(field, planned, value):
                notes.append(
                    f"{where} {value} is looser than the saved plan's {planned}: at apply "
                    "time a limit only tightens, the plan's holds"
                )
        if current != planned:
            changes[field] = current
    force = given.get("force")
    changes["force"] = bool(force) if force is not None else saved.force and not tightened
    return Rebound(replace(saved, **changes), tuple(notes))


def config_record(profile: Mapping[str, Any]) -> dict[str, Any]:
    """The options of ``SHAPING`` the profile sets (``SyncOptions`` fields; None, empty:
    not set), in the JSON form a plan file records them (``Plan.config``)."""
    blank = SyncOptions(mode=Mode.UPSERT)
    out: dict[str, Any] = {}
    for name in SHAPING:
        value = profile.get(name)
        if value is None or value == () or value is False:
            continue
        out[name] = replace(blank, **{name: _normal(blank, name, value)}).to_dict()[name]
    return out


def config_conflicts(
    plan: Plan, profile: Mapping[str, Any], flagged: Collection[str], config: str
) -> list[str]:
    """What the profile (of the file ``config``) now sets that ``plan`` was not made
    with: each option of ``SHAPING`` it sets, not given as a flag (``flagged``), whose
    value is neither the plan's nor the one the profile gave when the plan was made
    (``Plan.config``: a flag gave the plan's then)."""
    now = config_record(profile)
    made = plan.options.to_dict()
    then = plan.config
    problems: list[str] = []
    for name, value in now.items():
        if name in flagged or _same(value, made[name]):
            continue
        if then is not None and name in then and _same(value, then[name]):
            continue
        problems.append(
            f"{config} sets {name}: {_shown(_tupled(value))} (the plan's: "
            f"{_shown(_tupled(made[name]))})"
        )
    return problems


def mode_conflict(plan: Plan, mode: Mode) -> str | None:
    """Why ``plan`` cannot be applied in ``mode`` (None: it can)."""
    planned = plan.options.mode
    if not WRITES_OF[mode] <= WRITES_OF[planned]:
        return (
            f"--mode {mode.value} (it was made in {planned.value} mode, which plans no "
            f"{_writes(WRITES_OF[mode] - WRITES_OF[planned])})"
        )
    out = Counter(c.action for c in plan.changes if c.is_write and c.action not in WRITES_OF[mode])
    if not out:
        return None
    held = " and ".join(
        f"{n} {a.value}{'' if n == 1 else 's'}" for a, n in sorted(out.items(), key=_order)
    )
    return f"--mode {mode.value} (the plan holds {held}, which {mode.value} mode does not do)"


def rejudge(plan: Plan, options: SyncOptions) -> Plan:
    """``plan`` with ``options`` and its safety verdict judged again under them (its
    counts as planned)."""
    safety = plan.safety
    reason = threshold_reason(safety.existing, safety.changes, safety.deletes, options)
    judged = replace(safety, refused=reason is not None, reason=reason)
    return replace(plan, options=options, safety=judged)


def _order(item: tuple[Action, int]) -> int:
    return list(Action).index(item[0])


def _writes(actions: frozenset[Action]) -> str:
    return " or ".join(f"{a.value}s" for a in Action if a in actions)


def _mode(value: Any) -> Mode | None:
    if value is None:
        return None
    try:
        return Mode(str(getattr(value, "value", value)))
    except ValueError:
        raise ConfigError(f"unknown mode {value!r}") from None


def _normal(saved: SyncOptions, field: str, value: Any) -> Any:
    """``value`` as ``SyncOptions`` holds it (domains lower case, sorted...)."""
    if field == "scope_domains" and isinstance(value, str):
        value = (value,)
    probe = replace(SyncOptions(mode=Mode.UPSERT), **{field: value})
    return getattr(probe, field)


def _tupled(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _same(a: Any, b: Any) -> bool:
    return bool(_tupled(a) == _tupled(b))


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return ", ".join(value) if value else "none"
    return "none" if value is None else str(getattr(value, "value", value))


def _differs(field: str, given: Any, planned: Any) -> str:
    flag = FLAGS.get(field, f"{field}=")
    if isinstance(given, bool):
        shown = flag if flag.startswith("--") else f"{flag}{given}"
        return f"{shown} (made {'without' if given else 'with'} it)"
    spacer = " " if flag.startswith("--") else ""
    return f"{flag}{spacer}{_shown(given)} (the plan's: {_shown(planned)})"


def _asks(
    field: str, given: Mapping[str, Any], limits: Mapping[str, Any]
) -> Iterator[tuple[Any, str]]:
    """The values of a limit an apply gives: the profile's, then the flag's."""
    for value, where in (
        (limits.get(field), f"the profile's limits: {field}"),
        (given.get(field), FLAGS.get(field, field)),
    ):
        if value is None:
            continue
        try:
            yield (float(value) if field == "max_change_ratio" else int(value)), where
        except (TypeError, ValueError):
            raise ConfigError(f"{where} must be a number, not {value!r}") from None


def _tighter(field: str, value: Any, than: Any) -> bool:
    """Whether limit ``value`` refuses more than ``than`` (None: no limit)."""
    if value is None:
        return False
    return than is None or value < than
