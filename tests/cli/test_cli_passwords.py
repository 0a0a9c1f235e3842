"""Passwords as a user sees them: a changed password is sent when this
machine knows what it sent before, and a row whose password cannot be compared says it
was not sent and how to send it. Through the CLI on the built-in sandbox; the sandbox's
short link is then opened with each password (its password gate)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from support.cli_runs import opens, remote_links, run

HEAD = "slug,Destination URL,password\n"


def sheet(workdir: Path, *rows: str) -> str:
    (workdir / "links.csv").write_text(HEAD + "".join(f"{r}\n" for r in rows), encoding="utf-8")
    return "links.csv"


def state_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def test_a_changed_password_is_sent_from_the_machine_that_sent_the_first(
    workdir: Path,
) -> None:
    links = sheet(workdir, "vip,https://example.com/vip,first-secret")
    first = run("apply", links, "--yes")
    assert first.exit_code == 0, first.output
    assert "password: (set)" in first.stderr  # the plan shown before applying
    assert opens(workdir, "vip", "first-secret") == 302

    sheet(workdir, "vip,https://example.com/vip,second-secret")
    plan = run("plan", links, "--format", "json")
    (change,) = json.loads(plan.stdout)["changes"]
    assert change["action"] == "update"
    assert [f["field"] for f in change["fields"]] == ["password"]
    assert "password changed since the last run from this machine" in change["notes"]
    shown = run("plan", links)
    assert "update    lnk.test/vip" in shown.stdout
    assert "password: (set)" in shown.stdout
    assert "note: password changed since the last run from this machine" in shown.stdout
    assert "No changes" not in shown.stdout

    second = run("apply", links, "--yes", "--report", "out/report.csv")
    assert second.exit_code == 0, second.output
    assert "Done: 1 updated" in second.stdout
    report = (workdir / "out/report.csv").read_text(encoding="utf-8")
    assert "password changed since the last run from this machine" in report
    assert opens(workdir, "vip", "second-secret") == 302
    assert opens(workdir, "vip", "first-secret") == 401  # the old one no longer opens it
    (link,) = remote_links(workdir)
    assert link.has_password

    again = run("plan", links, "--detailed-exitcode")
    assert again.exit_code == 0, again.output
    assert "No changes: the workspace matches the sources." in again.stdout
    for text in (first.output, plan.output, shown.output, second.output, again.output, report):
        assert "first-secret" not in text and "second-secret" not in text


def test_another_machine_says_not_sent_and_names_reset_passwords(
    workdir: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    links = sheet(workdir, "vip,https://example.com/vip,first-secret", "open,https://e.com/o,")
    assert run("apply", links, "--yes").exit_code == 0
    # Another machine: the same workspace, a state folder of its own (no fingerprints).
    monkeypatch.setenv("LINKSYNC_STATE_DIR", str(tmp_path_factory.mktemp("elsewhere")))
    sheet(workdir, "vip,https://example.com/vip,second-secret", "open,https://e.com/o,")

    plan = run("plan", links, "--detailed-exitcode")
    assert plan.exit_code == 0, plan.output  # nothing would be sent
    assert "unchanged lnk.test/vip" in plan.stdout
    assert "warning PASSWORD_NOT_SENT" in plan.stdout
    assert "--reset-passwords" in plan.stdout
    assert "No changes" not in plan.stdout
    assert "Nothing to send: 1 password not sent (--reset-passwords sends them)." in plan.stdout
    md = run("plan", links, "--format", "markdown").stdout
    assert "No changes" not in md
    assert "PASSWORD_NOT_SENT" in md and "--reset-passwords" in md

    applied = run("apply", links, "--yes", "--report", "out/r.json")
    assert applied.exit_code == 0
    row = json.loads((workdir / "out/r.json").read_text())["results"][0]
    assert row["action"] == "unchanged" and row["status"] == "ok"
    assert "PASSWORD_NOT_SENT" in row["message"] and "--reset-passwords" in row["message"]
    assert opens(workdir, "vip", "first-secret") == 302  # as the message says: not sent

    reset = run("apply", links, "--yes", "--reset-passwords")
    assert reset.exit_code == 0, reset.output
    assert "Done: 1 updated, 1 unchanged" in reset.stdout
    assert opens(workdir, "vip", "second-secret") == 302
    quiet = run("plan", links)  # this machine now knows what it sent
    assert "PASSWORD_NOT_SENT" not in quiet.stdout
    assert "No changes: the workspace matches the sources." in quiet.stdout


def test_the_fingerprints_hold_no_password_and_only_the_user_reads_them(
    workdir: Path,
) -> None:
    state = Path(os.environ["LINKSYNC_STATE_DIR"])
    links = sheet(workdir, "vip,https://example.com/vip,hunter2-secret")
    assert run("apply", links, "--yes").exit_code == 0
    files = state_files(state / "passwords")
    assert [p.name for p in files if p.suffix == ".json"] and (
        state / "passwords/machine.key"
    ).is_file()
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
        assert b"hunter2" not in path.read_bytes()
    (fingerprints,) = [p for p in files if p.suffix == ".json"]
    (digest,) = json.loads(fingerprints.read_text())["links"].values()
    assert len(digest) == 64  # an HMAC-SHA256, never the password


def test_a_deleted_link_forgets_its_fingerprint(workdir: Path) -> None:
    state = Path(os.environ["LINKSYNC_STATE_DIR"])
    links = sheet(workdir, "vip,https://example.com/vip,s3cret", "keep,https://e.com/k,")
    assert run("apply", links, "--yes").exit_code == 0
    sheet(workdir, "keep,https://e.com/k,")
    mirror = run("apply", links, "--yes", "--mode", "mirror", "--domain", "lnk.test")
    assert mirror.exit_code == 0, mirror.output
    assert "Done: 1 deleted, 1 unchanged" in mirror.stdout
    (fingerprints,) = state.glob("passwords/*.json")
    assert json.loads(fingerprints.read_text())["links"] == {}
    # Created again: the create records its password anew.
    sheet(workdir, "vip,https://example.com/vip,s3cret", "keep,https://e.com/k,")
    assert run("apply", links, "--yes").exit_code == 0
    assert "PASSWORD_NOT_SENT" not in run("plan", links).stdout


def test_an_unreadable_fingerprint_file_is_a_warning_not_a_failed_run(workdir: Path) -> None:
    state = Path(os.environ["LINKSYNC_STATE_DIR"])
    links = sheet(workdir, "vip,https://example.com/vip,first-secret")
    assert run("apply", links, "--yes").exit_code == 0
    (fingerprints,) = state.glob("passwords/*.json")
    fingerprints.write_text("not json {", encoding="utf-8")
    sheet(workdir, "vip,https://example.com/vip,second-secret")
    plan = run("plan", links)
    assert plan.exit_code == 0, plan.output
    assert "Warning: cannot use the password fingerprints" in plan.stderr
    assert "warning PASSWORD_NOT_SENT" in plan.stdout
    reset = run("apply", links, "--yes", "--reset-passwords")
    assert reset.exit_code == 0, reset.output
    assert opens(workdir, "vip", "second-secret") == 302
    assert "PASSWORD_NOT_SENT" not in run("plan", links).stdout  # the file written anew
