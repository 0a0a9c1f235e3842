"""A second opinion on the encoding of a file that is not UTF-8: which of the legacy
encodings a spreadsheet program writes read its bytes as plausible text.

charset-normalizer's guess is good on long files and poor on short ones: a GB18030
(Chinese) line of twenty characters reads as well-formed EUC-KR (Korean), and a short
Czech ISO-8859-2 line reads as French cp1252. So each encoding of ``CANDIDATES`` is
tried strictly, and its text judged by the script it gives: every non-ASCII character
a letter of that encoding's script (Latin letters of the languages it serves,
Cyrillic, Han, kana with Han, Hangul) or a usual mark, no symbol inside a word, no
half-width katakana. Readings that give the same text are one reading.

``readings(data)`` returns the plausible readings, distinct texts only, in the order
of ``CANDIDATES`` (most common first); the reader decides what to do with several
(``linksync.sources.encoding.decode_unsure``: ask on a short file, warn on a long one).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

#: Latin letters of the languages cp1252 serves (French, German, Spanish, Italian,
#: Portuguese, Dutch, the Nordic languages, Icelandic), both cases.
_WESTERN = frozenset("àâäçéèêëîïôöùûüÿñáíóúãõåæøßœìòýþðÀÂÄÇÉÈÊËÎÏÔÖÙÛÜŸÑÁÍÓÚÃÕÅÆØŒÌÒÝÞÐ")
#: Latin letters of the languages ISO-8859-2 / cp1250 serve (Polish, Czech, Slovak,
#: Hungarian, Slovene, Croatian, Romanian), both cases; rare ones (ŕ, ĺ, ľ) left out.
_CENTRAL = frozenset("ąćęłńóśźżčďěňřšťůžáéíóúýőűöüäôăâîșțşţđĄĆĘŁŃÓŚŹŻČĎĚŇŘŠŤŮŽÁÉÍÓÚÝŐŰÖÜÄÔĂÂÎȘȚŞŢĐ")
#: Marks of Latin and Cyrillic text besides letters.
_MARKS = frozenset("€‚„…†‡‰‹›‘’“”•–—™¡¢£¥§©«®°±²³´µ·¹º»¼½¾¿×÷№")
#: Marks that may touch a letter: apostrophes, quotes, dashes, the ellipsis, the degree.
_WORD_MARKS = frozenset("’‘“”«»–—…·°")

#: Encodings tried, most common first, with the letters their text may hold.
CANDIDATES: tuple[tuple[str, str], ...] = (
    ("cp1252", "western"),
    ("iso-8859-2", "central"),
    ("cp1250", "central"),
    ("cp1251", "cyrillic"),
    ("gb18030", "han"),
    ("big5", "han"),
    ("shift_jis", "japanese"),
    ("cp949", "korean"),
)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One plausible reading: the encodings that give it (first: the one to name) and
    the text, with how many non-ASCII characters it holds."""

    encodings: tuple[str, ...]
    text: str
    non_ascii: int
    latin: bool  # Western or Central European letters

    @property
    def encoding(self) -> str:
        return self.encodings[0]


@lru_cache(maxsize=8192)
def _kind(ch: str) -> str:
    """The script family of one non-ASCII character, or 'mark' / 'odd'."""
    if ch in _MARKS:
        return "mark"
    cat = unicodedata.category(ch)
    if cat == "Zs":
        return "space"
    name = unicodedata.name(ch, "")
    if "\uff61" <= ch <= "\uff9f":
        return "odd"  # half-width katakana: what Chinese bytes become in Shift-JIS
    if name.startswith("HANGUL SYLLABLE"):
        return "hangul"
    if name.startswith(("HIRAGANA", "KATAKANA")):
        return "kana"
    if name.startswith(("CJK UNIFIED", "CJK COMPATIBILITY IDEOGRAPH")):
        return "han"
    if ch in "、。「」『』【】・ー～〜！？（）：；，．％＆＃＠／　" or name.startswith("FULLWIDTH"):
        return "cjk-mark"
    if name.startswith("CYRILLIC") and cat.startswith("L"):
        return "cyrillic"
    if name.startswith("LATIN") and cat.startswith("L"):
        return "latin"
    return "odd"


def plausible(text: str, family: str) -> bool:
    """True when the non-ASCII characters of ``text`` are what text of ``family``
    holds (see module docstring)."""
    counts: dict[str, int] = {}
    spaced = 0  # CJK characters on both sides of a space: Korean words, not Chinese
    prev, prev_kind = " ", "ascii"
    for i, ch in enumerate(text):
        if ch.isascii():
            if ch.isalpha() and prev_kind in _NOT_BESIDE_LATIN:
                return False
            if ch == " " and prev_kind in _CJK and i + 1 < len(text):
                spaced += _kind(text[i + 1]) in _CJK if not text[i + 1].isascii() else 0
            prev, prev_kind = ch, "ascii"
            continue
        kind = _kind(ch)
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "odd":
            return False
        if kind in _NOT_BESIDE_LATIN and prev.isascii() and prev.isalpha():
            return False  # Frьhling, Espa馻: one letter of another script in a word
        if kind == "latin":
            letters = _WESTERN if family == "western" else _CENTRAL
            if family not in ("western", "central") or ch not in letters:
                return False
            if ch in _SOFT and i + 1 < len(text) and text[i + 1] in _VOWELS:
                return False  # Polish writes ni, ci, si, zi before a vowel: Espańa
        elif kind == "cyrillic" and ch.isupper() and prev_kind == "cyrillic" and prev.islower():
            return False  # upper case inside a word: what other bytes make of Cyrillic
        elif kind == "cyrillic" and ch not in _CYRILLIC:
            return False  # Serbian and Macedonian letters: what other bytes make
        elif kind == "mark" and ch not in _WORD_MARKS:
            after = text[i + 1] if i + 1 < len(text) else " "
            if prev.isalpha() or after.isalpha():
                return False  # a symbol inside a word: £odzi, Ä…, ´ÙÏú
        prev, prev_kind = ch, kind
    if family in ("han", "japanese") and spaced >= 2:
        return False
    if family in ("western", "central") and _foreign_word(text):
        return False
    return _family_fits(counts, family) and _common(text, family)


def _foreign_word(text: str) -> bool:
    """A word of three letters or more without an ASCII letter: what Cyrillic or CJK
    bytes read as Latin make (Ñêèäêè, ÇÒÀÎ); French, German, Czech words hold some."""
    run = ascii_seen = 0
    for ch in text + " ":
        if ch.isalpha():
            run += 1
            ascii_seen += ch.isascii()
            continue
        if run >= 3 and not ascii_seen:
            return True
        run = ascii_seen = 0
    return False


#: Cyrillic letters of Russian, Ukrainian, Belarusian and Bulgarian.
_CYRILLIC = frozenset(
    "абвгдеёжзийклмнопрстуфхцчшщъыьэюяіїєґўАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯІЇЄҐЎ"
)
#: Polish soft consonants, never written before a vowel (Czech and Slovak have none).
_SOFT = frozenset("ćńśźĆŃŚŹ")
_VOWELS = frozenset("aeiouyąęóAEIOUYĄĘÓ")
#: Kinds of characters that never sit in one word with ASCII letters.
_NOT_BESIDE_LATIN = frozenset({"cyrillic", "han", "kana", "hangul"})
_CJK = frozenset({"han", "kana", "hangul"})
#: Han text read as GB18030 is nearly all in GB2312; read as Big5, nearly all in its
#: frequent characters (A440-C67E). Bytes of another encoding mostly are not.
_COMMON_SHARE = 0.9


def _common(text: str, family: str) -> bool:
    """Han text mostly of common characters (``_is_common_han``); Korean text mostly
    of the 2,350 Hangul syllables of KS X 1001 (cp949 decodes 8,822 more, which other
    bytes read as Korean give)."""
    if family == "han":
        test, kind = _is_common_han, "han"
    elif family == "korean":
        test, kind = _is_common_hangul, "hangul"
    else:
        return True
    chars = [ch for ch in text if not ch.isascii() and _kind(ch) == kind]
    return sum(1 for ch in chars if test(ch)) >= _COMMON_SHARE * len(chars)


@lru_cache(maxsize=8192)
def _is_common_hangul(ch: str) -> bool:
    try:
        # Two bytes: one of KS X 1001's syllables (Python's codec writes the others as
        # eight-byte jamo sequences).
        return len(ch.encode("euc_kr")) == 2
    except UnicodeEncodeError:
        return False


@lru_cache(maxsize=8192)
def _is_common_han(ch: str) -> bool:
    try:
        ch.encode("gb2312")
        return True
    except UnicodeEncodeError:
        pass
    try:
        code = int.from_bytes(ch.encode("big5"), "big")
    except UnicodeEncodeError:
        return False
    return 0xA440 <= code <= 0xC67E


def _family_fits(counts: dict[str, int], family: str) -> bool:
    han, kana, hangul = counts.get("han", 0), counts.get("kana", 0), counts.get("hangul", 0)
    cyrillic = counts.get("cyrillic", 0)
    cjk = han + kana + hangul + counts.get("cjk-mark", 0)
    if family in ("western", "central"):
        return cjk == 0 and cyrillic == 0
    if family == "cyrillic":
        return cjk == 0 and cyrillic > 0
    if counts.get("latin", 0) or cyrillic:
        return False
    if family == "han":
        return han > 0 and kana == 0 and hangul == 0
    if family == "japanese":
        return kana > 0 and hangul == 0
    if family == "korean":
        # Korean text may hold a rare Han character; Chinese bytes read as Korean
        # give Hangul and Han mixed.
        return hangul > 0 and kana == 0 and han * 10 <= hangul
    return False


def readings(data: bytes) -> list[Candidate]:
    """The plausible readings of ``data`` (see module docstring)."""
    found: dict[str, list[str]] = {}
    families = dict(CANDIDATES)
    for encoding, family in CANDIDATES:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if plausible(text, family):
            found.setdefault(text, []).append(encoding)
    return [
        Candidate(
            tuple(encodings),
            text,
            sum(1 for ch in text if not ch.isascii()),
            families[encodings[0]] in ("western", "central"),
        )
        for text, encodings in found.items()
    ]
