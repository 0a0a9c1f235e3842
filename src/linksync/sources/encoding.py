"""Which encoding a CSV file is in, and decoding it without guessing in silence.

Decided in this order:

1. ``--encoding`` (or the profile's ``encoding``): that one, strictly; a byte it cannot
   decode refuses the file, naming the line.
2. A byte-order mark: UTF-8, or UTF-16 LE/BE (Excel's "Unicode text").
3. UTF-16 without a mark: NUL bytes in every other position of the first bytes.
4. UTF-8, when every byte of the file is UTF-8 (pandas checks as it reads).
5. Otherwise the file is decoded here, whole:

   - some of it is UTF-8 (valid multi-byte sequences) and some is not: a file pasted
     together from two sources. The UTF-8 parts are read as UTF-8 and each other byte
     as cp1252; the reader says so on each row concerned, with the text as read.
   - none of it is UTF-8: cp1252 (what Excel writes on Western Windows) when the text
     reads as plain Western text (accented letters inside words, usual punctuation).
     Otherwise the guess is not certain: charset-normalizer's guess is taken when it
     decodes the file, else cp1252, and a warning names the encoding chosen with an
     example of the text as read and as cp1252 would read it.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass, field

#: Punctuation and symbols a Western cp1252 text holds besides letters.
_WESTERN_MARKS = frozenset("€‚„…†‡‰‹›‘’“”•–—™¡¢£¥§¨©ª«¬®°±²³´µ¶·¸¹º»¼½¾¿×÷")
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
_VALID_NON_ASCII = re.compile(r"[^\x00-\x7f\udc80-\udcff]")


@dataclass
class Decoded:
    """The decision: ``encoding`` to name; ``text`` when decoded here (None: pandas
    reads the file in ``encoding``); ``fallback`` byte offsets of a mixed file read as
    cp1252, with the text they became; ``warning`` for an uncertain guess."""

    encoding: str
    text: str | None = None
    fallback: list[tuple[int, str]] = field(default_factory=list)
    warning: str | None = None


def utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le' / 'utf-16-be' when the first bytes look like BOM-less UTF-16 text
    (a NUL in most odd / even positions, almost none in the others)."""
    sample = data[: 64 * 1024]
    half = len(sample) // 2
    if half < 2:
        return None
    even = sample[0 : half * 2 : 2].count(0)
    odd = sample[1 : half * 2 : 2].count(0)
    for name, zeros, other in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if zeros >= 0.4 * half and other <= 0.05 * half:
            try:
                sample[: half * 2].decode(name)
            except UnicodeDecodeError:
                continue
            return name
    return None


def detect_encoding(data: bytes) -> str:
    """Encoding of a CSV from its first bytes (steps 2-4 of the module docstring;
    'cp1252' when the bytes are not UTF-8)."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    bomless = utf16_without_bom(data)
    if bomless is not None:
        return bomless
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(data, final=False)
    except UnicodeDecodeError:
        return "cp1252"
    return "utf-8"


def ascii_compatible(encoding: str) -> bool:
    """True when delimiters, quotes and newlines are the same single bytes as ASCII and
    never occur inside a character (so the raw bytes can be scanned)."""
    name = codecs.lookup(encoding).name
    if name.startswith(("utf-16", "utf-32", "utf-7")):
        return False
    try:
        return 'a,;\t"\r\n'.encode(name) == b'a,;\t"\r\n'
    except UnicodeEncodeError:
        return False


def plain_western(text: str) -> bool:
    """True when every non-ASCII run is short and made of letters or usual marks: what
    French, German, Spanish... text decoded as cp1252 looks like. Cyrillic or CJK bytes
    read as cp1252 make long runs of odd letters and symbols."""
    for m in _NON_ASCII_RUN.finditer(text):
        run = m.group()
        if len(run) > 3:
            return False
        for ch in run:
            if ch not in _WESTERN_MARKS and not unicodedata.category(ch).startswith("L"):
                return False
    return True


def example(text: str, at: int | None = None, width: int = 60) -> str:
    """Up to ``width`` characters of the line around the first non-ASCII character."""
    if at is None:
        m = _NON_ASCII_RUN.search(text)
        at = m.start() if m else 0
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start : end if end >= 0 else len(text)].rstrip("\r")
    offset = at - start
    lo = max(0, min(offset - width // 3, len(line) - width))
    return line[lo : lo + width]


def _guess(data: bytes) -> str | None:
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # pragma: no cover - a dependency, but only a hint
        return None
    best = from_bytes(data[: 1 << 20]).best()
    return None if best is None else str(best.encoding)


def decode_mixed(data: bytes) -> tuple[str, list[tuple[int, str]]]:
    """UTF-8 where the bytes are UTF-8, cp1252 for each other byte; returns the text and
    (byte offset, text read as cp1252) for each such run."""
    view = memoryview(data)
    parts: list[str] = []
    fallback: list[tuple[int, str]] = []
    pos = 0
    while pos < len(data):
        try:
            text, used = codecs.utf_8_decode(view[pos:], "strict", True)
        except UnicodeDecodeError as exc:
            good, _ = codecs.utf_8_decode(view[pos : pos + exc.start], "strict", True)
            parts.append(good)
            bad = bytes(view[pos + exc.start : pos + exc.end])
            as_cp = bad.decode("cp1252", errors="replace")
            if fallback and fallback[-1][0] + len(fallback[-1][1]) == pos + exc.start:
                start, prev = fallback[-1]
                fallback[-1] = (start, prev + as_cp)
            else:
                fallback.append((pos + exc.start, as_cp))
            parts.append(as_cp)
            pos += exc.end
            continue
        parts.append(text)
        pos += used
    return "".join(parts), fallback


def decode_unsure(data: bytes) -> Decoded:
    """Step 5 of the module docstring, for bytes that are not all UTF-8."""
    loose = data.decode("utf-8", errors="surrogateescape")
    if _VALID_NON_ASCII.search(loose) is not None:
        text, fallback = decode_mixed(data)
        return Decoded("utf-8", text, fallback)
    try:
        western = data.decode("cp1252")
    except UnicodeDecodeError:
        western = None
    if western is not None and plain_western(western):
        return Decoded("cp1252", western)
    as_cp = data.decode("cp1252", errors="replace")
    guess = _guess(data)
    chosen, text = "cp1252", as_cp
    if guess is not None and codecs.lookup(guess).name != "cp1252":
        try:
            chosen, text = codecs.lookup(guess).name, data.decode(guess)
        except (UnicodeDecodeError, LookupError):
            chosen, text = "cp1252", as_cp
    shown = example(text)
    other = "" if chosen == "cp1252" else f"; as cp1252 it would read {example(as_cp)!r}"
    warning = (
        f"the file is not UTF-8 and its encoding is not certain: read as {chosen}, e.g. "
        f"{shown!r}{other}; pass --encoding ENCODING (or the profile's encoding:) to "
        "choose"
    )
    return Decoded(chosen, text, warning=warning)


def locate_error(data: bytes, encoding: str) -> str:
    """'line 12 (byte 0xE9)' for the first byte ``encoding`` cannot decode."""
    try:
        data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return f"line {line} (byte 0x{data[exc.start]:02X})"
    return "somewhere"
