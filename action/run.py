#!/usr/bin/env python3
"""The action's main step: run linksync validate / plan / apply on the link files and
hand the results to the workflow (outputs, job summary, annotations, the plan as
markdown for the pull-request comment).

Standard library only: it runs on whatever Python the runner has and calls the
``linksync`` command. Everything comes from the environment (action.yml's ``env:``),
never from the command line, so the key never shows in a process list or a log:

  LINKSYNC_COMMAND     validate | plan | apply | auto (auto: apply on a push to the
                       default branch, plan on anything else)
  LINKSYNC_FILES       link files or folders, separated by spaces or new lines
  LINKSYNC_ARGS        more flags for plan and apply (--mode mirror --owner-tag owner:web)
  LINKSYNC_BASE_URL    the service; LINKSYNC_API_KEY the key (linksync reads both itself)
  LINKSYNC_NOTIFY      apprise URLs for alerts, separated by new lines (a secret: linksync
                       reads it itself, like the key; only the final plan or apply alerts)
  LINKSYNC_CHECK_DESTINATIONS   true: --check-destinations on validate, plan and apply
  LINKSYNC_OUT         folder for plan.json, plan.md and the reports (default
                       $RUNNER_TEMP/linksync, else ./linksync-out)
  LINKSYNC_EVENT, LINKSYNC_REF, LINKSYNC_DEFAULT_BRANCH      what `auto` decides on
  LINKSYNC_CHANGED_ONLY   true (default): read only the files changed since
                       LINKSYNC_BASE_SHA (a pull request's base) or LINKSYNC_BEFORE (the
                       commit before a push): --changed-since; false: every file
  GITHUB_OUTPUT, GITHUB_STEP_SUMMARY                         files the runner reads

Outputs: command, exitcode, has_changes, creates, updates, replaces, deletes, invalid,
plan-json, plan-markdown, report-dir, changed-since. ``plan`` without a key (a pull
request from a fork gets no secrets) validates only and says so. Apply applies exactly
the plan it just made and showed (``apply --plan``). This step exits 0 whenever
linksync ran, so the comment step still posts the plan of a failing run;
``run.py finish``, the action's last step, then gives the job its verdict.

With ``changed-only`` (the default) a pull request's plan reads only the files changed
since its base, and a push's apply only those changed since the commit before it
(``--changed-since SHA``; the saved plan is then applied as it is). When that commit is
not in the checkout (a shallow one) it is fetched alone (``git fetch --depth=1 origin
SHA``). No usable commit (the first push of a branch, a force push whose ``before`` is
gone, a run that is neither a pull request nor a push, files outside a git checkout),
or a config file changed since it (linksync.yaml, or ``--config`` in the args: its
settings apply to every link): every file is read, and the log says why. The plan's
text names the files read and says it is partial; a scheduled full run stays the
reconciliation (drift, hand edits).

``run.py finish`` reads LINKSYNC_EXITCODE, LINKSYNC_HAS_CHANGES and
LINKSYNC_FAIL_ON_CHANGES: it exits with linksync's exit code when that is not 0, else 3
when changes are pending and fail-on-changes is true (a drift check), else 0.
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

COMMANDS = ("validate", "plan", "apply", "auto")
PR_EVENTS = ("pull_request", "pull_request_target")
WRITES = ("create", "update", "replace", "delete")
EXIT_USAGE = 2
EXIT_CHANGES_PENDING = 3


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def escape(text: str, *, prop: bool = False) -> str:
    """Text safe in a workflow command (``::error ...::text``)."""
    out = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return out.replace(":", "%3A").replace(",", "%2C") if prop else out


def annotate(problems: list[dict[str, Any]]) -> None:
    """One ``::error``/``::warning`` line per problem, on its file and row when known."""
    for p in problems:
        level = "error" if p.get("severity", "error") == "error" else "warning"
        props = []
        if p.get("source"):
            props.append(f"file={escape(str(p['source']), prop=True)}")
        if p.get("row") is not None and not p.get("sheet"):
            props.append(f"line={p['row']}")
        where = " " + ",".join(props) if props else ""
        print(f"::{level}{where}::{escape(str(p.get('constant')) + ': ' + str(p.get('message')))}")


def set_outputs(values: dict[str, object]) -> None:
    path = os.environ.get("GITHUB_OUTPUT")
    lines = [f"{k}={v}" for k, v in values.items()]
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
    say("outputs: " + ", ".join(lines))


def add_summary(text: str) -> None:
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if path and text:
        with open(path, "a", encoding="utf-8") as out:
            out.write(text if text.endswith("\n") else text + "\n")


def linksync(args: list[str], *, stdout: Path | None = None, alerts: bool = True) -> int:
    """Run the linksync command; its stderr goes to the log, stdout to ``stdout``.
    ``alerts=False``: without the notify URLs (the plan that an apply follows)."""
    say("$ linksync " + " ".join(shlex.quote(a) for a in args))
    env = None if alerts else {k: v for k, v in os.environ.items() if k != "LINKSYNC_NOTIFY"}
    if stdout is None:
        return subprocess.run(["linksync", *args], env=env, check=False).returncode
    with open(stdout, "w", encoding="utf-8") as out:
        return subprocess.run(["linksync", *args], stdout=out, env=env, check=False).returncode


def check_destinations(env: dict[str, str]) -> bool:
    """The ``check-destinations`` input: true or false (empty: false)."""
    raw = env.get("LINKSYNC_CHECK_DESTINATIONS", "").strip().lower() or "false"
    if raw not in ("true", "false"):
        raise ValueError(f"check-destinations must be true or false (got {raw!r})")
    return raw == "true"


def resolve_command(env: dict[str, str]) -> str:
    command = env.get("LINKSYNC_COMMAND", "").strip().lower() or "auto"
    if command not in COMMANDS:
        raise ValueError(f"command must be one of {', '.join(COMMANDS)} (got {command!r})")
    if command != "auto":
        return command
    default = env.get("LINKSYNC_DEFAULT_BRANCH", "").strip() or "main"
    on_default = env.get("LINKSYNC_REF", "") == f"refs/heads/{default}"
    return "apply" if env.get("LINKSYNC_EVENT") == "push" and on_default else "plan"


def git(*args: str) -> bool:
    """Run git quietly in the working directory: did it succeed?"""
    try:
        done = subprocess.run(["git", *args], capture_output=True, check=False, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def has_commit(sha: str) -> bool:
    return git("cat-file", "-e", f"{sha}^{{commit}}")


def config_files(args: list[str]) -> list[str]:
    """The config files the run reads: ``--config FILE`` in args, else linksync.yaml."""
    given = [b for a, b in itertools.pairwise(args) if a == "--config"]
    given += [a.removeprefix("--config=") for a in args if a.startswith("--config=")]
    return given or ["linksync.yaml"]


def changed_since(env: dict[str, str], args: list[str]) -> tuple[str, str]:
    """The commit to read the changes since (empty: a full run), and why, for the log."""
    raw = env.get("LINKSYNC_CHANGED_ONLY", "").strip().lower() or "true"
    if raw not in ("true", "false"):
        raise ValueError(f"changed-only must be true or false (got {raw!r})")
    if raw == "false":
        return "", "full run: every file is read (changed-only is false)"
    event = env.get("LINKSYNC_EVENT", "")
    if event in PR_EVENTS:
        sha, what = env.get("LINKSYNC_BASE_SHA", ""), "the pull request's base"
    elif event == "push":
        sha, what = env.get("LINKSYNC_BEFORE", ""), "the commit before the push"
    else:
        return "", f"full run: every file is read (a {event or 'manual'} run reconciles)"
    sha = sha.strip()
    if not sha or not sha.strip("0"):
        return "", (
            f"full run: every file is read ({what} is not given or all zeros: the first "
            "push of a branch)"
        )
    if not git("rev-parse", "--is-inside-work-tree"):
        return "", "full run: every file is read (the files are not in a git checkout)"
    if not has_commit(sha) and not (
        git("fetch", "--quiet", "--no-tags", "--depth=1", "origin", sha) and has_commit(sha)
    ):
        return "", (
            f"full run: every file is read ({what}, {sha[:12]}, is not in the checkout "
            "and could not be fetched: a force push replaced it, or it was deleted)"
        )
    for config in config_files(args):
        if not git("diff", "--quiet", sha, "--", config):
            return "", (
                f"full run: every file is read ({config} changed since {what}, "
                f"{sha[:12]}: its settings apply to every link)"
            )
    return sha, (
        f"only the files changed since {what} ({sha[:12]}) are read (--changed-since); "
        "a full run (changed-only: false, e.g. on a schedule) reconciles the rest"
    )


def plan_counts(plan: dict[str, Any]) -> dict[str, object]:
    counts = {a: 0 for a in (*WRITES, "invalid")}
    pending = 0
    for ch in plan.get("changes", []):
        action = ch.get("action")
        if action in counts:
            counts[action] += 1
        if action in WRITES and not ch.get("blocked_by"):
            pending += 1
    return {
        "has_changes": "true" if pending else "false",
        "creates": counts["create"],
        "updates": counts["update"],
        "replaces": counts["replace"],
        "deletes": counts["delete"],
        "invalid": counts["invalid"],
    }


def row_problems(plan: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for ch in plan.get("changes", []):
        for p in ch.get("problems", []):
            prov = p.get("provenance") or {}
            out.append({**p, "source": prov.get("source"), "row": prov.get("row"),
                        "sheet": prov.get("sheet")})  # fmt: skip
    return out


def since_args(sha: str) -> list[str]:
    return ["--changed-since", sha] if sha else []


def do_validate(
    files: list[str], args: list[str], out: Path, since: str = ""
) -> tuple[int, dict[str, object]]:
    report = out / "validate.json"
    code = linksync(["validate", *files, *since_args(since), *args, "--json"], stdout=report)
    try:
        doc = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return (code or EXIT_USAGE), {"invalid": ""}
    annotate(doc.get("problems", []))
    head = (
        f"{doc.get('rows', 0)} rows: {doc.get('valid', 0)} valid, {doc.get('invalid', 0)} "
        f"invalid, {doc.get('warnings', 0)} warnings"
    )
    say(head)
    add_summary(f"## linksync validate\n\n{head}.\n")
    return code, {"invalid": doc.get("invalid", 0)}


def do_plan(
    files: list[str], args: list[str], out: Path, since: str = "", *, alerts: bool = True
) -> tuple[int, dict[str, object]]:
    plan_json, plan_md = out / "plan.json", out / "plan.md"
    for stale in (plan_json, plan_md):
        stale.unlink(missing_ok=True)
    code = linksync(
        [
            "plan",
            *files,
            *since_args(since),
            *args,
            "--format",
            "markdown",
            "--out",
            str(plan_json),
        ],
        stdout=plan_md,
        alerts=alerts,
    )
    if not plan_json.is_file():
        return (code or EXIT_USAGE), {}
    plan = json.loads(plan_json.read_text(encoding="utf-8"))
    annotate(row_problems(plan))
    add_summary(plan_md.read_text(encoding="utf-8"))
    return code, {**plan_counts(plan), "plan-json": plan_json, "plan-markdown": plan_md}


def do_apply(
    files: list[str], args: list[str], out: Path, since: str = ""
) -> tuple[int, dict[str, object]]:
    code, values = do_plan(files, args, out, since, alerts=False)  # the apply alerts, once
    if "plan-json" not in values:
        return code, values
    reports = [out / "report.json", out / "report.md"]
    apply_args = ["apply", *files, *args, "--plan", str(values["plan-json"]), "--yes"]
    for report in reports:
        apply_args += ["--report", str(report)]
    code = linksync([*apply_args, "--no-progress"])
    if reports[1].is_file():
        add_summary(reports[1].read_text(encoding="utf-8"))
    return code, {**values, "report-dir": out}


def main(env: dict[str, str]) -> int:
    try:
        command = resolve_command(env)
        check = ["--check-destinations"] if check_destinations(env) else []
        since, why = changed_since(env, shlex.split(env.get("LINKSYNC_ARGS", "")))
    except ValueError as exc:
        print(f"::error::{escape(str(exc))}")
        set_outputs({"command": "", "exitcode": EXIT_USAGE})
        return 0
    files = env.get("LINKSYNC_FILES", "").split()
    args = shlex.split(env.get("LINKSYNC_ARGS", ""))
    runner_temp = env.get("RUNNER_TEMP")
    default_out = Path(runner_temp) / "linksync" if runner_temp else Path("linksync-out")
    out = Path(env.get("LINKSYNC_OUT", "").strip() or default_out)
    out.mkdir(parents=True, exist_ok=True)
    values: dict[str, object] = {"command": command, "changed-since": since}
    if not files:
        print("::error::no files given: set the action's `files` input")
        set_outputs({**values, "exitcode": EXIT_USAGE})
        return 0
    has_key = bool(env.get("LINKSYNC_API_KEY", "").strip())
    has_url = bool(env.get("LINKSYNC_BASE_URL", "").strip())
    if command == "plan" and not has_key:
        print(
            "::notice::no API key (secrets are not given to pull requests from forks): "
            "validated the files only, no plan"
        )
        command = "validate"
        values["command"] = command
    if command in ("plan", "apply") and not (has_key and has_url):
        missing = "base-url" if has_key else "api-key"
        print(f"::error::{command} needs the `{missing}` input (the service and its key)")
        set_outputs({**values, "exitcode": EXIT_USAGE})
        return 0
    alerts = len(env.get("LINKSYNC_NOTIFY", "").split())
    if alerts and command != "validate":
        say(f"alerts: {alerts} notify URL(s) (not shown: secrets)")
    print(f"::notice::{escape(why)}", flush=True)
    if command == "validate":
        code, found = do_validate(files, check, out, since)
    elif command == "plan":
        code, found = do_plan(files, [*args, *check], out, since)
    else:
        code, found = do_apply(files, [*args, *check], out, since)
    set_outputs({**values, **found, "exitcode": code})
    return 0


def finish(env: dict[str, str]) -> int:
    raw = env.get("LINKSYNC_EXITCODE", "").strip()
    if not raw.isdigit():
        print("::error::linksync did not run (see the steps above)")
        return EXIT_USAGE
    code = int(raw)
    if code != 0:
        print(f"::error::linksync exited with code {code} (see the steps above)")
        return code
    fail_on_changes = env.get("LINKSYNC_FAIL_ON_CHANGES", "").strip().lower() == "true"
    if fail_on_changes and env.get("LINKSYNC_HAS_CHANGES") == "true":
        print("::error::changes are pending: the workspace differs from the files")
        return EXIT_CHANGES_PENDING
    return 0


if __name__ == "__main__":
    environment = dict(os.environ)
    if sys.argv[1:] == ["finish"]:
        sys.exit(finish(environment))
    sys.exit(main(environment))
