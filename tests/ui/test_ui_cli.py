"""``linksync ui`` as a user starts it: a process that prints its address, serves the
page on 127.0.0.1, and leaves no upload behind when stopped with Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
from click.testing import CliRunner
from ui_support import SAMPLE

from linksync.cli import cli


def test_help_says_what_the_page_does_and_has_no_host_option() -> None:
    result = CliRunner().invoke(cli, ["ui", "--help"])
    assert result.exit_code == 0
    assert "127.0.0.1 only" in result.output and "--no-browser" in result.output
    assert "--host" not in result.output


def test_linksync_ui_serves_until_ctrl_c_and_deletes_the_uploads(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("LINKSYNC_") or k.endswith("_DIR")
    }
    env.update(TMPDIR=str(temp), PYTHONUNBUFFERED="1")
    process = subprocess.Popen(
        [sys.executable, "-c", "from linksync.cli import main; main()", "ui", "--no-browser"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("linksync page: http://127.0.0.1:"), line
        url = line.split()[2]
        page = httpx.get(url, timeout=10)
        assert page.status_code == 200 and "SANDBOX" in page.text
        token = page.text.split('name="linksync-token" content="', 1)[1].split('"', 1)[0]
        sent = httpx.post(
            url + "api/uploads?name=campaign.xlsx",
            content=SAMPLE.read_bytes(),
            headers={"X-Linksync-Token": token, "Origin": url.rstrip("/")},
            timeout=10,
        )
        assert sent.status_code == 201
        assert list(temp.rglob("campaign.xlsx"))
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert "target: built-in sandbox" in err and "uploaded files were deleted" in err
    assert list(temp.iterdir()) == []  # the uploads are gone with the server


def test_a_port_in_use_is_a_clear_usage_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["ui", "--no-browser", "--port", str(port)])
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.output


def test_every_asset_of_the_page_ships_in_the_package() -> None:
    import fnmatch
    import tomllib

    import linksync
    import linksync.ui

    root = Path(__file__).resolve().parents[2]
    globs = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["linksync"]
    package = Path(linksync.__file__).parent
    assets = [
        p.relative_to(package).as_posix()
        for folder in ("templates", "static")
        for p in (Path(linksync.ui.__file__).parent / folder).iterdir()
    ]
    assert assets
    for asset in assets:
        assert any(fnmatch.fnmatch(asset, g) for g in globs), asset
