"""Which encoding a CSV file is in, and decoding it without guessing in silence.

Decided in this order:

1. ``--encoding`` (or the profile's ``encoding``): that one, strictly; a byte it cannot
   decode refuses the file, naming the line.
2. A byte-order mark: UTF-8, or UTF-16 LE/BE (Excel's "Unicode text").
3. UTF-16 without a mark: NUL bytes in every other position of the first bytes.
4. UTF-8, when every byte of the file is UTF-8 (pandas checks as it reads).
5. Otherwise the file is decoded here, whole:

   - some lines are UTF-8 (with non-ASCII text) and some are not: a file pasted
     together from two sources. Each UTF-8 line is read as UTF-8 and each other line
     as cp1252; the reader says so on each row concerned, with the text as read.
   - none of it is UTF-8: each legacy encoding a spreadsheet program writes (cp1252,
     ISO-8859-2, cp1250, cp1251, GB18030, Big5, Shift-JIS, cp949) is tried, and its
     text judged by the script it gives (``linksync.sources.encoding_guess``).

     - one plausible reading: cp1252 (what Excel writes on Western Windows) without a
       word when it reads as plain Western text; any other with a warning
       (``UNCERTAIN_ENCODING``) naming it, with an example of the text as read.
     - cp1252 as plain Western text, and Central European readings (ISO-8859-2,
       cp1250) too: one script, cp1252 read (the default), and the warning shows the
       other reading (``Brnì`` or ``Brně``): ``--strict`` refuses the file.
     - several, and the file is short (under ``SHORT_TEXT`` non-ASCII characters):
       the file is not read. An error (``UNCERTAIN_ENCODING``) names the readings
       with an example of each and asks for ``--encoding``: a twenty-character
       Chinese line reads as Korean too, and guessing one script from another
       language garbles every row.
     - several, and the file is long: charset-normalizer's guess among them (good on
       long text), with the warning naming the others.
     - none: charset-normalizer's guess, else cp1252, with the warning.

   The hit rates, measured by ``benchmarks/encoding_guesses.py``, are in docs/reliability.md.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by ``decode_unsure``: a file all UTF-8 reads without it
    from linksync.sources.encoding_guess import Candidate

#: Under this many non-ASCII characters, a file that reads as plausible text in
#: several encodings is not read (the user is asked for --encoding): too little text
#: to tell them apart. Above it, charset-normalizer's guess among them is read, warned.
SHORT_TEXT = 400

#: Punctuation and symbols a Western cp1252 text holds besides letters.
_WESTERN_MARKS = frozenset("€‚„…†‡‰‹›‘’“”•–—™¡¢£¥§¨©ª«¬®°±²³´µ¶·¸¹º»¼½¾¿×÷")
#: Marks that may touch a letter: apostrophes, quotes, dashes, the ellipsis.
_WORD_MARKS = frozenset("’‘“”«»–—…·")
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")


@dataclass
class Decoded:
    """The decision: ``encoding`` to name; ``text`` when decoded here (None: pandas
    reads the file in ``encoding``); ``fallback`` byte offsets of a mixed file read as
    cp1252, with the text they became; ``warning`` for an uncertain guess; ``ask``:
    the error of a file not read, its encoding not told apart (``UNCERTAIN_ENCODING``)."""

    encoding: str
    text: str | None = None
    fallback: list[tuple[int, str]] = field(default_factory=list)
    warning: str | None = None
    ask: str | None = None


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
    """True when every non-ASCII run is short and made of letters or usual marks, and
    no symbol sits inside a word: what French, German, Spanish... text decoded as
    cp1252 looks like. Cyrillic or CJK bytes read as cp1252 make long runs of odd
    letters and symbols; Central European ones put symbols inside words (£odzi)."""
    for m in _NON_ASCII_RUN.finditer(text):
        run = m.group()
        if len(run) > 2:
            return False
        before = text[m.start() - 1] if m.start() else " "
        after = text[m.end()] if m.end() < len(text) else " "
        in_word = (before.isascii() and before.isalpha()) or (after.isascii() and after.isalpha())
        for ch in run:
            if unicodedata.category(ch).startswith("L"):
                continue
            if ch not in _WESTERN_MARKS or (in_word and ch not in _WORD_MARKS):
                return False
    return True


def example(text: str, width: int = 60) -> str:
    """Up to ``width`` characters of the line around the first non-ASCII character."""
    m = _NON_ASCII_RUN.search(text)
    at = m.start() if m else 0
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start : end if end >= 0 else len(text)].rstrip("\r")
    offset = at - start
    lo = max(0, min(offset - width // 3, len(line) - width))
    return line[lo : lo + width]


def _guess(data: bytes) -> str | None:
    from charset_normalizer import from_bytes

    best = from_bytes(data[: 1 << 20]).best()
    return None if best is None else str(best.encoding)


def _lines(data: bytes) -> tuple[list[tuple[int, bytes]], int, int]:
    """Each line with its offset, and how many non-ASCII lines are UTF-8 and not."""
    out: list[tuple[int, bytes]] = []
    utf8 = bad = 0
    pos = 0
    for line in data.splitlines(keepends=True):
        out.append((pos, line))
        pos += len(line)
        if line.isascii():
            continue
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            bad += 1
        else:
            utf8 += 1
    return out, utf8, bad


def decode_mixed(lines: list[tuple[int, bytes]]) -> tuple[str, list[tuple[int, str]]]:
    """Each line as UTF-8 when it is UTF-8, else as cp1252; returns the text and
    (byte offset, the line's text as read around its first non-ASCII character) for
    each cp1252 line."""
    parts: list[str] = []
    fallback: list[tuple[int, str]] = []
    for pos, line in lines:
        try:
            parts.append(line.decode("utf-8"))
        except UnicodeDecodeError:
            text = line.decode("cp1252", errors="replace")
            parts.append(text)
            fallback.append((pos, example(text)))
    return "".join(parts), fallback


def decode_unsure(data: bytes) -> Decoded:
    """Step 5 of the module docstring, for bytes that are not all UTF-8. A line is the
    unit: a file whose non-ASCII lines are some UTF-8 and some not is a mixed file."""
    lines, utf8, bad = _lines(data)
    if utf8 and bad:
        text, fallback = decode_mixed(lines)
        return Decoded("utf-8", text, fallback)
    from linksync.sources.encoding_guess import readings

    options = readings(data)
    if len(options) == 1:
        (only,) = options
        if "cp1252" in only.encodings and plain_western(only.text):
            return Decoded("cp1252", only.text)
        return _unsure(data, only.encoding, only.text, ())
    short = max((r.non_ascii for r in options), default=0) < SHORT_TEXT
    western = next((r for r in options if "cp1252" in r.encodings), None)
    if western is not None and all(r.latin for r in options) and plain_western(western.text):
        # Western or Central European letters: one script, and cp1252 the default
        # (charset-normalizer tells them apart poorly); the warning shows the other
        # reading (Brnì or Brně), and --strict refuses the file.
        return _unsure(data, "cp1252", western.text, [r for r in options if r is not western])
    guess = _guess(data)
    if options and short:
        return Decoded(options[0].encoding, None, ask=_ask(options))
    if options:
        named = guess is not None and codecs.lookup(guess).name
        chosen = next((r for r in options if named in r.encodings), options[0])
        others = [r for r in options if r is not chosen]
        return _unsure(data, chosen.encoding, chosen.text, others)
    # No reading is plausible text: cp1252 when it reads as plain Western text (letters
    # the check does not list, þ, ð), as before; else charset-normalizer's guess, else
    # cp1252, warned.
    try:
        western_text = data.decode("cp1252")
    except UnicodeDecodeError:
        western_text = None
    if western_text is not None and plain_western(western_text):
        return Decoded("cp1252", western_text)
    as_cp = data.decode("cp1252", errors="replace")
    chosen_name, text = "cp1252", as_cp
    if guess is not None and codecs.lookup(guess).name != "cp1252":
        try:
            chosen_name, text = codecs.lookup(guess).name, data.decode(guess)
        except (UnicodeDecodeError, LookupError):
            chosen_name, text = "cp1252", as_cp
    return _unsure(data, chosen_name, text, ())


def _unsure(data: bytes, chosen: str, text: str, others: Sequence[Candidate]) -> Decoded:
    shown = example(text)
    if others:
        other = "; it also reads as " + ", ".join(
            f"{r.encoding} ({example(r.text)!r})" for r in others[:3]
        )
    elif chosen != "cp1252":
        other = f"; as cp1252 it would read {example(data.decode('cp1252', 'replace'))!r}"
    else:
        other = ""
    warning = (
        f"the file is not UTF-8 and its encoding is not certain: read as {chosen}, e.g. "
        f"{shown!r}{other}; pass --encoding ENCODING (or the profile's encoding:) to "
        "choose"
    )
    return Decoded(chosen, text, warning=warning)


def _ask(options: Sequence[Candidate]) -> str:
    """The error of a short file that reads as plausible text in several encodings."""
    shown = "; ".join(f"as {r.encoding}: {example(r.text)!r}" for r in options[:4])
    return (
        f"the file is not UTF-8, and its text is too short to tell its encoding: it reads "
        f"as {len(options)} different texts ({shown}); its rows are not read: pass "
        f"--encoding with the one that reads right (e.g. --encoding {options[0].encoding}), "
        "or the profile's encoding:"
    )


def locate_error(data: bytes, encoding: str) -> str:
    """'line 12 (byte 0xE9)' for the first byte ``encoding`` cannot decode."""
    try:
        data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return f"line {line} (byte 0x{data[exc.start]:02X})"
    return "somewhere"
