"""What a saved plan is bound to: the workspace it was made for, the sources it was
made from.

``linksync.plan`` records on its plan a ``WorkspaceId`` (the target's base URL
normalised to scheme, host and port; the organization's id as the service reports it;
for the built-in sandbox, its database file) and a ``SourceDigest`` per source (its
path and the sha256 of its bytes; of its files, for a folder). ``apply --plan`` checks
both before any write: a plan of another workspace (``check_workspace``), a source
given beside it that is not one of its own or changed since it was made
(``check_sources``), is a ``SavedPlanMismatch`` (exit 2, nothing done).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlsplit

from linksync.errors import SavedPlanMismatch
from linksync.model import LinkSpec

if TYPE_CHECKING:
    from linksync.api import LinkClient

_DEFAULT_PORTS = {"http": 80, "https": 443}
_CHUNK = 1 << 20


def normal_base_url(url: str) -> str:
    """``url`` as scheme://host:port[/path]: lower case, the default port written out,
    no trailing slash (``HTTPS://Go.Example.com/`` -> ``https://go.example.com:443``)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    port = port or _DEFAULT_PORTS.get(scheme)
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}{f':{port}' if port else ''}{parts.path.rstrip('/')}"


@dataclass(frozen=True, slots=True)
class WorkspaceId:
    """The workspace a plan was made for: ``base_url`` (``normal_base_url``), the
    ``organization`` id the service reports, and for the built-in sandbox its database
    file (``sandbox_db``, every sandbox has one base URL)."""

    base_url: str
    organization: str | None
    sandbox_db: str | None = None

    def describe(self) -> str:
        where = f"the built-in sandbox {self.sandbox_db}" if self.sandbox_db else self.base_url
        return f"{where} (organization {self.organization or '(no id)'})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "base_url": self.base_url,
            "organization": self.organization,
            "sandbox_db": self.sandbox_db,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WorkspaceId:
        org, db = data.get("organization"), data.get("sandbox_db")
        return cls(
            str(data["base_url"]),
            str(org) if org is not None else None,
            str(db) if db is not None else None,
        )


async def workspace_id(
    client: LinkClient, base_url: str, *, sandbox_db: str | None = None
) -> WorkspaceId:
    """The workspace ``client`` reaches: its base URL and the organization the service
    reports (one request); ``sandbox_db`` names the built-in sandbox's file."""
    org = await client.get_organization()
    db = sandbox_db if sandbox_db in (None, ":memory:") else str(Path(str(sandbox_db)).resolve())
    return WorkspaceId(normal_base_url(base_url), org.id, db)


@dataclass(frozen=True, slots=True)
class SourceDigest:
    """One source of a plan: ``path`` as given and ``resolved`` (absolute), ``kind``
    (``file``, ``folder``, ``unreadable``; ``objects`` for LinkSpec objects, which have
    no path) and the sha256 of its bytes (of its files' paths and digests, for a
    folder; of the objects' JSON, passwords left out, for LinkSpec objects)."""

    path: str
    kind: str
    sha256: str
    resolved: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "sha256": self.sha256,
            "resolved": self.resolved,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SourceDigest:
        resolved = data.get("resolved")
        return cls(
            str(data["path"]),
            str(data["kind"]),
            str(data["sha256"]),
            str(resolved) if resolved is not None else None,
        )

    def same_place(self, path: str | os.PathLike[str]) -> bool:
        """Whether ``path`` names this source: the same file, or the same relative path
        (a checkout of the same repository in another folder)."""
        if self.resolved is not None and str(Path(path).resolve()) == self.resolved:
            return True
        return os.path.normpath(str(path)) == os.path.normpath(self.path)


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def digest_path(path: str | os.PathLike[str]) -> SourceDigest:
    """The digest of one source path (a file, or a folder: every file under it but
    hidden ones, by relative path)."""
    p = Path(path)
    resolved = str(p.resolve())
    try:
        if p.is_dir():
            h = hashlib.sha256()
            for f in sorted(p.rglob("*")):
                rel = f.relative_to(p)
                if any(part.startswith(".") for part in rel.parts) or f.is_dir():
                    continue
                what = _file_sha256(f) if f.is_file() else "(not a readable file)"
                h.update(f"{rel.as_posix()}\0{what}\n".encode())
            return SourceDigest(str(path), "folder", h.hexdigest(), resolved)
        return SourceDigest(str(path), "file", _file_sha256(p), resolved)
    except OSError:
        return SourceDigest(str(path), "unreadable", "", resolved)


def digest_specs(specs: Iterable[LinkSpec]) -> SourceDigest:
    """The digest of LinkSpec objects given as sources (their JSON, in order)."""
    text = json.dumps([s.to_dict() for s in specs], sort_keys=True, default=str)
    return SourceDigest("", "objects", hashlib.sha256(text.encode()).hexdigest())


def digest_sources(
    sources: Sequence[str | os.PathLike[str] | LinkSpec],
) -> tuple[SourceDigest, ...]:
    """One digest per source path, and one for the LinkSpec objects when given."""
    specs = [s for s in sources if isinstance(s, LinkSpec)]
    out = [digest_path(s) for s in sources if not isinstance(s, LinkSpec)]
    return (*out, digest_specs(specs)) if specs else tuple(out)


def _names(recorded: Sequence[SourceDigest]) -> str:
    shown = [d.path or "LinkSpec objects" for d in recorded]
    return ", ".join(shown) if shown else "no source file"


def check_sources(
    recorded: Sequence[SourceDigest],
    given: Sequence[str | os.PathLike[str] | LinkSpec],
    plan_name: str,
) -> None:
    """Refuse (``SavedPlanMismatch``) sources given beside a saved plan that are not its
    own, or that changed since it was made; every such source is named at once."""
    problems: list[str] = []
    for path in [s for s in given if not isinstance(s, LinkSpec)]:
        mine = next((d for d in recorded if d.kind != "objects" and d.same_place(path)), None)
        if mine is None:
            problems.append(
                f"{path} is not a source of the saved plan {plan_name} (made from "
                f"{_names(recorded)}): give the plan its own sources, or plan again"
            )
        elif digest_path(path).sha256 != mine.sha256:
            problems.append(f"{path} changed since the plan {plan_name} was made: plan again")
    specs = [s for s in given if isinstance(s, LinkSpec)]
    if specs:
        mine = next((d for d in recorded if d.kind == "objects"), None)
        if mine is None or digest_specs(specs).sha256 != mine.sha256:
            problems.append(
                f"the LinkSpec objects given are not those the plan {plan_name} was made "
                "from: plan again"
            )
    if problems:
        raise SavedPlanMismatch("; ".join(problems))


def check_workspace(planned: WorkspaceId | None, here: WorkspaceId, plan_name: str) -> None:
    """Refuse (``SavedPlanMismatch``) a plan made for another workspace than ``here``,
    or one that does not say which workspace it was made for."""
    if planned is None:
        raise_unbound(plan_name)
    if planned != here:
        raise SavedPlanMismatch(
            f"the saved plan {plan_name} was planned for {planned.describe()}; this target "
            f"is {here.describe()}: apply it to the workspace it was made for, or plan "
            "again for this one"
        )


def raise_unbound(plan_name: str) -> NoReturn:
    """A plan that does not say which workspace it was made for (saved by an older
    linksync, or built by hand) is refused."""
    raise SavedPlanMismatch(
        f"the saved plan {plan_name} does not say which workspace it was made for (it was "
        "saved by an older linksync): plan again"
    )
