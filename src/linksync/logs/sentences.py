"""The sentence of each structured event: what a standard ``logging`` record says as its
message (``record.getMessage()``), for any handler, while the event's name and fields
ride along for the JSON lines (``linksync.logs.JsonFormatter``).

    run started: plan of 3 sources (a.yaml, b.yaml, c.yaml) against http://127.0.0.1:8443,
        mode mirror
    plan: 3 create, 1 update, 10 unchanged
    row 12 of campaign.xlsx (sheet Links) failed: SLUG_EXISTS: taken (create
        lnk.test/spring, HTTP 409)
    run ended: 9 ok, 1 failed in 1.2 s, exit code 1, 12 requests

An event without a sentence of its own says its name and its facts
(``request: method POST, path /links``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from linksync.model import Action, Status
from linksync.model.links import is_yaml_source

#: Sources named in a run's first line at most (the fields list them all).
NAMED_SOURCES = 3
_ORDER = {name: i for i, name in enumerate([*Action, *Status])}
_NOT_SENT = (Action.INVALID.value, Action.SKIP.value)


def counts_text(counts: Mapping[str, Any]) -> str:
    """'3 create, 1 update, 10 unchanged' (in the order of actions, then statuses; zero
    counts left out), or 'no rows'."""
    items = sorted(counts.items(), key=lambda kv: (_ORDER.get(str(kv[0]), len(_ORDER)), kv[0]))
    said = [f"{n} {name}" for name, n in items if n]
    return ", ".join(said) if said else "no rows"


def _sources_text(sources: Sequence[str]) -> str:
    names = [str(s) for s in sources if str(s)]
    if not names:
        return "a saved plan"
    if len(names) == 1:
        return names[0]
    shown = ", ".join(names[:NAMED_SOURCES]) + (", ..." if len(names) > NAMED_SOURCES else "")
    return f"{len(names)} sources ({shown})"


def run_start(f: Mapping[str, Any]) -> str:
    kind = "plan" if f.get("dry_run") else "apply"
    text = (
        f"run started: {kind} of {_sources_text(f.get('sources') or ())} against "
        f"{f.get('target')}, mode {f.get('mode')}"
    )
    return text + (f", run {f['run_id']}" if f.get("run_id") else "")


def plan_counts(f: Mapping[str, Any]) -> str:
    return f"plan: {counts_text(f.get('counts') or {})}"


def row_place(f: Mapping[str, Any]) -> str:
    """'row 12 of campaign.xlsx (sheet Links)', 'line 9 of links.yaml', or the link
    itself for a row without a source (a delete of a link no file declares)."""
    source, sheet, row = f.get("source"), f.get("sheet"), f.get("row")
    if not source:
        link = "/".join(str(p) for p in (f.get("domain"), f.get("slug")) if p)
        return f"the {f.get('action') or 'change'} of {link or 'a link'}"
    unit = "line" if is_yaml_source(str(source)) and not sheet else "row"
    place = f"{unit} {row} of {source}" if row is not None else str(source)
    return place + (f" (sheet {sheet})" if sheet else "")


def row_failed(f: Mapping[str, Any]) -> str:
    verb = "is invalid" if f.get("status") == Status.INVALID.value else "failed"
    what = ": ".join(str(p) for p in (f.get("error_constant"), f.get("message")) if p)
    link = "/".join(str(p) for p in (f.get("domain"), f.get("slug")) if p)
    action = f.get("action") if f.get("action") not in _NOT_SENT else None
    about = [" ".join(str(p) for p in (action, link) if p)] if f.get("source") and link else []
    if f.get("http_status"):
        about.append(f"HTTP {f['http_status']}")
    text = f"{row_place(f)} {verb}" + (f": {what}" if what else "")
    text += f" ({', '.join(about)})" if about else ""
    return text + ("; it failed in the last run too" if f.get("repeat") else "")


def run_end(f: Mapping[str, Any]) -> str:
    done = counts_text(f.get("counts") or {})
    if f.get("error_constant"):  # a run an error stopped: what it wrote before
        wrote = done if f.get("counts") else "nothing written"
        done = f"stopped by {f['error_constant']} ({wrote})"
    text = f"run ended: {done} in {f.get('duration_s')} s, exit code {f.get('exit_code')}"
    if f.get("requests") is not None:
        text += f", {f['requests']} requests"
    if f.get("reason"):
        text += f": {f['reason']}"
    return text


def progress(f: Mapping[str, Any]) -> str:
    if f.get("line"):
        return str(f["line"])
    return f"applied {f.get('applied')} of {f.get('total')} rows, {f.get('failed')} failed"


SENTENCES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "run_start": run_start,
    "plan_counts": plan_counts,
    "row_failed": row_failed,
    "run_end": run_end,
    "progress": progress,
}


def sentence(event: str, fields: Mapping[str, Any]) -> str:
    """The sentence of ``event`` with ``fields`` (see module docstring)."""
    say = SENTENCES.get(event)
    if say is not None:
        return say(fields)
    facts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in fields.items() if v is not None)
    name = event.replace("_", " ")
    return f"{name}: {facts}" if facts else name
