"""Compact records: ``msgspec.Struct`` classes that the standard library's dataclass
functions still read as dataclasses (``dataclass_compatible``).

The records a run holds one of per row or per link (``LinkSpec``, ``Provenance``,
``RemoteLink``, ``linksync.sync.plan.Change``) are Structs: made in C, a few dozen
bytes smaller each, and not tracked by the garbage collector. They were dataclasses,
so ``dataclasses.replace`` (and ``fields``, ``asdict``, ``is_dataclass``) keep
working on them.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

import msgspec

S = TypeVar("S", bound=type)


def dataclass_compatible(cls: S) -> S:
    """A record class (a ``msgspec.Struct``) that ``dataclasses.replace``, ``fields``,
    ``asdict`` and ``is_dataclass`` read as they read a dataclass, as they did when the
    class was one: its fields are described the dataclass way."""
    described: dict[str, dataclasses.Field[Any]] = {}
    for f in msgspec.structs.fields(cls):
        kept: dataclasses.Field[Any] = dataclasses.field()
        kept.name, kept.type = f.name, f.type
        kept._field_type = dataclasses._FIELD  # type: ignore[attr-defined]
        if f.default is not msgspec.NODEFAULT:
            kept.default = f.default
        if f.default_factory is not msgspec.NODEFAULT:
            kept.default_factory = f.default_factory
        described[f.name] = kept
    cls.__dataclass_fields__ = described  # type: ignore[attr-defined]
    return cls
