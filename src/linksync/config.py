"""Targets and profiles.

A target is a base URL plus an API key. Every setting is taken from the first source
that gives it, in this order:

1. command-line flags (``--base-url``, ``--api-key-file``, ``--profile``, ``--insecure``,
   ``--concurrency``, ``--config``);
2. the environment: ``LINKSYNC_BASE_URL``, ``LINKSYNC_API_KEY``, ``LINKSYNC_PROFILE``;
3. the config file (``--config``, else ``./linksync.yaml`` when it exists), a named
   profile in it (``--profile`` / ``LINKSYNC_PROFILE`` / the file's ``default_profile``);
4. defaults: the built-in sandbox, in-process, state in ``.linksync/sandbox.db``.

The key is never a command-line argument (it would show in the process list): it comes
from ``LINKSYNC_API_KEY``, from a file (``--api-key-file`` or the profile's
``api_key_file``), or from the variable a profile names in ``api_key_env``.

Config file shape (see ``configs/linksync.example.yaml``)::

    default_profile: production
    profiles:
      production:
        base_url: https://api.example.com
        api_key_env: LINKSYNC_PROD_KEY
        default_domain: go.example.com
        concurrency: 8
        owner_tag: managed-by-linksync
        columns: {Destination: url}
        strict: true                     # every source warning is an error
        encoding: cp1252                 # CSV encoding (default: detected)
        date_format: dmy                 # 31/12/2026 in files
        empty_values: [N/A, "-", TBD]    # cells read as empty
        system_domain: sho.rt
        limits: {max_deletes: 50, max_change_ratio: 0.3, min_existing: 10}
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from linksync.errors import ConfigError
from linksync.urlcheck import check_url

if TYPE_CHECKING:
    from linksync.api import LinkServiceClient, RetryPolicy

ENV_BASE_URL = "LINKSYNC_BASE_URL"
ENV_API_KEY = "LINKSYNC_API_KEY"
ENV_PROFILE = "LINKSYNC_PROFILE"
DEFAULT_CONFIG = "linksync.yaml"
DEFAULT_SANDBOX_DB = ".linksync/sandbox.db"
SANDBOX_BASE_URL = "http://sandbox.local"
DEFAULT_CONCURRENCY = 32  # at most; pacing keeps requests in flight near rate x latency
MAX_CONCURRENCY = 64

PROFILE_KEYS = frozenset(
    {
        "base_url",
        "api_key_env",
        "api_key_file",
        "insecure",
        "default_domain",
        "system_domain",
        "concurrency",
        "columns",
        "owner_tag",
        "limits",
        "sandbox_db",
        "sandbox_config",
        "timeout",
        "retry",
        "strict",
        "encoding",
        "date_format",
        "empty_values",
    }
)

#: Profile ``retry:`` keys (RetryPolicy fields), e.g. ``{rate_limited_retries: 0}`` to fail
#: fast in CI instead of waiting out a 429.
RETRY_KEYS = frozenset(
    {
        "rate_limited_retries",
        "server_error_retries",
        "unavailable_retries",
        "transport_retries",
        "default_retry_after",
        "max_retry_after",
        "jitter",
        "backoff_base",
        "backoff_max",
        "unavailable_delay",
        "transport_delay",
    }
)


@dataclass(frozen=True, slots=True)
class Target:
    """Where requests go. ``repr`` never shows the key."""

    base_url: str
    api_key: str = field(repr=False)
    is_sandbox: bool = False
    label: str = ""
    insecure: bool = False
    sandbox_db: str | None = None
    sandbox_config: str | None = None

    def __repr__(self) -> str:
        return (
            f"Target(base_url={self.base_url!r}, is_sandbox={self.is_sandbox}, "
            f"label={self.label!r}, api_key='***')"
        )

    def describe(self) -> str:
        """The one line every command prints on stderr."""
        return f"target: {self.label or self.base_url}"


@dataclass(frozen=True, slots=True)
class Profile:
    """One named profile of the config file (every field optional)."""

    name: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    api_key_file: str | None = None
    insecure: bool = False
    default_domain: str | None = None
    system_domain: str | None = None
    concurrency: int | None = None
    columns: Mapping[str, Any] = field(default_factory=dict)
    owner_tag: str | None = None
    limits: Mapping[str, Any] = field(default_factory=dict)
    sandbox_db: str | None = None
    sandbox_config: str | None = None
    timeout: float | None = None
    retry: Mapping[str, float] = field(default_factory=dict)
    strict: bool = False
    encoding: str | None = None
    date_format: str | None = None
    empty_values: tuple[str, ...] = ()


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
        }

    @property
    def default_domain(self) -> str | None:
        return self.profile.default_domain

    @property
    def system_domain(self) -> str | None:
        """The service's own domain when the profile names it (a real target does not
        announce it; the built-in sandbox's settings do)."""
        return self.profile.system_domain

    @property
    def columns(self) -> Mapping[str, Any]:
        return self.profile.columns

    @property
    def owner_tag(self) -> str | None:
        return self.profile.owner_tag

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


def _opt_str(data: Mapping[str, Any], key: str, where: str) -> str | None:
    v = data.get(key)
    if v is None:
        return None
    if not isinstance(v, str) or not v.strip():
        raise ConfigError(f"{where}: {key} must be a non-empty string")
    return v.strip()


def _mapping(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    v = data.get(key)
    if v is None:
        return {}
    if not isinstance(v, Mapping):
        raise ConfigError(f"{where}: {key} must be a mapping")
    return dict(v)


def _relative(path: str | None, base: Path | None) -> str | None:
    if path is None or base is None or Path(path).is_absolute():
        return path
    return str(base / path)


def parse_profile(name: str | None, data: Any, *, base_dir: Path | None = None) -> Profile:
    where = f"profile {name!r}" if name else "config"
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where} must be a mapping")
    unknown = sorted(set(map(str, data)) - PROFILE_KEYS)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(PROFILE_KEYS))}"
        )
    if "api_key" in data:
        raise ConfigError(f"{where}: put the key in api_key_env or api_key_file")
    concurrency = data.get("concurrency")
    if concurrency is not None and (
        isinstance(concurrency, bool)
        or not isinstance(concurrency, int)
        or not 1 <= concurrency <= MAX_CONCURRENCY
    ):
        raise ConfigError(f"{where}: concurrency must be an integer 1..{MAX_CONCURRENCY}")
    timeout = data.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        raise ConfigError(f"{where}: timeout must be a positive number of seconds")
    retry = _mapping(data, "retry", where)
    bad = sorted(
        str(k)
        for k, v in retry.items()
        if k not in RETRY_KEYS or isinstance(v, bool) or not isinstance(v, int | float) or v < 0
    )
    if bad:
        raise ConfigError(
            f"{where}: retry.{', retry.'.join(bad)}: unknown or not a number >= 0; "
            f"known: {', '.join(sorted(RETRY_KEYS))}"
        )
    insecure = data.get("insecure", False)
    if not isinstance(insecure, bool):
        raise ConfigError(f"{where}: insecure must be true or false")
    strict = data.get("strict", False)
    if not isinstance(strict, bool):
        raise ConfigError(f"{where}: strict must be true or false")
    empties = data.get("empty_values") or []
    if not isinstance(empties, list) or not all(isinstance(v, str) for v in empties):
        raise ConfigError(f'{where}: empty_values must be a list of text, e.g. [N/A, "-"]')
    return Profile(
        name=name,
        base_url=_opt_str(data, "base_url", where),
        api_key_env=_opt_str(data, "api_key_env", where),
        api_key_file=_relative(_opt_str(data, "api_key_file", where), base_dir),
        insecure=insecure,
        default_domain=_opt_str(data, "default_domain", where),
        system_domain=_opt_str(data, "system_domain", where),
        concurrency=concurrency,
        columns=_mapping(data, "columns", where),
        owner_tag=_opt_str(data, "owner_tag", where),
        limits=_mapping(data, "limits", where),
        sandbox_db=_relative(_opt_str(data, "sandbox_db", where), base_dir),
        sandbox_config=_relative(_opt_str(data, "sandbox_config", where), base_dir),
        timeout=float(timeout) if timeout is not None else None,
        retry=retry,
        strict=strict,
        encoding=_opt_str(data, "encoding", where),
        date_format=_opt_str(data, "date_format", where),
        empty_values=tuple(empties),
    )


def load_profile(path: Path, name: str | None) -> Profile:
    """The named profile of a config file (the file's ``default_profile`` when no name;
    a file without ``profiles`` is itself one profile)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"config {path} is not valid YAML: {exc}") from None
    data = {} if data is None else data
    if not isinstance(data, Mapping):
        raise ConfigError(f"config {path} must be a mapping")
    base_dir = path.parent
    if "profiles" not in data:
        if name is not None:
            raise ConfigError(f"config {path} has no profiles; cannot select {name!r}")
        return parse_profile(None, data, base_dir=base_dir)
    extra = sorted(set(map(str, data)) - {"profiles", "default_profile"})
    if extra:
        raise ConfigError(f"config {path}: unknown top-level key(s) {', '.join(extra)}")
    profiles = data["profiles"]
    if not isinstance(profiles, Mapping) or not profiles:
        raise ConfigError(f"config {path}: profiles must be a non-empty mapping")
    chosen = name or data.get("default_profile")
    if chosen is None:
        if len(profiles) != 1:
            raise ConfigError(
                f"config {path}: choose a profile with --profile or {ENV_PROFILE} "
                f"(or set default_profile): {', '.join(sorted(map(str, profiles)))}"
            )
        chosen = next(iter(profiles))
    chosen = str(chosen)
    if chosen not in profiles:
        raise ConfigError(
            f"config {path}: no profile {chosen!r}; "
            f"profiles: {', '.join(sorted(map(str, profiles)))}"
        )
    return parse_profile(chosen, profiles[chosen] or {}, base_dir=base_dir)


def read_key_file(path: str) -> str:
    try:
        key = Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(f"cannot read API key file {path}: {exc.strerror}") from None
    if not key or any(c.isspace() for c in key):
        raise ConfigError(f"API key file {path} must hold exactly one key on one line")
    return key


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
) -> Settings:
    """Flags (the keyword arguments) > environment > config file > defaults."""
    env = os.environ if env is None else env
    here = Path(cwd) if cwd is not None else Path.cwd()
    config_path: Path | None = None
    if config is not None:
        config_path = Path(config)
        if not config_path.is_absolute():
            config_path = here / config_path
        if not config_path.is_file():
            raise ConfigError(f"config file {config} does not exist")
    elif (here / DEFAULT_CONFIG).is_file():
        config_path = here / DEFAULT_CONFIG
    profile_name = profile or env.get(ENV_PROFILE) or None
    if config_path is not None:
        prof = load_profile(config_path, profile_name)
    elif profile_name:
        raise ConfigError(f"profile {profile_name!r} asked for, but there is no {DEFAULT_CONFIG}")
    else:
        prof = Profile()

    url = base_url or env.get(ENV_BASE_URL) or prof.base_url
    key = _resolve_key(api_key_file, env, prof)
    n = concurrency if concurrency is not None else (prof.concurrency or DEFAULT_CONCURRENCY)
    if not 1 <= n <= MAX_CONCURRENCY:
        raise ConfigError(f"concurrency must be 1..{MAX_CONCURRENCY}")
    timeout = prof.timeout or 30.0
    where = f" (profile {prof.name})" if prof.name else ""
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
            label=f"{url.rstrip('/')}{where}",
            insecure=insecure or prof.insecure,
        )
    else:
        target = sandbox_target(here, prof, key)
    key_file = api_key_file or (
        prof.api_key_file if not env.get(ENV_API_KEY) and not prof.api_key_env else None
    )
    return Settings(target, prof, n, timeout, config_path, key_file)


def _resolve_key(flag_file: str | None, env: Mapping[str, str], prof: Profile) -> str | None:
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


def sandbox_target(here: Path, prof: Profile, key: str | None) -> Target:
    """The built-in sandbox: in-process, its state in ``.linksync/sandbox.db``."""
    from linksync.sandbox import SandboxSettings

    db = prof.sandbox_db or DEFAULT_SANDBOX_DB
    settings = SandboxSettings.load(prof.sandbox_config) if prof.sandbox_config else None
    full_key = (settings or SandboxSettings()).full_key
    db_path = db if db == ":memory:" or Path(db).is_absolute() else str(here / db)
    return Target(
        base_url=SANDBOX_BASE_URL,
        api_key=key or full_key,
        is_sandbox=True,
        label=f"built-in sandbox ({db})",
        insecure=True,
        sandbox_db=db_path,
        sandbox_config=prof.sandbox_config,
    )


def resolve_target(**kwargs: Any) -> Target:
    """Just the target of :func:`resolve` (same keyword arguments)."""
    return resolve(**kwargs).target


def open_client(
    target: Target,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    timeout: float = 30.0,
    retry: RetryPolicy | None = None,
) -> LinkServiceClient:
    """The one way commands get a client: the in-process sandbox for a sandbox target,
    the network otherwise."""
    from linksync.api import LinkServiceClient, asgi_transport

    if not target.is_sandbox:
        return LinkServiceClient(
            target.base_url,
            target.api_key,
            concurrency=concurrency,
            timeout=timeout,
            allow_insecure=target.insecure,
            retry=retry,
        )
    from linksync.sandbox import SandboxSettings, create_app

    settings = (
        SandboxSettings.load(target.sandbox_config) if target.sandbox_config else SandboxSettings()
    )
    db = target.sandbox_db or DEFAULT_SANDBOX_DB
    if db != ":memory:":
        Path(db).parent.mkdir(parents=True, exist_ok=True)
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
