"""Text from files and from the service, made safe to print on a terminal.

A cell, a sheet name or a description may hold characters a terminal acts on instead
of showing: NUL, BEL, ESC (which starts the sequences that move the cursor, recolour or
retitle the terminal), carriage returns that overwrite the line, bidirectional overrides
that show text in another order than it is (the "Trojan Source" trick), invisible
characters. ``printable`` shows each of them as a ``\\uXXXX`` escape instead, which is
also what JSON would write, so a JSON document passed through it stays valid and reads
back to the same values.

Kept as they are: line feed and tab, the zero-width (non-)joiners that Persian, Indic
scripts and emoji sequences need, and the tag characters of flag emoji.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_KEEP = frozenset({"\n", "\t", "\u200c", "\u200d"})
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_ASCII_SAFE = re.compile(r"[\x20-\x7e\n\t]*")


@lru_cache(maxsize=4096)
def _is_unsafe(ch: str) -> bool:
    if ch in _KEEP or "\U000e0020" <= ch <= "\U000e007f":
        return False
    return unicodedata.category(ch) in _UNSAFE_CATEGORIES


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on shown as ``\\uXXXX``."""
    if _ASCII_SAFE.fullmatch(text):
        return text
    return "".join(_escape(ch) if _is_unsafe(ch) else ch for ch in text)
