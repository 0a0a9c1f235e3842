"""Named targets: several workspaces in one config file, for a run over all of them.

A config file may hold, beside its ``profiles:``, a ``targets:`` block. Each target is
one workspace: where it is (its own base URL and key source), what it should hold (its
``files``) and how it is kept (``mode``, the mirror scope, limits): the ``targets:``
block of ``configs/linksync.example.yaml`` shows each key.

A target does not inherit ``default_profile``: it starts from the defaults, or from the
profile it names. ``columns``, ``limits`` and ``retry`` are merged key by key over the
profile's; every other key replaces the profile's. Names are used in file names
(reports), so they are letters, digits, ``.``, ``_`` and ``-``.

One key is one workspace: in a run over targets, every target takes its key from its
own ``api_key_env`` / ``api_key_file`` (the built-in sandbox's own key when it names
none). ``LINKSYNC_API_KEY`` and ``LINKSYNC_BASE_URL`` would send one key or one URL to
every target, so a run over targets refuses them when they are set (unless a target
names ``LINKSYNC_API_KEY`` as its ``api_key_env``). A target names its service
(``base_url``) or the built-in sandbox (``sandbox: true``, with its own ``sandbox_db``);
``LINKSYNC_SANDBOX=1`` (or ``--sandbox``, ``load_workspaces(sandbox=True)``) lets the
targets that name no base_url use the sandbox. Two targets that reach one workspace,
however their URLs are spelt, are refused by the run (``linksync.config.identity``).
``load_workspaces`` reads the block (a ``ConfigError`` for a wrong shape: nothing runs);
``Workspace.settings`` resolves one target (its own ``ConfigError``, e.g. an unset key
variable or no target named, fails that target only).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from linksync.config import Settings, settings_for
from linksync.config.choice import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_SANDBOX,
    NetworkFlags,
    TargetFlags,
    sandbox_consent,
)
from linksync.config.profiles import (
    PROFILE_KEYS,
    TARGETS_KEY,
    Profile,
    find_config,
    profile_over,
    read_config,
    refuse_unknown,
)
from linksync.errors import ConfigError
from linksync.sync.options import MODES

#: Keys a target has beyond a profile's.
TARGET_ONLY_KEYS = frozenset({"profile", "files", "mode", "scope_domains"})
TARGET_KEYS = PROFILE_KEYS | TARGET_ONLY_KEYS
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True, slots=True)
class Workspace:
    """One named target of the config: its profile (the named profile's settings with
    the target's over them), its files and how it is kept. ``settings`` resolves it."""

    name: str
    profile: Profile
    files: tuple[str, ...]
    mode: str | None = None
    scope_domains: tuple[str, ...] | None = None
    config_path: Path | None = None

    def settings(
        self,
        *,
        env: Mapping[str, str] | None = None,
        insecure: bool = False,
        concurrency: int | None = None,
        cwd: str | os.PathLike[str] | None = None,
        network: NetworkFlags | None = None,
    ) -> Settings:
        """The target and the profile of this workspace, its key from its own key
        source (``ConfigError`` when that is missing)."""
        env = os.environ if env is None else env
        own = {k: v for k, v in env.items() if k not in (ENV_BASE_URL, ENV_API_KEY, ENV_SANDBOX)}
        if self.profile.api_key_env == ENV_API_KEY and ENV_API_KEY in env:
            own[ENV_API_KEY] = env[ENV_API_KEY]
        here = Path(cwd) if cwd is not None else Path.cwd()
        try:
            return settings_for(
                self.profile,
                self.config_path,
                TargetFlags(insecure=insecure, network=network),
                concurrency=concurrency,
                here=here,
                env=own,
                kind="target",
            )
        except ConfigError as exc:
            raise ConfigError(f"target {self.name}: {exc}") from None

    def keywords(self) -> dict[str, Any]:
        """What the target says of the run, as keywords of ``linksync.plan``/``apply``."""
        return {"mode": self.mode, "scope_domains": self.scope_domains}


def load_workspaces(
    config: str | os.PathLike[str] | None = None,
    names: Sequence[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    sandbox: bool = False,
) -> tuple[Workspace, ...]:
    """The targets of the config file (``config``, else ``./linksync.yaml``), in file
    order, or only ``names`` (in the order given). ``sandbox`` (or ``LINKSYNC_SANDBOX=1``
    in ``env``): the targets that name no base_url use the built-in sandbox. Raises
    ``ConfigError`` for a config without targets, an unknown name, a wrong shape, or
    ``LINKSYNC_BASE_URL`` / ``LINKSYNC_API_KEY`` set (see the module docstring).

    Each target in turn: its name and shape, its profile (the file's, read by
    ``config.profiles``: the profile it names with its own keys over it), its own keys;
    then the names chosen and the environment."""
    env = os.environ if env is None else env
    here = Path(cwd) if cwd is not None else Path.cwd()
    path = find_config(config, here)
    if path is None:
        raise ConfigError("a run over targets needs a config file with targets: (--config FILE)")
    data = read_config(path)
    block = data.get(TARGETS_KEY)
    if not isinstance(block, Mapping) or not block:
        raise ConfigError(f"config {path}: no targets: block naming the workspaces to run")
    every: dict[str, Workspace] = {}
    for key, raw in block.items():
        name = str(key)
        where = f"config {path}: target {name!r}"
        if not NAME_PATTERN.match(name):
            raise ConfigError(
                f"{where}: a target name is letters, digits, '.', '_' and '-' (at most 64), "
                "since report file names are made from it"
            )
        if not isinstance(raw, Mapping):
            raise ConfigError(f"{where} must be a mapping")
        if "api_key" in raw:
            raise ConfigError(f"{where}: put the key in api_key_env or api_key_file")
        refuse_unknown(raw, TARGET_KEYS, where)
        own = {k: v for k, v in raw.items() if k not in TARGET_ONLY_KEYS}
        every[name] = Workspace(
            name=name,
            profile=profile_over(path, data, name, raw.get("profile"), own),
            files=_files(raw.get("files"), where, path.parent),
            mode=_mode(raw.get("mode"), where),
            scope_domains=_domains(raw.get("scope_domains"), where),
            config_path=path,
        )
    return _chosen(path, every, names, env, sandbox)


def _chosen(
    path: Path,
    found: Mapping[str, Workspace],
    names: Sequence[str] | None,
    env: Mapping[str, str],
    sandbox: bool,
) -> tuple[Workspace, ...]:
    """The workspaces ``names`` (in the order given; all when none) of those ``found``
    in the file at ``path``, the environment checked (see the module docstring)."""
    chosen = list(names) if names else list(found)
    unknown = [n for n in chosen if n not in found]
    if unknown:
        raise ConfigError(
            f"config {path}: no target {', '.join(map(repr, unknown))}; targets: {', '.join(found)}"
        )
    twice = sorted({n for n in chosen if chosen.count(n) > 1})
    if twice:
        raise ConfigError(f"target {', '.join(twice)} given more than once")
    workspaces = tuple(found[n] for n in chosen)
    _refuse_shared_env(env, workspaces)
    if sandbox or sandbox_consent(env):
        workspaces = tuple(_sandbox_allowed(ws) for ws in workspaces)
    return workspaces


def _sandbox_allowed(ws: Workspace) -> Workspace:
    """``ws`` with the built-in sandbox as its target when it names no base_url."""
    if ws.profile.base_url is not None or ws.profile.sandbox:
        return ws
    return replace(ws, profile=replace(ws.profile, sandbox=True))


def _refuse_shared_env(env: Mapping[str, str], workspaces: Sequence[Workspace]) -> None:
    if env.get(ENV_BASE_URL):
        raise ConfigError(
            f"{ENV_BASE_URL} is set, but a run over targets takes each target's base_url "
            f"from the config; unset {ENV_BASE_URL} for this run"
        )
    if env.get(ENV_API_KEY) and not any(w.profile.api_key_env == ENV_API_KEY for w in workspaces):
        raise ConfigError(
            f"{ENV_API_KEY} is set, but one key is one workspace: a run over targets takes "
            f"each target's key from its own api_key_env or api_key_file; unset "
            f"{ENV_API_KEY} for this run"
        )


def _files(value: Any, where: str, base: Path) -> tuple[str, ...]:
    """The files a target reads, relative to the config's folder ``base``, as a person
    would name them from the current folder (reports show them): relative when they
    are under it, else absolute."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(f, str) for f in items):
        raise ConfigError(f"{where}: files must name the link files or folders it reads")
    here = Path.cwd().resolve()
    files = []
    for f in items:
        full = f if Path(f).is_absolute() else str((base / f).resolve())
        try:
            files.append(str(Path(full).relative_to(here)))
        except ValueError:
            files.append(full)
    return tuple(files)


def _mode(value: Any, where: str) -> str | None:
    if value is not None and value not in MODES:
        raise ConfigError(f"{where}: mode must be one of {', '.join(MODES)}")
    return value if value is None else str(value)


def _domains(value: Any, where: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(d, str) and d.strip() for d in items):
        raise ConfigError(f"{where}: scope_domains must be a list of domains")
    return tuple(d.strip() for d in items)
