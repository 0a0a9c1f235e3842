"""Alerts at the end of a run: ``--notify URL`` / ``notify:`` through apprise.

A run (``linksync.plan`` or ``linksync.apply``; with ``--all`` each target's run, so
one message per target) that ends in a condition the user picked sends one message to
each notify URL (an apprise URL: ``slack://``, ``workflows://`` (Teams), ``discord://``,
``mailto://``, ``json://``, ``form://``...). The conditions (``--notify-on`` /
``notify_on:``): ``failed`` (rows failed or invalid), ``drift`` (the plan had changes
to make), ``stopped`` (an error ended the run: 401, 403, quota, TLS or proxy...),
``always``; by default ``failed`` and ``stopped``.

The message names the target by its name and label (never its key, nor a proxy's
credentials) and holds the run's summary (``render_summary``: counts by
action and status, the top error constants with an example row, the duration, the
reports), why the run stopped, and in GitHub Actions the link to the run and the pull
request. A URL holds a token: it is a secret of the run, never printed; only its
scheme is ("notified 1 of 2 (slack, json)"). A message that cannot be delivered is a
warning of the run, never a failure: the exit code stays the run's.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import threading
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from linksync.api.network import proxy_secrets
from linksync.config.profiles import DEFAULT_NOTIFY_ON, Profile, check_notify_on
from linksync.errors import ConfigError, LinksyncError, describe
from linksync.logs import log_run_end
from linksync.model import RowResult, RunInfo, Status
from linksync.model.outcome import (
    EXIT_INTERRUPTED,
    RemoteWrites,
    error_constant,
    exit_code_for,
)
from linksync.pipeline.events import RunEvents
from linksync.pipeline.fields import from_profile, over
from linksync.pipeline.request import Notify
from linksync.report.summary import (
    Counts,
    count_results,
    render_summary,
    safe_target,
)
from linksync.safe.secrets import Secrets
from linksync.sync.results import UNDO_MODE

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def scheme_of(url: str) -> str:
    """The service of an apprise URL (``slack``, ``json``...), fit to print."""
    found = _SCHEME.match(url.strip())
    return found.group(1).lower() if found else "?"


@dataclass(frozen=True, slots=True)
class Alerts:
    """Where a run's alerts go (``urls``, secrets: no repr) and on what (``on``)."""

    urls: tuple[str, ...] = field(default=(), repr=False)
    on: tuple[str, ...] = DEFAULT_NOTIFY_ON
    #: The target's (or profile's) name, in the title beside the target's label.
    name: str | None = None

    @classmethod
    def of(
        cls,
        profile_urls: Sequence[str],
        profile_on: Sequence[str] | None,
        notify: Sequence[str] | None = None,
        notify_on: Sequence[str] | str | None = None,
        *,
        name: str | None = None,
    ) -> Alerts:
        """The keywords (flags) over the profile's: ``notify`` replaces the profile's
        URLs, ``notify_on`` its conditions (a text may list them with commas)."""
        urls = tuple(notify) if notify else tuple(profile_urls)
        on = notify_on or profile_on or DEFAULT_NOTIFY_ON
        return cls(tuple(u.strip() for u in urls), check_notify_on(on, "--notify-on"), name)

    def secrets(self) -> tuple[str, ...]:
        """The URLs, and their long parts (tokens), to keep out of every output."""
        parts: list[str] = []
        for url in self.urls:
            parts.append(url)
            rest = _SCHEME.sub("", url)
            parts += proxy_secrets(url)  # mailtos://user:password@host: the password
            # a token: a long part without a dot (not a host name)
            parts += [p for p in re.split(r"[/:@?&=#]", rest) if len(p) >= 16 and "." not in p]
        return tuple(p for p in parts if p)

    def check(self) -> None:
        """Every URL one apprise knows, before the first request (a ``ConfigError``
        names the URL by its position and scheme only)."""
        if not self.urls:
            return
        apprise = _apprise()
        for n, url in enumerate(self.urls, 1):
            if not apprise.Apprise().add(url):
                raise ConfigError(
                    f"notify URL #{n} ({scheme_of(url)}://...): not a URL apprise can "
                    "send to; see https://github.com/caronc/apprise/wiki for the forms"
                )


@dataclass(frozen=True, slots=True)
class RunEnd:
    """How a run ended, as the alert tells it."""

    command: str  # "plan" or "apply"
    info: RunInfo
    counts: Counts
    changes: int = 0
    reports: tuple[str | Path, ...] = ()
    stopped: str | None = None  # what stopped the run (an error's text)

    @property
    def not_undone(self) -> int:
        """An undo's rows left as they are: links the run wrote that the undo did not
        set back (``Results.not_undone``); they fail the undo, so they meet "failed"."""
        if self.info.mode != UNDO_MODE or self.info.dry_run:
            return 0
        return self.counts.by_status.get(Status.SKIPPED, 0)

    @classmethod
    def of_rows(
        cls,
        command: str,
        info: RunInfo,
        rows: Iterable[RowResult],
        *,
        changes: int = 0,
        reports: Sequence[str | Path] = (),
        stopped: str | None = None,
    ) -> RunEnd:
        return cls(command, info, count_results(rows), changes, tuple(reports), stopped)


def alerts_for(notify: Notify | None, profile: Profile) -> Alerts:
    """Where a run's alerts go: the ``Notify`` given over the profile's ``notify:`` and
    ``notify_on:``, under the profile's name."""
    asked = over(notify or Notify(), from_profile(Notify, profile))
    return Alerts.of(asked.urls or (), asked.on, name=profile.name)


def conditions(alerts: Alerts, end: RunEnd) -> tuple[str, ...]:
    """The conditions of ``alerts.on`` that ``end`` meets (none: no alert)."""
    met = {
        "failed": end.counts.failed > 0 or end.not_undone > 0,
        "drift": end.changes > 0,
        "stopped": end.stopped is not None,
        "always": True,
    }
    return tuple(c for c in alerts.on if met[c])


def ci_links(env: Mapping[str, str]) -> tuple[str, ...]:
    """The GitHub Actions run (and pull request) this run is part of, if any."""
    keys = ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
    server, repo, run = (env.get(k) for k in keys)
    if not (server and repo and run):
        return ()
    links = [f"{server.rstrip('/')}/{repo}/actions/runs/{run}"]
    pull = re.fullmatch(r"refs/pull/(\d+)/(?:merge|head)", env.get("GITHUB_REF", ""))
    if pull:
        links.append(f"{server.rstrip('/')}/{repo}/pull/{pull.group(1)}")
    return tuple(links)


def message(
    end: RunEnd, met: Sequence[str], env: Mapping[str, str], name: str | None = None
) -> tuple[str, str]:
    """The title and body of the alert (``name``: the target's, beside its label)."""
    counts = end.counts
    if end.stopped is not None:
        what = "stopped"
    elif counts.failed:
        what = f"{counts.failed} row{'s' if counts.failed != 1 else ''} failed"
    elif end.not_undone:
        what = f"not fully undone: {end.not_undone} link{'s' if end.not_undone != 1 else ''} left"
    elif end.changes:
        what = f"{end.changes} changes" + (" pending" if end.command == "plan" else "")
    else:
        what = "done"
    target = f"{name} ({end.info.target})" if name else end.info.target
    title = f"linksync {end.command} {target}: {what}"
    lines = [f"Why this alert: {', '.join(met)}"]
    if end.stopped is not None and not counts.total:
        # no rows to count: the error, the time it took (no request count: not known)
        lines.append(f"Stopped: {end.stopped}")
        lines.append(f"Target: {safe_target(end.info.target)} (mode {end.info.mode})")
        lines.append(f"Duration: {end.info.duration_s:.1f} s")
        if end.reports:
            lines += ["Reports:", *(f"  {p}" for p in end.reports)]
    else:
        if end.stopped is not None:  # the run's own sentence, 'Stopped: ...' already
            said = end.stopped.startswith("Stopped:")
            lines.append(end.stopped if said else f"Stopped: {end.stopped}")
        lines.append(render_summary(counts, end.info, end.reports))
    lines += [f"CI: {link}" for link in ci_links(env)]
    return title, "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Delivery:
    """What was sent: the schemes delivered and those that were not."""

    sent: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()

    def describe(self) -> str:
        total = len(self.sent) + len(self.failed)
        line = f"notified {len(self.sent)} of {total}"
        if self.sent:
            line += f" ({', '.join(self.sent)})"
        return line


_LOADING = threading.Lock()


def _apprise() -> ModuleType:
    """apprise, its plugins loaded once (some import modules Python deprecates: those
    warnings are apprise's, not the user's) and its own log kept out of the run's
    output, unless the program set up that logger itself (it may hold parts of a URL)."""
    import apprise

    with _LOADING:
        if not getattr(_apprise, "loaded", False):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                apprise.Apprise().add("json://localhost")  # loads every plugin
            log = logging.getLogger("apprise")
            if not log.handlers:
                log.addHandler(logging.NullHandler())
                log.propagate = False
            _apprise.loaded = True  # type: ignore[attr-defined]
    return apprise


def deliver(urls: Sequence[str], title: str, body: str, kind: str = "info") -> Delivery:
    """Send ``title`` and ``body`` to each URL, one at a time; an error is a URL not
    delivered, never raised."""
    apprise = _apprise()
    sent: list[str] = []
    failed: list[str] = []
    for url in urls:
        try:
            one = apprise.Apprise()
            ok = one.add(url) and one.notify(title=title, body=body, notify_type=kind)
        except Exception:  # a plugin's bug must not end the run
            ok = False
        (sent if ok else failed).append(scheme_of(url))
    return Delivery(tuple(sent), tuple(failed))


async def alert_run(alerts: Alerts, end: RunEnd, secrets: Secrets, events: RunEvents) -> str | None:
    """Send the alert of ``end`` when a condition holds (in a thread: the event loop goes
    on), told to ``events``: the delivery as a notice, a URL not delivered as a warning
    (also returned). Every secret of the run is taken out of the message first."""
    met = conditions(alerts, end) if alerts.urls else ()
    if not met:
        return None
    title, body = message(end, met, os.environ, alerts.name)
    bad = end.stopped is not None or end.counts.failed > 0 or end.not_undone > 0
    kind = "failure" if bad else "warning" if end.changes else "info"
    redacted = (secrets.redact(title), secrets.redact(body))
    done = await asyncio.to_thread(deliver, alerts.urls, *redacted, kind)
    if not done.failed:
        events.notice(done.describe())
        return None
    warning = (
        f"{done.describe()}: not delivered to {', '.join(done.failed)} (the service "
        "refused it or could not be reached); the run's result is unchanged"
    )
    events.warning(warning)
    return warning


async def end_stopped(
    alerts: Alerts,
    exc: LinksyncError | OSError | asyncio.CancelledError,
    info: RunInfo,
    told: tuple[Secrets, RunEvents],
    log: tuple[logging.Logger, str | None, RemoteWrites],
) -> None:
    """The end of a plan or an apply an error stopped: its ``run_end`` log line (the exit code the
    command exits with, the error's constant, what was written before it) so a log
    collector sees every started run end, then its alert (``alert_run``). A run stopped
    at once (a second Ctrl-C; SIGTERM while SIGINT is ignored) logs it, exit code 130,
    and sends nothing more."""
    logger, run_id, writes = log
    cut = isinstance(exc, asyncio.CancelledError)
    log_run_end(
        logger,
        counts={k: n for k, n in writes.to_dict().items() if n},
        duration_s=info.duration_s,
        exit_code=EXIT_INTERRUPTED if cut else exit_code_for(exc),
        run_id=run_id,
        error_constant="INTERRUPTED" if cut else error_constant(exc),
        reason=None if cut else describe(exc),
    )
    if isinstance(exc, asyncio.CancelledError):
        return
    end = RunEnd("plan" if info.dry_run else "apply", info, Counts(), stopped=describe(exc))
    await alert_run(alerts, end, *told)
