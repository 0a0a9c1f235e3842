"""The repository stands on its own: no file in it points at documents kept beside it
(a shared folder, design or library notes outside the repository) or at a tracker's
numbers, none of which someone who clones it has. A sentence says what the rule is and
why; a measured figure keeps its figure and its date (or commit), not where it was
asked for. What the service is and what linksync decided is in ``docs/service.md``."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Folders that are not the repository's own text (caches, virtualenvs, run state).
SKIP_DIRS = frozenset(
    {
        ".git",
        ".venv",
        ".venv-latest",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".import_linter_cache",
        ".linksync",
        "build",
        "dist",
        "out",
        "node_modules",
    }
)

#: A reference outside the repository: the folder beside it, its notes by name, a
#: tracker's number (also across a line break or a comment's ``#``), or history told
#: by turns and stops. GitHub paths (``/issues/7/comments``) and upstream links
#: (``httpx issues [#3215](...)``) are not references of this kind.
OUTSIDE = re.compile(
    r"(?:\.\./|/work/)shared\b"
    r"|\b(?:DESIGN|LIBRARIES|STYLE)\.md\b"
    r"|\bissues?\b[\s#]*#?\d"
    r"|(?<![A-Za-z-])(?:turn|stop) \d",
    re.IGNORECASE,
)


def _texts() -> list[tuple[str, str]]:
    """(path relative to the root, text) of every text file of the repository."""
    out = []
    for path in sorted(ROOT.rglob("*")):
        rel = path.relative_to(ROOT)
        if any(part in SKIP_DIRS or part.endswith(".egg-info") for part in rel.parts):
            continue
        if not path.is_file() or path.stat().st_size > 2_000_000:
            continue
        try:
            out.append((rel.as_posix(), path.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            continue  # images, workbooks, zips
    return out


def test_no_file_refers_outside_the_repository() -> None:
    texts = _texts()
    names = {name for name, _ in texts}
    assert {"README.md", "docs/service.md", "src/linksync/__init__.py"} <= names
    found = [
        f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group()!r}"
        for name, text in texts
        for m in OUTSIDE.finditer(text)
    ]
    assert found == [], "say what the rule is, not where it was asked for:\n" + "\n".join(found)


def test_the_pattern_finds_each_kind_of_reference() -> None:
    number = "issue" + " 29"
    found = [
        "The design is `../" + "shared/" + "DESIGN" + ".md`",
        "(LIBRARIES" + ".md, and docs/performance.md)",
        f"keeps rows ({number}, part 2)",
        f"### Issue{' 13'}, first round",
        "the mapping they used (issue\n29): a",
        "# hidden rows (issue\n    # 29)",
        "as in turn" + " 3",
        "fixed in Issues #" + "12 and 13",
    ]
    assert [bool(OUTSIDE.search(text)) for text in found] == [True] * len(found)
    kept = [
        'f"/repos/{repo}/issues/{number}/comments?page={page}"',
        "httpcore issues [#1110](https://github.com/encode/httpcore/issues/1110)",
        "return 0",
        "the row's issues, collected",
        "a non-stop 24 hour run",
    ]
    assert [bool(OUTSIDE.search(text)) for text in kept] == [False] * len(kept)
