"""Choosing writers by file extension, and writing several reports at once.

A writer's module is imported when a report of its format is first opened (or its
class first asked of ``WRITERS``): a run that writes one JSON report does not load the
xlsx, markdown and JUnit XML writers (nor what they bring: ``xml.sax``, the xlsx parts).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from importlib import import_module
from pathlib import Path
from types import TracebackType

from linksync.errors import ConfigError
from linksync.model import RowResult, RunInfo
from linksync.report.base import Closing, ReportOptions, ResultWriter
from linksync.report.summary import Counts, Tally

WriterFactory = Callable[[Path, ReportOptions | None], ResultWriter]


class _Writers(Mapping[str, WriterFactory]):
    """The writer class of each extension, its module imported on first use."""

    def __init__(self, homes: dict[str, tuple[str, str]]) -> None:
        self._homes = homes

    def __getitem__(self, suffix: str) -> WriterFactory:
        module, name = self._homes[suffix]
        factory: WriterFactory = getattr(import_module(f"linksync.report.{module}"), name)
        return factory

    def __iter__(self) -> Iterator[str]:
        return iter(self._homes)

    def __len__(self) -> int:
        return len(self._homes)


#: Report formats by file extension.
WRITERS: Mapping[str, WriterFactory] = _Writers(
    {
        ".csv": ("streaming", "CsvWriter"),
        ".xlsx": ("xlsx", "XlsxWriter"),
        ".json": ("jsonfile", "JsonWriter"),
        ".jsonl": ("streaming", "JsonlWriter"),
        ".md": ("markdown", "MarkdownWriter"),
        ".xml": ("junit", "JunitWriter"),
    }
)


def report_format(path: str | Path) -> str:
    """The extension that picks the writer of ``path``; ConfigError if none does."""
    suffix = Path(path).suffix.lower()
    if suffix not in WRITERS:
        known = ", ".join(WRITERS)
        raise ConfigError(f"cannot write a report to {path}: use one of {known}")
    return suffix


def open_writer(path: str | Path, options: ReportOptions | None = None) -> ResultWriter:
    """A writer for ``path``, chosen by its extension (.csv .xlsx .json .jsonl .md .xml)."""
    return WRITERS[report_format(path)](Path(path), options)


class ReportSet:
    """Several reports written together: ``write`` fans out to each; ``close`` finishes
    them all. Also keeps the counts for the terminal summary (``counts()``).

    Use as a context manager: leaving the block without ``close`` (an error, Ctrl-C)
    aborts every writer (streamed csv/jsonl rows stay; unfinished files are removed).
    """

    def __init__(self, paths: Iterable[str | Path], options: ReportOptions | None = None):
        self.paths: list[Path] = []
        seen: set[Path] = set()
        for p in paths:
            path = Path(p)
            report_format(path)
            key = path.resolve()
            if key in seen:
                raise ConfigError(f"report {path} given twice")
            seen.add(key)
            self.paths.append(path)
        self.options = options or ReportOptions()
        self.tally = Tally()
        self.writers: list[ResultWriter] = []
        self._closed = False
        try:
            for path in self.paths:
                self.writers.append(open_writer(path, self.options))
        except BaseException:
            self.abort()
            raise

    def write(self, result: RowResult) -> None:
        self.tally.add(result)
        for writer in self.writers:
            writer.write(result)

    def counts(self) -> Counts:
        return self.tally.counts()

    def close(
        self, info: RunInfo, *, notes: Sequence[str] = (), refused_reason: str | None = None
    ) -> list[Path]:
        """Finish every report; the paths written, in the order given."""
        closing = Closing(tuple(notes), refused_reason)
        written: list[Path] = []
        try:
            for writer in self.writers:
                written.append(writer.close(info, closing))
        except BaseException:
            for writer in self.writers[len(written) + 1 :]:
                writer.abort()
            self._closed = True
            raise
        self._closed = True
        return written

    def abort(self) -> None:
        if self._closed:
            return
        self._closed = True
        for writer in self.writers:
            writer.abort()

    def __enter__(self) -> ReportSet:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.abort()
