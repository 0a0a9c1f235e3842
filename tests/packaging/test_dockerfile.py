"""The Dockerfile, read as Docker reads it (the final stage's base, user, entry point,
volumes), and built when a Docker engine answers; the CronJob manifest of the docs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path, PurePosixPath

import pytest
import yaml

import linksync.pipeline.lock
from linksync.sync.journal import DEFAULT_RUNS_DIR

ROOT = Path(__file__).resolve().parents[2]


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order: comments dropped, continuations joined."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def final_stage() -> list[tuple[str, str]]:
    steps = instructions((ROOT / "Dockerfile").read_text())
    starts = [i for i, (word, _) in enumerate(steps) if word == "FROM"]
    return steps[starts[-1] :]


def values(stage: list[tuple[str, str]], word: str) -> list[str]:
    return [rest for w, rest in stage if w == word]


def test_final_stage_is_a_slim_python_run_by_a_user_that_is_not_root() -> None:
    stage = final_stage()
    assert re.fullmatch(r"python:3\.1[1-9]-slim", stage[0][1]), stage[0]
    (user,) = values(stage, "USER")
    uid = user.split(":")[0]
    assert uid.isdigit() and int(uid) >= 1000  # numeric: Kubernetes runAsNonRoot can check it
    runs = " ".join(values(stage, "RUN"))
    assert f"useradd --uid {uid}" in runs
    words = [w for w, _ in stage]
    assert words.index("USER") < words.index("ENTRYPOINT")
    assert words.index("RUN") < words.index("USER")  # installed as root, run as the user


def test_entry_point_is_the_cli_in_exec_form() -> None:
    stage = final_stage()
    (entry,) = values(stage, "ENTRYPOINT")
    assert json.loads(entry) == ["linksync"]
    (cmd,) = values(stage, "CMD")
    assert json.loads(cmd) == ["--help"]


def test_the_journal_and_the_lock_live_on_a_volume_the_user_owns() -> None:
    stage = final_stage()
    (workdir,) = values(stage, "WORKDIR")
    (volume,) = values(stage, "VOLUME")
    volumes = [PurePosixPath(v) for v in json.loads(volume)]
    env = dict(re.findall(r"(\w+)=(\S+)", " ".join(values(stage, "ENV"))))
    state = PurePosixPath(env["LINKSYNC_STATE_DIR"])  # where linksync keeps its locks
    paths = [PurePosixPath(workdir) / DEFAULT_RUNS_DIR.as_posix(), state]
    lock_in_workdir = getattr(linksync.pipeline.lock, "DEFAULT_LOCK_PATH", None)  # .linksync/lock
    if lock_in_workdir is not None:
        paths.append(PurePosixPath(workdir) / Path(lock_in_workdir).as_posix())
    for where in paths:
        assert any(where.is_relative_to(v) for v in volumes), (where, volumes)
    runs = " ".join(values(stage, "RUN"))
    uid = values(stage, "USER")[0]
    for folder in (PurePosixPath(workdir) / DEFAULT_RUNS_DIR.as_posix(), state):
        assert f" {folder}" in runs.split("mkdir -p", 1)[1].split("&&")[0]
    assert f"chown -R {uid} {PurePosixPath(workdir)}" in runs


def test_build_context_holds_what_the_dockerfile_copies() -> None:
    steps = instructions((ROOT / "Dockerfile").read_text())
    copied = [
        part
        for word, rest in steps
        if word == "COPY" and not rest.startswith("--from")
        for part in rest.split()[:-1]
    ]
    assert copied == ["pyproject.toml", "README.md", "LICENSE", "src"]
    for name in copied:
        assert (ROOT / name).exists()
    ignore = (ROOT / ".dockerignore").read_text().split()
    assert ignore[ignore.index("*") :][:5] == [
        "*",
        "!pyproject.toml",
        "!README.md",
        "!LICENSE",
        "!src/",
    ]


def docker_engine() -> str | None:
    """Why the image cannot be built here, or None when a Docker engine answers."""
    if shutil.which("docker") is None:
        return "no docker command"
    try:
        info = subprocess.run(["docker", "info"], capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"docker info failed: {exc}"
    if info.returncode != 0:
        return "no Docker engine answers `docker info` (only the client is installed)"
    return None


def test_image_builds_and_runs_as_its_user() -> None:
    missing = docker_engine()
    if missing is not None:
        pytest.skip(f"image build not checked: {missing}; it is checked where Docker runs")
    tag = "linksync-test:ci-pack"
    built = subprocess.run(
        ["docker", "build", "-t", tag, str(ROOT)], capture_output=True, text=True, check=False
    )
    assert built.returncode == 0, built.stderr[-3000:]
    try:
        version = subprocess.run(
            ["docker", "run", "--rm", tag, "--version"], capture_output=True, text=True
        )
        assert version.returncode == 0 and "linksync, version" in version.stdout
        uid = subprocess.run(
            ["docker", "run", "--rm", "--entrypoint", "id", tag, "-u"],
            capture_output=True,
            text=True,
        )
        assert uid.stdout.strip() == "10001"
    finally:
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, check=False)


def cronjob_manifest() -> list[dict]:
    text = (ROOT / "docs" / "links-as-code.md").read_text()
    section = text.split("### As a Kubernetes CronJob", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    return [d for d in yaml.safe_load_all(block) if d]


def test_docs_cronjob_takes_the_key_from_a_secret() -> None:
    docs = {d["kind"]: d for d in cronjob_manifest()}
    job = docs["CronJob"]
    assert job["spec"]["concurrencyPolicy"] == "Forbid"
    pod = job["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["args"][:2] == ["apply", "links/"] and "--yes" in container["args"]
    env = {e["name"]: e for e in container["env"]}
    key = env["LINKSYNC_API_KEY"]["valueFrom"]["secretKeyRef"]
    assert key["name"] == docs["Secret"]["metadata"]["name"]
    assert "api-key" in docs["Secret"]["stringData"]
    assert not any("key" in str(a).lower() for a in container["args"])
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == 10001
    mounts = {m["mountPath"] for m in container["volumeMounts"]}
    assert {"/work/links", "/work/.linksync"} <= mounts
