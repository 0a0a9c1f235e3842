"""Which workspace a target reaches: what runs are locked by and targets compared by.

One service has many spellings (``http://127.0.0.1:8787``, ``http://localhost:8787``,
``HTTP://LOCALHOST:8787/``), so a workspace is known by what the service reports: the
id of the organization the key belongs to (``GET /api/v1/organizations/current``),
with the key (a SHA-256 digest of it, never the key). A service that reports no id is
known by its URL (scheme, host and port, lower case) and the key. The in-process
sandbox is a workspace of its own, known by its state file, without a request (an
in-memory one by the process).

    identity = await workspace_identity(client, settings.target)   # one request
    identity = await read_workspace_identity(settings)               # opens a client
    found = read_identities({"brand-a": a, "brand-b": b})           # at once, sync
    refuse_shared(found, labels)       # ConfigError naming two targets on one workspace

Two identities are one workspace when their ``key`` is equal. Imports ``linksync.config``
(the target, for type hints) and the errors; ``linksync.config`` does not import it.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from linksync.errors import ConfigError

if TYPE_CHECKING:
    from linksync.api.types import Organization
    from linksync.config import Settings, Target


class _Reports(Protocol):
    """What the identity needs of a client: the current organization."""

    async def get_organization(self) -> Organization: ...


@dataclass(frozen=True, slots=True)
class WorkspaceIdentity:
    """The workspace a target reaches (see the module docstring). ``organization``: the
    id the service reported (None: it reported none, or the in-process sandbox);
    ``sandbox``: the in-process sandbox's state file (``memory:<pid>`` for one in
    memory); ``url``: the service's scheme, host and port, for one without an id."""

    organization: str | None = None
    key_digest: str = field(default="", repr=False)
    sandbox: str | None = None
    url: str | None = None

    @property
    def key(self) -> str:
        """What two identities are compared by (and the run lock is keyed on)."""
        if self.sandbox is not None:
            return f"sandbox:{self.sandbox}"
        where = f"organization:{self.organization}" if self.organization else f"url:{self.url}"
        return f"{where}\nkey:{self.key_digest}"

    @property
    def name(self) -> str:
        """A short readable name (the lock file's prefix): the organization's id, or
        ``sandbox``, or the service's host."""
        if self.sandbox is not None:
            return "sandbox"
        if self.organization:
            return self.organization
        return urlsplit(self.url or "").hostname or "service"

    def describe(self) -> str:
        """For messages: 'organization org_1, one key', 'the built-in sandbox's state /x/a.db'."""
        if self.sandbox is not None:
            return f"the built-in sandbox's state {self.sandbox}"
        if self.organization:
            return f"organization {self.organization}, one key"
        return f"{self.url}, one key (the service reports no organization id)"


def key_digest(key: str) -> str:
    """The SHA-256 of an API key, in hex: what an identity keeps instead of the key."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def local_identity(target: Target) -> WorkspaceIdentity | None:
    """The identity known without a request: the in-process sandbox's (its state file,
    resolved; an in-memory sandbox is private to this process). None for a service."""
    if not target.is_sandbox:
        return None
    db = target.sandbox_db or ""
    if db == ":memory:":
        return WorkspaceIdentity(sandbox=f"memory:{os.getpid()}")
    return WorkspaceIdentity(sandbox=str(Path(db).resolve()))


async def workspace_identity(client: _Reports, target: Target) -> WorkspaceIdentity:
    """The workspace ``target`` reaches through ``client``: the in-process sandbox's
    without a request, else the organization the service reports for the key (one
    ``GET /api/v1/organizations/current``; its errors are raised: 401 for a wrong key)."""
    local = local_identity(target)
    if local is not None:
        return local
    org = await client.get_organization()
    digest = key_digest(target.api_key)
    if org.id:
        return WorkspaceIdentity(organization=org.id, key_digest=digest)
    return WorkspaceIdentity(key_digest=digest, url=_canonical(target.base_url))


async def read_workspace_identity(settings: Settings) -> WorkspaceIdentity:
    """``workspace_identity`` of the settings' target, with a client of its own (opened
    only for a service: the in-process sandbox needs no request)."""
    local = local_identity(settings.target)
    if local is not None:
        return local
    async with settings.open_client() as client:
        return await workspace_identity(client, settings.target)


def read_identities(
    settings: Mapping[str, Settings],
) -> dict[str, WorkspaceIdentity | Exception]:
    """The identity of each named target: the in-process sandbox's at once, the
    services' read together in a thread and event loop of their own (so a caller in a
    running loop, a notebook, may call it); an error (``Unauthorized``, a transport
    error...) in place of the identity of a target whose service could not be asked."""
    found: dict[str, WorkspaceIdentity | Exception] = {}
    remote: dict[str, Settings] = {}
    for name, one in settings.items():
        local = local_identity(one.target)
        if local is not None:
            found[name] = local
        else:
            remote[name] = one

    async def read_all() -> list[WorkspaceIdentity | BaseException]:
        reads = (read_workspace_identity(s) for s in remote.values())
        return await asyncio.gather(*reads, return_exceptions=True)

    if remote:
        with ThreadPoolExecutor(1, thread_name_prefix="linksync-identity") as pool:
            got = pool.submit(lambda: asyncio.run(read_all())).result()
        for name, one_got in zip(remote, got, strict=True):
            if not isinstance(one_got, WorkspaceIdentity | Exception):
                raise one_got  # KeyboardInterrupt and the like stop the whole run
            found[name] = one_got
    return {name: found[name] for name in settings}


def refuse_shared(identities: Mapping[str, WorkspaceIdentity], labels: Mapping[str, str]) -> None:
    """A ``ConfigError`` naming the first two targets (and their ``labels``) that reach
    one workspace: they would fight over it (one deleting what the other creates)."""
    seen: dict[str, str] = {}
    for name, identity in identities.items():
        first = seen.setdefault(identity.key, name)
        if first != name:
            raise ConfigError(
                f"targets {first} and {name} are one workspace ({identity.describe()}): "
                f"{labels.get(first, first)} and {labels.get(name, name)}; give it one target"
            )


def _canonical(url: str) -> str:
    """Scheme, host and port of ``url``, lower case, the default port made explicit."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or (443 if scheme == "https" else 80)
    return f"{scheme}://{(parts.hostname or '').lower()}:{port}"
