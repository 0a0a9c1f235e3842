"""Rendering for the workspace commands: rich tables for people, JSON for scripts.
Both go to stdout in a deterministic order; the target line and errors go to stderr.
Values from the service are shown as text (never read as rich markup), with control,
bidi-override and invisible characters escaped (``linksync.safe.terminal``)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from linksync.api import Domain, Member, Organization, Quota
from linksync.model import RemoteLink
from linksync.safe.terminal import printable
from linksync.sync.jsontext import readable

BAR_WIDTH = 20


def console() -> Console:
    """A console on the current stdout (CliRunner swaps it); wide when not a terminal."""
    out = sys.stdout
    tty = out.isatty()
    return Console(file=out, width=None if tty else 160, soft_wrap=False, highlight=False)


def emit_json(value: Any) -> None:
    click.echo(printable(readable(value)))


def emit(as_json: bool, value: Any, show: Callable[[], None]) -> None:
    """``value`` as JSON (``--json``), else what ``show`` prints for people."""
    if as_json:
        emit_json(value)
    else:
        show()


def safe(value: Any) -> str:
    """A value for a markup string: escaped for the terminal and for rich."""
    return escape(printable(str(value)))


def bar(fraction: float | None, width: int = BAR_WIDTH) -> str:
    if fraction is None:
        return "-"
    filled = round(min(1.0, max(0.0, fraction)) * width)
    return "█" * filled + "░" * (width - filled)


def _cell(value: Any) -> Text:
    if value is None:
        return Text("")
    if isinstance(value, list | tuple):
        return Text(printable(", ".join(str(v) for v in value)))
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    return Text(printable(str(value)))


def table(title: str | None, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Table:
    t = Table(title=title, title_justify="left", show_lines=False)
    for col in columns:
        t.add_column(col, overflow="fold")
    for row in rows:
        t.add_row(*(_cell(v) for v in row))
    return t


def quota_row(q: Quota) -> tuple[str, str, str, str, str]:
    frac = q.fraction
    pct = "-" if frac is None else f"{frac * 100:.1f}%"
    limit = "unlimited" if q.limit is None else f"{q.limit:,}"
    return (q.label, f"{q.used:,}", limit, pct, bar(frac))


def show_organization(org: Organization) -> None:
    c = console()
    name, oid, plan = safe(org.name or "(unnamed)"), safe(org.id or "-"), safe(org.plan or "-")
    c.print(f"[bold]{name}[/bold]  id {oid}  plan {plan}")
    c.print(table(None, ("usage", "used", "quota", "%", ""), (quota_row(q) for q in org.quotas())))


def show_members(members: Sequence[Member]) -> None:
    rows = sorted(members, key=lambda m: ((m.email or m.name or "").lower(), m.id or ""))
    console().print(
        table(
            f"{len(rows)} member(s)",
            ("email", "name", "role", "status", "since"),
            ((m.email, m.name, m.role, m.status, m.created_at) for m in rows),
        )
    )


def show_domains(domains: Sequence[Domain]) -> None:
    rows = sorted(domains, key=lambda d: d.domain.lower())
    console().print(
        table(
            f"{len(rows)} custom domain(s)",
            ("id", "domain", "status", "ssl", "cname target", "root redirect"),
            (
                (d.id, d.domain, d.status, d.ssl_status, d.cname_target, d.root_redirect_url)
                for d in rows
            ),
        )
    )


def show_domain(d: Domain, verb: str) -> None:
    c = console()
    c.print(f"{verb} domain {safe(d.domain)} (id {safe(d.id)}), status {safe(d.status or '-')}")
    if d.cname_target and not d.active:
        c.print(f"point a CNAME record for {safe(d.domain)} at {safe(d.cname_target)}, then verify")


LINK_COLUMNS = ("short url", "url", "tags", "description", "expires", "password")


def link_row(link: RemoteLink) -> tuple[Any, ...]:
    short = link.short_url or f"{link.domain}/{link.slug}"
    return (short, link.url, link.tags, link.description, link.expires_at, link.has_password)


def show_links(links: Sequence[RemoteLink]) -> None:
    rows = sorted(links, key=lambda ln: ln.key)
    console().print(table(f"{len(rows)} link(s)", LINK_COLUMNS, (link_row(ln) for ln in rows)))


def show_link(link: RemoteLink) -> None:
    fields = (
        ("short url", link.short_url),
        ("domain", link.domain),
        ("slug", link.slug),
        ("url", link.url),
        ("description", link.description),
        ("tags", link.tags),
        ("apple", link.apple),
        ("google", link.google),
        ("password", link.has_password),
        ("expires at", link.expires_at),
        ("created at", link.created_at),
        ("updated at", link.updated_at),
        ("id", link.id),
    )
    console().print(table(None, ("field", "value"), fields))
