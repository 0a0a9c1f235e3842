"""The markdown report: a summary plus a table of changes, fit for a pull-request comment.

Works for a plan (rows ``planned``) and for results. Only the first ``md_max_rows``
changed or failed rows are kept (memory stays constant); the rest are counted
("... and N more"). Unchanged rows are counted, not listed, unless they have something
to say (a warning such as PASSWORD_NOT_SENT, or a note: fields their empty cells leave
as on the service). "No changes" is said only when every row is unchanged and none has
a warning.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from linksync.model import Action, RowResult, RunInfo, Status
from linksync.model.declared import shown_password
from linksync.report.base import AssembledWriter, Closing, ReportOptions
from linksync.report.cells import error_text, field_change_text, link_label, show_value, where
from linksync.report.summary import Counts, outcome_sentence, run_title, safe_target
from linksync.safe.secrets import redact

#: Characters of a field's old or new value shown in the "changed" column.
VALUE_WIDTH = 120

TABLE_COLUMNS = ("#", "where", "link", "action", "status", "changed", "short URL", "message")


#: What GitHub turns into a notification or a cross-reference in a comment: ``@name``
#: (a user or a team, not an e-mail address or a URL's ``/@name``), ``#123`` and
#: ``owner/repo#123`` (not a URL's ``page#123``).
_PINGS = re.compile(
    r"(?:(?<![\w/.@#-])@(?=[A-Za-z0-9])"
    r"|(?:^|(?<=[\s(\[{,;:!?\"'>]))(?:[\w.-]+/[\w.-]+)?#(?=\d))"
)
#: A zero-width space after the ``@`` or the ``#``: shown the same, and GitHub pings,
#: links and cross-references nobody for a description that names them.
_UNPING = "&#8203;"
_URL = re.compile(r"(\b[a-z][a-z0-9+.-]*://\S+)", re.IGNORECASE)


def md_cell(text: str) -> str:
    """Text safe inside a markdown table cell: HTML and pipes escaped, line breaks as <br>,
    and a mention (``@team``) or an issue reference (``#123``) kept from pinging people
    or cross-referencing issues when the markdown is posted on a pull request."""
    out = html.escape(text, quote=False)
    out = "".join(
        part if n % 2 else _PINGS.sub(lambda m: m.group(0) + _UNPING, part)
        for n, part in enumerate(_URL.split(out))
    )  # a URL is left as it is: GitHub links it, and pings no one inside a link
    out = out.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")
    out = out.replace("\r\n", "\n").replace("\r", "\n")
    return "<br>".join(part.strip() for part in out.split("\n")).strip()


def _table_row(values: list[str]) -> str:
    return "| " + " | ".join(values) + " |\n"


def change_texts(result: RowResult) -> list[str]:
    """What the "changed" column says: old -> new of each field of an update; what a
    create sends ('url: https://...', 'tags: [a, b]', 'password: (set)'); else the
    names of the changed fields."""
    if result.action is Action.CREATE:
        sent = result.field_changes or ((("url", None, result.url),) if result.url else ())
        return [
            f"password: {shown_password(new)}"
            if name == "password"
            else f"{name}: {show_value(new, VALUE_WIDTH)}"
            for name, _, new in sent
        ]
    if result.field_changes:
        return [field_change_text(*fc, width=VALUE_WIDTH) for fc in result.field_changes]
    return [", ".join(result.changed_fields)] if result.changed_fields else []


def _quiet(result: RowResult) -> bool:
    """An unchanged row (planned or applied)."""
    return result.action == Action.UNCHANGED and result.status in (Status.OK, Status.PLANNED)


def _shows(result: RowResult) -> bool:
    """Rows the table lists: every change, failure and skip, and the unchanged rows
    with a warning or a note."""
    return not _quiet(result) or bool(result.warnings or result.notes)


class MarkdownWriter(AssembledWriter):
    def __init__(self, path: Path, options: ReportOptions | None = None) -> None:
        super().__init__(path, options)
        self._listed = 0
        self._unlisted = 0
        self._said_no_changes = False
        #: Unchanged rows with a warning (a password not sent): not "No changes".
        self._warned = 0
        #: Rows listed that are not unchanged.
        self._changes = 0

    def write(self, result: RowResult) -> None:
        self.tally.add(result)
        if not _shows(result):
            return
        quiet = _quiet(result)
        if quiet and result.warnings:
            self._warned += 1
        if not quiet:
            self._changes += 1
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
        texts = change_texts(result)
        changed = "<br>".join(cell(t) for t in texts) if texts else ""
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
        elif kind == "plan" and unchanged == counts.total and not self._warned:
            lines += [f"**No changes:** all {unchanged} links match the workspace.", ""]
            self._said_no_changes = True
        else:
            lines += [_sentence(counts, kind), ""]
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
            heading = "Changes" if self._changes or self._unlisted else "Rows with notes"
            head += f"### {heading}\n\n" + _table_row(list(TABLE_COLUMNS))
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


def _sentence(counts: Counts, kind: str) -> str:
    """A plan: '**3 create, 1 update, 2 unchanged, 1 invalid** (7 rows planned, 1 failed
    or invalid).'; an apply: '**3 created, 1 updated, 2 unchanged, 1 invalid** (7 rows
    done, 1 failed or invalid).'"""
    if kind == "plan":
        parts = ", ".join(f"{n} {a}" for a, n in counts.by_action.items())
    else:
        parts = outcome_sentence(counts)
    verb = "planned" if kind == "plan" else "done"
    failed = f", {counts.failed} failed or invalid" if counts.failed else ""
    return f"**{parts}** ({counts.total} rows {verb}{failed})."
