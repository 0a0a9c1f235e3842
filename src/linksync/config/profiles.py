"""Profiles: the named blocks of a config file, read and checked.

A config file holds one profile, or ``profiles:`` with a ``default_profile``; every key
of a profile is optional (see ``linksync.config`` for how a profile is chosen and what
takes precedence over it). Unknown keys, a key given in the file (``api_key``), values
of the wrong type are a ``ConfigError`` naming the profile and the key.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from linksync.api.defaults import MAX_CONCURRENCY
from linksync.errors import ConfigError
from linksync.model.ignore_rules import entry_texts, parse_ignore, parse_ignore_changes
from linksync.model.utm_rules import UtmRules, parse_utm_rules
from linksync.rules.timestamps import time_zone

ENV_PROFILE = "LINKSYNC_PROFILE"
#: The config file read when ``--config`` names none (in the current folder).
DEFAULT_CONFIG = "linksync.yaml"
#: ``trust:`` values: ``system`` (the OS trust store, through truststore) or ``default``.
TRUST_CHOICES = ("default", "system")
#: The config file's block of named targets (``linksync.config.targets``).
TARGETS_KEY = "targets"

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
class Profile:
    """One named profile of the config file (every field optional)."""

    name: str | None = None
    base_url: str | None = None
    #: The built-in sandbox is this profile's target (``sandbox: true``; not with base_url).
    sandbox: bool = False
    api_key_env: str | None = None
    api_key_file: str | None = None
    insecure: bool = False
    proxy: str | None = field(default=None, repr=False)  # may hold credentials
    ca_bundle: str | None = None
    trust: str | None = None  # "system": the OS trust store; "default": httpx's
    default_domain: str | None = None
    system_domain: str | None = None
    concurrency: int | None = None
    columns: Mapping[str, Any] = field(default_factory=dict)
    owner_tag: str | None = None
    #: A mirror retires the links it would delete: they point at this URL (--retire-to).
    retire_to: str | None = None
    limits: Mapping[str, Any] = field(default_factory=dict)
    sandbox_db: str | None = None
    sandbox_config: str | None = None
    timeout: float | None = None
    retry: Mapping[str, float] = field(default_factory=dict)
    strict: bool = False
    encoding: str | None = None
    date_format: str | None = None
    #: IANA zone of date-times written without one (None: UTC).
    timezone: str | None = None
    empty_values: tuple[str, ...] = ()
    #: The environment variable holding the password of encrypted workbooks.
    workbook_password_env: str | None = None
    slugless: str | None = None
    #: The team's UTM rules, checked on every final URL (None: none).
    utm_rules: UtmRules | None = None
    #: Alerts: apprise URLs (secrets: no repr) and the conditions (None: the default).
    notify: tuple[str, ...] = field(default=(), repr=False)
    notify_on: tuple[str, ...] | None = None
    #: Request each destination URL before anything is sent (--check-destinations).
    check_destinations: bool = False
    #: Read the rows a workbook hides (--include-hidden).
    include_hidden: bool = False
    #: Fields left to people (sent on create, never updated) and links left alone
    #: (slug patterns, ``tag:NAME``): ``linksync.model.ignore_rules``.
    ignore_changes: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


#: The keys a profile may have: the fields of ``Profile`` but its name.
PROFILE_KEYS = frozenset(Profile.__dataclass_fields__) - {"name"}


def refuse_unknown(data: Mapping[str, Any], known: frozenset[str], where: str) -> None:
    """A ``ConfigError`` naming the keys of ``data`` that are not ``known``, and those."""
    unknown = sorted(set(map(str, data)) - known)
    if unknown:
        near = [(k, difflib.get_close_matches(k, sorted(known), n=1, cutoff=0.75)) for k in unknown]
        hint = "".join(f" ({k}: did you mean {m[0]}?)" for k, m in near if m)
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)}{hint}; known: {', '.join(sorted(known))}"
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


#: Profile keys of plain text, of a file path (relative to the config file), of true/false.
_TEXT_KEYS = (
    "base_url", "api_key_env", "default_domain", "system_domain", "owner_tag", "encoding",
    "date_format", "workbook_password_env", "retire_to",
)  # fmt: skip
_PATH_KEYS = ("api_key_file", "ca_bundle", "sandbox_db", "sandbox_config")
_FLAG_KEYS = ("insecure", "strict", "check_destinations", "include_hidden", "sandbox")


def parse_profile(name: str | None, data: Any, *, base_dir: Path | None = None) -> Profile:
    where = f"profile {name!r}" if name else "config"
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where} must be a mapping")
    refuse_unknown(data, PROFILE_KEYS, where)
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
    for key in _FLAG_KEYS:
        if not isinstance(data.get(key, False), bool):
            raise ConfigError(f"{where}: {key} must be true or false")
    if data.get("sandbox") and data.get("base_url") is not None:
        raise ConfigError(
            f"{where}: base_url and sandbox: true name two targets (a service, the built-in "
            "sandbox): keep one"
        )
    trust = data.get("trust")
    if trust is not None and trust not in TRUST_CHOICES:
        raise ConfigError(f"{where}: trust must be one of {', '.join(TRUST_CHOICES)}")
    proxy = _opt_str(data, "proxy", where)
    if proxy is not None:
        from linksync.api.network import check_proxy

        proxy = check_proxy(proxy, f"{where}: proxy")
    slugless = _opt_str(data, "slugless", where)
    if slugless is not None and slugless.lower() not in ("stable", "random"):
        raise ConfigError(f"{where}: slugless must be stable or random")
    empties = data.get("empty_values") or []
    if not isinstance(empties, list) or not all(isinstance(v, str) for v in empties):
        raise ConfigError(f'{where}: empty_values must be a list of text, e.g. [N/A, "-"]')
    keys: dict[str, Any] = {key: _opt_str(data, key, where) for key in _TEXT_KEYS}
    keys.update({key: _relative(_opt_str(data, key, where), base_dir) for key in _PATH_KEYS})
    keys.update({key: data.get(key, False) for key in _FLAG_KEYS})
    keys.update(_left_to_people(data, where))
    return Profile(
        name=name,
        **keys,
        proxy=proxy,
        trust=trust,
        concurrency=concurrency,
        columns=_mapping(data, "columns", where),
        limits=_mapping(data, "limits", where),
        timeout=float(timeout) if timeout is not None else None,
        retry=retry,
        timezone=_timezone(data, where),
        empty_values=tuple(empties),
        slugless=slugless.lower() if slugless is not None else None,
        **_alerts(data, where),
        utm_rules=_utm_rules(data, where),
    )


def _left_to_people(data: Mapping[str, Any], where: str) -> dict[str, tuple[str, ...]]:
    """``ignore_changes:`` and ``ignore:``, checked now (an unknown field, an entry that
    can never match: a config error naming it, before anything is read or sent)."""
    try:
        return {
            "ignore_changes": parse_ignore_changes(data.get("ignore_changes")),
            "ignore": entry_texts(parse_ignore(data.get("ignore"))),
        }
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None


#: ``notify_on:`` / ``--notify-on`` choices, and the default (linksync.pipeline.notify).
NOTIFY_ON = ("failed", "drift", "stopped", "always")
DEFAULT_NOTIFY_ON = ("failed", "stopped")


def check_notify_on(values: Any, where: str) -> tuple[str, ...]:
    """``notify_on`` (a list, or a text with commas) checked against ``NOTIFY_ON``."""
    if isinstance(values, str):
        values = values.split(",")
    if not isinstance(values, list | tuple) or not all(isinstance(v, str) for v in values):
        raise ConfigError(f"{where}: notify_on must be a list, e.g. [failed, stopped]")
    chosen = tuple(dict.fromkeys(v.strip().lower() for v in values if v.strip()))
    bad = [v for v in chosen if v not in NOTIFY_ON]
    if bad or not chosen:
        raise ConfigError(
            f"{where}: notify_on {', '.join(bad) or '(empty)'}: choose among {', '.join(NOTIFY_ON)}"
        )
    return chosen


def _alerts(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``notify:`` (a URL or a list) and ``notify_on:``, checked; a URL is never named
    in an error (it holds a token)."""
    urls = data.get("notify") or []
    if isinstance(urls, str):
        urls = [urls]
    if not isinstance(urls, list) or not all(isinstance(u, str) and u.strip() for u in urls):
        raise ConfigError(f"{where}: notify must be a list of apprise URLs (json://host/path)")
    on = data.get("notify_on")
    return {
        "notify": tuple(u.strip() for u in urls),
        "notify_on": check_notify_on(on, where) if on is not None else None,
    }


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


def read_config(path: Path) -> Mapping[str, Any]:
    """The config file as a mapping (empty for an empty file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    import yaml  # here: a run without a config file never loads the YAML parser

    from linksync.config.strict_yaml import load_config_text

    try:
        data = load_config_text(text, path)
    except yaml.YAMLError as exc:
        raise ConfigError(f"config {path} is not valid YAML: {exc}") from None
    data = {} if data is None else data
    if not isinstance(data, Mapping):
        raise ConfigError(f"config {path} must be a mapping")
    return data


def load_profile(path: Path, name: str | None) -> Profile:
    """The named profile of a config file (the file's ``default_profile`` when no name;
    a file without ``profiles`` is itself one profile). A ``targets:`` block (the
    workspaces of a run over several, ``linksync.config.targets``) is not a profile."""
    data = {k: v for k, v in read_config(path).items() if k != TARGETS_KEY}
    base_dir = path.parent
    if "profiles" not in data:
        if name is not None:
            raise ConfigError(f"config {path} has no profiles; cannot select {name!r}")
        return parse_profile(None, data, base_dir=base_dir)
    return parse_profile(*profile_data(path, data, name), base_dir=base_dir)


def profile_data(path: Path, data: Mapping[str, Any], name: str | None) -> tuple[str, Any]:
    """The name and the raw mapping of the chosen profile of a file with ``profiles``."""
    extra = sorted(set(map(str, data)) - {"profiles", "default_profile", TARGETS_KEY})
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
    return chosen, profiles[chosen] or {}


#: Profile keys whose mapping a target's profile merges key by key over the one it names.
MERGED_KEYS = ("columns", "limits", "retry")


def profile_over(
    path: Path, data: Mapping[str, Any], name: str, base: Any, own: Mapping[str, Any]
) -> Profile:
    """The profile of the target ``name`` of the file at ``path`` (read as ``data``): the
    profile it names (``base``; None: none, a target does not inherit
    ``default_profile``) with its ``own`` keys over it, ``MERGED_KEYS`` merged key by key."""
    under: Mapping[str, Any] = {}
    if base is not None:
        if "profiles" not in data:
            raise ConfigError(
                f"config {path}: target {name!r}: profile {base!r}, but the file has no profiles"
            )
        _, under = profile_data(path, data, str(base))
        if not isinstance(under, Mapping):
            raise ConfigError(f"config {path}: profile {base!r} must be a mapping")
    merged: dict[str, Any] = {**under, **own}
    for key in MERGED_KEYS:
        if isinstance(under.get(key), Mapping) and isinstance(own.get(key), Mapping):
            merged[key] = {**under[key], **own[key]}
    return parse_profile(name, merged, base_dir=path.parent)


def _timezone(data: Mapping[str, Any], where: str) -> str | None:
    """The profile's ``timezone:``, checked now (an unknown zone is a configuration
    error before anything is read or sent)."""
    name = _opt_str(data, "timezone", where)
    try:
        time_zone(name)
    except ConfigError as exc:
        raise ConfigError(f"{where}: timezone: {exc}") from None
    return name


def _utm_rules(data: Mapping[str, Any], where: str) -> UtmRules | None:
    """The profile's ``utm_rules:``, checked now (a bad block stops the run, exit 2)."""
    if data.get("utm_rules") is None:
        return None
    try:
        return parse_utm_rules(data["utm_rules"])
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None
