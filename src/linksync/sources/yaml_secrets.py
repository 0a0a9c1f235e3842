"""Passwords a YAML file refers to instead of holding them: ``password: {env: NAME}``
and ``password: {file: PATH}`` (on a link, or in the file's ``defaults:``).

A reference is resolved when the file is read, at run time: the variable from the
environment, the file relative to the YAML file. The file must sit inside the
repository's tree (the git work tree the YAML file is in, found by walking up to
``.git``; outside any repository, the YAML file's own folder and those under it),
symbolic links followed: a reference never reads ``~/.ssh`` or ``/etc``. Its last line
break is not part of the password.

What cannot be read (a variable not set or empty, a file missing or empty) is
``MISSING_SECRET`` on each link that uses it: an error (the link is not sent), or a
warning where the secrets are not needed (``ReadOptions.secrets_needed``: ``validate``).
A reference written wrong (``{env: 1X}``, a path outside the tree) is an error of the
file itself, wherever it is read. The value is never part of a message; the row says
where it came from (``Declared.password_from``), and the run keeps it among its secrets.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from linksync.model import Severity
from linksync.sources.options import ReadOptions
from linksync.sources.yaml_fields import Named

ERROR, WARNING = Severity.ERROR, Severity.WARNING
#: Bytes of a password file at most (a password file is a line, not a document).
MAX_SECRET_BYTES = 64 * 1024
#: A variable's name, as POSIX shells write them.
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
KINDS = ("env", "file")


@dataclass(frozen=True, slots=True)
class SecretRef:
    """``{env: NAME}`` or ``{file: PATH}`` as written."""

    kind: str
    name: str

    @property
    def shown(self) -> str:
        """``env VIP_PASSWORD``, ``file secrets/vip.txt``: where the password comes from."""
        return f"{self.kind} {self.name}"

    @property
    def written(self) -> str:
        """``{env: VIP_PASSWORD}``: the reference as the file writes it."""
        return f"{{{self.kind}: {self.name}}}"


def parse_ref(value: Mapping[str, Any]) -> SecretRef:
    """The reference a ``password:`` mapping writes; ``ValueError`` (the message) for
    any other mapping."""
    keys = sorted(map(str, value))
    if len(keys) != 1 or keys[0] not in KINDS:
        raise ValueError(
            f"password: {{{', '.join(keys)}}} is no reference: write {{env: NAME}} (a variable) "
            "or {file: PATH} (a file beside this one)"
        )
    kind = keys[0]
    name = value[kind]
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"password: {{{kind}: ...}} needs the {_what(kind)}'s name")
    name = name.strip()
    if kind == "env" and not _ENV_NAME.match(name):
        raise ValueError(
            f"password: {{env: {name}}}: not a variable name (letters, digits and _, not "
            "starting with a digit)"
        )
    return SecretRef(kind, name)


def _what(kind: str) -> str:
    return "variable" if kind == "env" else "file"


@dataclass(frozen=True, slots=True)
class Resolved:
    """A reference read: its ``value``, or why not (``missing``: MISSING_SECRET, a
    warning where secrets are not needed; else ``invalid``: an error of the file)."""

    value: str | None = None
    missing: str | None = None
    invalid: str | None = None


@dataclass
class SecretReader:
    """Resolves the references of one YAML file (``path``, shown as ``display``), each
    once."""

    path: Path
    display: str
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    _done: dict[SecretRef, Resolved] = field(default_factory=dict)
    _root: Path | None = None

    def resolve(self, ref: SecretRef) -> Resolved:
        found = self._done.get(ref)
        if found is None:
            found = self._done[ref] = self._env(ref) if ref.kind == "env" else self._file(ref)
        return found

    def _env(self, ref: SecretRef) -> Resolved:
        value = self.environ.get(ref.name)
        if value is None:
            return Resolved(missing=f"password: {ref.written}: the variable {ref.name} is not set")
        value = value.rstrip("\r\n")
        if not value:
            return Resolved(missing=f"password: {ref.written}: the variable {ref.name} is empty")
        return Resolved(value)

    def root(self) -> Path:
        """The repository's tree: the git work tree of the file, else its folder."""
        if self._root is None:
            folder = self.path.absolute().parent.resolve()
            self._root = next(
                (d for d in (folder, *folder.parents) if (d / ".git").exists()), folder
            )
        return self._root

    def _file(self, ref: SecretRef) -> Resolved:
        written = f"password: {ref.written}"
        if Path(ref.name).is_absolute() or ref.name.startswith("~"):
            return Resolved(
                invalid=f"{written}: give a path relative to {self.display}, inside the "
                "repository's tree"
            )
        try:
            target = (self.path.absolute().parent / ref.name).resolve()
        except (OSError, ValueError, RuntimeError) as exc:
            return Resolved(invalid=f"{written}: not a path ({exc})")
        root = self.root()
        if not target.is_relative_to(root):
            where = "git work tree" if (root / ".git").exists() else "folder"
            return Resolved(
                invalid=f"{written}: refused: it leads out of the repository's tree (the "
                f"{where} {root}); keep password files inside it, ignored by git"
            )
        return self._read(ref, target, written)

    def _read(self, ref: SecretRef, target: Path, written: str) -> Resolved:
        try:
            if not target.exists():
                return Resolved(missing=f"{written}: the file {ref.name} does not exist")
            if not target.is_file():
                return Resolved(invalid=f"{written}: {ref.name} is not a file")
            if target.stat().st_size > MAX_SECRET_BYTES:
                return Resolved(
                    invalid=f"{written}: {ref.name} holds more than {MAX_SECRET_BYTES // 1024} "
                    "KiB: a password file holds the password alone"
                )
            data = target.read_bytes()
        except OSError as exc:
            return Resolved(missing=f"{written}: cannot read {ref.name}: {exc.strerror or exc}")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return Resolved(invalid=f"{written}: {ref.name} is not UTF-8 text")
        value = text.rstrip("\r\n")
        if not value:
            return Resolved(missing=f"{written}: the file {ref.name} is empty")
        return Resolved(value)


class SecretFields:
    """The password of a link of ``_FileReader`` (``linksync.sources.yaml_reader``): a
    reference resolved, a password in clear warned of. ``opts``, ``named`` (the entry's
    findings named by their constant) and ``secrets`` are the reader's."""

    opts: ReadOptions
    named: list[Named]
    secrets: SecretReader

    def _password(
        self,
        raw: dict[str, Any],
        columns: dict[str, str],
        problems: list[tuple[str, str]],
        line: int | None = None,
    ) -> str | None:
        """Replace a reference in ``raw["password"]`` by its value (left out when it
        cannot be read: the row is invalid, or warned under ``validate``) and return
        where it came from; a password in clear on the link itself is SECRET_IN_SOURCE
        (``line``: the key's, when not the link's first)."""
        value = raw.get("password")
        if isinstance(value, str) and value.strip(" \t\r\n"):
            if not columns.get("password", "").startswith("defaults."):  # said once, there
                message = in_clear(raw.get("slug"), line)
                self.named.append(("SECRET_IN_SOURCE", "password", message, WARNING, None))
            return None
        if not isinstance(value, dict):
            return None
        del raw["password"]
        try:
            ref = parse_ref(value)
        except ValueError as exc:
            problems.append(("password", str(exc)))
            return None
        found = self.secrets.resolve(ref)
        if found.invalid is not None:
            problems.append(("password", found.invalid))
        elif found.missing is not None:
            if self.opts.secrets_needed:
                message, severity = f"{found.missing}: the link is not sent", ERROR
            else:
                message, severity = f"{found.missing} here (plan and apply need it)", WARNING
            self.named.append(("MISSING_SECRET", "password", message, severity, None))
        else:
            raw["password"] = found.value
        return ref.shown


def in_clear(slug: Any, line: int | None = None) -> str:
    """The SECRET_IN_SOURCE message (``line``: the key's), with the reference to write
    instead."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", slug).strip("_").upper() if isinstance(slug, str) else ""
    var = f"{name}_PASSWORD" if name and not name[0].isdigit() else "LINK_PASSWORD"
    at = f" (line {line})" if line is not None else ""
    return (
        f"password written in clear{at}: anyone who can read the repository (and its history) "
        f"can read it; write password: {{env: {var}}} and set {var} where linksync runs"
    )
