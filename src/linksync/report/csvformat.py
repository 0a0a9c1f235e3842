"""How a CSV source is written (encoding, delimiter, line ending, header row), so the
annotated copy is written the same way and its header lands where the reader found it.

Encoding, delimiter and header row come from the CSV reader's own detection
(``linksync.sources.csv_reader``): the copy agrees with how the file was read, including
Excel's ``sep=X`` first line. This module only adds the line ending.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from linksync.errors import SourceError
from linksync.sources.csv_reader import detect_encoding, sniff
from linksync.sources.options import CSV_SAMPLE_BYTES as _SAMPLE_BYTES


@dataclass(frozen=True, slots=True)
class CsvFormat:
    """``header_record``: 0-based record index of the header row in the file as stored;
    ``skip_records``: records above the rows a spreadsheet numbers (1 with ``sep=``)."""

    encoding: str = "utf-8"
    delimiter: str = ","
    lineterminator: str = "\r\n"
    header_record: int = 0
    skip_records: int = 0


def detect_lineterminator(text: str) -> str:
    """'\\r\\n', '\\n' or '\\r': the ending of the first line (CRLF when there is none)."""
    first = text.find("\n")
    if first == -1:
        return "\r" if "\r" in text else "\r\n"
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def decode_csv(raw: bytes, display: str) -> tuple[str, CsvFormat]:
    """The text of a CSV file and how it is written."""
    encoding = detect_encoding(raw[:_SAMPLE_BYTES])
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError:
        # The sample was UTF-8 but a later byte is not: Excel's cp1252, as the reader does.
        try:
            encoding, text = "cp1252", raw.decode("cp1252")
        except UnicodeDecodeError as exc:
            raise SourceError(
                f"{display}: not readable as UTF-8, UTF-16 or cp1252 text ({exc.reason})",
                path=display,
            ) from exc
    sample = codecs.getincrementaldecoder(encoding)(errors="replace").decode(
        raw[:_SAMPLE_BYTES], final=len(raw) <= _SAMPLE_BYTES
    )
    delimiter, header_idx, _, sep_line = sniff(sample)
    skip = 1 if sep_line else 0
    fmt = CsvFormat(encoding, delimiter, detect_lineterminator(text), header_idx + skip, skip)
    return text, fmt
