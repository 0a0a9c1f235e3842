"""Dead destinations, found before anything is sent (``--check-destinations``).

``check_urls(urls)`` requests each distinct URL once, politely, and returns a
``Verdict`` per URL: the status, the final URL, and the constant of what is wrong
(None: it answers). The rows' findings are made from the verdicts by
``linksync.validate.dest_findings``.

- HEAD first; GET (the body not read) when HEAD is refused (405, 501) or the
  connection fails on HEAD alone.
- Redirects followed here, up to ``Politeness.max_redirects``, so each hop is seen: a
  loop, too many hops, a last hop to another host, an ``http://`` URL that lands on
  ``https://``, a final URL without the ``utm_*`` parameters the URL asked carries
  (``utm_changes``: the campaign's numbers are lost on the way).
- Politely: at most ``per_host`` requests at a time to one host (host and port), at
  most ``rate`` requests a second in all, a ``Retry-After`` of a 429 or 503 honoured
  once (up to ``retry_after_max`` seconds), ``User-Agent: linksync/<version>
  (destination check)``, a short ``timeout``.
- ``progress(done, total)``, when given, is called once before the first request
  (``done`` 0) and after each URL's verdict: the command line's progress line.
- The proxy and the trust of TLS as the service client has them
  (``linksync.api.network``: ``Network``, ``ssl_context``; the environment's proxies
  by httpx's rules).

Constants: DEST_NOT_FOUND (404, 410), DEST_CLIENT_ERROR (other 4xx), DEST_SERVER_ERROR
(5xx), DEST_TIMEOUT, DEST_UNREACHABLE (DNS, refused connection), DEST_TLS_ERROR,
DEST_REDIRECT_LOOP (a loop, or more hops than the limit), DEST_OTHER_HOST,
DEST_HTTPS_AVAILABLE; and beside any of them, ``Verdict.utm_dropped`` (DEST_UTM_DROPPED
on the rows).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from urllib.parse import parse_qsl, urljoin, urlsplit

import httpx

from linksync._version import __version__
from linksync.api.failures import parse_retry_after
from linksync.api.network import Network, ssl_context

USER_AGENT = f"linksync/{__version__} (destination check)"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_HEAD_REFUSED = frozenset({405, 501})

#: ``progress(done, total)``: how many distinct URLs have a verdict, of how many.
ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class Politeness:
    """How a check treats the sites it asks (the defaults are the command line's)."""

    timeout: float = 10.0
    max_redirects: int = 10
    per_host: int = 2
    rate: float = 20.0
    retry_after_max: float = 30.0


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one URL answered: ``status`` (None: no answer), ``final`` (the URL of the
    last answer), ``constant`` (None: nothing wrong) and ``detail`` (the cause, in
    words). After redirects to a page that answers: ``redirects``, the status of each
    redirect followed; ``utm_dropped``, the ``utm_*`` parameters of ``url`` the final
    URL lacks; ``utm_changed``, (name, value asked, value landed) of those it carries
    with another value (kept, but changed on the way)."""

    url: str
    status: int | None
    final: str
    constant: str | None = None
    detail: str = ""
    redirects: tuple[int, ...] = ()
    utm_dropped: tuple[str, ...] = ()
    utm_changed: tuple[tuple[str, str, str], ...] = ()

    @property
    def findings(self) -> int:
        """How many findings it makes on a row (its constant, the UTM parameters lost)."""
        return (self.constant is not None) + bool(self.utm_dropped)


@dataclass(frozen=True, slots=True)
class DestinationCheck:
    """The verdicts by URL, how many URLs were checked, and the wall time."""

    verdicts: dict[str, Verdict]
    seconds: float

    @property
    def checked(self) -> int:
        return len(self.verdicts)

    def summary(self) -> str:
        bad = sum(1 for v in self.verdicts.values() if v.findings)
        return (
            f"Checked {self.checked} destination URL(s) in {self.seconds:.1f} s: "
            f"{bad} with a finding."
        )


class _Pacer:
    """At most ``rate`` starts a second in all, ``per_host`` at a time per host."""

    def __init__(self, politeness: Politeness) -> None:
        self.politeness = politeness
        self.gap = 1.0 / politeness.rate if politeness.rate > 0 else 0.0
        self.next = 0.0
        self.lock = asyncio.Lock()
        self.hosts: dict[str, asyncio.Semaphore] = {}

    def host(self, url: str) -> asyncio.Semaphore:
        key = urlsplit(url).netloc.lower()
        if key not in self.hosts:
            self.hosts[key] = asyncio.Semaphore(self.politeness.per_host)
        return self.hosts[key]

    async def turn(self) -> None:
        async with self.lock:
            now = time.monotonic()
            start = max(now, self.next)
            self.next = start + self.gap
        if start > now:
            await asyncio.sleep(start - now)


def retry_after(value: str | None, limit: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date, read as the
    service client reads it), at most ``limit``; None when there is none or it cannot be
    read."""
    seconds = parse_retry_after(value or None)
    return None if seconds is None else min(seconds, limit)


def _failure(url: str, exc: httpx.HTTPError) -> Verdict:
    if isinstance(exc, httpx.TimeoutException):
        return Verdict(url, None, url, "DEST_TIMEOUT", "no answer within the timeout")
    current: BaseException | None = exc
    while current is not None:
        if isinstance(current, ssl.SSLCertVerificationError):
            why = current.verify_message or "certificate not trusted"
            return Verdict(url, None, url, "DEST_TLS_ERROR", f"TLS: {why}")
        if isinstance(current, ssl.SSLError):
            return Verdict(url, None, url, "DEST_TLS_ERROR", f"TLS: {current.reason or current}")
        if isinstance(current, socket.gaierror):
            return Verdict(url, None, url, "DEST_UNREACHABLE", "DNS: the host name is not found")
        current = current.__cause__ or current.__context__
    text = str(exc) or type(exc).__name__
    if "Name or service not known" in text or "getaddrinfo" in text:
        return Verdict(url, None, url, "DEST_UNREACHABLE", "DNS: the host name is not found")
    if isinstance(exc, httpx.ConnectError):
        return Verdict(url, None, url, "DEST_UNREACHABLE", f"connection failed ({text})")
    return Verdict(url, None, url, "DEST_UNREACHABLE", f"{type(exc).__name__}: {text}")


def _utm(url: str) -> dict[str, str]:
    """The ``utm_*`` parameters of ``url``'s query, by name (the first of a repeated one),
    decoded (``spring%20sale`` and ``spring+sale`` are one value)."""
    found: dict[str, str] = {}
    for name, value in parse_qsl(urlsplit(url).query, keep_blank_values=True):
        if name.lower().startswith("utm_"):
            found.setdefault(name, value)
    return found


def utm_changes(url: str, final: str) -> tuple[tuple[str, ...], tuple[tuple[str, str, str], ...]]:
    """The ``utm_*`` parameters of ``url`` that ``final`` lacks, in ``url``'s order, and
    (name, value in ``url``, value in ``final``) of those it carries with another value.
    Parameters ``url`` does not carry are not named."""
    asked, landed = _utm(url), _utm(final)
    dropped = tuple(name for name in asked if name not in landed)
    changed = tuple(
        (name, value, landed[name])
        for name, value in asked.items()
        if name in landed and landed[name] != value
    )
    return dropped, changed


def classify(url: str, status: int, final: str, hops: int) -> Verdict:
    """The verdict of a last answer ``status`` from ``final`` after ``hops`` redirects."""
    if status in (404, 410):
        return Verdict(url, status, final, "DEST_NOT_FOUND", f"{status} at {final}")
    if 400 <= status < 500:
        return Verdict(url, status, final, "DEST_CLIENT_ERROR", f"{status} at {final}")
    if status >= 500:
        return Verdict(url, status, final, "DEST_SERVER_ERROR", f"{status} at {final}")
    if not hops:
        return Verdict(url, status, final)
    first, last = urlsplit(url), urlsplit(final)
    if (first.hostname or "").lower() != (last.hostname or "").lower():
        return Verdict(url, status, final, "DEST_OTHER_HOST", f"redirects to {final}")
    if first.scheme == "http" and last.scheme == "https":
        return Verdict(url, status, final, "DEST_HTTPS_AVAILABLE", f"use {final}")
    return Verdict(url, status, final)


class _Checker:
    def __init__(self, client: httpx.AsyncClient, politeness: Politeness) -> None:
        self.client = client
        self.politeness = politeness
        self.pacer = _Pacer(politeness)

    async def answer(self, method: str, url: str) -> httpx.Response:
        """One request (the body not read), paced; ``Retry-After`` honoured once."""
        for attempt in (1, 2):
            async with self.pacer.host(url):
                await self.pacer.turn()
                request = self.client.build_request(method, url)
                response = await self.client.send(request, stream=True)
                await response.aclose()
            if attempt == 1 and response.status_code in (429, 503):
                wait = retry_after(
                    response.headers.get("retry-after"), self.politeness.retry_after_max
                )
                if wait is not None:
                    await asyncio.sleep(wait)
                    continue
            break
        return response

    async def hop(self, url: str) -> httpx.Response:
        """HEAD, or GET when HEAD is refused (405, 501, or a failed connection)."""
        try:
            response = await self.answer("HEAD", url)
        except (httpx.RemoteProtocolError, httpx.ReadError):
            return await self.answer("GET", url)
        if response.status_code in _HEAD_REFUSED:
            return await self.answer("GET", url)
        return response

    async def check(self, url: str) -> Verdict:
        seen = [url]
        current = url
        redirects: list[int] = []
        try:
            for hops in range(self.politeness.max_redirects + 1):
                response = await self.hop(current)
                location = response.headers.get("location")
                if response.status_code not in _REDIRECTS or not location:
                    return landed(classify(url, response.status_code, current, hops), redirects)
                redirects.append(response.status_code)
                current = urljoin(current, location)
                if current in seen:
                    return Verdict(
                        url,
                        response.status_code,
                        current,
                        "DEST_REDIRECT_LOOP",
                        f"redirect loop ({' -> '.join([*seen, current])})",
                    )
                seen.append(current)
        except httpx.HTTPError as exc:
            failed = _failure(current, exc)
            return Verdict(url, None, current, failed.constant, failed.detail)
        limit = self.politeness.max_redirects
        return Verdict(url, None, current, "DEST_REDIRECT_LOOP", f"more than {limit} redirects")


def landed(verdict: Verdict, redirects: list[int]) -> Verdict:
    """``verdict`` of a page reached after ``redirects`` (their statuses), with the
    ``utm_*`` parameters lost or changed on the way; a page that fails (4xx, 5xx) has
    its own finding and none of these."""
    if not redirects or verdict.status is None or verdict.status >= 400:
        return verdict
    dropped, changed = utm_changes(verdict.url, verdict.final)
    return replace(verdict, redirects=tuple(redirects), utm_dropped=dropped, utm_changed=changed)


async def _check_all(
    distinct: list[str], polite: Politeness, net: Network, progress: ProgressFn | None
) -> DestinationCheck:
    """Check each URL of ``distinct`` (see module docstring)."""
    started = time.monotonic()
    client = httpx.AsyncClient(
        headers={"User-Agent": USER_AGENT},
        timeout=polite.timeout,
        follow_redirects=False,
        verify=ssl_context(net),
        proxy=net.proxy,
        limits=httpx.Limits(max_connections=None, max_keepalive_connections=100),
    )
    total = len(distinct)
    done = 0
    if progress is not None:
        progress(0, total)

    async def one(checker: _Checker, url: str) -> Verdict:
        nonlocal done
        verdict = await checker.check(url)
        done += 1
        if progress is not None:
            progress(done, total)
        return verdict

    async with client:
        checker = _Checker(client, polite)
        found = await asyncio.gather(*(one(checker, u) for u in distinct))
    return DestinationCheck({v.url: v for v in found}, time.monotonic() - started)


def check_urls(
    urls: Iterable[str],
    *,
    network: Network | None = None,
    politeness: Politeness | None = None,
    progress: ProgressFn | None = None,
) -> DestinationCheck:
    """Check each distinct URL of ``urls`` once (see module docstring), in an event loop
    of its own (in a thread of its own when the caller's thread runs one)."""
    distinct = list(dict.fromkeys(urls))
    coro = _check_all(distinct, politeness or Politeness(), network or Network(), progress)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1, thread_name_prefix="linksync-destinations") as pool:
        return pool.submit(asyncio.run, coro).result()
