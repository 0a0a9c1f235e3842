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
set one. ``target_for`` makes the whole ``Target``: the URL or the sandbox, the key, the
proxy and TLS trust (``NetworkFlags``). Imports the profile, the URL check and the
errors (``linksync.config`` imports it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from linksync.config.profiles import Profile
from linksync.config.urlcheck import check_url, target_name
from linksync.errors import ConfigError

if TYPE_CHECKING:
    from linksync.sandbox.settings import SandboxSettings

ENV_BASE_URL = "LINKSYNC_BASE_URL"
ENV_API_KEY = "LINKSYNC_API_KEY"
#: ``LINKSYNC_SANDBOX=1``: the built-in sandbox may be used when no base URL is given.
ENV_SANDBOX = "LINKSYNC_SANDBOX"
_YES = frozenset({"1", "true", "yes", "on"})
_NO = frozenset({"", "0", "false", "no", "off"})
DEFAULT_SANDBOX_DB = ".linksync/sandbox.db"
SANDBOX_BASE_URL = "http://sandbox.local"


@dataclass(frozen=True, slots=True)
class Target:
    """Where requests go. ``repr`` never shows the key. For the built-in sandbox,
    ``sandbox`` holds its settings, read once (from ``sandbox_config`` when given)."""

    base_url: str
    api_key: str = field(repr=False)
    is_sandbox: bool = False
    label: str = ""
    insecure: bool = False
    sandbox_db: str | None = None
    sandbox_config: str | None = None
    sandbox: SandboxSettings | None = field(default=None, compare=False)
    proxy: str | None = field(default=None, repr=False)  # may hold credentials
    ca_bundle: str | None = None
    system_trust: bool = False

    def __repr__(self) -> str:
        return (
            f"Target(base_url={self.base_url!r}, is_sandbox={self.is_sandbox}, "
            f"label={self.label!r}, api_key='***')"
        )

    def describe(self) -> str:
        """The one line every command prints on stderr (with the proxy requests go
        through, without its credentials)."""
        used = self.used_proxy()
        via = ""
        if used:
            from linksync.api.network import shown_proxy

            via = f" via proxy {shown_proxy(used)}"
        return f"target: {self.label or self.base_url}{via}"

    def used_proxy(self) -> str | None:
        """The proxy requests go through (``proxy``, else the environment's by httpx's
        rules, ``NO_PROXY`` included); None for the in-process sandbox."""
        if self.is_sandbox:
            return None
        from linksync.api.network import proxy_for

        return proxy_for(self.base_url, self.proxy)

    def secrets(self) -> tuple[str, ...]:
        """What no output may show: the key, and the password of the proxy used."""
        from linksync.api.network import proxy_secrets

        used = self.used_proxy()
        return (self.api_key, *(proxy_secrets(used) if used else ()))


@dataclass(frozen=True, slots=True)
class NetworkFlags:
    """What ``--proxy``, ``--ca-bundle`` and ``--system-trust`` said (None / False: not
    given); ``over`` puts them over a profile's ``proxy:``, ``ca_bundle:``, ``trust:``."""

    proxy: str | None = field(default=None, repr=False)
    ca_bundle: str | None = None
    system_trust: bool = False

    def over(self, prof: Profile) -> NetworkFlags:
        """The flags over the profile's keys, checked: a proxy URL that is one, a CA
        file that exists and holds certificates (before any request)."""
        from linksync.api.network import check_ca_bundle, check_proxy

        proxy = check_proxy(self.proxy) if self.proxy else prof.proxy
        ca = self.ca_bundle or prof.ca_bundle
        if ca is not None:
            ca = check_ca_bundle(ca, "--ca-bundle" if self.ca_bundle else "ca_bundle")
        return NetworkFlags(proxy, ca, self.system_trust or prof.trust == "system")


@dataclass(frozen=True, slots=True)
class TargetFlags:
    """What the command line (or ``resolve``'s keywords) said of the target; None /
    False: not given. ``sandbox``: ``--sandbox``; ``fallback``: a person at a terminal,
    for whom the sandbox is the default."""

    base_url: str | None = None
    api_key_file: str | None = None
    insecure: bool = False
    network: NetworkFlags | None = None
    sandbox: bool = False
    fallback: bool = False


def target_for(
    prof: Profile, flags: TargetFlags, env: Mapping[str, str], here: Path, kind: str
) -> tuple[Target, str | None]:
    """The target of a profile already chosen (flags > environment > the profile; see
    the module docstring), and the file its key was read from (None: not a file).
    ``kind`` names the profile in the target's label (``profile`` or ``target``)."""
    urls = (flags.base_url, env.get(ENV_BASE_URL))
    url = choose_url(prof, urls, env, sandbox=flags.sandbox, fallback=flags.fallback, kind=kind)
    overridden = url is None and prof.base_url is not None  # --sandbox over its service
    key = resolve_key(flags.api_key_file, env, Profile() if overridden else prof)
    net = (flags.network or NetworkFlags()).over(prof)
    key_file = flags.api_key_file or (
        prof.api_key_file
        if not env.get(ENV_API_KEY) and not prof.api_key_env and not overridden
        else None
    )
    if url is None:
        return sandbox_target(here, prof, key), key_file
    url = check_url(url)
    if key is None:
        raise ConfigError(
            f"no API key for {url}: set {ENV_API_KEY}, pass --api-key-file, "
            "or name a variable in the profile's api_key_env"
        )
    where = f" ({kind} {prof.name})" if prof.name else ""
    target = Target(
        base_url=url.rstrip("/"),
        api_key=key,
        label=f"{target_name(url)}{where}",
        insecure=flags.insecure or prof.insecure,
        proxy=net.proxy,
        ca_bundle=net.ca_bundle,
        system_trust=net.system_trust,
    )
    return target, key_file


def sandbox_target(here: Path, prof: Profile, key: str | None) -> Target:
    """The built-in sandbox: in-process, its state in ``.linksync/sandbox.db``."""
    from linksync.sandbox.settings import resolve_settings

    db = prof.sandbox_db or DEFAULT_SANDBOX_DB
    settings = resolve_settings(prof.sandbox_config or None)
    db_path = db if db == ":memory:" or Path(db).is_absolute() else str(here / db)
    return Target(
        base_url=SANDBOX_BASE_URL,
        api_key=key or settings.full_key,
        is_sandbox=True,
        label=f"built-in sandbox ({db})",
        insecure=True,
        sandbox_db=db_path,
        sandbox_config=prof.sandbox_config,
        sandbox=settings,
    )


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
            how = (
                "which is not set"
                if prof.api_key_env not in env
                else "which is set but empty (a CI secret that did not reach this job?)"
            )
            raise ConfigError(
                f"profile {prof.name or '(default)'} takes its key from ${prof.api_key_env}, {how}"
            )
        return value
    if prof.api_key_file:
        return read_key_file(prof.api_key_file)
    return None


def read_key_file(path: str) -> str:
    """The one key a key file holds (``ConfigError`` when it cannot be read, is empty,
    or holds more than one line or word)."""
    try:
        key = Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(f"cannot read API key file {path}: {exc.strerror}") from None
    if not key or any(c.isspace() for c in key):
        raise ConfigError(f"API key file {path} must hold exactly one key on one line")
    return key
