"""Every workspace command against the sandbox: output, exit code, then the state."""

from __future__ import annotations

import json

from ws_helpers import Workspace


def test_every_command_names_its_target_on_stderr(ws: Workspace) -> None:
    r = ws.run("org")
    assert r.exit_code == 0
    assert r.stderr.splitlines()[0] == f"target: built-in sandbox ({ws.root / 'state/sandbox.db'})"
    assert "target:" not in r.stdout


def test_org_table_and_json(ws: Workspace) -> None:
    async_create(ws, 3)
    r = ws.run("org")
    assert r.exit_code == 0
    assert "Sandbox Organization" in r.stdout and "plan sandbox" in r.stdout
    assert "links" in r.stdout and "10,000" in r.stdout and "0.0%" in r.stdout
    data = json.loads(ws.run("org", "--json").stdout)
    assert data["linkCount"] == 3 and data["linkQuota"] == 10_000
    assert data["quotas"][0] == {"label": "links", "used": 3, "limit": 10_000, "percent": 0.0}


def async_create(ws: Workspace, n: int, **extra: object) -> None:
    import asyncio

    async def go() -> None:
        async with ws.client() as c:
            for i in range(n):
                await c.create_link({"url": f"https://e.com/{i}", "slug": f"l{i:03d}", **extra})

    asyncio.run(go())


def test_members(ws: Workspace) -> None:
    r = ws.run("members", "invite", "ana@example.com", "--role", "admin")
    assert r.exit_code == 0 and "invited ana@example.com as admin" in r.stdout
    r = ws.run("members", "list")
    assert "owner@sandbox.test" in r.stdout and "ana@example.com" in r.stdout
    data = json.loads(ws.run("members", "list", "--json").stdout)
    assert [(m["email"], m["role"]) for m in data] == [
        ("ana@example.com", "admin"),
        ("owner@sandbox.test", "owner"),
    ]
    r = ws.run("members", "invite", "bo@example.com", "--role", "emperor")
    assert r.exit_code == 2 and "emperor" in r.stderr


def test_domains(ws: Workspace) -> None:
    r = ws.run("domains", "add", "go.example.com", "--root-redirect", "https://example.com",
               "--not-found-redirect", "https://example.com/404", "--json")  # fmt: skip
    assert r.exit_code == 0, r.output
    added = json.loads(r.stdout)
    assert added["domain"] == "go.example.com" and added["rootRedirectUrl"] == "https://example.com"
    r = ws.run("domains", "list")
    assert "go.example.com" in r.stdout and added["id"] in r.stdout
    r = ws.run("domains", "verify", added["id"])
    assert r.exit_code == 0 and "verified domain go.example.com" in r.stdout
    r = ws.run("domains", "remove", added["id"], input="n\n")
    assert r.exit_code == 1 and "Aborted" in r.stderr
    r = ws.run("domains", "remove", added["id"], "--yes")
    assert r.exit_code == 0
    assert json.loads(ws.run("domains", "list", "--json").stdout) == []


def test_links_create_get_update_delete(ws: Workspace) -> None:
    pw = ws.root / "pw.txt"
    pw.write_text("hunter2\n")
    r = ws.run("links", "create", "https://example.com/sale", "--slug", "sale", "--tag", "a",
               "--tag", "b", "--description", "Sale", "--password-file", str(pw),
               "--expires-at", "2031-01-01T00:00:00Z", "--apple", "https://apps.apple.com/x",
               "--google", "https://play.google.com/x")  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "created https://lnk.test/sale -> https://example.com/sale" in r.stdout
    got = json.loads(ws.run("links", "get", "sale", "--json").stdout)
    assert got["hasPassword"] is True and sorted(got["tags"]) == ["a", "b"]
    assert got["expiresAt"].startswith("2031-01-01") and "hunter2" not in json.dumps(got)
    r = ws.run("links", "get", "sale")
    assert "https://apps.apple.com/x" in r.stdout
    r = ws.run("links", "update", "sale", "--url", "https://example.com/new", "--clear", "tags",
               "--clear", "description")  # fmt: skip
    assert r.exit_code == 0 and "-> https://example.com/new" in r.stdout
    got = json.loads(ws.run("links", "get", "sale", "--json").stdout)
    assert (got["url"], got["tags"], got["description"]) == ("https://example.com/new", [], None)
    r = ws.run("links", "update", "sale")
    assert r.exit_code == 2 and "nothing to change" in r.stderr
    r = ws.run("links", "delete", "sale", input="y\n")
    assert r.exit_code == 0 and "deleted sale" in r.stdout
    r = ws.run("links", "get", "sale")
    assert r.exit_code == 1 and "LINK_NOT_FOUND" in r.stderr


def test_links_list_all_pages_and_filters(ws: Workspace) -> None:
    async_create(ws, 101, tags=["bulk"])
    data = json.loads(ws.run("links", "list", "--json").stdout)
    assert len(data) == 101 and data[0]["slug"] == "l000"
    assert len(json.loads(ws.run("links", "list", "--tag", "bulk", "--json").stdout)) == 101
    assert len(json.loads(ws.run("links", "list", "--tag", "none", "--json").stdout)) == 0
    hits = json.loads(ws.run("links", "list", "--search", "e.com/100", "--json").stdout)
    assert [h["slug"] for h in hits] == ["l100"]
    assert len(json.loads(ws.run("links", "list", "--limit", "5", "--json").stdout)) == 5
    assert len(json.loads(ws.run("links", "list", "--domain", "lnk.test", "--json").stdout)) == 101
    r = ws.run("links", "list", "--limit", "3")
    assert "3 link(s)" in r.stdout and "https://lnk.test/l000" in r.stdout


def test_invisible_characters_are_refused_before_sending(ws: Workspace) -> None:
    r = ws.run("links", "create", "https://example.com/\u200bsale", "--slug", "x")
    assert r.exit_code == 2 and "U+200B ZERO WIDTH SPACE" in r.stderr
    assert json.loads(ws.run("links", "list", "--json").stdout) == []


def test_ai_commands(ws: Workspace) -> None:
    r = ws.run("ai", "slug", "https://example.com/blog/spring-sale")
    assert r.exit_code == 0 and r.stdout.strip()
    data = json.loads(ws.run("ai", "og", "https://example.com/blog/spring-sale", "--json").stdout)
    assert data["url"] == "https://example.com/blog/spring-sale" and data["title"]
