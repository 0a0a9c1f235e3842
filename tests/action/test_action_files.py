"""action.yml and the sample workflow, read as GitHub reads them: the key reaches
linksync only through the environment, and the sample uses the action's real inputs."""

from __future__ import annotations

import re
from typing import Any

import yaml
from action_helpers import ACTION_DIR, ROOT

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def action() -> dict[str, Any]:
    return dict(yaml.safe_load((ROOT / "action.yml").read_text()))


def test_composite_action_without_docker() -> None:
    spec = action()
    assert spec["runs"]["using"] == "composite"
    assert all("docker" not in str(s.get("uses", "")) for s in spec["runs"]["steps"])
    wanted = {"has_changes", "creates", "updates", "deletes", "invalid"}
    assert wanted <= set(spec["outputs"])
    for name in wanted:
        assert spec["outputs"][name]["value"] == f"${{{{ steps.run.outputs.{name} }}}}"


def test_inputs_reach_the_scripts_only_through_env() -> None:
    """No ${{ }} inside a run: script (no injection, no key in a command line), every
    reference names a declared input, and the scripts the steps call exist."""
    spec = action()
    declared = set(spec["inputs"])
    for step in spec["runs"]["steps"]:
        if "run" not in step:
            continue
        assert EXPRESSION.search(step["run"]) is None, step["run"]
        for script in re.findall(r"action/(\w+\.(?:py|sh))", step["run"]):
            assert (ACTION_DIR / script).is_file()
        for value in (step.get("env") or {}).values():
            for ref in EXPRESSION.findall(str(value)):
                if ref.startswith("inputs."):
                    assert ref.removeprefix("inputs.") in declared, ref
    key_steps = [s for s in spec["runs"]["steps"] if "inputs.api-key" in str(s.get("env", {}))]
    assert [s["id"] for s in key_steps] == ["run"]
    assert key_steps[0]["env"]["LINKSYNC_API_KEY"] == "${{ inputs.api-key }}"


def test_sample_workflow_uses_the_action_with_its_inputs() -> None:
    workflow = yaml.safe_load((ROOT / "samples" / "ci" / "linksync.yml").read_text())
    declared = set(action()["inputs"])
    uses = []
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            if str(step.get("uses", "")).startswith("OWNER/linksync@"):
                uses.append(step)
                assert set(step["with"]) <= declared, set(step["with"]) - declared
                assert step["with"]["api-key"] == "${{ secrets.LINKSYNC_API_KEY }}"
            assert "LINKSYNC_API_KEY" not in str(step.get("run", ""))
    assert [s["with"]["command"] for s in uses] == ["plan", "apply", "plan"]
    assert uses[2]["with"]["fail-on-changes"] == "true"
    assert "pip install" not in (ROOT / "samples" / "ci" / "linksync.yml").read_text()


def test_notify_urls_reach_linksync_only_through_the_run_step_env() -> None:
    """Like the key: the notify input is a secret, in one step's environment only."""
    spec = action()
    assert spec["inputs"]["notify"]["default"] == ""
    assert spec["inputs"]["check-destinations"]["default"] == "false"
    steps = [s for s in spec["runs"]["steps"] if "inputs.notify" in str(s)]
    assert [s["id"] for s in steps] == ["run"]
    assert steps[0]["env"]["LINKSYNC_NOTIFY"] == "${{ inputs.notify }}"
    assert "inputs.notify" not in steps[0]["run"]
