"""The JUnit XML report: one test case per row, so CI systems list failed rows natively.

``classname`` is the source (and sheet), ``name`` the row and link. Failed and invalid
rows carry a ``<failure>`` whose type is the error constant; skipped rows a ``<skipped>``.
Rows are spooled as they arrive; the counts in the root element are written on close.
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

from linksync.model import RowResult, RunInfo, Status
from linksync.model.links import is_yaml_source
from linksync.report.base import AssembledWriter, Closing
from linksync.report.cells import error_text, link_label, report_row, xml_attr, xml_text
from linksync.report.summary import run_title, safe_target
from linksync.safe.secrets import redact
from linksync.safe.terminal import printable

_DETAIL_FIELDS = (
    "action",
    "status",
    "domain",
    "slug",
    "short_url",
    "url",
    "changed_fields",
    "http_status",
    "error_code",
    "request_id",
    "attempts",
    "message",  # a row done with warnings lists them there
)


def _attr(value: str) -> str:
    """A double-quoted attribute value; line breaks and tabs kept as character references."""
    return '"' + xml_attr(value) + '"'


def classname_of(result: RowResult) -> str:
    """'campaign.xlsx/Spring', 'links/a.yaml', or 'remote/<domain>' for a row without source."""
    if result.source:
        return f"{result.source}/{printable(result.sheet)}" if result.sheet else result.source
    return f"remote/{result.domain}" if result.domain else "remote"


def testcase_name(result: RowResult) -> str:
    """'row 7 spring-sale', 'line 9 spring-sale' for YAML (the link when the row is
    unknown)."""
    label = result.slug or link_label(result) or "(no slug)"
    if result.row is None:
        return label
    return f"{'line' if is_yaml_source(result.source) else 'row'} {result.row} {label}"


class JunitWriter(AssembledWriter):
    def _testcase(self, result: RowResult) -> str:
        secrets = self.options.secrets
        row = report_row(result, secrets)
        attrs = (
            f"classname={_attr(redact(classname_of(result), secrets))} "
            f'name={_attr(redact(testcase_name(result), secrets))} time="0"'
        )
        details = "\n".join(f"{k}: {row[k]}" for k in _DETAIL_FIELDS if row[k] not in (None, "", 0))
        if result.status in (Status.FAILED, Status.INVALID):
            constant = result.error_constant or result.status.value.upper()
            message = redact(error_text(result) or constant, secrets)
            body = (
                f"<failure type={_attr(constant)} message={_attr(message)}>"
                f"{escape(xml_text(details))}</failure>"
            )
        elif result.status == Status.SKIPPED:
            message = redact(error_text(result) or "skipped", secrets)
            body = f"<skipped message={_attr(message)}/>"
        else:
            body = f"<system-out>{escape(xml_text(details))}</system-out>"
        return f"    <testcase {attrs}>{body}</testcase>\n"

    def write(self, result: RowResult) -> None:
        self.tally.add(result)
        self._spool.append(self._testcase(result))

    def close(self, info: RunInfo, closing: Closing | None = None) -> Path:
        closing = closing or Closing()
        secrets = self.options.secrets
        counts = self.tally.counts()
        failures = counts.failed
        skipped = counts.by_status.get(Status.SKIPPED, 0)
        name = self.options.title or f"linksync {run_title(counts, info)}"
        totals = (
            f'tests="{counts.total}" failures="{failures}" errors="0" '
            f'skipped="{skipped}" time="{info.duration_s:.3f}"'
        )
        props = [
            ("target", safe_target(info.target)),
            ("mode", info.mode),
            ("dry_run", str(info.dry_run).lower()),
            ("requests", str(info.requests)),
            ("rate_limit_waits", str(info.rate_limit_waits)),
        ]
        if info.run_id:
            props.append(("run_id", info.run_id))
        props.extend(("note", n) for n in closing.all_notes())
        prop_xml = "".join(
            f"      <property name={_attr(k)} value={_attr(redact(v, secrets))}/>\n"
            for k, v in props
        )
        head = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f"<testsuites name={_attr(name)} {totals}>\n"
            f"  <testsuite name={_attr(name)} {totals}>\n"
            f"    <properties>\n{prop_xml}    </properties>\n"
        )
        tail = "  </testsuite>\n</testsuites>\n"
        return self._assemble(head, tail)
