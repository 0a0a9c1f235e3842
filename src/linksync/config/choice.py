"""Which target a run talks to: a service, or the built-in sandbox when it was asked for.

A run with a base URL (``--base-url``, ``LINKSYNC_BASE_URL``, a profile's ``base_url``)
talks to that service. The built-in sandbox (in-process, a local file) is used only when
asked for, so that a cron job or a CI step whose ``LINKSYNC_BASE_URL`` was not set stops
instead of succeeding against a local file:

- ``--sandbox`` (``linksync.config.resolve(sandbox=True)``): the sandbox, over a base URL
  of the environment or the profile (a flag wins); with ``--base-url`` it is an error;
- a profile's (or a target's) ``sandbox: true``: the sandbox is that profile's target
  (``LINKSYNC_BASE_URL`` still wins over it, as over a profile's ``base_url``);
- ``LINKSYNC_SANDBOX=1``: the sandbox may be used when no base URL is configured (a
  permission: it never sends a run that names its service elsewhere);
- a person at a terminal (the command line's ``fallback``, and ``linksync ui``): with
  nothing configured the sandbox is the default, and the command says so on stderr.

Otherwise ``no_target`` is the ``ConfigError`` (exit 2, nothing done) naming the ways to
set one. Imports the errors and the profile only (``linksync.config`` imports it).
"""

from __future__ import annotations

from collections.abc import Mapping

from linksync.config.profiles import Profile, read_key_file
from linksync.errors import ConfigError

ENV_BASE_URL = "LINKSYNC_BASE_URL"
ENV_API_KEY = "LINKSYNC_API_KEY"
#: ``LINKSYNC_SANDBOX=1``: the built-in sandbox may be used when no base URL is given.
ENV_SANDBOX = "LINKSYNC_SANDBOX"
_YES = frozenset({"1", "true", "yes", "on"})
_NO = frozenset({"", "0", "false", "no", "off"})


def sandbox_consent(env: Mapping[str, str]) -> bool:
    """Whether ``LINKSYNC_SANDBOX`` allows the built-in sandbox (``1``, ``true``, ``yes``,
    ``on``; ``0``, ``false``, ``no``, ``off`` or unset do not). Any other value is a
    ``ConfigError``: a typo never decides where a run goes."""
    value = env.get(ENV_SANDBOX, "").strip().lower()
    if value in _YES:
        return True
    if value in _NO:
        return False
    raise ConfigError(f"{ENV_SANDBOX} must be 1 (use the built-in sandbox) or 0, got {value!r}")


def choose_url(
    prof: Profile,
    urls: tuple[str | None, str | None],
    env: Mapping[str, str],
    *,
    sandbox: bool = False,
    fallback: bool = False,
    kind: str = "profile",
) -> str | None:
    """The base URL of the run's target, or None for the built-in sandbox (see the
    module docstring). ``urls``: the flag's and the environment's base URL (None: not
    given), over the profile's; ``sandbox``: ``--sandbox``; ``fallback``: a person at a
    terminal, for whom the sandbox is the default; ``kind``: ``target`` for a target of
    the config's ``targets:`` block. ``ConfigError`` when nothing names a target and the
    sandbox was not asked for."""
    flag, from_env = urls
    if sandbox:
        if flag:
            raise ConfigError("--base-url and --sandbox name two targets: give one")
        return None
    url = flag or from_env or prof.base_url
    if url:
        return url
    if prof.sandbox or sandbox_consent(env) or fallback:
        return None
    raise no_target(prof, kind)


def no_target(prof: Profile, kind: str = "profile") -> ConfigError:
    """The error of a run that names no target: the ways to set one (``kind``
    ``target``: a target of the ``targets:`` block, which takes no URL from elsewhere)."""
    named = f"{kind} {prof.name}" if prof.name else "the config"
    hint = ""
    if prof.sandbox_db or prof.sandbox_config:
        hint = f" ({named} names sandbox_db/sandbox_config: add sandbox: true to it)"
    if kind == "target":
        return ConfigError(
            "no base_url: give the target a base_url (and api_key_env or api_key_file), or "
            "sandbox: true for the built-in sandbox (--sandbox or LINKSYNC_SANDBOX=1 let every "
            f"target without a base_url use it){hint}"
        )
    return ConfigError(
        "no target configured: set LINKSYNC_BASE_URL and LINKSYNC_API_KEY, choose a "
        "profile with a base_url (--profile, LINKSYNC_PROFILE, ./linksync.yaml), or pass "
        "--base-url; for the built-in sandbox pass --sandbox or set LINKSYNC_SANDBOX=1 (a "
        "profile: sandbox: true; Python: linksync.config.resolve(sandbox=True)). Without a "
        f"terminal (cron, CI, a script) linksync never picks the sandbox by itself{hint}"
    )


def resolve_key(flag_file: str | None, env: Mapping[str, str], prof: Profile) -> str | None:
    """The API key: ``--api-key-file``, else ``LINKSYNC_API_KEY``, else the profile's
    ``api_key_env`` (``ConfigError`` when that variable is not set) or ``api_key_file``."""
    if flag_file:
        return read_key_file(flag_file)
    if env.get(ENV_API_KEY):
        return env[ENV_API_KEY].strip()
    if prof.api_key_env:
        value = env.get(prof.api_key_env, "").strip()
        if not value:
            raise ConfigError(
                f"profile {prof.name or '(default)'} takes its key from ${prof.api_key_env}, "
                "which is not set"
            )
        return value
    if prof.api_key_file:
        return read_key_file(prof.api_key_file)
    return None
