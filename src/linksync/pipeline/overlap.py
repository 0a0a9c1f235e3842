"""Reading the sources while the service is asked what the plan will ask it anyway.

A plan's or an apply's wall time was reading, then the read-only calls (the
organization, the custom domains, the listing of the workspace's links), then the
diff and the writes. Now the sources are read and validated in a worker thread
(``asyncio.to_thread``: the readers are Python and numpy, the calls wait on the network
and the rate limit) while the event loop sends those calls (``reads_ahead``):

- the organization (as many times as the run reads it) and the custom domains;
- page 1 of the unfiltered list when no profile names the system domain (it names it);
- the listing of each domain the plan will list whatever the rows: a mirror's scope
  domains; and the domain the rows land on when the sources hold at least as many rows
  (``linksync.pipeline.sizes.look_at``) as its listing has pages, which is when the
  plan lists it (``linksync.sync.remote``); not when the sources name domains
  themselves, which only the reading tells.

Each answer waits in ``EarlyClient`` until the plan makes that very call, and is used
once; a call nobody started goes to the service then. So the requests are the ones
the run sent before (one listing per run), only sooner, and their errors are raised
where the plan makes the call: a source that refuses the run is refused as before,
with its own message, whatever the service said meanwhile. Nothing is written before
the plan is made. An apply lists only once it holds the run lock (its identity read,
the lock tried without waiting; held by another run: it lists after the reading, as
before). Nothing starts when a cheap look at the sources (``look_at``) shows the
reading may refuse the run (a missing, empty, binary file...), nor for a run of what
changed since a git ref (``early_look``): the run reads first and asks the service
nothing before. Left over when the plan is made, or when the run is refused, the calls
are cancelled and their answers dropped.

A row count the look gets wrong (many rows invalid, or on other domains) can list a
domain the plan then reads slug by slug: those pages are sent for nothing. The reading
runs in a daemon thread (``read_beside``): a Ctrl-C while it goes ends the run at once
(exit 130), the reading left to end on its own; it writes nothing.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import (
    AbstractAsyncContextManager,
    AsyncExitStack,
    asynccontextmanager,
    nullcontext,
    suppress,
)
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from linksync.api import LinkClient, LinkPage
from linksync.config import Settings, Target
from linksync.config.identity import (
    WorkspaceIdentity,
    read_workspace_identity,
    workspace_identity,
)
from linksync.errors import LockError
from linksync.model.links import fold_domain
from linksync.pipeline.early import DOMAINS, ORG, EarlyClient, fill, page_key
from linksync.pipeline.inputs import Sources
from linksync.pipeline.lock import acquire_lock
from linksync.pipeline.preflight import RunPaths
from linksync.pipeline.request import Reading
from linksync.pipeline.sizes import Look, look_at
from linksync.sync.options import SyncOptions
from linksync.sync.pool import run_pool
from linksync.sync.remote import PAGE, lists_domain, page_count, system_domain_of

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Plans:
    """What the early calls go by: the run's options, the look at its sources, and
    how many times the run reads the organization."""

    options: SyncOptions
    look: Look
    organizations: int = 1


@dataclass
class Ahead:
    """The calls of one run started while its sources are read (``reads_ahead``):
    ``client``, the client the run opened; ``early``, the same that answers the calls
    started early (the plan's client)."""

    client: LinkClient
    early: EarlyClient
    #: Entered by the run's ``gate`` (the run lock), left when the run ends.
    stack: AsyncExitStack = field(default_factory=AsyncExitStack)
    task: asyncio.Task[None] | None = None
    #: The workspace's identity, read first by an apply's gate (``lock_first``).
    identity: asyncio.Future[WorkspaceIdentity] | None = None
    #: The run lock the gate holds (None: none).
    locked: Path | None = None

    async def stop(self) -> None:
        """No more early calls: those under way are cancelled, answers left dropped."""
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        await self.early.close()

    async def workspace(self, target: Target) -> WorkspaceIdentity:
        """The identity the gate read (its error raised here), else read now."""
        if self.identity is None:
            return await workspace_identity(self.client, target)
        return await asyncio.shield(self.identity)


Gate = Callable[[Ahead], Awaitable[bool]]


async def identity_of(ahead: Ahead | None, settings: Settings) -> WorkspaceIdentity:
    """The workspace's identity: the one ``ahead``'s gate read, else read now (with a
    client of its own: ``read_workspace_identity``)."""
    if ahead is None:
        return await read_workspace_identity(settings)
    return await ahead.workspace(settings.target)


def reads_while(
    request: Any, sources: Sources, options: SyncOptions, gate: Gate | None = None
) -> AbstractAsyncContextManager[Ahead | None]:
    """``reads_ahead`` for a run of ``request`` (an ``ApplyRequest``) reading
    ``sources``; ``nullcontext()`` (nothing early) when ``early_look`` says so."""
    look = early_look(sources, request.reading.reading)
    if look is None:
        return nullcontext()
    return reads_ahead(request.settings.open_client, Plans(options, look), gate)


def early_look(sources: Sources, reading: Reading) -> Look | None:
    """The look at ``sources`` the early calls go by; None when nothing may start
    early: no sources, a look that shows the reading may refuse the run, or a run of
    what changed since a git ref (git's answer, a ref it does not know included, comes
    first; its plan reads its links one by one)."""
    if not sources or reading.changed_since:
        return None
    look = look_at(sources)
    return None if look.refusable else look


@asynccontextmanager
async def reads_ahead(
    opened: Callable[[], Any], plans: Plans, gate: Gate | None = None
) -> AsyncIterator[Ahead | None]:
    """Open the client (``opened()``, an async context manager) and start the calls
    (see the module docstring) once ``gate(ahead)`` says yes; yield at once (None when
    the client does not open: the run opens it after reading, and meets the error
    there, as it always did). On the way out the calls left are cancelled, then what
    ``gate`` entered (the lock) is left, then the client closed."""
    async with AsyncExitStack() as opening:
        try:
            client = await opening.enter_async_context(opened())
        except Exception:
            client = None
        if client is None:
            yield None
            return
        ahead = Ahead(client, EarlyClient(client))
        ahead.task = asyncio.ensure_future(_calls(ahead, plans, gate))
        try:
            yield ahead
        finally:
            await ahead.stop()
            if ahead.identity is not None:  # read by the run, or dropped with it
                ahead.identity.cancel()
                await asyncio.gather(ahead.identity, return_exceptions=True)
            await ahead.stack.aclose()


def lock_first(
    paths: RunPaths, label: str, target: Target, known: WorkspaceIdentity | None
) -> Gate:
    """An apply's gate: the workspace's identity (``known``, else read: one request,
    which the run would send anyway), then the run lock taken without waiting. Held
    by another run: no early call (the run waits for the lock after reading, as it
    always did)."""

    async def gate(ahead: Ahead) -> bool:
        identity = known
        if identity is None:
            ahead.identity = asyncio.ensure_future(workspace_identity(ahead.client, target))
            try:
                identity = await asyncio.shield(ahead.identity)
            except Exception:
                return False  # the run meets the error where it reads the identity
        lock = paths.identified(identity).lock
        if lock is not None:
            try:
                ahead.stack.enter_context(acquire_lock(lock, target=label))
            except LockError:
                return False
            ahead.locked = lock
        return True

    return gate


async def _calls(
    ahead: Ahead, plans: Plans, gate: Callable[[Ahead], Awaitable[bool]] | None
) -> None:
    if gate is not None and not await gate(ahead):
        return
    early, inner, options = ahead.early, ahead.client, plans.options
    if early.overtaken:  # the run read its sources first and asks for itself
        return
    org = early.start(ORG, inner.get_organization)
    for _ in range(plans.organizations - 1):
        early.start(ORG, inner.get_organization)
    domains = early.start(DOMAINS, inner.list_domains)
    unfiltered = None
    if options.system_domain is None:
        unfiltered = early.start(page_key(1, None), lambda: inner.list_links_page(1, PAGE))
    try:
        link_count = (await asyncio.shield(org)).link_count
        custom = {d.domain.lower() for d in await asyncio.shield(domains) if d.domain}
        first = await asyncio.shield(unfiltered) if unfiltered is not None else None
    except Exception:
        return  # the plan meets the error where it makes the call
    system = options.system_domain
    if system is None and first is not None:
        system = system_domain_of(first, custom)
    if system is None:
        return
    system = system.lower()
    listed = _listed(plans, system, custom, link_count)
    await asyncio.gather(
        *(_list(early, d, first if first is not None and not custom else None) for d in listed)
    )


def _listed(plans: Plans, system: str, custom: set[str], link_count: int) -> list[str]:
    """The domains the plan will list: a mirror's scope, and the rows' domain when
    they are at least as many as its pages (``linksync.sync.remote._fetch_domain``)."""
    options, look = plans.options, plans.look
    out: list[str] = []
    if options.deletes:
        out += options.scope_domains
    if look.rows is not None and not look.names_domain and lists_domain(link_count, look.rows):
        out.append(fold_domain(options.default_domain or system))
    return [d for d in dict.fromkeys(out) if d and (d == system or d in custom)]


async def _list(early: EarlyClient, domain: str, first: LinkPage | None) -> None:
    """Every page of ``domain`` (as ``linksync.sync.remote._all_pages`` asks for them):
    page 1 (``first``: page 1 of the unfiltered list, which goes on unfiltered), then
    the others at once once page 1 gives their number."""
    inner, shown = early.inner, None if first is not None else domain
    if first is None:
        if early.asked(page_key(1, domain)):
            return  # the plan lists the domain itself already
        page_one = early.start(
            page_key(1, domain), lambda: inner.list_links_page(1, PAGE, domain=domain)
        )
        try:
            got: LinkPage = await asyncio.shield(page_one)
        except Exception:
            return
        first = got
    last = page_count(first)
    if first.is_last or not first.links or last is None or last <= 1:
        return
    # Not the pages the plan already asked for itself (it read its sources first).
    keys = {n: page_key(n, shown) for n in range(2, last + 1)}
    places = {n: early.reserve(key) for n, key in keys.items() if not early.asked(key)}

    async def fetch(n: int) -> None:
        await fill(places[n], lambda: inner.list_links_page(n, PAGE, domain=shown))

    await run_pool(places, fetch, inner.concurrency, queued=inner.set_queued)


async def read_beside(beside: bool, read: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``read(*args, **kwargs)``: in a worker thread when calls go ``beside`` it (the
    event loop sends them meanwhile), else here. The thread is a daemon, not one of the
    loop's executor: a Ctrl-C during the reading ends the run at once, not once the
    reading is done (an executor's threads are waited for at exit)."""
    if not beside:
        return read(*args, **kwargs)
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def settle(result: Any, error: BaseException | None) -> None:
        if answer.done():  # the run was cancelled meanwhile
            return
        if error is not None:
            answer.set_exception(error)
        else:
            answer.set_result(result)

    def work() -> None:
        try:
            result, error = context.run(read, *args, **kwargs), None
        except BaseException as exc:  # handed to the awaiting run, raised there
            result, error = None, exc
        with suppress(RuntimeError):  # the loop is closed: the run ended without it
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name="linksync-read", daemon=True).start()
    return await answer
