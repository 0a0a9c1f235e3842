"""Every error constant the service can give reaches the user intact: constant, message,
requestId on stderr, and the exit code of a run (2 for auth, 1 otherwise)."""

from __future__ import annotations

import re

import pytest
from ws_helpers import Workspace

NO_RETRY = {
    "rate_limited_retries": 0,
    "server_error_retries": 0,
    "unavailable_retries": 0,
    "transport_retries": 0,
}
RID = re.compile(r"\(requestId [^)]+\)")


def seed(ws: Workspace) -> None:
    assert ws.run("links", "create", "https://e.com/taken", "--slug", "taken").exit_code == 0
    assert ws.run("domains", "add", "dup.example.com").exit_code == 0
    assert ws.run("members", "invite", "dup@example.com").exit_code == 0


CASES = [
    ("INVALID_URL", 400, 1, ["links", "create", "ftp://e.com"]),
    ("INVALID_SLUG", 400, 1, ["links", "create", "https://e.com", "--slug", "a--b"]),
    ("RESERVED_SLUG", 400, 1, ["links", "create", "https://e.com", "--slug", "dashboard"]),
    ("INVALID_EXPIRY", 400, 1, ["links", "create", "https://e.com", "--expires-at", "2001-01-01"]),
    ("SLUG_EXISTS", 409, 1, ["links", "create", "https://e.com", "--slug", "taken"]),
    ("LINK_NOT_FOUND", 404, 1, ["links", "update", "ghost", "--url", "https://e.com"]),
    ("LINK_NOT_FOUND", 404, 1, ["links", "delete", "ghost", "--yes"]),
    ("DOMAIN_NOT_FOUND", 404, 1, ["links", "create", "https://e.com", "--domain", "no.example"]),
    ("DOMAIN_NOT_FOUND", 404, 1, ["domains", "verify", "dom_missing"]),
    ("DOMAIN_NOT_FOUND", 404, 1, ["domains", "remove", "dom_missing", "--yes"]),
    ("DOMAIN_EXISTS", 409, 1, ["domains", "add", "dup.example.com"]),
    ("MEMBER_EXISTS", 409, 1, ["members", "invite", "dup@example.com"]),
    ("INVALID_REQUEST", 400, 1, ["domains", "add", "not a host"]),
]  # fmt: skip


@pytest.mark.parametrize(("constant", "status", "exit_code", "args"), CASES)
def test_service_errors_reach_the_user(
    ws: Workspace, constant: str, status: int, exit_code: int, args: list[str]
) -> None:
    seed(ws)
    r = ws.run(*args)
    assert r.exit_code == exit_code, r.output
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith(f"Error: {constant}: "), line
    assert f"HTTP {status}" in line and RID.search(line)
    assert r.stdout == ""


def test_read_only_key_is_forbidden_exit_2(ws: Workspace) -> None:
    env = {"LINKSYNC_API_KEY": "sandbox-read-only-key"}
    assert ws.run("links", "list", env=env).exit_code == 0
    r = ws.run("links", "create", "https://e.com", env=env)
    assert r.exit_code == 2
    assert "FORBIDDEN" in r.stderr and "code 40301" in r.stderr and RID.search(r.stderr)


def test_unknown_key_is_unauthorized_exit_2(ws: Workspace) -> None:
    r = ws.run("org", env={"LINKSYNC_API_KEY": "not-a-key"})
    assert r.exit_code == 2 and "UNAUTHORIZED" in r.stderr and "code 40101" in r.stderr
    assert "not-a-key" not in r.output


def test_link_quota_exceeded(ws: Workspace) -> None:
    ws.write(sandbox={"organization": {"link_quota": 1}})
    assert ws.run("links", "create", "https://e.com/1").exit_code == 0
    r = ws.run("links", "create", "https://e.com/2")
    assert r.exit_code == 1 and "QUOTA_EXCEEDED" in r.stderr and "HTTP 403" in r.stderr


def test_domain_quota_exceeded(ws: Workspace) -> None:
    ws.write(sandbox={"organization": {"custom_domain_quota": 0}})
    r = ws.run("domains", "add", "go.example.com")
    assert r.exit_code == 1 and "QUOTA_EXCEEDED" in r.stderr


@pytest.mark.parametrize(
    ("faults", "constant", "status"),
    [({"fail_500": 1.0}, "INTERNAL_ERROR", 500), ({"fail_503": 1.0}, "EDGE_UNAVAILABLE", 503)],
)
def test_injected_faults_after_retries(
    ws: Workspace, faults: dict[str, float], constant: str, status: int
) -> None:
    ws.write(profile={"retry": NO_RETRY}, sandbox={"faults": faults})
    r = ws.run("org")
    assert r.exit_code == 1
    assert f"{constant}: injected fault" in r.stderr and f"HTTP {status}" in r.stderr


def test_config_errors_exit_2(ws: Workspace) -> None:
    r = ws.run("org", "--profile", "missing")
    assert r.exit_code == 2 and "no profile 'missing'" in r.stderr
    r = ws.run("org", "--base-url", "http://api.example.com", env={"LINKSYNC_API_KEY": "k"})
    assert r.exit_code == 2 and "plain http" in r.stderr
    r = ws.run("org", "--base-url", "https://api.example.com")
    assert r.exit_code == 2 and "no API key" in r.stderr


def test_unreachable_service_is_a_transport_error(ws: Workspace) -> None:
    ws.write(profile={"retry": NO_RETRY})
    r = ws.run("org", "--base-url", "http://127.0.0.1:9", env={"LINKSYNC_API_KEY": "k"})
    assert r.exit_code == 1 and "TRANSPORT_ERROR" in r.stderr and "before sending" in r.stderr
