"""Detecting how a CSV file is written (encoding, delimiter, line ending), so an
annotated copy is written the same way as the user's original.

The sources package reads CSV with its own detection; this one only has to recognise
what a spreadsheet program or a person typically saves: UTF-8 with or without BOM,
UTF-16 with BOM, Windows-1252; comma, semicolon or tab; CRLF or LF.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections import Counter
from dataclasses import dataclass

DELIMITERS = (",", ";", "\t")
_SAMPLE_BYTES = 64 * 1024
_SAMPLE_ROWS = 50


@dataclass(frozen=True, slots=True)
class CsvFormat:
    encoding: str = "utf-8"
    delimiter: str = ","
    lineterminator: str = "\r\n"


def detect_encoding(raw: bytes) -> str:
    """'utf-8-sig', 'utf-16', 'utf-8' or 'cp1252' ('latin-1' as the last resort)."""
    if raw.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    for encoding in ("utf-8", "cp1252"):
        try:
            raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        return encoding
    return "latin-1"


def detect_delimiter(text: str) -> str:
    """The delimiter that splits the sample into the most rows of one consistent width."""
    sample = text[:_SAMPLE_BYTES]
    if len(text) > _SAMPLE_BYTES and "\n" in sample:
        sample = sample[: sample.rindex("\n")]
    best, best_score = ",", 0
    for delimiter in DELIMITERS:
        try:
            rows = list(csv.reader(io.StringIO(sample), delimiter=delimiter))[:_SAMPLE_ROWS]
        except csv.Error:
            continue
        widths = Counter(len(r) for r in rows if len(r) > 1)
        if not widths:
            continue
        width, n = widths.most_common(1)[0]
        score = width * n
        if score > best_score:
            best, best_score = delimiter, score
    return best


def detect_lineterminator(text: str) -> str:
    first = text.find("\n")
    if first == -1:
        return "\r" if "\r" in text else "\r\n"
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def detect_csv_format(raw: bytes) -> CsvFormat:
    encoding = detect_encoding(raw)
    text = raw.decode(encoding)
    return CsvFormat(encoding, detect_delimiter(text), detect_lineterminator(text))
