"""What a links-as-code file says of a link beyond its fields (``Declared``, carried by
the row's ``Provenance``), and how a password is shown wherever one would be.

A YAML link (or its file's ``defaults:``) may take its password from the environment
or a file (``password: {env: VIP_PASSWORD}``, ``{file: secrets/vip.txt}``): the reader
resolves it at run time, and everything that shows the row names where it came from
(``password: (set from env VIP_PASSWORD)``), never the value. ``ignore_changes`` names
the fields the repository leaves to people (``linksync.model.ignore_rules``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from linksync.model.records import dataclass_compatible
from linksync.safe.secrets import REDACTED

#: How ``password_mark`` starts for a password a file refers to.
SET_FROM = "set from "


@dataclass_compatible
class Declared(msgspec.Struct, frozen=True, gc=False):
    """``password_from``: where the row's password is read from at run time (``env
    VIP_PASSWORD``, ``file secrets/vip.txt``); ``ignore_changes``: the fields its file
    leaves to people (sent on create, never updated)."""

    password_from: str | None = None
    ignore_changes: frozenset[str] = frozenset()

    def to_dict(self) -> dict[str, Any]:
        return {"password_from": self.password_from, "ignore_changes": sorted(self.ignore_changes)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Declared:
        return cls(d.get("password_from"), frozenset(d.get("ignore_changes") or ()))


#: The ``Declared`` of a row whose file says nothing more of it.
NOTHING_DECLARED = Declared()


def password_mark(password_from: str | None) -> str:
    """What stands for a row's password wherever one would be shown: ``***``, or
    ``set from env VIP_PASSWORD`` for a password its file refers to."""
    return f"{SET_FROM}{password_from}" if password_from else REDACTED


def kept_mark(new: Any) -> str | None:
    """A password's new value as a plan file keeps it: None (removed), a
    ``password_mark`` of a reference, else ``***`` (never the value itself)."""
    if new is None or (isinstance(new, str) and new.startswith(SET_FROM)):
        return new
    return REDACTED


def shown_password(new: Any) -> str:
    """'(set from env VIP_PASSWORD)', '(set)' or '(removed)': a password's new value in
    a plan (a ``password_mark``, or None) as a plan or a report shows it."""
    if new is None:
        return "(removed)"
    if isinstance(new, str) and new.startswith(SET_FROM):
        return f"({new})"
    return "(set)"
