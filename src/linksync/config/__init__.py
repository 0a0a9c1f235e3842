"""Settings: which service (or the built-in sandbox), which key, which profile.

A target is a base URL plus an API key. Every setting is taken from the first source
that gives it, in this order:

1. command-line flags (``--base-url`` or ``--sandbox``, ``--api-key-file``, ``--profile``,
   ``--insecure``, ``--concurrency``, ``--proxy``, ``--ca-bundle``, ``--system-trust``,
   ``--config``);
2. the environment: ``LINKSYNC_BASE_URL``, ``LINKSYNC_API_KEY``, ``LINKSYNC_PROFILE``;
3. the config file (``--config``, else ``./linksync.yaml`` when it exists), a named
   profile in it (``--profile`` / ``LINKSYNC_PROFILE`` / the file's ``default_profile``);
4. no target: the built-in sandbox (in-process, state in ``.linksync/sandbox.db``) only
   when asked for (``--sandbox``, ``LINKSYNC_SANDBOX=1``, a profile's ``sandbox: true``)
   or for a person at a terminal; else a ``ConfigError`` (``config.choice``).

The key is never a command-line argument (it would show in the process list): it comes
from ``LINKSYNC_API_KEY``, from a file (``--api-key-file`` or the profile's
``api_key_file``), or from the variable a profile names in ``api_key_env``.

The config file's shape, every key commented: ``configs/linksync.example.yaml``.

The package, one pass down: ``config.targets`` (the ``targets:`` block of a run over
several workspaces) -> this module (``Settings``, ``resolve``: the order above) ->
``config.choice`` (the target: a service or the sandbox, its key, how requests reach
it; ``config.urlcheck`` checks its URL) -> ``config.profiles`` (the file and its
profiles). ``config.connect`` opens the client or the sandbox a target names
(``Settings.open_client``); ``config.identity`` is the workspace a target reaches. It
may import errors, model, rules, safe, api, sandbox and ``sync.options`` (the modes a
target names), never reports, export, the pipeline or a front end.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from linksync.api.defaults import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT, MAX_CONCURRENCY
from linksync.config.choice import DEFAULT_SANDBOX_DB as DEFAULT_SANDBOX_DB
from linksync.config.choice import NetworkFlags as NetworkFlags
from linksync.config.choice import Target as Target
from linksync.config.choice import TargetFlags, target_for
from linksync.config.choice import sandbox_target as sandbox_target
from linksync.config.connect import open_client, retry_policy
from linksync.config.profiles import DEFAULT_CONFIG as DEFAULT_CONFIG
from linksync.config.profiles import ENV_PROFILE, Profile
from linksync.config.profiles import find_config as find_config
from linksync.config.profiles import load_profile as load_profile
from linksync.errors import ConfigError

if TYPE_CHECKING:
    from linksync.api import LinkServiceClient, RetryPolicy


@dataclass(frozen=True, slots=True)
class Settings:
    """The resolved target plus the profile's other settings, for commands to use."""

    target: Target
    profile: Profile
    concurrency: int
    timeout: float
    config_path: Path | None = None
    key_file: str | None = None

    def read_files(self) -> dict[str, str | None]:
        """Files the target reads (by role): no output of a run may replace them."""
        return {
            "config file": str(self.config_path) if self.config_path else None,
            "API key file": self.key_file,
            "sandbox database": self.target.sandbox_db if self.target.is_sandbox else None,
            "sandbox config": self.target.sandbox_config,
            "CA file": self.target.ca_bundle,
        }

    @property
    def default_domain(self) -> str | None:
        return self.profile.default_domain

    @property
    def system_domain(self) -> str | None:
        """The service's own domain when the profile names it, or the built-in
        sandbox's (a real target does not announce it: the remote fetch learns it)."""
        if self.profile.system_domain:
            return self.profile.system_domain
        sandbox = self.target.sandbox
        return sandbox.system_domain if sandbox is not None else None

    @property
    def limits(self) -> Mapping[str, Any]:
        return self.profile.limits

    def open_client(self, retry: RetryPolicy | None = None) -> LinkServiceClient:
        """The client of this target (``config.connect.open_client``), with these
        settings' concurrency, timeout and the profile's ``retry:`` unless ``retry``."""
        return open_client(
            self.target,
            concurrency=self.concurrency,
            timeout=self.timeout,
            retry=retry or retry_policy(self.profile.retry),
        )


def resolve(
    *,
    config: str | Path | None = None,
    profile: str | None = None,
    base_url: str | None = None,
    api_key_file: str | None = None,
    insecure: bool = False,
    concurrency: int | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    network: NetworkFlags | None = None,
    sandbox: bool | Literal["if-unset"] = False,
) -> Settings:
    """Flags (the keyword arguments) > environment > config file. ``sandbox``: True,
    the built-in sandbox (``--sandbox``); ``"if-unset"``, the sandbox when nothing
    names a target (a person at a terminal, the local page). With neither, nothing
    configured and no ``LINKSYNC_SANDBOX=1``: ``ConfigError`` naming the ways to set a
    target."""
    env = os.environ if env is None else env
    here = Path(cwd) if cwd is not None else Path.cwd()
    config_path = find_config(config, here)
    profile_name = profile or env.get(ENV_PROFILE) or None
    if config_path is not None:
        prof = load_profile(config_path, profile_name)
    elif profile_name:
        raise ConfigError(f"profile {profile_name!r} asked for, but there is no {DEFAULT_CONFIG}")
    else:
        prof = Profile()
    asked, fallback = sandbox is True, sandbox == "if-unset"
    flags = TargetFlags(base_url, api_key_file, insecure, network, asked, fallback)
    return settings_for(prof, config_path, flags, concurrency=concurrency, here=here, env=env)


def settings_for(
    prof: Profile,
    config_path: Path | None,
    flags: TargetFlags,
    *,
    concurrency: int | None,
    here: Path,
    env: Mapping[str, str],
    kind: str = "profile",
) -> Settings:
    """The settings of a profile already chosen (read from ``config_path``): its target
    (flags > environment > the profile; the sandbox only when asked for:
    ``config.choice``), then the requests in flight and the timeout. ``kind`` names it
    in the target's label (``profile`` or ``target``)."""
    target, key_file = target_for(prof, flags, env, here, kind)
    n = concurrency if concurrency is not None else (prof.concurrency or DEFAULT_CONCURRENCY)
    if not 1 <= n <= MAX_CONCURRENCY:
        raise ConfigError(f"concurrency must be 1..{MAX_CONCURRENCY}")
    timeout = prof.timeout or DEFAULT_TIMEOUT
    return Settings(target, prof, n, timeout, config_path, key_file)
