"""Sandbox settings: keys, plan quotas, rate limit, faults, domains, the listen backlog.

The defaults in code equal ``configs/sandbox.yaml``. ``SandboxSettings.load(path)`` reads that YAML
shape (nested sections, every key optional); ``SandboxSettings.with_overrides`` applies
command-line flags on top (flags > file > defaults).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from linksync.errors import ConfigError
from linksync.rules import check_hostname

DEFAULT_FULL_KEY = "sandbox-full-access-key"
DEFAULT_READ_KEY = "sandbox-read-only-key"
DEFAULT_SYSTEM_DOMAIN = "lnk.test"
DEFAULT_CNAME_TARGET = "cname.lnk.test"
#: Connections the kernel queues before the server accepts them (``listen(backlog)``).
DEFAULT_BACKLOG = 2048


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """Everything a sandbox instance needs to know. Immutable; see ``with_overrides``."""

    full_key: str = DEFAULT_FULL_KEY
    read_key: str = DEFAULT_READ_KEY
    system_domain: str = DEFAULT_SYSTEM_DOMAIN
    cname_target: str = DEFAULT_CNAME_TARGET
    short_url_scheme: str = "https"
    org_id: str = "org_sandbox"
    org_name: str = "Sandbox Organization"
    plan: str = "sandbox"
    owner_email: str = "owner@sandbox.test"
    link_quota: int = 10_000
    custom_domain_quota: int = 3
    click_quota_monthly: int = 100_000
    rate_limit: int = 100
    rate_window_s: float = 1.0
    latency_ms: tuple[int, int] = (0, 0)
    fail_500: float = 0.0
    fail_503: float = 0.0
    fail_500_after_write: float = 0.0
    drop: float = 0.0
    seed: int = 0
    #: The listen backlog of ``sandbox serve``: 5 acts like Python's ``http.server`` and
    #: many small deployments (a burst of new connections then has SYNs dropped).
    backlog: int = DEFAULT_BACKLOG

    def __post_init__(self) -> None:
        problems = validate_settings(self)
        if problems:
            raise ConfigError("invalid sandbox settings: " + "; ".join(problems))

    def with_overrides(self, **changes: Any) -> SandboxSettings:
        """A copy with the given fields replaced; ``None`` values are ignored (a name
        that is no field: ``TypeError``, from ``dataclasses.replace``)."""
        given = {k: v for k, v in changes.items() if v is not None}
        return dataclasses.replace(self, **given)

    @property
    def has_faults(self) -> bool:
        return (
            self.fail_500 > 0
            or self.fail_503 > 0
            or self.fail_500_after_write > 0
            or self.drop > 0
            or self.latency_ms[1] > 0
        )

    @classmethod
    def load(cls, path: str | Path) -> SandboxSettings:
        """Read ``configs/sandbox.yaml``-shaped settings from ``path``."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read sandbox config {p}: {exc.strerror}") from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ConfigError(f"sandbox config {p} is not valid YAML: {exc}") from None
        if data is None:
            return SandboxSettings()
        if not isinstance(data, dict):
            raise ConfigError(f"sandbox config {p} must be a mapping of sections")
        return from_mapping(data)


def validate_settings(s: SandboxSettings) -> list[str]:
    """Every problem of ``s`` (empty when fine)."""
    out: list[str] = []
    if not s.full_key or not s.read_key:
        out.append("keys must not be empty")
    if s.full_key == s.read_key:
        out.append("the full-access and read-only keys must differ")
    for name in ("system_domain", "cname_target"):
        if not check_hostname(getattr(s, name)):
            out.append(f"{name} is not a host name: {getattr(s, name)!r}")
    if s.short_url_scheme not in ("http", "https"):
        out.append("short_url_scheme must be http or https")
    for name in ("link_quota", "custom_domain_quota", "click_quota_monthly"):
        if getattr(s, name) < 0:
            out.append(f"{name} must be >= 0")
    if s.rate_limit < 1:
        out.append("rate_limit must be >= 1")
    if s.rate_window_s <= 0:
        out.append("rate_window_s must be > 0")
    if s.backlog < 1:
        out.append("backlog must be >= 1")
    lo, hi = s.latency_ms
    if lo < 0 or hi < lo:
        out.append("latency_ms must be a range A-B with 0 <= A <= B")
    for name in ("fail_500", "fail_503", "fail_500_after_write", "drop"):
        p = getattr(s, name)
        if not 0.0 <= p <= 1.0:
            out.append(f"{name} must be a probability between 0 and 1")
    return out


def parse_latency(text: str) -> tuple[int, int]:
    """'20-80' -> (20, 80); '50' -> (50, 50)."""
    lo, sep, hi = text.strip().partition("-")
    try:
        a = int(lo)
        b = int(hi) if sep else a
    except ValueError:
        raise ConfigError(f"latency must look like A-B (milliseconds), got {text!r}") from None
    return (a, b)


# YAML section -> {yaml key: field name}
_SECTIONS: dict[str, dict[str, str]] = {
    "keys": {"full": "full_key", "read": "read_key"},
    "organization": {
        "id": "org_id",
        "name": "org_name",
        "plan": "plan",
        "owner_email": "owner_email",
        "link_quota": "link_quota",
        "custom_domain_quota": "custom_domain_quota",
        "click_quota_monthly": "click_quota_monthly",
    },
    "domains": {
        "system": "system_domain",
        "cname_target": "cname_target",
        "short_url_scheme": "short_url_scheme",
    },
    "rate_limit": {"requests": "rate_limit", "window_s": "rate_window_s"},
    "faults": {
        "seed": "seed",
        "fail_500": "fail_500",
        "fail_503": "fail_503",
        "fail_500_after_write": "fail_500_after_write",
        "drop": "drop",
        "latency_ms": "latency_ms",
    },
    "server": {"backlog": "backlog"},
}

_TYPES: dict[str, str] = {f.name: str(f.type) for f in dataclasses.fields(SandboxSettings)}


def _coerce(name: str, value: Any) -> Any:
    if name == "latency_ms":
        if isinstance(value, str):
            return parse_latency(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return (value, value)
        if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
            return (value[0], value[1])
        raise ConfigError("faults.latency_ms must be [A, B] or 'A-B'")
    kind = _TYPES[name]
    if kind == "str" and isinstance(value, str):
        return value
    if kind == "int" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind == "float" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise ConfigError(f"sandbox setting {name} has the wrong type: {value!r}")


def from_mapping(data: dict[str, Any]) -> SandboxSettings:
    """Settings from the YAML shape (nested sections); unknown keys are errors."""
    changes: dict[str, Any] = {}
    for section, body in data.items():
        fields = _SECTIONS.get(section)
        if fields is None:
            raise ConfigError(f"unknown sandbox config section: {section!r}")
        if body is None:
            continue
        if not isinstance(body, dict):
            raise ConfigError(f"sandbox config section {section!r} must be a mapping")
        for key, value in body.items():
            name = fields.get(key)
            if name is None:
                raise ConfigError(f"unknown sandbox config key: {section}.{key}")
            changes[name] = _coerce(name, value)
    return SandboxSettings().with_overrides(**changes)


def resolve_settings(config: str | Path | None = None, **overrides: Any) -> SandboxSettings:
    """Defaults, then the config file (if given), then the non-None overrides."""
    base = SandboxSettings.load(config) if config is not None else SandboxSettings()
    return base.with_overrides(**overrides)
