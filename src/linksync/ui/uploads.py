"""Files dropped on the page: CSV, Excel workbooks and YAML link files, kept in a
temporary folder of the server's own and deleted when it stops.

Limits (each refused with a message that names the file and says what to do):

- the extension: .csv, .xlsx, .xlsm, .yaml, .yml;
- the size: ``DEFAULT_MAX_BYTES`` (25 MB) per file unless ``linksync ui
  --max-upload-mb`` says otherwise; checked from the declared length before reading,
  and again while reading (a sender that lies is cut off at the limit);
- at most ``MAX_FILES`` files at once (remove one to add another);
- the content: a workbook must be a zip holding ``xl/workbook.xml``, or an encrypted
  workbook (a password-protected .xlsx: an OLE file ``msoffcrypto`` knows as
  encrypted; ``Upload.encrypted``, read with the password the page asks for); a CSV or
  YAML file must be text (no NUL byte, unless it starts with a UTF-16 byte order mark).
  Reading the rows and columns is the readers' work, as for the command line.

The name shown is the file's own name (its last part, control characters removed),
and the file keeps it on disk (so reports name the user's file), in a folder of its
own: a name can never point outside.

One name, one file: a file dropped again under the name of an earlier upload replaces
it (a corrected sheet is not read beside the old one), wherever the earlier one was
chosen, and ``Upload.replaced`` says so to the page.

Each opening of the page is a visit (``new_visit``) with its own choice of files: a
new visit starts with none. The files of earlier visits of this server stay listed as
earlier uploads (``earlier``) and are read again only when the person picks one
(``choose``); ``chosen(visit)`` is what the visit's Check, Plan and Apply read. A
client that names no visit (a script of the page's API) has the visit ``""`` of its
own.
"""

from __future__ import annotations

import re
import secrets
import shutil
import tempfile
import threading
import unicodedata
import zipfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from linksync.rules.timestamps import utc_now
from linksync.sources.encrypted import is_encrypted_workbook

#: Per-file size limit (bytes) unless configured.
DEFAULT_MAX_BYTES = 25_000_000
MAX_FILES = 20
KINDS: dict[str, str] = {
    ".csv": "CSV file",
    ".xlsx": "Excel workbook",
    ".xlsm": "Excel workbook (with macros)",
    ".yaml": "YAML link file",
    ".yml": "YAML link file",
}
_SNIFF = 8192
_NAME_MAX = 120
_WINDOWS_UNSAFE = re.compile(r'[<>:"|?*]')
#: Visits remembered at most (the oldest one's choice is forgotten first).
MAX_VISITS = 200
#: What a visit id may be (the page sends the one it was served with).
VISIT_ID = re.compile(r"[0-9a-f]{0,64}")


class UploadRefused(Exception):
    """An upload the page does not keep: ``status`` (HTTP) and a message for people."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Upload:
    """One file the page received."""

    upload_id: str
    name: str
    path: Path
    size: int
    kind: str
    received_at: str
    #: It replaced an earlier upload of the same name (that one is gone).
    replaced: bool = False
    #: A password-protected workbook: read with the password the page asks for.
    encrypted: bool = False

    @property
    def said(self) -> str:
        """What the page says once it is received."""
        locked = ", encrypted" if self.encrypted else ""
        what = f"({self.kind}{locked}, {size_text(self.size)})"
        if self.replaced:
            return f"{self.name} replaced the earlier upload of the same name {what}."
        return f"{self.name} received {what}."

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.upload_id,
            "name": self.name,
            "size": self.size,
            "size_text": size_text(self.size),
            "kind": self.kind,
            "received_at": self.received_at,
            "received_text": self.received_at[:16].replace("T", " ") + " UTC",
            "replaced": self.replaced,
            "encrypted": self.encrypted,
            "said": self.said,
        }


def size_text(size: int) -> str:
    """'18 KB', '25 MB', '1.3 MB' (1 MB = 1,000,000 bytes, as file managers show)."""
    if size < 1000:
        return f"{size} bytes"
    if size < 1_000_000:
        return f"{size / 1000:.0f} KB"
    mb = size / 1_000_000
    return f"{mb:.0f} MB" if mb >= 10 or mb == int(mb) else f"{mb:.1f} MB"


def too_large(name: str, size: int | None, limit: int) -> str:
    """The message of an upload over the limit (the page's script says the same)."""
    what = f"is {size_text(size)}" if size is not None else f"is larger than {size_text(limit)}"
    return (
        f"{name} {what}; the page takes files up to {size_text(limit)}. Split it, or run "
        f"linksync apply {name} in a terminal, which has no size limit."
    )


def display_name(raw: str) -> str:
    """The last part of a file name, without control or format characters; a name
    longer than ``_NAME_MAX`` keeps its start and its end around an ellipsis (two long
    names that differ at the end, ``..._v1.xlsx`` and ``..._v2.xlsx``, stay two names:
    one name is one file on the page)."""
    base = raw.replace("\\", "/").rsplit("/", 1)[-1]
    clean = "".join(c for c in base if unicodedata.category(c)[0] != "C").strip()
    if len(clean) > _NAME_MAX:
        stem, dot, ext = clean.rpartition(".")
        if not dot:
            stem, ext = clean, ""
        room = max(_NAME_MAX - len(ext) - len(dot) - 1, 2)
        head = room // 2
        clean = f"{stem[:head]}\u2026{stem[len(stem) - (room - head) :]}{dot}{ext}"
    return clean


def _check_content(path: Path, name: str, suffix: str) -> bool:
    """Refuse what is not the file its extension says; True for an encrypted workbook."""
    if suffix in (".xlsx", ".xlsm"):
        try:
            with zipfile.ZipFile(path) as archive:
                ok = "xl/workbook.xml" in archive.namelist()
        except (zipfile.BadZipFile, OSError):
            ok = False
        if not ok and is_encrypted_workbook(path):
            return True
        if not ok:
            raise UploadRefused(
                415, f"{name} is not an Excel workbook (.xlsx): save it from Excel as .xlsx"
            )
        return False
    with open(path, "rb") as fh:
        head = fh.read(_SNIFF)
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise UploadRefused(415, f"{name} is not a text file; a {KINDS[suffix]} is text")
    return False


#: (``UploadStore.list`` hides the builtin inside the class.)
_Ids = list[str]
_Uploads = list[Upload]


class UploadStore:
    """The uploads of one server, in a temporary folder removed by ``close``."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES, *, max_files: int = MAX_FILES) -> None:
        self.max_bytes = max_bytes
        self.max_files = max_files
        self.folder = Path(tempfile.mkdtemp(prefix="linksync-ui-uploads-"))
        self._uploads: dict[str, Upload] = {}
        self._visits: dict[str, _Ids] = {"": []}  # visit -> upload ids, in order
        self._lock = threading.Lock()

    def list(self) -> list[Upload]:
        """Every upload this server holds, oldest first."""
        with self._lock:
            return sorted(self._uploads.values(), key=lambda u: u.received_at)

    # --- visits -------------------------------------------------------------------------

    def new_visit(self) -> str:
        """A visit of the page: no file chosen yet."""
        visit = secrets.token_hex(16)
        with self._lock:
            self._visit(visit)
        return visit

    def _visit(self, visit: str) -> _Ids:
        """The visit's choice (under the lock); an unknown visit starts empty (a page
        served by an earlier server, or a script naming its own)."""
        if visit not in self._visits:
            while len(self._visits) >= MAX_VISITS:
                oldest = next(k for k in self._visits if k)
                del self._visits[oldest]
            self._visits[visit] = []
        return self._visits[visit]

    def chosen(self, visit: str) -> _Uploads:
        """The files the visit dropped or picked again, in that order: what it reads."""
        with self._lock:
            return [self._uploads[i] for i in self._visit(visit)]

    def earlier(self, visit: str) -> _Uploads:
        """The uploads the visit has not chosen (earlier visits'), newest first."""
        with self._lock:
            mine = set(self._visit(visit))
            rest = [(n, u) for n, (i, u) in enumerate(self._uploads.items()) if i not in mine]
        # Newest first; two received within the clock's resolution: the later one first.
        rest.sort(key=lambda nu: (nu[1].received_at, nu[0]), reverse=True)
        return [u for _, u in rest]

    def choose(self, visit: str, upload_id: str) -> Upload | None:
        """Add an earlier upload to the visit's files (None: no such upload)."""
        with self._lock:
            upload = self._uploads.get(upload_id)
            ids = self._visit(visit)
            if upload is not None and upload_id not in ids:
                ids.append(upload_id)
        return upload

    def check_name(self, raw_name: str) -> tuple[str, str]:
        """(name shown, extension), or ``UploadRefused``."""
        name = display_name(raw_name)
        suffix = Path(name).suffix.lower()
        if not name or name.startswith(".") or suffix not in KINDS:
            shown = name or "the file"
            raise UploadRefused(
                415, f"{shown}: the page takes .csv, .xlsx, .xlsm, .yaml and .yml files"
            )
        return name, suffix

    def _named(self, name: str) -> Upload | None:
        return next((u for u in self._uploads.values() if u.name == name), None)

    async def receive(
        self,
        raw_name: str,
        chunks: AsyncIterator[bytes],
        declared: int | None = None,
        *,
        visit: str = "",
    ) -> Upload:
        """Keep the file sent as ``chunks`` among the visit's files, in place of an
        upload of the same name (see module docstring for the limits)."""
        name, suffix = self.check_name(raw_name)
        if declared is not None and declared > self.max_bytes:
            raise UploadRefused(413, too_large(name, declared, self.max_bytes))
        with self._lock:
            if len(self._uploads) >= self.max_files and self._named(name) is None:
                raise UploadRefused(
                    409, f"the page holds {self.max_files} files already; remove one first"
                )
        upload_id = secrets.token_hex(8)
        folder = self.folder / upload_id
        folder.mkdir()
        # Under its own name (reports and messages name the user's file), in a folder of
        # its own; characters Windows refuses in a name are replaced.
        path = folder / _WINDOWS_UNSAFE.sub("_", name)
        size = 0
        try:
            with open(path, "wb") as fh:
                async for chunk in chunks:
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise UploadRefused(413, too_large(name, None, self.max_bytes))
                    fh.write(chunk)
            if size == 0:
                raise UploadRefused(400, f"{name} is empty")
            encrypted = _check_content(path, name, suffix)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        with self._lock:
            old = self._named(name)
            upload = Upload(
                upload_id,
                name,
                path,
                size,
                KINDS[suffix],
                utc_now(),
                replaced=old is not None,
                encrypted=encrypted,
            )
            self._uploads[upload_id] = upload
            ids = self._visit(visit)
            if old is not None:
                del self._uploads[old.upload_id]
                for chosen in self._visits.values():  # the new file where the old one was
                    if old.upload_id in chosen:
                        chosen[chosen.index(old.upload_id)] = upload_id
            if upload_id not in ids:
                ids.append(upload_id)
        if old is not None:
            shutil.rmtree(old.path.parent, ignore_errors=True)
        return upload

    def remove(self, upload_id: str) -> bool:
        """Delete an upload (from every visit that chose it)."""
        with self._lock:
            upload = self._uploads.pop(upload_id, None)
            for chosen in self._visits.values():
                if upload_id in chosen:
                    chosen.remove(upload_id)
        if upload is None:
            return False
        shutil.rmtree(upload.path.parent, ignore_errors=True)
        return True

    def close(self) -> None:
        """Delete every upload and the folder (the server stops)."""
        with self._lock:
            self._uploads.clear()
            self._visits = {"": []}
        shutil.rmtree(self.folder, ignore_errors=True)
