"""What this machine sent as each link's password: a fingerprint per link, so a changed
password can be planned as an update although the service never returns passwords.

The service only says whether a link has a password (``hasPassword``). Without more, a
row giving a password for a link that has one cannot be compared, and is not sent
(``--reset-passwords`` sends it). After a run sends a password (a create, an update, a
replace), the executor records a fingerprint of it here; the next plan on this machine
compares the row's password with that fingerprint: the same stays unchanged, another
is an update.

A fingerprint is an HMAC-SHA256 of (domain, slug, password) under a random key of this
machine (``machine.key``, 32 bytes, mode 0600): never the password, not reversible, and
useless without the key (the same password gives another fingerprint on another link or
machine). Files, in the user's state folder (where the run locks are; the pipeline
names the folder and the target's file)::

    <state>/passwords/machine.key              the key (created on the first write)
    <state>/passwords/<host>-<hash>.json       per target: {"format": 1, "links": {...}}

``PasswordMemory`` is the plain value the diff reads (no I/O); ``PasswordStore`` reads
and writes the files: ``load`` before the plan, ``sent`` / ``forget`` as writes succeed,
``save`` after the run (merged with the file as it is then, each file written
atomically, mode 0600). Nothing here is ever printed or logged.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from linksync.model import LinkKey
from linksync.safe.outputs import AtomicFile

STORE_FORMAT = 1
KEY_FILE = "machine.key"
_KEY_BYTES = 32


def _name(key: LinkKey) -> str:
    return f"{key.domain}/{key.slug}"


@dataclass(frozen=True, slots=True)
class PasswordMemory:
    """The fingerprints of the passwords this machine sent to one target's links.

    ``verdict(key, password)``: True when ``password`` is the one last sent to the link,
    False when another was, None when this machine never sent one (or has no key)."""

    secret: bytes = field(default=b"", repr=False)
    digests: Mapping[str, str] = field(default_factory=dict, repr=False)

    def fingerprint(self, key: LinkKey, password: str) -> str:
        message = "\n".join((key.domain, key.slug, password)).encode("utf-8")
        return hmac.new(self.secret, message, hashlib.sha256).hexdigest()

    def verdict(self, key: LinkKey, password: str) -> bool | None:
        known = self.digests.get(_name(key))
        if known is None or not self.secret:
            return None
        return hmac.compare_digest(known, self.fingerprint(key, password))

    def __len__(self) -> int:
        return len(self.digests)


class PasswordStore:
    """The fingerprint file of one target (``path``) and the machine's key beside it."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.key_path = self.path.parent / KEY_FILE
        self._secret: bytes | None = None
        self._sent: dict[str, tuple[LinkKey, str]] = {}
        self._forgotten: set[str] = set()

    def load(self) -> PasswordMemory:
        """What the files hold now (an empty memory when there are none yet). Raises
        ``OSError`` or ``ValueError`` for a file that cannot be read."""
        secret = self._read_key()
        if secret is None:
            return PasswordMemory()
        return PasswordMemory(secret, self._read_digests())

    def sent(self, key: LinkKey, password: str) -> None:
        """Remember that ``password`` was sent to the link ``key``: its fingerprint is
        written by ``save`` (no I/O here: the executor calls it as writes succeed)."""
        name = _name(key)
        self._sent[name] = (key, password)
        self._forgotten.discard(name)

    def forget(self, key: LinkKey) -> None:
        """The link has no password of ours any more (removed, deleted, re-created)."""
        name = _name(key)
        self._sent.pop(name, None)
        self._forgotten.add(name)

    @property
    def pending(self) -> bool:
        return bool(self._sent or self._forgotten)

    def save(self) -> None:
        """Write what ``sent`` and ``forget`` recorded, over the file as it is now (a
        run on another target's file, or a run without the lock, keeps its own)."""
        if not self.pending:
            return
        try:
            # Fingerprints made under a key that is gone can never match: dropped.
            digests = self._read_digests() if self._read_key() is not None else {}
        except (OSError, ValueError):
            digests = {}  # unreadable: replaced by what this run knows
        for name in self._forgotten:
            digests.pop(name, None)
        memory = PasswordMemory(self._key())
        for name, (key, password) in self._sent.items():
            digests[name] = memory.fingerprint(key, password)
        text = json.dumps({"format": STORE_FORMAT, "links": digests}, indent=1, sort_keys=True)
        _write_private(self.path, text + "\n")
        self._sent.clear()
        self._forgotten.clear()

    def _key(self) -> bytes:
        """The machine's key, created (mode 0600) when there is none."""
        if self._secret is None:
            self._secret = self._read_key()
        if self._secret is None:
            self._secret = secrets.token_bytes(_KEY_BYTES)
            self.key_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            try:
                fd = os.open(self.key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:  # another run made it meanwhile: use that one
                self._secret = self._read_key()
                if self._secret is None:
                    raise ValueError(f"{self.key_path} is not a linksync key") from None
                return self._secret
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(self._secret.hex() + "\n")
        return self._secret

    def _read_key(self) -> bytes | None:
        try:
            text = self.key_path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            return None
        try:
            secret = bytes.fromhex(text)
        except ValueError:
            secret = b""
        if len(secret) != _KEY_BYTES:
            raise ValueError(f"{self.key_path} is not a linksync key")
        return secret

    def _read_digests(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except ValueError:  # not JSON (nor UTF-8)
            data = None
        if not isinstance(data, dict):
            data = {}
        links = data.get("links")
        if data.get("format") != STORE_FORMAT or not isinstance(links, dict):
            raise ValueError(f"{self.path} is not a linksync password fingerprint file")
        return {str(k): str(v) for k, v in links.items()}


def _write_private(path: Path, text: str) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    out = AtomicFile(path)
    with contextlib.suppress(OSError):
        os.chmod(out.tmp, 0o600)
    with out as fh:
        fh.write(text)
