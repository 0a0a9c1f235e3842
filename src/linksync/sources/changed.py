"""The sources changed since a git ref (``--changed-since REF``), in both versions.

``read_changed(sources, ref, options)`` asks git which files under the sources differ
between ``ref`` and the working tree (``git diff --name-status --no-renames REF``: what
was committed since, staged or not; plus the untracked files git does not ignore), and
reads each of them twice through the same readers: as it is now (its links, with the
problems a full run would report on them) and as it was at ``ref`` (``git cat-file``,
read from a temporary copy, its problems dropped: only its links are compared). A
renamed file is a deleted file and an added one; a deleted file has only its old
version. When HEAD does not descend from ``ref`` (the base branch moved on since the
branch was cut, or the branch was rebased), the comparison is with their merge base,
where HEAD's history left ``ref``: what was committed on the other side is not a change
of this tree (``compared_commit``). The provenance of both versions names the file as a
full run would (``links/a.yaml`` for a file of the folder source ``links/``).

In a folder source only what the folder reader reads counts (``linksync.sources.folders``):
hidden entries and the JSON Schema are left alone, and a changed file of another kind
is named as not read (``EMPTY_SOURCE``), as a full run names it.

Outside a git repository, without git, or with a ref git does not know: a
``ConfigError`` (exit 2) saying so. Layer: a reader; it imports the lowest layer only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from linksync.errors import ConfigError, SourceError
from linksync.model import Problem, Provenance, Severity
from linksync.sources.folders import list_folder
from linksync.sources.frame import ReadResult
from linksync.sources.options import YAML_SUFFIXES, ReadOptions

__all__ = ["ChangedFile", "ChangedRead", "changed_files", "compared_commit", "read_changed"]

#: git's status letters (``--no-renames``: no R or C) as this module says them.
_STATUS = {"A": "added", "D": "deleted", "M": "modified", "T": "modified", "U": "modified"}


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """A source file that differs from its version at the ref: ``display`` as a full
    run names it, ``status`` added, modified or deleted (untracked files are added),
    ``path`` its place in the repository (for ``git cat-file``)."""

    display: str
    status: str
    path: str

    @property
    def now(self) -> bool:
        """The file is in the working tree (it is read as it is now)."""
        return self.status != "deleted"

    @property
    def before(self) -> bool:
        """The file was at the ref (its version there is read)."""
        return self.status != "added"


@dataclass(frozen=True)
class ChangedRead:
    """What ``read_changed`` read: the ref as given and the commit git resolved it to,
    the files that changed (sorted), their links now (``new``, with every problem) and
    at the ref (``old``), and the errors of the versions at the ref that could not be
    read in full (``old_problems``: such a version declares nothing to compare with, so
    every link of the file counts as changed and none as removed); ``settings``, the
    files of ``watch`` (the config file) that differ from the ref too."""

    ref: str
    commit: str
    files: tuple[ChangedFile, ...]
    new: ReadResult
    old: ReadResult
    old_problems: tuple[Problem, ...] = ()
    settings: tuple[str, ...] = ()
    #: The commit ``ref`` names when HEAD does not descend from it: ``commit`` is then
    #: their merge base, where HEAD's history left it (``compared_commit``).
    ref_commit: str | None = None
    #: A shallow clone could not tell whether HEAD descends from ``ref``: compared with
    #: ``ref`` as it is.
    shallow: bool = False


def _git(root: Path | None, *args: str, stdin: bytes | None = None) -> bytes:
    """Run git (``-C root``); its error output becomes the ``ConfigError``."""
    exe = shutil.which("git")
    if exe is None:
        raise ConfigError("--changed-since needs git, and git was not found on PATH")
    where = ["-C", str(root)] if root is not None else []
    proc = subprocess.run(
        [exe, *where, "--literal-pathspecs", "-c", "core.quotepath=off", *args],
        input=stdin,
        capture_output=True,
        check=False,
        env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"},
    )
    if proc.returncode != 0:
        said = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise _GitFailed(said[-1] if said else f"git {args[0]} exited {proc.returncode}")
    return proc.stdout


class _GitFailed(ConfigError):
    """git said no (its last line of error output)."""


def repository_of(path: Path) -> Path:
    """The top of the git work tree holding ``path``; ``ConfigError`` outside one."""
    folder = path if path.is_dir() else path.parent
    try:
        top = _git(folder, "rev-parse", "--show-toplevel").decode("utf-8").strip()
    except _GitFailed as exc:
        raise ConfigError(
            f"--changed-since: {path} is not in a git repository ({exc}); run without "
            "--changed-since to read every file"
        ) from None
    return Path(top).resolve()


def resolve_ref(root: Path, ref: str) -> str:
    """The commit ``ref`` names in the repository at ``root``; ``ConfigError`` when git
    does not know it (a branch not fetched, a shallow clone, a typo)."""
    if not ref.strip() or ref.startswith("-"):
        raise ConfigError(f"--changed-since: {ref!r} is not a git ref")
    try:
        out = _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", ref + "^{commit}")
    except _GitFailed:
        out = b""
    sha = out.decode("ascii", "replace").strip()
    if not sha:
        raise ConfigError(
            f"--changed-since {ref}: git does not know this ref in {root} (fetch it first, "
            f"e.g. `git fetch origin {ref.removeprefix('origin/')}`; a CI checkout needs "
            "the history: fetch-depth: 0)"
        )
    return sha


def compared_commit(root: Path, commit: str, ref: str) -> str:
    """The commit to compare the working tree with: ``commit`` when HEAD descends from
    it; else where HEAD's history left it, their merge base (``main`` moved on since the
    branch was cut, a rebased branch): what was committed on ``ref``'s side since is not
    a change of this tree, and a link added there is not one this tree removed. A
    ``ConfigError`` when they share no history; ``commit`` when HEAD has no commit;
    ``""`` in a shallow clone that cannot tell (``commit`` is then compared with, and
    the caller says so)."""
    try:
        _git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except _GitFailed:
        return commit  # no commit yet on this branch: the working tree against the ref
    try:
        base = _git(root, "merge-base", commit, "HEAD").decode("ascii", "replace").strip()
    except _GitFailed:
        base = ""
    if not base and _shallow(root):
        if commit in _parents(root):
            return commit  # a CI checkout of a pull request's merge: its base is a parent
        return ""  # the history to tell it is not here: the caller compares with commit
    if not base:
        raise ConfigError(
            f"--changed-since {ref}: {ref} and HEAD share no history in {root}, so what "
            "changed between them cannot be told; run without --changed-since to read "
            "every file"
        )
    return base


def _shallow(root: Path) -> bool:
    """The repository is a shallow clone (CI's default checkout)."""
    out = _git(root, "rev-parse", "--is-shallow-repository")
    return out.strip() == b"true"


def _parents(root: Path) -> set[str]:
    """HEAD's parents as its commit names them (a shallow clone keeps the names)."""
    raw = _git(root, "cat-file", "commit", "HEAD").decode("utf-8", "replace")
    head = raw.split("\n\n", 1)[0]
    return {line.split()[1] for line in head.splitlines() if line.startswith("parent ")}


@dataclass(frozen=True, slots=True)
class _Source:
    """A source as given (``shown``) and where it is (``real``, resolved)."""

    shown: str
    real: Path
    folder: bool

    def display(self, real: Path) -> str | None:
        """How a full run names ``real`` (None: not a file this source reads)."""
        if not self.folder:
            return self.shown if real == self.real else None
        try:
            inside = real.relative_to(self.real)
        except ValueError:
            return None
        if any(part.startswith(".") for part in inside.parts):
            return None  # hidden entries: a folder source leaves them alone
        return str(Path(self.shown) / inside)


def changed_files(
    sources: Sequence[str | PathLike[str]], ref: str
) -> tuple[Path, str, list[ChangedFile], list[Problem]]:
    """The repository's top, the commit of ``ref``, the files of ``sources`` that differ
    from it (see module docstring) and the changed files a folder source does not read
    (an ``EMPTY_SOURCE`` error each, as a full run gives)."""
    given: list[_Source] = []
    for named in sources:
        path = Path(named)
        if not path.exists():
            raise SourceError(f"{named}: no such file or directory", path=str(named))
        given.append(_Source(str(named), path.resolve(), path.is_dir()))
    if not given:
        raise ConfigError("--changed-since: no source given")
    root = repository_of(given[0].real)
    for src in given[1:]:
        if repository_of(src.real) != root:
            raise ConfigError(
                f"--changed-since: {src.shown} is not in the repository of "
                f"{given[0].shown} ({root}); give the sources of one repository"
            )
    named = resolve_ref(root, ref)
    commit = compared_commit(root, named, ref) or named
    specs = [src.real.relative_to(root).as_posix() for src in given]
    listed = _git(root, "diff", "--name-status", "-z", "--no-renames", "--no-ext-diff",
                  "--ignore-submodules", commit, "--", *specs)  # fmt: skip
    fields = listed.decode("utf-8", "surrogateescape").split("\0")
    found: dict[str, str] = {}
    for status, name in zip(fields[0::2], fields[1::2], strict=False):
        if name:
            found[name] = _STATUS.get(status[:1], "modified")
    untracked = _git(root, "ls-files", "-z", "--others", "--exclude-standard", "--", *specs)
    for name in untracked.decode("utf-8", "surrogateescape").split("\0"):
        if name:
            found.setdefault(name, "added")
    files: list[ChangedFile] = []
    problems: list[Problem] = []
    for name, status in sorted(found.items()):
        real = root / name
        for src in given:
            shown = src.display(real)
            if shown is None:
                continue
            if not src.folder or real.suffix.lower() in YAML_SUFFIXES:
                files.append(ChangedFile(shown, status, name))
            elif status != "deleted":
                problems.extend(_not_read(real, shown))
            break
    return root, commit, files, problems


def _not_read(real: Path, shown: str) -> list[Problem]:
    """The folder reader's reason for not reading ``real`` (none: left alone)."""
    listing = list_folder(real.parent)
    return [
        Problem("EMPTY_SOURCE", why, Provenance(shown))
        for path, why in listing.not_read
        if path == real
    ]


def read_changed(
    sources: Sequence[str | PathLike[str]],
    ref: str,
    *,
    options: ReadOptions,
    watch: Sequence[Path] = (),
) -> ChangedRead:
    """Read the files of ``sources`` changed since ``ref``, now and at ``ref``; and tell
    which files of ``watch`` (the config file: its settings apply to every link) differ
    from ``ref`` too."""
    root, commit, files, problems = changed_files(sources, ref)
    new, old = ReadResult(), ReadResult()
    new.problems.extend(problems)
    for file in files:
        if file.now:
            new.add(_read(Path(file.display), file.display, options))
    before = [f for f in files if f.before]
    old_problems: list[Problem] = []
    if before:
        blobs = _blobs(root, commit, [f.path for f in before])
        with tempfile.TemporaryDirectory(prefix="linksync-ref-") as tmp:
            for n, file in enumerate(before):
                blob = blobs.get(file.path)
                if blob is None:
                    continue  # not a file at the ref (a submodule): nothing declared there
                copy = Path(tmp) / str(n) / Path(file.path).name
                copy.parent.mkdir()
                copy.write_bytes(blob)
                try:
                    read = _read(copy, file.display, options)
                except SourceError as exc:
                    old_problems.append(Problem("EMPTY_SOURCE", str(exc), Provenance(file.display)))
                    continue
                attached = {id(p) for f in read.frames for _, p in f.row_problems}
                errors = [
                    p for p in read.problems
                    if id(p) not in attached and p.severity is Severity.ERROR
                ]  # fmt: skip
                if errors:  # not read in full: its links are not compared (all changed)
                    old_problems.extend(errors)
                    continue
                old.frames.extend(read.frames)
    settings = _differing(root, commit, watch)
    named = resolve_ref(root, ref)
    unsure = compared_commit(root, named, ref) == ""
    return ChangedRead(
        ref, commit, tuple(files), new, old, tuple(old_problems), settings,
        named if named != commit else None, unsure,
    )  # fmt: skip


def _differing(root: Path, commit: str, paths: Sequence[Path]) -> tuple[str, ...]:
    """The files of ``paths`` inside the repository that differ from ``commit``
    (untracked ones included), named as git names them."""
    inside = []
    for path in paths:
        try:
            inside.append(path.resolve().relative_to(root).as_posix())
        except ValueError:
            continue  # outside the repository: not the team's file
    if not inside:
        return ()
    out = _git(root, "diff", "--name-only", "-z", "--no-ext-diff", commit, "--", *inside)
    out += _git(root, "ls-files", "-z", "--others", "--exclude-standard", "--", *inside)
    return tuple(sorted({n for n in out.decode("utf-8", "surrogateescape").split("\0") if n}))


def _read(path: Path, display: str, options: ReadOptions) -> ReadResult:
    """One file through the reader of its extension, named ``display``."""
    from linksync.sources import read_source

    return read_source(path, options=options, display=display)


def _blobs(root: Path, commit: str, paths: Sequence[str]) -> dict[str, bytes]:
    """The bytes of each path at ``commit`` that is a file there: one
    ``git cat-file --batch`` for them all."""
    asked = "".join(f"{commit}:{p}\n" for p in paths).encode("utf-8", "surrogateescape")
    out = _git(root, "cat-file", "--batch", stdin=asked)
    blobs: dict[str, bytes] = {}
    at = 0
    for path in paths:
        end = out.index(b"\n", at)
        head = out[at:end].split(b" ")
        at = end + 1
        if len(head) != 3 or head[1] != b"blob":
            continue  # "missing", or not a file (a submodule's commit)
        size = int(head[2])
        blobs[path] = out[at : at + size]
        at += size + 1
    return blobs
