"""CSV reader: encoding, delimiter and header row found, every cell read as text.

Encodings, in the order tried: a BOM decides (UTF-8 with BOM, UTF-16 LE/BE as Excel's
"Unicode text"); otherwise UTF-8, and cp1252 (Excel's "CSV" on Western Windows) when
the bytes are not UTF-8. Delimiters: ``,`` ``;`` tab, or Excel's ``sep=X`` first line.
Cells are never converted: ``007``, ``NA``, ``null`` and ``nan`` stay as typed.
"""

from __future__ import annotations

import codecs
import csv
import io
from pathlib import Path

import pandas as pd

from linksync.errors import SourceError
from linksync.model import Problem, Provenance
from linksync.sources.columns import find_header_row, header_score, match_columns
from linksync.sources.frame import ReadResult, UnknownColumn
from linksync.sources.table import build_frame, unknown_column_problem

DELIMITERS: tuple[str, ...] = (",", ";", "\t")
_SAMPLE_BYTES = 256 * 1024


def detect_encoding(data: bytes) -> str:
    """Encoding of a CSV from its first bytes (see module docstring)."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(data, final=False)
    except UnicodeDecodeError:
        return "cp1252"
    return "utf-8"


def _decode_sample(data: bytes, encoding: str) -> str:
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    return decoder.decode(data, final=False)


def sniff(text: str) -> tuple[str, int, list[str], bool]:
    """(delimiter, header record index, header cells, has ``sep=`` line) of a sample."""
    lines = text.splitlines()
    sep_line = False
    if lines and lines[0].lower().startswith("sep=") and len(lines[0]) == 5:
        forced = lines[0][4]
        lines = lines[1:]
        sep_line = True
        candidates: tuple[str, ...] = (forced,)
    else:
        candidates = DELIMITERS
    if len(lines) > 1:
        lines = lines[:-1] if not text.endswith(("\n", "\r")) else lines
    best: tuple[int, int, str, int, list[str]] | None = None
    for delim in candidates:
        rows = list(csv.reader(io.StringIO("\n".join(lines[:200])), delimiter=delim))
        h = find_header_row(rows)
        if h is None:
            score, width, h = 0, max((len(r) for r in rows[:5]), default=0), 0
        else:
            score, width = header_score(rows[h]), len(rows[h])
        key = (score, width)
        if best is None or key > best[:2]:
            best = (score, width, delim, h, rows[h] if rows else [])
    assert best is not None
    return best[2], best[3], best[4], sep_line


def read_csv_file(path: Path, display: str, *, mapping: dict[str, str] | None = None) -> ReadResult:
    """Read one CSV file into a frame (see module docstring)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(_SAMPLE_BYTES)
    except OSError as exc:
        raise SourceError(f"{display}: cannot read: {exc.strerror or exc}", path=display) from exc
    result = ReadResult()
    if not head.strip():
        result.problems.append(
            Problem("MISSING_URL", "the file is empty: no header, no rows", Provenance(display))
        )
        return result
    encoding = detect_encoding(head)
    sample = _decode_sample(head, encoding)
    delim, header_idx, header, sep_line = sniff(sample)
    match = match_columns(header, mapping)
    if "url" not in match.fields and "slug" not in match.fields:
        result.problems.append(
            Problem(
                "MISSING_URL",
                "no column of destination URLs found among the headers "
                f"({', '.join(repr(h) for h in header if h)}); name it e.g. "
                '"Destination URL" or map it in the profile',
                Provenance(display),
            )
        )
        return result
    result.unknown.extend(UnknownColumn(display, None, h) for h in match.unknown)
    if match.unknown:
        result.problems.append(unknown_column_problem(display, None, match.unknown))

    wanted = match.used
    skip = header_idx + 1 + (1 if sep_line else 0)
    frame_df = _read_table(path, display, delim, encoding, skip, wanted, len(header))
    columns = {f: [frame_df[c] for c in match.columns_of(f)] for f in match.fields}
    frame = build_frame(display, None, columns, header_idx + 2, match)
    result.frames.append(frame)
    return result


def _read_table(
    path: Path, display: str, delim: str, encoding: str, skip: int, wanted: list[int], width: int
) -> pd.DataFrame:
    def read(enc: str) -> pd.DataFrame:
        return pd.read_csv(
            path,
            sep=delim,
            encoding=enc,
            header=None,
            names=list(range(width)),
            skiprows=skip,
            usecols=wanted,
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            skip_blank_lines=False,
            engine="c",
        )

    try:
        try:
            return read(encoding)
        except UnicodeDecodeError:
            if encoding != "utf-8":
                raise
            return read("cp1252")
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"{display}: not readable as UTF-8, UTF-16 or cp1252 text ({exc.reason})",
            path=display,
        ) from exc
    except (pd.errors.ParserError, ValueError) as exc:
        raise SourceError(f"{display}: not a readable CSV: {exc}", path=display) from exc
