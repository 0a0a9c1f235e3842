"""The fields of the run request (``linksync.pipeline.request``), and what is derived
from them.

Each field of a request value (``request_value``) is an ``option``: its one line of
help, the command-line flag that sets it (as ``--help`` shows it:
``--strict/--no-strict``, ``--lock-wait SECONDS``) and the profile key it falls back on
(``limits.max_deletes`` for a key of a profile's block). From them, and nothing else:

- ``documented`` writes the class's ``Attributes:`` section, so ``help(Reading)`` and
  editors show each field's line, its flag and its profile key;
- ``from_flags`` builds a value from the flags a command was given (the command line);
- ``from_profile`` builds a value from a profile's keys, and ``over`` lays the values
  given over it (a field left None takes the profile's);
- ``flag_of`` is a field as the command line offers it (``linksync.cli.flags`` makes
  the click option of it: a new field with a flag is on the commands at once);
- ``command_words`` is the command line that gives a value (the page shows it);
- ``profile_fields`` is the table a test keeps in agreement with the profile's keys.

A field left None, an empty text, an empty list or mapping, means "not given": the
profile's setting where the field names a profile key, else the default.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from dataclasses import Field, dataclass, field, fields, replace
from typing import Any, NamedTuple, TypeVar, dataclass_transform

T = TypeVar("T")

HELP, FLAG, PROFILE, CHOICES, BOUNDS, ENV = "help", "flag", "profile", "choices", "bounds", "env"


def option(
    help: str,
    *,
    default: Any,
    flag: str | None = None,
    profile: str | None = None,
    repr: bool = True,
    choices: str | None = None,
    bounds: tuple[float | None, float | None] | None = None,
    env: str | None = None,
) -> Any:
    """A field of a request value: its ``default`` (None: not given), its line of help,
    the flag that sets it as ``--help`` shows it (``--strict/--no-strict``: either way,
    over the profile; ``--lock-wait SECONDS``: the word for its value, FILE a file, PATH
    a file or a folder), the profile key it falls back on, the values it takes
    (``choices``: ``"module:NAME"`` of a tuple of texts, loaded only by a command that
    offers the flag; ``bounds``: its least and greatest number, None for no bound), the
    environment variable the command line also reads (``env``); ``repr=False``: a
    secret, never shown."""
    metadata = {HELP: help, FLAG: flag, PROFILE: profile, CHOICES: choices, BOUNDS: bounds}
    return field(default=default, repr=repr, metadata={**metadata, ENV: env})


@dataclass_transform(frozen_default=True, field_specifiers=(option,))
def request_value(cls: type[T]) -> type[T]:
    """``cls`` as a value of the run request: a frozen dataclass of ``option`` fields,
    its docstring listing them (``documented``), read as ``normalize`` says."""
    cls.__post_init__ = normalize  # type: ignore[attr-defined]
    return documented(dataclass(frozen=True)(cls))


def documented(cls: type[T]) -> type[T]:
    """``cls`` with an ``Attributes:`` section in its docstring, a line per field from
    its metadata (a field without help is a ``TypeError`` at import)."""
    lines = []
    for f in fields(cls):  # type: ignore[arg-type]
        if not f.metadata.get(HELP):
            raise TypeError(f"{cls.__name__}.{f.name}: no help")
        key = f.metadata[PROFILE]
        where = [w for w in (f.metadata[FLAG], key and f"profile {key}") if w]
        more = f" [{'; '.join(where)}]" if where else ""
        lines.append(f"    {f.name}: {f.metadata[HELP]}{more}")
    doc = inspect.cleandoc(cls.__doc__ or "")
    cls.__doc__ = f"{doc}\n\nAttributes:\n" + "\n".join(lines) + "\n"
    return cls


def not_given(value: Any) -> bool:
    """None, an empty (or blank) text, an empty list or mapping."""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, tuple | list | set | frozenset | Mapping) and not value


def normalize(obj: Any) -> None:
    """A request value as it is made: lists as tuples, mappings as dicts of texts (a
    profile's ``columns:`` may hold numbers), and a field whose default is None set to
    None when not given."""
    for f in fields(obj):
        value = getattr(obj, f.name)
        new = value
        if isinstance(value, list | set | frozenset):
            new = tuple(value)
        elif isinstance(value, Mapping):
            new = {str(k): str(v) for k, v in value.items()}
        if f.default is None and not_given(new):
            new = None
        if new is not value:
            object.__setattr__(obj, f.name, new)


def flags_of(f: Field[Any]) -> tuple[str, str | None]:
    """The flag of a field and its negative form (``--strict``, ``--no-strict``)."""
    flag = str(f.metadata.get(FLAG) or "").partition(" ")[0]
    on, _, off = flag.partition("/")
    return on, off or None


class Flag(NamedTuple):
    """A field as the command line offers it (``flag_of``)."""

    name: str  # the field's: the name the command receives it by
    on: str  # --strict
    off: str | None  # --no-strict
    metavar: str | None  # the word for its value: FILE, PATH, URL...
    kind: str  # the type of one value: bool, int, float or str
    many: bool  # a list: the flag is repeated
    help: str  # its --help: the field's line, then what the line does not say
    default: Any
    choices: str | None  # "module:NAME" of a tuple of texts
    bounds: tuple[Any, Any] | None  # least, greatest (None: no bound)
    env: str | None


def flag_of(f: Field[Any]) -> Flag | None:
    """The flag of a field (None: it has none). Its kind and whether it takes a list
    come from the field's type as written (the request modules postpone annotations),
    the first it names: ``Sequence[str] | None`` a list of texts; its help is the
    field's line, then in brackets what the line does not say: repeatable, the
    environment variable, the profile key."""
    on, off = flags_of(f)
    if not on:
        return None
    metavar = str(f.metadata[FLAG]).partition(" ")[2] or None
    first = str(f.type).split(" | ")[0]
    many = first.startswith(("Sequence[", "Mapping["))
    item = first.partition("[")[2].split(",")[0].rstrip("]") if many else first
    help, key, env = f.metadata[HELP], f.metadata[PROFILE], f.metadata[ENV]
    more = [
        *(["repeatable"] if many else []),
        *([f"env {env}"] if env else []),
        *([f"profile: {key}"] if key and f"{key}:" not in help else []),
    ]
    help = help[0].upper() + help[1:] + (f" [{'; '.join(more)}]" if more else "")
    kind = item if item in ("bool", "int", "float") else "str"
    choices, bounds = f.metadata[CHOICES], f.metadata[BOUNDS]
    return Flag(f.name, on, off, metavar, kind, many, help, f.default, choices, bounds, env)


def profile_fields(*classes: type[Any]) -> dict[str, tuple[type[Any], str]]:
    """Profile key (``owner_tag``, ``limits.max_deletes``) -> the class and field it sets."""
    return {
        str(f.metadata[PROFILE]): (cls, f.name)
        for cls in classes
        for f in fields(cls)
        if f.metadata.get(PROFILE)
    }


def from_flags(cls: type[T], flags: Mapping[str, Any]) -> T:
    """A ``cls`` of the flags given (``{"--owner-tag": "x"}``, a flag not given left
    out); a field whose flag is not among them keeps its default."""
    values = {}
    for f in fields(cls):  # type: ignore[arg-type]
        on, _ = flags_of(f)
        if on and on in flags:
            values[f.name] = flags[on]
    return cls(**values)


def profile_value(profile: Any, key: str) -> Any:
    """The value of ``key`` in ``profile`` (``limits.max_deletes``: a key of its
    ``limits:`` block; None when absent)."""
    name, _, inner = key.partition(".")
    value = getattr(profile, name)
    if inner:
        return value.get(inner) if isinstance(value, Mapping) else None
    return value


def from_profile(cls: type[T], profile: Any) -> T:
    """A ``cls`` of a profile's keys (fields without a profile key: their default)."""
    values = {
        f.name: profile_value(profile, str(f.metadata[PROFILE]))
        for f in fields(cls)  # type: ignore[arg-type]
        if f.metadata.get(PROFILE)
    }
    return cls(**values)


def given(obj: Any) -> dict[str, Any]:
    """The fields of ``obj`` that are given (not None)."""
    return {f.name: getattr(obj, f.name) for f in fields(obj) if getattr(obj, f.name) is not None}


def over(top: T, base: T) -> T:
    """``base`` with the fields ``top`` gives over it; a mapping given in both is merged,
    ``top``'s keys over ``base``'s (``--map`` over a profile's ``columns:``)."""
    changes = given(top)
    for name, value in changes.items():
        under = getattr(base, name)
        if isinstance(value, Mapping) and isinstance(under, Mapping):
            changes[name] = {**under, **value}
    return replace(base, **changes)  # type: ignore[type-var]


def command_words(values: Iterable[Any]) -> list[str]:
    """The command-line words that give ``values`` (request values), field by field:
    a field at its default gives none; ``True`` its flag, ``False`` its ``--no-`` form;
    a list its flag per item, a mapping ``--map KEY=VALUE`` per item."""
    words: list[str] = []
    for obj in values:
        for f in fields(obj):
            on, off = flags_of(f)
            value = getattr(obj, f.name)
            if not on or value is None or value == f.default:
                continue
            if value is True or value is False:
                words += [on] if value else [off] if off else []
            elif isinstance(value, Mapping):
                for key, item in value.items():
                    words += [on, f"{key}={item}"]
            elif isinstance(value, tuple):
                for item in value:
                    words += [on, str(item)]
            else:
                words += [on, str(value)]
    return words
