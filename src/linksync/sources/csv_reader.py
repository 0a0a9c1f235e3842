"""CSV reader: encoding, delimiter and header found, every cell read as text.

Encodings: ``linksync.sources.encoding`` (``--encoding``, a BOM, BOM-less UTF-16,
UTF-8, else a decision that says so when it is not certain). Delimiters: ``,`` ``;``
tab, or Excel's ``sep=X`` first line. The header is found in the first 256 KB, under
any title rows, one row or two (``linksync.sources.header``). Cells are never
converted: ``007``, ``NA``, ``null`` and ``nan`` stay as typed.

A row with more values than the header has columns is an error on that row (the
values beyond the header are named). An unclosed quote is an error on the row where
it opens; the rows before it are read.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from pathlib import Path

from linksync.errors import SourceError
from linksync.model import Problem, Provenance, Severity
from linksync.model.links import column_letter
from linksync.sources.columns import (
    ColumnMatch,
    compile_mapping,
    header_score,
    match_columns,
)
from linksync.sources.csv_records import read_records
from linksync.sources.csv_scan import Structure, scan
from linksync.sources.encoding import (
    Decoded,
    ascii_compatible,
    decode_unsure,
    detect_encoding,
    locate_error,
)
from linksync.sources.frame import ReadResult, UnknownColumn
from linksync.sources.header import Header, find_header
from linksync.sources.options import CSV_SAMPLE_BYTES, MAX_COLUMNS, ReadOptions
from linksync.sources.table import CellIssue, build_frame, unknown_column_problem

__all__ = ["DELIMITERS", "detect_encoding", "read_csv_file", "sniff"]

DELIMITERS: tuple[str, ...] = (",", ";", "\t")
_SAMPLE_BYTES = CSV_SAMPLE_BYTES
#: The constant of encoding warnings, and of a file not read for its encoding.
_UNCERTAIN = "UNCERTAIN_ENCODING"
#: A line's end as the csv module (and so the readers) takes it: \r\n, \n or \r.
_LINE_END = re.compile(r"\r\n|\n|\r")
_LINE_ENDS = re.compile(rb"\r\n|\n|\r")


class _Asked(Exception):
    """A file whose bytes past the first ones are not UTF-8 and cannot be told apart."""


def decode_sample(data: bytes, encoding: str) -> str:
    """The text of a file's first bytes (a character cut at the end is left out)."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    return decoder.decode(data, final=False)


def _records(text: str, delim: str, limit: int = 200) -> list[list[str]]:
    """The first records of a sample; a record the csv module refuses (a field over
    its limit, a NUL byte) ends the list."""
    rows: list[list[str]] = []
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delim)
    try:
        for row in reader:
            rows.append(row)
            if len(rows) >= limit:
                break
    except csv.Error:
        pass
    return rows


def sniff_header(
    text: str, explicit: dict[str, str] | None = None
) -> tuple[str, Header | None, list[list[str]], bool]:
    """(delimiter, header or None, first records, has ``sep=`` line) of a sample."""
    sep_line = False
    body = text
    end = _LINE_END.search(text)  # \r\n, \n, or a \r alone (a classic Mac file)
    first = text[: end.start()] if end else text
    if first.lower().startswith("sep=") and len(first) == 5:
        candidates: tuple[str, ...] = (first[4],)
        body = text[end.end() :] if end else ""
        sep_line = True
    else:
        candidates = DELIMITERS
    if not body.endswith(("\n", "\r")):
        cut = max(body.rfind("\n"), body.rfind("\r"))
        body = body[: cut + 1] if cut >= 0 else body
    best: tuple[int, int, str, Header | None, list[list[str]]] | None = None
    for delim in candidates:
        rows = _records(body, delim)
        head = find_header(rows, explicit=explicit)
        if head is None:
            score, width = 0, max((len(r) for r in rows[:5]), default=0)
        else:
            score, width = header_score(head.cells, explicit), len(head.cells)
        if best is None or (score, width) > best[:2]:
            best = (score, width, delim, head, rows)
    assert best is not None
    _, _, delim, head, rows = best
    return delim, head, [list(map(str, r)) for r in rows], sep_line


def sniff(text: str) -> tuple[str, int, list[str], bool]:
    """(delimiter, header record index, header cells, has ``sep=`` line) of a sample
    (the header's last row when it spans two)."""
    delim, head, rows, sep_line = sniff_header(text)
    if head is None:
        return delim, 0, rows[0] if rows else [], sep_line
    return delim, head.last, [str(c) for c in head.cells], sep_line


class _CsvRead:
    """One CSV file being read (see module docstring)."""

    def __init__(self, path: Path, display: str, opts: ReadOptions):
        self.path, self.display, self.opts = path, display, opts
        self.result = ReadResult()
        self.issues: list[CellIssue] = []
        self.whole = False  # no record has values beyond the header

    def fail(self, message: str) -> SourceError:
        return SourceError(f"{self.display}: {message}", path=self.display)

    def problem(self, constant: str, message: str, severity: Severity = Severity.ERROR) -> None:
        self.result.problems.append(
            Problem(constant, message, Provenance(self.display), None, severity)
        )

    def read(self) -> ReadResult:
        try:
            with self.path.open("rb") as fh:
                head = fh.read(_SAMPLE_BYTES + 1)
        except OSError as exc:
            raise self.fail(f"cannot read: {exc.strerror or exc}") from exc
        if not head.strip():
            self.problem("EMPTY_SOURCE", "the file is empty: no header, no rows")
            return self.result
        decoded = self._decide(head)
        if decoded.ask:
            self.problem(_UNCERTAIN, decoded.ask)
            return self.result
        sample = (
            decoded.text[:_SAMPLE_BYTES]
            if decoded.text is not None
            else decode_sample(head[:_SAMPLE_BYTES], decoded.encoding)
        )
        if len(head) > _SAMPLE_BYTES and "\n" not in sample and "\r" not in sample:
            raise self.fail(
                f"the first line is longer than {_SAMPLE_BYTES // 1024} KB: a CSV header "
                "must end within the file's first 256 KB"
            )
        explicit = compile_mapping(self.opts.mapping)
        delim, head_row, rows, sep_line = sniff_header(sample, explicit)
        header: list[object] = list(
            head_row.cells if head_row is not None else rows[0] if rows else []
        )
        if len(header) > MAX_COLUMNS:
            raise self.fail(
                f"the header has {len(header):,} columns; at most {MAX_COLUMNS:,} are read"
            )
        match = match_columns(header, self.opts.mapping)
        if "url" not in match.fields and "slug" not in match.fields:
            names = ", ".join(repr(str(h)) for h in header[:20] if h)
            self.problem(
                "MISSING_URL_COLUMN",
                f"no column of destination URLs found among the headers ({names}); name "
                'it e.g. "Destination URL" or map it with --map HEADER=url',
            )
            return self.result
        if decoded.warning:
            self.problem(_UNCERTAIN, decoded.warning, Severity.WARNING)
        self.result.unknown.extend(UnknownColumn(self.display, None, h) for h in match.unknown)
        if match.unknown:
            self.result.problems.append(unknown_column_problem(self.display, None, match.unknown))
        last = head_row.last if head_row is not None else 0
        skip = last + 1 + (1 if sep_line else 0)
        self._table(decoded, delim, header, match, skip, last)
        return self.result

    def _decide(self, head: bytes) -> Decoded:
        enc = self.opts.encoding
        if enc is not None:
            if ascii_compatible(enc):
                return Decoded(enc)
            return self._decode_all(enc)
        guess = detect_encoding(head[:_SAMPLE_BYTES])
        if guess.startswith("utf-16"):
            return self._decode_all(guess)
        if guess == "cp1252":
            return decode_unsure(self._bytes())
        return Decoded(guess)

    def _bytes(self) -> bytes:
        try:
            return self.path.read_bytes()
        except OSError as exc:
            raise self.fail(f"cannot read: {exc.strerror or exc}") from exc

    def _decode_all(self, enc: str) -> Decoded:
        data = self._bytes()
        try:
            return Decoded(enc, data.decode(enc))
        except UnicodeDecodeError:
            raise self.fail(f"not valid {enc} text at {locate_error(data, enc)}") from None

    def _table(
        self,
        decoded: Decoded,
        delim: str,
        header: list[object],
        match: ColumnMatch,
        skip: int,
        last: int,
    ) -> None:
        width = len(header)
        try:
            columns_of, unclosed = self._records(decoded, delim, skip, match.used, width)
        except _Asked as exc:
            self.problem(_UNCERTAIN, str(exc))
            return
        # The scan runs after the records are read, which may have had to decode the
        # file another way, and only when a record has values beyond the header
        # (``csv_records``) or the records of a mixed file must be found by byte offset.
        if self.whole and unclosed is None and not decoded.fallback:
            structure = Structure()
        else:
            structure = self._scan(decoded, delim, width, skip)
        for r in structure.ragged:
            if unclosed is not None and r.record >= unclosed:
                continue
            first = next(i for i, v in enumerate(r.extra) if v.strip())
            shown = ", ".join(repr(v) for v in r.extra if v.strip())
            self.issues.append(
                CellIssue(
                    r.record - skip,
                    None,
                    "INVALID_FIELD",
                    f"this row has {r.count} values but the header has {width} columns: "
                    f"{shown} belong(s) to no column (a delimiter inside an unquoted "
                    "value?); the row is not sent",
                    column=f"{column_letter(width + first)} (no header)",
                )
            )
        if unclosed is not None:
            self._unclosed(unclosed - skip, delim, header)
        self._mixed(decoded, structure, skip)
        columns = {f: [columns_of[c] for c in match.columns_of(f)] for f in match.fields}
        frame, problems = build_frame(
            self.display, None, columns, last + 2, match, issues=self.issues, options=self.opts
        )
        self.result.frames.append(frame)
        self.result.problems.extend(problems)

    def _scan(self, decoded: Decoded, delim: str, width: int, skip: int) -> Structure:
        if decoded.fallback:
            raw: Path | bytes = self._bytes()
            scan_enc = "utf-8"
        elif decoded.text is not None:
            raw, scan_enc = decoded.text.encode("utf-8"), "utf-8"
        else:
            raw, scan_enc = self.path, decoded.encoding
        fallback = bool(decoded.fallback)
        return scan(raw, delim, width, first_data=skip, encoding=scan_enc, offsets=fallback)

    def _unclosed(self, k: int, delim: str, header: list[object]) -> None:
        data = self._bytes()
        at = data.rfind(b'"')
        line_start = max(data.rfind(b"\n", 0, at), data.rfind(b"\r", 0, at)) + 1
        col = data[line_start:at].count(delim.encode("ascii")) if at >= 0 else 0
        lines = len(_LINE_ENDS.findall(data, max(at, 0), len(data.rstrip(b"\r\n"))))
        name = str(header[col]) if col < len(header) and header[col] else column_letter(col)
        self.issues.append(
            CellIssue(
                k,
                None,
                "INVALID_FIELD",
                f"a quote opens in this row and never closes: this row and the {lines} "
                'line(s) after it were not read (close the quote, or double it as "" '
                "inside a quoted value); the rows before it were read",
                column=name,
            )
        )

    def _mixed(self, decoded: Decoded, structure: Structure, skip: int) -> None:
        if not decoded.fallback:
            return
        offsets = [off for off, _ in decoded.fallback]
        found = structure.record_of(offsets)
        records: list[int | None] = list(found) if found is not None else [None] * len(offsets)
        seen: set[int] = set()
        in_header: list[str] = []
        for (_off, text), rec in zip(decoded.fallback, records, strict=True):
            if rec is None or rec < skip:
                in_header.append(text)
                continue
            if rec in seen:
                continue
            seen.add(rec)
            self.issues.append(
                CellIssue(
                    rec - skip,
                    None,
                    "MIXED_ENCODING",
                    f"this row is not UTF-8: it was read as cp1252 ({text!r}); "
                    "the rest of the file is UTF-8: check the text, or pass --encoding to "
                    "read the whole file one way",
                    Severity.WARNING,
                    column="(encoding)",
                )
            )
        if in_header or len(seen) > 0:
            # Rows are told by the fast scan's line ends; a file the csv module scanned
            # (a quote inside a value, line ends of two kinds) has none to tell them by.
            rows = (
                "the rows concerned are named"
                if found is not None
                else (
                    "which rows they are cannot be told (the file's line ends are of more than "
                    "one kind, or a quote sits inside a value): look for the text shown"
                )
            )
            self.problem(
                "MIXED_ENCODING",
                f"the file mixes UTF-8 lines and others: {len(decoded.fallback)} line(s) were "
                f"read as cp1252 (e.g. {decoded.fallback[0][1]!r}), the rest as UTF-8; {rows}",
                Severity.WARNING,
            )

    def _records(
        self, decoded: Decoded, delim: str, skip: int, wanted: list[int], width: int
    ) -> tuple[dict[int, list[str]], int | None]:
        source: Path | str = self.path if decoded.text is None else decoded.text
        enc = decoded.encoding if decoded.text is None else None
        try:
            records = read_records(
                source, encoding=enc, delimiter=delim, skip=skip, width=width, wanted=wanted
            )
        except UnicodeDecodeError:
            if self.opts.encoding is not None or decoded.text is not None:
                where = locate_error(self._bytes(), decoded.encoding)
                raise self.fail(f"not valid {decoded.encoding} text at {where}") from None
            fallback = decode_unsure(self._bytes())
            if fallback.ask:
                raise _Asked(fallback.ask) from None
            if fallback.warning:
                self.problem(_UNCERTAIN, fallback.warning, Severity.WARNING)
            decoded.text, decoded.encoding = fallback.text, fallback.encoding
            decoded.fallback = fallback.fallback
            return self._records(decoded, delim, skip, wanted, width)
        except (csv.Error, ValueError) as exc:
            raise self.fail(f"not a readable CSV: {exc}") from exc
        self.whole = records.whole
        return records.columns, records.unclosed


def read_csv_file(path: Path, display: str, *, options: ReadOptions) -> ReadResult:
    """Read one CSV file into a frame (see module docstring)."""
    return _CsvRead(path, display, options).read()
