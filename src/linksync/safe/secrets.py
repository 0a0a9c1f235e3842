"""Keeping secrets (API keys) out of everything linksync prints, logs or writes.

``redact`` is the one redaction function: every secret given (longest first, so a key
that contains another is replaced whole), and whatever follows ``Bearer``, become
``***``. ``Secrets`` is the registry of one run (or one command): the values it must
never show. It is a plain value owned by its caller, never process-wide, so two runs
in one process (two targets, two keys) each redact their own.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

REDACTED = "***"
_BEARER = re.compile(r"(?i)(bearer\s+)[^\s\"',;]+")


def _longest_first(secrets: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted({s for s in secrets if s}, key=len, reverse=True))


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret, and anything after ``Bearer``, replaced by ``***``."""
    for secret in _longest_first(secrets):
        if secret in text:
            text = text.replace(secret, REDACTED)
    if "earer" in text or "EARER" in text:
        text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    return text


class Secrets:
    """The values one run must never show. Adding is thread-safe; iterating gives them
    longest first."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self._lock = threading.Lock()
        self._values: tuple[str, ...] = ()
        for s in secrets:
            self.add(s)

    def add(self, secret: str | None) -> None:
        if not secret:
            return
        with self._lock:
            if secret not in self._values:
                self._values = _longest_first((*self._values, secret))

    def redact(self, text: str) -> str:
        return redact(text, self._values)

    def redact_value(self, value: Any) -> Any:
        """``value`` with every secret replaced, walking dicts, lists and tuples."""
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, Mapping):
            return {self.redact(str(k)): self.redact_value(v) for k, v in value.items()}
        if isinstance(value, list | tuple | set | frozenset):
            return [self.redact_value(v) for v in value]
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)
