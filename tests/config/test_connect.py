"""Opening the client a target names (``linksync.config.connect``): the network with its
checks, the built-in sandbox in this process with its state kept, a profile's retries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from linksync.config import resolve
from linksync.config.connect import open_client, retry_policy
from linksync.errors import ConfigError

SECRET = "prod-secret-key-9f8e7d"


async def test_plain_http_refused_unless_insecure(tmp_path: Path) -> None:
    env = {"LINKSYNC_API_KEY": SECRET}
    s = resolve(env=env, cwd=tmp_path, base_url="http://api.example.com")
    with pytest.raises(ConfigError, match="plain http"):
        open_client(s.target)
    s = resolve(env=env, cwd=tmp_path, base_url="http://api.example.com", insecure=True)
    await open_client(s.target).aclose()
    s = resolve(env=env, cwd=tmp_path, base_url="http://127.0.0.1:8787")
    await open_client(s.target).aclose()


async def test_open_client_on_the_sandbox_keeps_state(tmp_path: Path) -> None:
    target = resolve(env={}, cwd=tmp_path, sandbox=True).target
    async with open_client(target) as client:
        await client.create_link({"url": "https://e.com/kept", "slug": "kept"})
    assert (tmp_path / ".linksync" / "sandbox.db").is_file()
    async with open_client(target) as client:
        assert (await client.get_link("kept")).url == "https://e.com/kept"


def test_profile_retry_settings(tmp_path: Path) -> None:
    path = tmp_path / "linksync.yaml"
    path.write_text(yaml.safe_dump({"retry": {"rate_limited_retries": 0, "backoff_base": 0.1}}))
    policy = retry_policy(resolve(env={}, cwd=tmp_path, sandbox=True).profile.retry)
    assert (policy.rate_limited_retries, policy.backoff_base) == (0, 0.1)
    assert policy.server_error_retries == 4  # untouched default
    path.write_text(yaml.safe_dump({"retry": {"forever": 1}}))
    with pytest.raises(ConfigError, match=r"retry\.forever"):
        resolve(env={}, cwd=tmp_path, sandbox=True)


def test_the_sandbox_is_imported_only_when_a_sandbox_client_opens(tmp_path: Path) -> None:
    """Resolving settings and opening a service's client load neither the sandbox nor
    Starlette (a command's ``--help``, a run against a service); a sandbox target does."""
    probe = (
        "import sys\n"
        "from linksync.config import resolve\n"
        "s = resolve(env={'LINKSYNC_API_KEY': 'k'}, base_url='https://api.example.com')\n"
        "s.open_client()\n"
        "print(sorted(m for m in sys.modules if m in ('starlette', 'linksync.sandbox')))\n"
        "resolve(env={}, sandbox=True).open_client()\n"
        "print(sorted(m for m in sys.modules if m in ('starlette', 'linksync.sandbox')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == ["[]", "['linksync.sandbox', 'starlette']"]
