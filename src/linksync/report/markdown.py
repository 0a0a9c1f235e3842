"""The markdown report: a summary plus a table of changes, fit for a pull-request comment.

Works for a plan (rows ``planned``) and for results. Only the first ``md_max_rows``
changed or failed rows are kept (memory stays constant); the rest are counted
("... and N more"). Unchanged rows are counted, not listed.
"""

from __future__ import annotations

import html
from pathlib import Path

from linksync.model import Action, RowResult, RunInfo, Status
from linksync.report.base import AssembledWriter, Closing, ReportOptions
from linksync.report.cells import error_text, field_change_text, link_label, where
from linksync.report.summary import Counts, run_title, safe_target
from linksync.safe.secrets import redact

#: Characters of a field's old or new value shown in the "changed" column.
VALUE_WIDTH = 120

TABLE_COLUMNS = ("#", "where", "link", "action", "status", "changed", "short URL", "message")


def md_cell(text: str) -> str:
    """Text safe inside a markdown table cell: HTML and pipes escaped, line breaks as <br>."""
    out = html.escape(text, quote=False)
    out = out.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")
    out = out.replace("\r\n", "\n").replace("\r", "\n")
    return "<br>".join(part.strip() for part in out.split("\n")).strip()


def _table_row(values: list[str]) -> str:
    return "| " + " | ".join(values) + " |\n"


def _shows(result: RowResult) -> bool:
    """Rows the table lists: every change, failure and skip; not the unchanged."""
    return not (result.action == Action.UNCHANGED and result.status in (Status.OK, Status.PLANNED))


class MarkdownWriter(AssembledWriter):
    def __init__(self, path: Path, options: ReportOptions | None = None) -> None:
        super().__init__(path, options)
        self._listed = 0
        self._unlisted = 0
        self._said_no_changes = False

    def write(self, result: RowResult) -> None:
        self.tally.add(result)
        if not _shows(result):
            return
        if self._listed >= self.options.md_max_rows:
            self._unlisted += 1
            return
        self._listed += 1
        self._spool.append(self._row(result))

    def _row(self, result: RowResult) -> str:
        secrets = self.options.secrets

        def cell(text: str) -> str:
            return md_cell(redact(text, secrets))

        error = error_text(result)
        if result.field_changes:
            texts = (field_change_text(*fc, width=VALUE_WIDTH) for fc in result.field_changes)
            changed = "<br>".join(cell(text) for text in texts)
        else:
            changed = cell(", ".join(result.changed_fields))
        return _table_row(
            [
                str(self._listed),
                cell(where(result)) if result.source or result.row is not None else "",
                cell(link_label(result)),
                result.action.value,
                f"**{result.status.value}**" if result.failed else result.status.value,
                changed,
                cell(result.short_url or ""),
                cell(error),
            ]
        )

    def _head(self, counts: Counts, info: RunInfo, closing: Closing) -> str:
        secrets = self.options.secrets
        kind = run_title(counts, info)
        title = self.options.title or f"linksync {kind}"
        lines = [f"## {md_cell(title)}", ""]
        mode = f"mode `{info.mode}`" + (", dry run" if info.dry_run else "")
        lines.append(f"Target `{md_cell(safe_target(info.target))}`, {mode}.")
        lines.append("")
        if closing.refused_reason:
            reason = md_cell(redact(closing.refused_reason, secrets))
            lines += [f"> :warning: **This plan would be refused:** {reason}", ""]
        for note in closing.notes:
            lines += [f"> {md_cell(redact(note, secrets))}", ""]
        unchanged = counts.by_action.get(Action.UNCHANGED, 0)
        if counts.total == 0:
            lines += ["No rows.", ""]
        elif kind == "plan" and unchanged == counts.total:
            lines += [f"**No changes:** all {unchanged} links match the workspace.", ""]
            self._said_no_changes = True
        else:
            verb = "planned" if kind == "plan" else "done"
            lines += [_sentence(counts, verb), ""]
            statuses = list(counts.by_status)
            lines.append(_table_row(["action", *statuses, "total"]).rstrip("\n"))
            lines.append(_table_row(["---"] + ["---:"] * (len(statuses) + 1)).rstrip("\n"))
            for action, total in counts.by_action.items():
                cells = [str(counts.by_action_status.get((action, s), 0)) for s in statuses]
                lines.append(_table_row([action, *cells, str(total)]).rstrip("\n"))
            lines.append("")
        if info.requests or info.rate_limit_waits:
            lines += [
                f"Requests: {info.requests}, 429 waits: {info.rate_limit_waits}, "
                f"duration {info.duration_s:.1f} s.",
                "",
            ]
        if counts.errors:
            lines += ["| error | rows | example |", "| --- | ---: | --- |"]
            for e in counts.errors:
                example = md_cell(redact(f"{where(e.example)}: {e.example.message or ''}", secrets))
                lines.append(f"| `{e.constant}` | {e.count} | {example} |")
            lines.append("")
        return "\n".join(lines) + "\n"

    def close(self, info: RunInfo, closing: Closing | None = None) -> Path:
        counts = self.tally.counts()
        head = self._head(counts, info, closing or Closing())
        if self._listed:
            head += "### Changes\n\n" + _table_row(list(TABLE_COLUMNS))
            head += _table_row(["---:"] + ["---"] * (len(TABLE_COLUMNS) - 1))
            tail = f"\n_... and {self._unlisted} more._\n" if self._unlisted else ""
        else:
            if self._unlisted:
                head += f"_{self._unlisted} rows not listed._\n"
            elif not self._said_no_changes:
                head += "No changes.\n"
            else:
                head = head.rstrip("\n") + "\n"
            tail = ""
        return self._assemble(head, tail)


def _sentence(counts: Counts, verb: str) -> str:
    """'**3 create, 1 update, 2 unchanged, 1 invalid** (7 rows, 1 failed).'"""
    parts = ", ".join(f"{n} {a}" for a, n in counts.by_action.items())
    failed = f", {counts.failed} failed or invalid" if counts.failed else ""
    return f"**{parts}** ({counts.total} rows {verb}{failed})."
