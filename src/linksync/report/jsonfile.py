"""The JSON report: ``{"run": RunInfo, "summary": Counts, "notes": [...], "results": [...]}``.

Rows are spooled to a temporary file as they arrive (memory stays constant) and the
document is assembled on ``close``, run facts and summary first.
"""

from __future__ import annotations

import json
from pathlib import Path

from linksync.model import RowResult, RunInfo
from linksync.report.base import AssembledWriter, Closing
from linksync.report.cells import report_row
from linksync.report.summary import safe_target
from linksync.safe.secrets import redact
from linksync.sync.jsontext import one_line

#: One encoder for every row (``json.dumps`` with an option makes one a call).
_ROW = one_line(sort_keys=False)


class JsonWriter(AssembledWriter):
    def write(self, result: RowResult) -> None:
        self.tally.add(result)
        row = _ROW(report_row(result, self.options.secrets))
        self._spool.append(("\n    " if self._spool.count == 0 else ",\n    ") + row)

    def close(self, info: RunInfo, closing: Closing | None = None) -> Path:
        closing = closing or Closing()
        secrets = self.options.secrets
        run = info.to_dict()
        run["target"] = safe_target(info.target)
        head = {
            "run": run,
            "summary": self.tally.counts().to_dict(),
            "notes": [redact(n, secrets) for n in closing.notes],
            "refused_reason": redact(closing.refused_reason, secrets)
            if closing.refused_reason
            else None,
        }
        text = json.dumps(head, ensure_ascii=False, indent=2)
        # Open the object, leave out its closing brace, and append "results".
        opening = text[: text.rstrip().rindex("}")].rstrip() + ',\n  "results": ['
        tail = ("\n  ]" if self._spool.count else "]") + "\n}\n"
        return self._assemble(redact(opening, secrets), tail)
