"""pandas' C parser over the records of a big CSV with quoted values
(``linksync.sources.csv_records`` decides when), every cell read as text.

Cells are never converted (``dtype=str``, no missing-value markers): ``007``, ``NA``,
``null`` and ``nan`` stay as typed. No column is ever taken for an index
(``index_col=False``): pandas would otherwise shift every value of a file whose first
record holds one value more than the header.

All columns are read unless most are not wanted (selecting columns slows the parser
down and pays only in memory). pandas refuses a record with more values than the
header (a ``ParserError``, or a ``ParserWarning`` for the first record), so when it
reads them all without a word, no record has values beyond the header; when it
refuses, the file is read again with ``usecols``, which drops such values, and the
reader's scan (``csv_scan``) names them. A quote that never closes is pandas' "EOF
inside string starting at row N": the records before N are read again, and N is the
record named.
"""

from __future__ import annotations

import io
import re
import warnings
from pathlib import Path

import pandas as pd

_TOO_MANY = re.compile(r"Expected \d+ fields in line \d+, saw \d+")
_EOF_IN_QUOTE = re.compile(r"EOF inside string starting at row (\d+)")


def pandas_records(
    source: Path | str,
    *,
    encoding: str | None,
    delimiter: str,
    skip: int,
    width: int,
    wanted: list[int],
) -> tuple[dict[int, list[str]], bool, int | None]:
    """(the wanted columns' cells, no record has values beyond the header, the record
    where a quote opens and never closes); ``source`` a path, or decoded text
    (``encoding`` None). pandas' ``UnicodeDecodeError`` and other ``ParserError``s
    (a ``ValueError``) propagate for the reader to word."""
    try:
        frame, whole = _records(source, encoding, delimiter, skip, width, wanted, None)
        unclosed = None
    except pd.errors.ParserError as exc:
        m = _EOF_IN_QUOTE.search(str(exc))
        if m is None:
            raise
        unclosed = int(m.group(1))
        nrows = max(unclosed - skip, 0)
        frame, whole = _records(source, encoding, delimiter, skip, width, wanted, nrows)
    columns = {c: frame[c].tolist() for c in sorted(set(wanted))}
    return columns, whole, unclosed


def _records(
    source: Path | str,
    encoding: str | None,
    delimiter: str,
    skip: int,
    width: int,
    wanted: list[int],
    nrows: int | None,
) -> tuple[pd.DataFrame, bool]:
    if len(wanted) * 2 < width:
        return _read(source, encoding, delimiter, skip, width, wanted, nrows), False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = _read(source, encoding, delimiter, skip, width, None, nrows)
    except pd.errors.ParserWarning:
        pass
    except pd.errors.ParserError as exc:
        if not _TOO_MANY.search(str(exc)):
            raise
    else:
        return frame, True
    return _read(source, encoding, delimiter, skip, width, wanted, nrows), False


def _read(
    source: Path | str,
    encoding: str | None,
    delimiter: str,
    skip: int,
    width: int,
    usecols: list[int] | None,
    nrows: int | None,
) -> pd.DataFrame:
    frame: pd.DataFrame = pd.read_csv(
        io.StringIO(source) if isinstance(source, str) else source,
        sep=delimiter,
        encoding=encoding,
        header=None,
        names=list(range(width)),
        index_col=False,
        skiprows=skip,
        usecols=usecols,
        dtype=str,
        keep_default_na=False,
        na_filter=False,
        skip_blank_lines=False,
        engine="c",
        nrows=nrows,
    )
    return frame
