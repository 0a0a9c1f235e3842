"""A partial run (``--changed-since REF``): which declarations differ between two
versions of the files, and the record a partial plan keeps of it. Pure: no I/O.

``declared_changes(old, new)`` compares the links declared at the ref with those
declared now, by identity: (domain, slug), the domain of a link that names none being
the default domain (a link without slug: (domain, URL)). A link whose declarations are
the same in both (every field, ``managed`` included; where in which file they are is
not compared) is left out: moving a link from one file to another changes nothing. A
link declared differently, or only now, is planned; a link declared only at the ref is
``removed`` (a mirror deletes it, within its scope). A row of no identity (neither slug
nor URL: a row a workbook hides) is always planned, so that what it stands for holds.

``Partial`` is what a plan made so records (``linksync.sync.plan.Plan.partial``): the
ref and its commit, the files read, how many links differed and were removed. A saved
partial plan is refreshed the same way: only its own links are read again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from linksync.model import LinkSpec
from linksync.model.links import fold_domain, fold_slug

#: How many files a partial plan's note names before "and N more".
SHOWN_FILES = 10

Identity = tuple[str, str, str]


def identity(spec: LinkSpec, default_domain: str | None = None) -> Identity | None:
    """What tells a declared link from another: ("slug", domain, slug) folded, or
    ("url", domain, URL) for a link without slug; None for a row with neither."""
    domain = fold_domain(spec.domain or default_domain)
    if spec.slug:
        return ("slug", domain, fold_slug(spec.slug))
    if spec.url and spec.url.strip():
        return ("url", domain, spec.url.strip())
    return None


def _declared(spec: LinkSpec) -> LinkSpec:
    """The declaration without its place (file, row, columns)."""
    return msgspec.structs.replace(spec, provenance=None)


def declared_changes(
    old: Iterable[LinkSpec], new: Sequence[LinkSpec], default_domain: str | None = None
) -> tuple[list[int], list[LinkSpec]]:
    """The positions in ``new`` of the links to plan, and the links of ``old`` whose
    declaration is gone (see module docstring). A link declared twice is compared as
    the set of its declarations: any difference plans each of them (the plan then
    names the duplicate)."""
    before: dict[Identity, list[LinkSpec]] = {}
    for spec in old:
        key = identity(spec, default_domain)
        if key is not None:
            before.setdefault(key, []).append(spec)
    now: dict[Identity, list[int]] = {}
    always: list[int] = []
    for i, spec in enumerate(new):
        key = identity(spec, default_domain)
        if key is None:
            always.append(i)
        else:
            now.setdefault(key, []).append(i)
    planned = list(always)
    for key, rows in now.items():
        was = before.get(key)
        if was is None or not _same(was, [new[i] for i in rows]):
            planned.extend(rows)
    removed = [specs[0] for key, specs in before.items() if key not in now]
    return sorted(planned), removed


def _same(was: Sequence[LinkSpec], now: Sequence[LinkSpec]) -> bool:
    """The same declarations, in any order (compared by equality: a link is declared
    once or twice, so no hashing is needed)."""
    if len(was) != len(now):
        return False
    left = [_declared(s) for s in now]
    for spec in map(_declared, was):
        for j, other in enumerate(left):
            if spec == other:
                del left[j]
                break
        else:
            return False
    return True


@dataclass(frozen=True, slots=True)
class Partial:
    """How a partial plan was made: ``ref`` as given, the ``commit`` git resolved it
    to, the ``files`` that changed since (display name, and added, modified or
    deleted), the links it planned because their declaration differs (``changed``)
    and the links declared at the ref and no longer (``removed``)."""

    ref: str
    commit: str
    files: tuple[tuple[str, str], ...] = ()
    changed: int = 0
    removed: int = 0

    @property
    def since(self) -> str:
        """The ref and its commit ("main (3f2a9c1b0d4e)"); a ref that is the commit
        itself (CI gives one) once, shortened."""
        short = self.commit[:12]
        if len(self.ref) >= 7 and self.commit.lower().startswith(self.ref.lower()):
            return short
        return f"{self.ref} ({short})"

    @property
    def read_now(self) -> tuple[str, ...]:
        """The files read as they are now (every changed file but the deleted ones)."""
        return tuple(name for name, status in self.files if status != "deleted")

    def describe(self) -> str:
        """One sentence for the plan's notes (the pull-request comment)."""
        shown = [f"{name} ({status})" for name, status in self.files[:SHOWN_FILES]]
        if len(self.files) > SHOWN_FILES:
            shown.append(f"and {len(self.files) - SHOWN_FILES} more")
        read = "no file changed"
        if shown:
            read = f"{len(self.files)} file(s) changed: {', '.join(shown)}"
        return (
            f"Partial plan of the links changed since {self.since}: {read}; "
            f"{self.changed} link(s) declared differently, {self.removed} no longer declared. "
            "Links of the other files were not read nor compared: a full run (without "
            "--changed-since) reconciles them and reports drift"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "commit": self.commit,
            "files": [{"file": name, "status": status} for name, status in self.files],
            "changed": self.changed,
            "removed": self.removed,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Partial:
        return cls(
            str(data["ref"]),
            str(data["commit"]),
            tuple((str(f["file"]), str(f["status"])) for f in data.get("files") or ()),
            int(data.get("changed", 0)),
            int(data.get("removed", 0)),
        )
