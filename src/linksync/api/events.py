"""Call events: what a client tells its subscribers each time a call ends.

A call is one method of the client with all its attempts (retries, the read that
settles an unknown outcome). When it ends, in success or failure, the client hands one
``CallEvent`` to every hook subscribed with ``client.subscribe(hook)``: the run's
journal writes it, the run counts the writes the service accepted. Calls a call makes
for itself (the read that confirms a create) are part of it, not events of their own.

A caller says what its calls are for with ``call_scope(**labels)``: the labels ride on
each event of the calls made inside the block (in this task), and the block's
``CallScope`` keeps those events, so the caller learns the final status, requestId and
attempts of its call without an out-parameter::

    with call_scope(row=7, slug="spring") as scope:
        link = await client.update_link("spring", {"url": url})
    scope.last.status, scope.last.request_id, scope.last.attempts
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Any

from linksync.errors import ApiError
from linksync.model import RemoteLink

#: Calls that change the workspace (the kinds of ``CallEvent.kind``).
WRITE_KINDS: frozenset[str] = frozenset(
    {"POST /links", "PATCH /links/:slug", "DELETE /links/:slug"}
)


@dataclass(frozen=True, slots=True)
class CallEvent:
    """One finished call. ``kind`` is the endpoint ("POST /links"), ``status`` the final
    HTTP status (None when no answer came), ``attempts`` the requests it sent,
    ``confirmed`` when an unknown outcome was settled by reading the service; ``error``
    when it failed, else ``result`` is what it returned; ``labels`` what the caller's
    ``call_scope`` said the call is for."""

    kind: str
    status: int | None
    request_id: str | None
    attempts: int
    confirmed: bool = False
    error: ApiError | None = None
    result: object = None
    labels: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def is_write(self) -> bool:
        return self.kind in WRITE_KINDS

    @property
    def link(self) -> RemoteLink | None:
        """The link the call returned, if it returned one."""
        return self.result if isinstance(self.result, RemoteLink) else None

    @property
    def outcome_unknown(self) -> bool:
        """A failed call that may have taken effect anyway (see ``ApiError``)."""
        return self.error is not None and self.error.outcome_unknown


CallHook = Callable[[CallEvent], None]


@dataclass(slots=True)
class CallScope:
    """The labels of the calls made inside one ``call_scope`` block, and their events."""

    labels: Mapping[str, Any]
    events: list[CallEvent] = field(default_factory=list)

    @property
    def last(self) -> CallEvent:
        """The event of the latest call of the block (a call must have ended in it)."""
        if not self.events:
            raise LookupError("no call ended in this scope")
        return self.events[-1]


_SCOPE: ContextVar[CallScope | None] = ContextVar("linksync_call_scope", default=None)
_DEPTH: ContextVar[int] = ContextVar("linksync_call_depth", default=0)


def call_scope(**labels: Any) -> ScopeBlock:
    """Label the calls made inside the block (in this task) and keep their events."""
    return ScopeBlock(labels)


class ScopeBlock:
    """The ``with`` block of a ``call_scope``: a plain context manager, not a generator
    one (a third of the cost: one is entered for every call of a run)."""

    __slots__ = ("scope", "token")

    def __init__(self, labels: dict[str, Any]) -> None:
        outer = _SCOPE.get()
        self.scope = CallScope({**outer.labels, **labels} if outer is not None else labels)
        self.token: Token[CallScope | None] | None = None

    def __enter__(self) -> CallScope:
        self.token = _SCOPE.set(self.scope)
        return self.scope

    def __exit__(self, *exc: object) -> None:
        if self.token is not None:
            _SCOPE.reset(self.token)
            self.token = None


class CallHooks:
    """The hooks of one client, and how a call ends: ``outermost`` tells a call from
    the calls it makes for itself; ``emit`` hands the event to the scope and hooks."""

    def __init__(self) -> None:
        self._hooks: list[CallHook] = []

    def subscribe(self, hook: CallHook) -> Callable[[], None]:
        """Call ``hook`` with every call event from now on; returns the unsubscribe."""
        self._hooks.append(hook)

        def unsubscribe() -> None:
            if hook in self._hooks:
                self._hooks.remove(hook)

        return unsubscribe

    def enter(self) -> tuple[bool, Token[int]]:
        """A call begins: whether it is an outermost one (its event is emitted; not one
        a call makes for itself), and the token for ``leave``."""
        depth = _DEPTH.get()
        return depth == 0, _DEPTH.set(depth + 1)

    def leave(self, token: Token[int]) -> None:
        """The call that ``enter`` gave ``token`` ended."""
        _DEPTH.reset(token)

    def ended(
        self,
        kind: str,
        status: int | None,
        request_id: str | None,
        attempts: int,
        confirmed: bool = False,
        error: ApiError | None = None,
        result: object = None,
    ) -> None:
        """The event of a call that ended, with its scope's labels: to the scope and to
        every subscribed hook (made only when one of them is there to receive it)."""
        scope = _SCOPE.get()
        if scope is None and not self._hooks:
            return
        labels = scope.labels if scope is not None else {}
        event = CallEvent(kind, status, request_id, attempts, confirmed, error, result, labels)
        if scope is not None:
            scope.events.append(event)
        for hook in tuple(self._hooks):
            hook(event)
