"""Targets and profiles.

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

Config file shape (see ``configs/linksync.example.yaml``)::

    default_profile: production
    profiles:
      production:
        base_url: https://api.example.com  # or sandbox: true (the built-in sandbox)
        api_key_env: LINKSYNC_PROD_KEY
        default_domain: go.example.com
        concurrency: 8
        proxy: http://proxy.example.com:3128   # else HTTPS_PROXY & co. (docs/network.md)
        ca_bundle: certs/company-ca.pem  # a CA to trust (relative to this file)
        trust: system                    # the operating system's trust store
        owner_tag: managed-by-linksync
        columns: {Destination: url}
        strict: true                     # every source warning is an error
        encoding: cp1252                 # CSV encoding (default: detected)
        date_format: dmy                 # 31/12/2026 in files
        timezone: America/New_York       # zone of date-times without one (default UTC)
        empty_values: [N/A, "-", TBD]    # cells read as empty
        workbook_password_env: CAMPAIGN_PW  # password of encrypted workbooks
        slugless: stable                 # rows without slug: stable (default) | random
        system_domain: sho.rt
        limits: {max_deletes: 50, max_change_ratio: 0.3, min_existing: 10}

The package: this module (``Target``, the order above, the client or sandbox a target
opens), ``config.profiles`` (the file and its profiles), ``config.targets`` (the
``targets:`` block of a run over several workspaces), ``config.choice`` (a service or the
sandbox), ``config.identity`` (the workspace a target reaches), ``config.urlcheck``. It may import
errors, model, rules, safe, api, sandbox and ``sync.options`` (the modes a target names),
never reports, export, the pipeline or a front end.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linksync.api.defaults import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT, MAX_CONCURRENCY
from linksync.config.choice import ENV_API_KEY as ENV_API_KEY
from linksync.config.choice import ENV_BASE_URL as ENV_BASE_URL
from linksync.config.choice import ENV_SANDBOX as ENV_SANDBOX
from linksync.config.choice import choose_url, resolve_key
from linksync.config.profiles import ENV_PROFILE, Profile, load_profile
from linksync.config.urlcheck import check_url, target_name
from linksync.errors import ConfigError
from linksync.safe.state_folder import make_folder

if TYPE_CHECKING:
    from linksync.api import LinkServiceClient, RetryPolicy
    from linksync.sandbox.settings import SandboxSettings

DEFAULT_CONFIG = "linksync.yaml"
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
    def columns(self) -> Mapping[str, Any]:
        return self.profile.columns

    @property
    def owner_tag(self) -> str | None:
        return self.profile.owner_tag

    @property
    def slugless(self) -> str | None:
        """How rows without a slug are created (``stable`` / ``random``; None: default)."""
        return self.profile.slugless

    @property
    def limits(self) -> Mapping[str, Any]:
        return self.profile.limits

    def retry_policy(self) -> RetryPolicy:
        from linksync.api import RetryPolicy

        values: dict[str, Any] = {
            k: int(v) if k.endswith("_retries") else float(v) for k, v in self.profile.retry.items()
        }
        return RetryPolicy(**values)

    def open_client(self, retry: RetryPolicy | None = None) -> LinkServiceClient:
        return open_client(
            self.target,
            concurrency=self.concurrency,
            timeout=self.timeout,
            retry=retry or self.retry_policy(),
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
    sandbox: bool = False,
    fallback: bool = False,
) -> Settings:
    """Flags (the keyword arguments) > environment > config file. ``sandbox``: the
    built-in sandbox (``--sandbox``); ``fallback``: the sandbox when nothing names a
    target (a person at a terminal). With neither, nothing configured and no
    ``LINKSYNC_SANDBOX=1``: ``ConfigError`` naming the ways to set a target."""
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
    return settings_for(
        prof,
        config_path=config_path,
        here=here,
        env=env,
        base_url=base_url,
        api_key_file=api_key_file,
        insecure=insecure,
        concurrency=concurrency,
        network=network,
        sandbox=sandbox,
        fallback=fallback,
    )


def find_config(config: str | os.PathLike[str] | None, here: Path) -> Path | None:
    """The config file: ``config`` (relative to ``here``), else ``./linksync.yaml`` when
    it exists, else None."""
    if config is not None:
        path = Path(config)
        if not path.is_absolute():
            path = here / path
        if not path.is_file():
            raise ConfigError(f"config file {config} does not exist")
        return path
    default = here / DEFAULT_CONFIG
    return default if default.is_file() else None


def settings_for(
    prof: Profile,
    *,
    config_path: Path | None,
    here: Path,
    env: Mapping[str, str],
    base_url: str | None = None,
    api_key_file: str | None = None,
    insecure: bool = False,
    concurrency: int | None = None,
    kind: str = "profile",
    network: NetworkFlags | None = None,
    sandbox: bool = False,
    fallback: bool = False,
) -> Settings:
    """The settings of a profile already chosen (flags > environment > the profile;
    the sandbox only when asked for: ``config.choice``); ``kind`` names it in the
    target's label (``profile`` or ``target``)."""
    urls = (base_url, env.get(ENV_BASE_URL))
    url = choose_url(prof, urls, env, sandbox=sandbox, fallback=fallback, kind=kind)
    overridden = url is None and prof.base_url is not None  # --sandbox over its service
    key = resolve_key(api_key_file, env, Profile() if overridden else prof)
    n = concurrency if concurrency is not None else (prof.concurrency or DEFAULT_CONCURRENCY)
    if not 1 <= n <= MAX_CONCURRENCY:
        raise ConfigError(f"concurrency must be 1..{MAX_CONCURRENCY}")
    timeout = prof.timeout or DEFAULT_TIMEOUT
    net = (network or NetworkFlags()).over(prof)
    where = f" ({kind} {prof.name})" if prof.name else ""
    if url:
        url = check_url(url)
        if key is None:
            raise ConfigError(
                f"no API key for {url}: set {ENV_API_KEY}, pass --api-key-file, "
                "or name a variable in the profile's api_key_env"
            )
        target = Target(
            base_url=url.rstrip("/"),
            api_key=key,
            label=f"{target_name(url)}{where}",
            insecure=insecure or prof.insecure,
            proxy=net.proxy,
            ca_bundle=net.ca_bundle,
            system_trust=net.system_trust,
        )
    else:
        target = sandbox_target(here, prof, key)
    key_file = api_key_file or (
        prof.api_key_file
        if not env.get(ENV_API_KEY) and not prof.api_key_env and not overridden
        else None
    )
    return Settings(target, prof, n, timeout, config_path, key_file)


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


def sandbox_target(here: Path, prof: Profile, key: str | None) -> Target:
    """The built-in sandbox: in-process, its state in ``.linksync/sandbox.db``."""
    from linksync.sandbox.settings import SandboxSettings

    db = prof.sandbox_db or DEFAULT_SANDBOX_DB
    settings = SandboxSettings.load(prof.sandbox_config) if prof.sandbox_config else None
    settings = settings or SandboxSettings()
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


def open_client(
    target: Target,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    timeout: float = DEFAULT_TIMEOUT,
    retry: RetryPolicy | None = None,
) -> LinkServiceClient:
    """The one way commands get a client: the in-process sandbox for a sandbox target,
    the network otherwise."""
    from linksync.api import LinkServiceClient, asgi_transport

    if not target.is_sandbox:
        from linksync.api.network import Network

        network = Network(target.proxy, target.ca_bundle, target.system_trust)
        return LinkServiceClient(
            target.base_url,
            target.api_key,
            concurrency=concurrency,
            timeout=timeout,
            allow_insecure=target.insecure,
            retry=retry,
            network=network,
        )
    from linksync.sandbox import SandboxSettings, create_app

    settings = target.sandbox  # read once, by ``sandbox_target``
    if settings is None:  # a Target built by hand
        settings = (
            SandboxSettings.load(target.sandbox_config)
            if target.sandbox_config
            else SandboxSettings()
        )
    db = target.sandbox_db or DEFAULT_SANDBOX_DB
    if db != ":memory:":
        make_folder(Path(db).parent)
    app = create_app(settings, db_path=db)
    return LinkServiceClient(
        target.base_url,
        target.api_key,
        transport=asgi_transport(app),
        concurrency=concurrency,
        timeout=timeout,
        allow_insecure=True,
        retry=retry,
    )
