"""``--qr`` on ``apply`` and ``export`` through the CLI against the built-in sandbox:
the files read back, and a bad ``--qr`` path refused before the first request."""

from __future__ import annotations

import asyncio
import shutil
import zipfile
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner, Result

from linksync.cli import cli
from linksync.config import resolve

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def sandbox_slugs(workdir: Path) -> list[str]:
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def go() -> list[str]:
        async with settings.open_client() as client:
            return sorted(link.slug for link in await client.list_links())

    return asyncio.run(go())


@pytest.fixture
def workdir(workdir: Path) -> Path:
    """The shared working directory (``tests/conftest.py``) with the sample workbook."""
    shutil.copy(SAMPLES / "campaign.xlsx", workdir / "campaign.xlsx")
    return workdir


def test_apply_qr_writes_the_zip_and_the_qr_column(workdir: Path) -> None:
    result = run(
        "apply", "campaign.xlsx", "--yes", "--no-progress",
        "--qr", "out/codes.zip", "--annotate", "out/done.xlsx",
    )  # fmt: skip
    assert result.exit_code == 1  # the sample's 4 invalid rows
    assert "out/codes.zip" in result.output
    slugs = sandbox_slugs(workdir)
    assert len(slugs) == 14
    with zipfile.ZipFile(workdir / "out/codes.zip") as archive:
        names = archive.namelist()
    assert sorted(n for n in names if n.endswith(".png")) == sorted(
        f"lnk.test/{s}.png" for s in slugs
    )
    wb = openpyxl.load_workbook(workdir / "out/done.xlsx")
    images = sum(len(ws._images) for ws in wb.worksheets)
    assert images == 14  # one per created link, none on the 4 invalid rows


@pytest.mark.parametrize(
    ("qr", "why"),
    [
        ("codes.txt", "use a file name ending in .zip"),
        ("campaign.xlsx", "which this run reads"),
        ("report.zip", "are the same file"),
    ],
)
def test_a_bad_qr_path_is_refused_before_any_request(workdir: Path, qr: str, why: str) -> None:
    before = (workdir / "campaign.xlsx").read_bytes()
    result = run(
        "apply", "campaign.xlsx", "--yes", "--no-progress", "--qr", qr, "--report", "report.zip"
    )
    assert result.exit_code == 2
    assert why in result.output
    assert sandbox_slugs(workdir) == []
    assert (workdir / "campaign.xlsx").read_bytes() == before


def test_export_qr(workdir: Path) -> None:
    run("apply", "campaign.xlsx", "--yes", "--no-progress")
    result = run("export", "links.yaml", "--qr", "codes.zip")
    assert result.exit_code == 0, result.output
    assert "QR codes of 14 link(s) in codes.zip" in result.output
    with zipfile.ZipFile(workdir / "codes.zip") as archive:
        assert len([n for n in archive.namelist() if n.endswith(".svg")]) == 14
    again = run("export", "other.yaml", "--qr", "codes.zip")
    assert again.exit_code == 2 and "--force" in again.output
    assert not (workdir / "other.yaml").exists()
