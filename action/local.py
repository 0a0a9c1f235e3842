#!/usr/bin/env python3
"""Run the steps of action.yml on this machine, as the GitHub runner would, so the
action can be tried and tested without GitHub (samples/ci/run-locally.sh, the tests).

    python3 action/local.py --input command=plan --input files=links/ \\
        --input base-url=http://127.0.0.1:8787 --input-env api-key=LINKSYNC_API_KEY \\
        --input version=preinstalled --input python-version= --event pull_request

What it does, step by step: ``${{ inputs.X }}`` (given, else the default in action.yml),
``${{ github.X }}`` (action_path is this checkout; event_name, ref, the default branch
and token from the options; ``github.event`` the JSON of GITHUB_EVENT_PATH when set, a
property it lacks empty, as on GitHub) and ``${{ steps.ID.outputs.X }}`` are filled in; ``run:``
steps run under ``bash -eo pipefail`` with fresh GITHUB_OUTPUT / GITHUB_PATH files and a
shared GITHUB_STEP_SUMMARY; ``uses:`` steps (actions/setup-python) need GitHub and are
skipped, saying so. The first failing step stops the run with its exit code, as on
GitHub. At the end the action's outputs are printed as JSON on stdout (and written to
``--outputs FILE``).

``--input-env NAME=VAR`` takes an input from an environment variable, so a key never
goes on a command line. Everything else in the step's environment comes from this
process (GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_EVENT_PATH for the comment step).
Needs PyYAML (a dependency of linksync).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
REFERENCE = re.compile(rf"{NAME}(\.{NAME})*")


def lookup(expr: str, context: dict[str, Any]) -> str:
    """The value of a plain reference (``inputs.api-key``); anything else is refused."""
    if not REFERENCE.fullmatch(expr):
        raise ValueError(f"local.py only understands plain references, not ${{{{ {expr} }}}}")
    value: Any = context
    for part in expr.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif expr.startswith(("steps.", "github.event.")):
            return ""  # a step that did not run, an output or event property not set: empty
        else:
            raise ValueError(f"unknown reference ${{{{ {expr} }}}}")
    return "" if value is None else str(value)


def render(text: str, context: dict[str, Any]) -> str:
    return EXPRESSION.sub(lambda m: lookup(m.group(1), context), text)


def read_outputs(path: Path) -> dict[str, str]:
    """``name=value`` lines and ``name<<EOF`` blocks, as the runner reads them."""
    out: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            end = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        i += 1
    return out


def run_action(
    inputs: dict[str, str], github: dict[str, Any], workdir: Path, action: Path
) -> tuple[int, dict[str, str]]:
    spec = yaml.safe_load(action.read_text(encoding="utf-8"))
    declared = spec.get("inputs") or {}
    unknown = sorted(set(inputs) - set(declared))
    if unknown:
        raise ValueError(f"unknown input(s): {', '.join(unknown)}")
    context: dict[str, Any] = {"github": github, "steps": {}, "inputs": {}}
    for name, info in declared.items():
        default = render(str((info or {}).get("default", "")), context)
        context["inputs"][name] = inputs.get(name, default)
    temp = Path(tempfile.mkdtemp(prefix="linksync-action-"))
    summary = Path(os.environ.get("GITHUB_STEP_SUMMARY") or temp / "summary.md")
    summary.touch()
    extra_path: list[str] = []
    for number, step in enumerate(spec["runs"]["steps"], 1):
        label = step.get("name") or step.get("id") or f"step {number}"
        if "uses" in step:
            print(f"-- {label}: skipped here (needs GitHub: {step['uses']})", file=sys.stderr)
            continue
        if "if" in step:
            raise ValueError(f"{label}: local.py does not evaluate `if:` on run steps")
        output, path_file = temp / f"output-{number}", temp / f"path-{number}"
        output.touch()
        path_file.touch()
        env = dict(os.environ)
        env.update({k: render(str(v), context) for k, v in (step.get("env") or {}).items()})
        env.update(
            GITHUB_OUTPUT=str(output),
            GITHUB_PATH=str(path_file),
            GITHUB_STEP_SUMMARY=str(summary),
            RUNNER_TEMP=env.get("RUNNER_TEMP") or str(temp),
            PATH=os.pathsep.join([*extra_path, env.get("PATH", "")]),
        )
        print(f"-- {label}", file=sys.stderr, flush=True)
        script = render(step["run"], context)
        code = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=workdir,
            env=env,
            check=False,
        ).returncode
        if "id" in step:
            context["steps"][step["id"]] = {"outputs": read_outputs(output)}
        extra_path = [*reversed(path_file.read_text().split()), *extra_path]
        if code != 0:
            print(f"-- {label}: failed with exit code {code}", file=sys.stderr)
            return code, action_outputs(spec, context)
    return 0, action_outputs(spec, context)


def action_outputs(spec: dict[str, Any], context: dict[str, Any]) -> dict[str, str]:
    return {
        name: render(str(info.get("value", "")), context)
        for name, info in (spec.get("outputs") or {}).items()
    }


def pairs(values: list[str], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values:
        name, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"{what} expects NAME=VALUE (got {item!r})")
        out[name] = value
    return out


def event_payload(default_branch: str) -> dict[str, Any]:
    """The event as the runner gives it (GITHUB_EVENT_PATH), its repository's default
    branch the one given."""
    path = os.environ.get("GITHUB_EVENT_PATH", "")
    event: dict[str, Any] = {}
    if path and os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            loaded = json.load(f)
        event = loaded if isinstance(loaded, dict) else {}
    repository = event.get("repository")
    event["repository"] = {
        **(repository if isinstance(repository, dict) else {}),
        "default_branch": default_branch,
    }
    return event


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument(
        "--input-env", action="append", default=[], metavar="NAME=VAR",
        help="take input NAME from the environment variable VAR (for the key)",
    )  # fmt: skip
    parser.add_argument("--event", default="push", help="github.event_name (push)")
    parser.add_argument("--ref", default="refs/heads/main", help="github.ref")
    parser.add_argument("--default-branch", default="main")
    parser.add_argument("--token", default="", help="github.token (for the comment step)")
    parser.add_argument("--workdir", type=Path, default=Path.cwd())
    parser.add_argument("--action", type=Path, default=ROOT / "action.yml")
    parser.add_argument("--outputs", type=Path, help="also write the outputs (JSON) here")
    args = parser.parse_args(argv)
    inputs = pairs(args.input, "--input")
    for name, var in pairs(args.input_env, "--input-env").items():
        inputs[name] = os.environ.get(var, "")
    github = {
        "action_path": str(args.action.resolve().parent),
        "event_name": args.event,
        "ref": args.ref,
        "token": args.token or os.environ.get("GITHUB_TOKEN", ""),
        "event": event_payload(args.default_branch),
    }
    try:
        code, outputs = run_action(inputs, github, args.workdir, args.action)
    except ValueError as exc:
        print(f"local.py: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(outputs, indent=2, sort_keys=True)
    print(text)
    if args.outputs is not None:
        args.outputs.write_text(text + "\n", encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main())
