"""``linksync org``, ``members``, ``domains`` and ``ai``: one library call each, rendered
as a table (or ``--json``). Every command names its target on stderr first."""

from __future__ import annotations

import asyncio

import click

from linksync.api import ROLES
from linksync.cli import workspace_render as render
from linksync.cli.common import echo, handle_errors
from linksync.cli.options import TargetOptions, service_command, target_options, with_client
from linksync.safe.terminal import printable


@click.command("org")
@service_command
def org_command(target: TargetOptions, as_json: bool) -> None:
    """Show the organization: plan, usage against each quota."""
    org = with_client(target, lambda c: c.get_organization())
    data = {**org.to_dict(), "quotas": [q.to_dict() for q in org.quotas()]}
    render.emit(as_json, data, lambda: render.show_organization(org))


@click.group("members")
def members_group() -> None:
    """List and invite members of the organization."""


@members_group.command("list")
@service_command
def members_list(target: TargetOptions, as_json: bool) -> None:
    """List members with their roles."""
    members = with_client(target, lambda c: c.list_members())
    ordered = sorted(members, key=lambda m: ((m.email or "").lower(), m.id or ""))
    render.emit(as_json, [m.to_dict() for m in ordered], lambda: render.show_members(members))


@members_group.command("invite")
@click.argument("email")
@click.option("--role", type=click.Choice(ROLES), default="member", show_default=True)
@service_command
def members_invite(target: TargetOptions, email: str, role: str, as_json: bool) -> None:
    """Invite EMAIL with a role."""
    inv = with_client(target, lambda c: c.invite_member(email, role))
    status = f" ({inv.status})" if inv.status else ""
    render.emit(as_json, inv.to_dict(), lambda: echo(f"invited {inv.email} as {inv.role}{status}"))


@click.group("domains")
def domains_group() -> None:
    """Custom domains: list, add, verify, remove."""


@domains_group.command("list")
@service_command
def domains_list(target: TargetOptions, as_json: bool) -> None:
    """List the custom domains."""
    domains = with_client(target, lambda c: c.list_domains())
    data = [d.to_dict() for d in sorted(domains, key=lambda d: d.domain.lower())]
    render.emit(as_json, data, lambda: render.show_domains(domains))


@domains_group.command("add")
@click.argument("domain")
@click.option("--root-redirect", help="Where the bare domain root redirects (URL).")
@click.option("--not-found-redirect", help="Where unknown slugs redirect (URL).")
@service_command
def domains_add(
    target: TargetOptions,
    domain: str,
    root_redirect: str | None,
    not_found_redirect: str | None,
    as_json: bool,
) -> None:
    """Register DOMAIN (a host name) as a custom domain."""
    added = with_client(
        target, lambda c: c.create_domain(domain, root_redirect, not_found_redirect)
    )
    render.emit(as_json, added.to_dict(), lambda: render.show_domain(added, "added"))


@domains_group.command("verify")
@click.argument("domain_id", metavar="ID")
@service_command
def domains_verify(target: TargetOptions, domain_id: str, as_json: bool) -> None:
    """Ask the service to verify the domain with this ID."""
    verified = with_client(target, lambda c: c.verify_domain(domain_id))
    render.emit(as_json, verified.to_dict(), lambda: render.show_domain(verified, "verified"))


@domains_group.command("remove")
@click.argument("domain_id", metavar="ID")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@target_options
@handle_errors
def domains_remove(target: TargetOptions, domain_id: str, yes: bool) -> None:
    """Remove the custom domain with this ID, and with it every link on it (the prompt
    and the output say how many)."""
    settings = target.resolve()

    async def remove() -> str:
        async with settings.open_client() as client:
            domain = await client.find_domain(ident=domain_id)
            if domain is None:
                await client.delete_domain(domain_id)  # the service's own DOMAIN_NOT_FOUND
                return f"removed domain {domain_id}"
            links = await client.count_links(domain=domain.domain)
            what = f"custom domain {domain.domain} (ID {domain_id})"
            if not yes:
                question = f"Remove {what}? This also deletes the {links} link(s) on it."
                click.confirm(printable(question), abort=True, err=True)
            await client.delete_domain(domain_id)
            return f"removed {what} and the {links} link(s) on it"

    echo(asyncio.run(remove()))


@click.group("ai")
def ai_group() -> None:
    """The service's AI helpers."""


@ai_group.command("slug")
@click.argument("url")
@service_command
def ai_slug(target: TargetOptions, url: str, as_json: bool) -> None:
    """Suggest a slug for URL."""
    slug = with_client(target, lambda c: c.ai_slug(url))
    render.emit(as_json, {"url": url, "slug": slug}, lambda: echo(slug))


@ai_group.command("og")
@click.argument("url")
@service_command
def ai_og(target: TargetOptions, url: str, as_json: bool) -> None:
    """Suggest a title and description for URL."""
    og = with_client(target, lambda c: c.ai_og(url))
    text = f"title: {og.title}\ndescription: {og.description}"
    render.emit(as_json, {"url": url, **og.to_dict()}, lambda: echo(text))
