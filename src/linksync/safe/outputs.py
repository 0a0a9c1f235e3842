"""Output paths of a run: checked together before the first request, written atomically.

A run writes files the user names (``--report``, ``--annotate``, ``--journal``,
``--lock``, ``plan --out``, export targets) and files of its own (the default journal,
the lock's holder record). ``check_outputs`` looks at all of them at once, against every
file the run reads (``protected_inputs``: the sources, every file under a source folder,
the config and API-key files, the sandbox database, a saved plan), and raises one
``ConfigError`` listing every problem, so a command can refuse (exit 2) before anything
is written remotely:

- the extension is one the output can be written as (and an annotated copy keeps the
  extension of its source);
- the path is not a folder, the nearest existing folder above it is a folder (not a
  file) and a file can be created in it; an existing file is not read-only;
- the path is not a file the run reads: compared by resolved path and by inode, so a
  symbolic link or a hard link to a source is caught;
- no two outputs share a path;
- an appended output (the journal) that exists already is a linksync journal (empty,
  or a first line that is a journal record: ``ts``, ``run`` and a journal ``event``);
  an output used in place (the lock) or replaced by a record of its own (the lock's
  holder record) is refused when the existing file is not that (``Output.foreign``):
  the file is left untouched, byte for byte and its modification time.

Writing: ``AtomicFile`` / ``atomic_path`` / ``write_text_atomic`` write into a hidden
temporary file in the same folder and rename it over the target when complete, so a
reader (or a run killed mid-write) never sees half a file: the previous file stays
whole until the new one replaces it. A symbolic link at the target is replaced by the
file, never followed.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from linksync.errors import ConfigError
from linksync.safe.leftovers import HOST_TAG
from linksync.safe.state_folder import make_folder

#: Extensions an appended run journal may have.
JOURNAL_SUFFIXES = (".jsonl",)
#: Extensions of a saved plan (``plan --out``).
PLAN_SUFFIXES = (".json",)


@dataclass(frozen=True, slots=True)
class Output:
    """One file (or, with ``folder``, one folder) a run will write.

    ``role`` names it in messages (``--report``, ``--journal``...). ``suffixes``: the
    extensions it may have (empty: any). ``append``: the file is appended to (the
    journal), so an existing one must be a linksync journal. ``folder``: a folder that
    will receive files (export ``--split-by``). ``in_place``: the file is used where it
    is, never replaced (a lock file), so a symbolic link there is refused rather than
    followed. ``foreign``: for an output that is linksync's own kind of file (the lock,
    its holder record), why an existing file at the path is not one (None: it is).
    """

    path: Path
    role: str
    suffixes: tuple[str, ...] = ()
    append: bool = False
    folder: bool = False
    in_place: bool = False
    foreign: Callable[[Path], str | None] | None = None


@dataclass(frozen=True, slots=True)
class Protected:
    """A file the run reads, which no output may replace."""

    path: Path
    role: str


def _walk_files(folder: Path) -> Iterator[Path]:
    """The files a reader of ``folder`` may read: every file under it, hidden ones
    (and hidden folders) left out, as the readers do."""
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not any(p.startswith(".") for p in path.relative_to(folder).parts):
            yield path


def protected_inputs(
    sources: Iterable[str | os.PathLike[str]] = (),
    others: Mapping[str, str | os.PathLike[str] | None] | None = None,
) -> list[Protected]:
    """Every file the run reads: each source, each file under a source folder, and the
    ``others`` given by role (``{"config file": path, "API key file": path}``)."""
    out: list[Protected] = []
    for source in sources:
        path = Path(source)
        if path.is_dir():
            out.extend(Protected(f, f"the source {f}") for f in _walk_files(path))
        else:
            out.append(Protected(path, f"the source {path}"))
    for role, value in (others or {}).items():
        if value is not None and str(value) not in ("", ":memory:"):
            out.append(Protected(Path(value), f"the {role}"))
    return out


def _identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path`` (links followed), None when absent."""
    try:
        st = path.stat()
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _nearest_existing(path: Path) -> Path:
    """The nearest existing folder above ``path`` (where its temporary file goes; a
    link at ``path`` itself is not followed)."""
    here = Path(os.path.abspath(path)).parent
    while not here.exists() and here != here.parent:
        here = here.parent
    return here


def _probe_folder(folder: Path) -> str | None:
    """Why a file cannot be created in ``folder`` (None: it can)."""
    probe = folder / f".linksync-probe-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        return exc.strerror or str(exc)
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)
    return None


#: The events a run journal records (``linksync.sync.journal``).
JOURNAL_EVENTS = frozenset({"start", "request", "result", "end"})


def is_journal_file(path: Path) -> bool:
    """Whether the existing file at ``path`` is empty (0 bytes) or its first line is a
    journal record: a JSON object with the text ``ts`` and ``run`` and a journal
    ``event``. A file that begins with a blank line is not a journal."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(1 << 16)
    except OSError:
        return False
    if not first:
        return True
    try:
        record = json.loads(first)
    except ValueError:
        return False
    return (
        isinstance(record, dict)
        and isinstance(record.get("ts"), str)
        and isinstance(record.get("run"), str)
        and record.get("event") in JOURNAL_EVENTS
    )


def _check_one(output: Output, protected_ids: dict[Any, str]) -> list[str]:
    try:
        return _problems_of(output, protected_ids)
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte...
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return [f"{output.role} {output.path}: {why}"]


def _problems_of(output: Output, protected_ids: dict[Any, str]) -> list[str]:
    path, role = output.path, output.role
    name = f"{role} {path}"
    if not str(path).strip():
        return [f"{role}: the path is empty"]
    problems: list[str] = []
    if output.suffixes and not output.folder and path.suffix.lower() not in output.suffixes:
        problems.append(f"{name}: use a file name ending in {' or '.join(output.suffixes)}")
    if path.is_symlink() and output.in_place:
        problems.append(f"{name} is a symbolic link; give the file itself")
    if path.exists() and not path.is_symlink():
        if path.is_dir() and not output.folder:
            problems.append(f"{name} is a folder, not a file")
        elif not path.is_dir() and output.folder:
            problems.append(f"{name} is a file; a folder is needed here")
        elif path.is_file() and not os.stat(path).st_mode & 0o222:
            problems.append(f"{name} is read-only; not replacing it")
        elif path.is_file() and output.append and not is_journal_file(path):
            problems.append(f"{name} exists and is not a linksync journal; not appending to it")
        elif path.is_file() and output.foreign is not None:
            why = output.foreign(path)
            if why is not None:
                problems.append(f"{name} {why}")
    if not problems:
        folder = _nearest_existing(path if not output.folder else path / "x")
        if not folder.is_dir():
            problems.append(f"{name}: {folder} is a file, not a folder")
        else:
            why = _probe_folder(folder)
            if why is not None:
                problems.append(f"{name}: cannot write in {folder}: {why}")
    by_path = protected_ids.get(_resolved(path))
    hit = by_path or protected_ids.get(_identity(path))
    if hit is not None:
        if path.is_symlink():
            how = "is a symbolic link to"
        else:
            how = "would replace" if by_path else "is a hard link to"
        problems.append(f"{name} {how} {hit}, which this run reads; choose another path")
    return problems


def _folded(path: Path) -> str:
    """``path`` as a disk that ignores letter case and Unicode forms sees it."""
    return unicodedata.normalize("NFC", str(path)).casefold()


def check_outputs(outputs: Sequence[Output], protected: Sequence[Protected] = ()) -> None:
    """Raise ``ConfigError`` naming every problem of ``outputs`` (see module docstring);
    return when all of them can be written."""
    ids: dict[Any, str] = {}
    for item in protected:
        ids.setdefault(_resolved(item.path), item.role)
        identity = _identity(item.path)
        if identity is not None:
            ids.setdefault(identity, item.role)
    problems: list[str] = []
    seen: dict[Path, Output] = {}
    folded: dict[str, Output] = {}
    for output in outputs:
        problems.extend(_check_one(output, ids))
        key = _resolved(output.path)
        first = seen.get(key)
        twin = folded.get(_folded(key))
        if first is not None:
            problems.append(
                f"{output.role} {output.path} and {first.role} {first.path} are the same "
                "file; give each output its own path"
            )
        elif twin is not None:
            problems.append(
                f"{output.role} {output.path} and {twin.role} {twin.path} differ only in "
                "letter case: on a disk that ignores it (macOS, Windows) they are one file, "
                "and one would replace the other; give each output its own name"
            )
        else:
            seen[key] = output
            folded[_folded(key)] = output
    if problems:
        detail = "\n  ".join(problems)
        raise ConfigError(f"cannot write the outputs of this run (nothing was done):\n  {detail}")


# --- atomic writing -------------------------------------------------------------------


def temp_sibling(path: Path) -> Path:
    """A new, unused hidden file name beside ``path`` (same folder, same extension):
    ``.<stem>.<pid>-<8 hex>-h<host tag>.tmp<suffix>``, so the next run can tell a file
    left by a killed run of this host (``linksync.safe.leftovers``)."""
    token = f"{os.getpid()}-{secrets.token_hex(4)}-h{HOST_TAG}"
    return path.with_name(f".{path.stem}.{token}.tmp{path.suffix}")


def _create_temp(path: Path) -> tuple[Path, int]:
    make_folder(path.parent)
    while True:
        tmp = temp_sibling(path)
        try:
            # 0o666 less the umask: the permissions a plain open() would have given.
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue


def replace_into(tmp: Path, path: Path) -> Path:
    """Move the complete file ``tmp`` over ``path`` (a link at ``path`` is replaced, not
    followed; an existing file's permissions are kept)."""
    with contextlib.suppress(OSError):
        st = os.lstat(path)
        if stat.S_ISREG(st.st_mode):
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
    os.replace(tmp, path)
    return path


class AtomicFile:
    """A file written under a temporary name and renamed over ``path`` by ``commit``.

    ``discard`` (or leaving a ``with`` block on an exception) removes the temporary
    file and leaves whatever was at ``path`` untouched. ``durable``: the file is forced
    to disk before the rename (False: a record only for diagnosis, where a power cut
    may leave it empty, and a sync would wait on every other write of the machine).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        mode: str = "w",
        *,
        encoding: str | None = "utf-8",
        newline: str | None = None,
        durable: bool = True,
    ) -> None:
        self.path = Path(path)
        self.durable = durable
        self.tmp, fd = _create_temp(self.path)
        binary = "b" in mode
        try:
            self.file: IO[Any] = os.fdopen(
                fd, mode, encoding=None if binary else encoding, newline=None if binary else newline
            )
        except BaseException:
            os.close(fd)
            self.tmp.unlink(missing_ok=True)
            raise
        self._done = False

    def commit(self) -> Path:
        if self._done:
            return self.path
        self._done = True
        try:
            self.file.flush()
            if self.durable:
                os.fsync(self.file.fileno())
            self.file.close()
            return replace_into(self.tmp, self.path)
        except BaseException:
            self.file.close()
            self.tmp.unlink(missing_ok=True)
            raise

    def discard(self) -> None:
        if self._done:
            return
        self._done = True
        try:
            self.file.close()
        finally:
            self.tmp.unlink(missing_ok=True)

    def __enter__(self) -> IO[Any]:
        return self.file

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path to write ``path``'s content to (for libraries that want a file
    name); renamed over ``path`` when the block ends without an exception."""
    target = Path(path)
    tmp, fd = _create_temp(target)
    os.close(fd)
    try:
        yield tmp
        replace_into(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text_atomic(
    path: str | os.PathLike[str],
    text: str,
    *,
    encoding: str = "utf-8",
    newline: str | None = None,
    durable: bool = True,
) -> Path:
    """Write ``text`` to ``path`` atomically (``AtomicFile``); the path written."""
    out = AtomicFile(path, encoding=encoding, newline=newline, durable=durable)
    with out as fh:
        fh.write(text)
    return out.path
