"""Binary files under a text name: a workbook, an image or a PDF named ``.csv`` or ``.yaml``.

A workbook saved (or renamed) as ``campaign.csv``, a screenshot named ``links.csv``: read
as text, its first bytes make a header of garbage (``'‰PNG'``) and the file is reported
as one without a URL column, which sends the user looking in the wrong place. So before
a CSV or YAML file is decoded, ``refuse_binary`` reads its first bytes and, when they
are the signature of a known binary format, refuses the file (``SourceError``: exit 2,
nothing read) naming what it looks like and what to do: "looks like an Excel workbook
(a zip file), not a CSV file: rename it to .xlsx".

Only signatures that no text file starts with are recognised (zip, OLE, PNG, JPEG, GIF,
PDF, gzip and a few more), so a CSV in UTF-16 (with or without a byte-order mark) or
one whose first cell holds odd text is never refused here.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from linksync.errors import SourceError
from linksync.sources.encrypted import OLE_MAGIC, is_encrypted_workbook

__all__ = ["looks_like", "refuse_binary"]

#: How many bytes are read: the longest signature below.
_HEAD = 16

_ZIP = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")

#: (first bytes, what the file looks like, what to do). The zip and OLE signatures are
#: told apart further (``_zip_kind``, ``_ole_kind``).
_SIGNATURES: tuple[tuple[bytes, str, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image", "_pick"),
    (b"\xff\xd8\xff", "a JPEG image", "_pick"),
    (b"GIF87a", "a GIF image", "_pick"),
    (b"GIF89a", "a GIF image", "_pick"),
    (b"%PDF-", "a PDF document", "_export"),
    (b"\x1f\x8b", "a gzip-compressed file", "decompress it (gunzip) and give the file it holds"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "_unpack"),
    (b"Rar!\x1a\x07", "a RAR archive", "_unpack"),
    (b"\xfd7zXZ\x00", "an xz-compressed file", "decompress it (unxz) and give the file it holds"),
    (b"SQLite format 3\x00", "an SQLite database", "_export"),
)

_ADVICE = {
    "_pick": "pick the {kind} file itself (an image holds no links)",
    "_export": "give the {kind} file itself (save the links as CSV, .xlsx or YAML where "
    "they were made)",
    "_unpack": "unpack it and give the files it holds",
}


def looks_like(path: Path) -> tuple[str, str] | None:
    """(what ``path`` looks like, what to do) when its first bytes are a binary format's
    signature; None for anything else (any text, whatever its encoding)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(_HEAD)
    except OSError:
        return None  # the reader says why it cannot read the file
    if head.startswith(_ZIP):
        return _zip_kind(path)
    if head.startswith(OLE_MAGIC):
        return _ole_kind(path)
    for magic, what, advice in _SIGNATURES:
        if head.startswith(magic):
            return what, _ADVICE.get(advice, advice)
    return None


def refuse_binary(path: Path, display: str, kind: str) -> None:
    """Raise ``SourceError`` when the file ``path``, read as ``kind`` ("CSV" or "YAML"),
    is a binary file: what it looks like and what to do, with the file's name."""
    found = looks_like(path)
    if found is None:
        return
    what, advice = found
    raise SourceError(
        f"{display}: looks like {what}, not a {kind} file: {advice.format(kind=kind)}",
        path=display,
    )


def _zip_kind(path: Path) -> tuple[str, str]:
    """A zip: an Office or OpenDocument package, or an archive. Only its central
    directory is read (no part is inflated)."""
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            mimetype = zf.read("mimetype")[:100] if "mimetype" in names else b""
    except (zipfile.BadZipFile, OSError, KeyError, ValueError):
        return "a zip file", "unpack it and give the files it holds"
    if "xl/workbook.xml" in names or "xl/workbook.bin" in names:
        macro = "xl/vbaProject.bin" in names
        suffix = ".xlsb" if "xl/workbook.bin" in names else ".xlsm" if macro else ".xlsx"
        return "an Excel workbook (a zip file)", f"rename it to {suffix}"
    if b"opendocument.spreadsheet" in mimetype:
        return "an OpenDocument spreadsheet (a zip file)", "rename it to .ods"
    if "word/document.xml" in names:
        return "a Word document (a zip file)", _ADVICE["_export"]
    if "ppt/presentation.xml" in names:
        return "a PowerPoint presentation (a zip file)", _ADVICE["_export"]
    if any(n.startswith("Index/") for n in names):
        return "an Apple Numbers spreadsheet", "export it from Numbers as CSV or Excel"
    return "a zip file", _ADVICE["_unpack"]


def _ole_kind(path: Path) -> tuple[str, str]:
    """An OLE compound file: an encrypted workbook, or an old Office file."""
    if is_encrypted_workbook(path):
        return (
            "a password-protected Excel workbook (an encrypted Office file)",
            "rename it to .xlsx and give its password with --workbook-password-file FILE",
        )
    return (
        "an Excel 97-2003 workbook or another old Office file (an OLE file)",
        "rename it to .xls if it is a workbook, or save it as .xlsx",
    )
