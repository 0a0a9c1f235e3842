"""nginx terminating TLS with a certificate of the test's own CA."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import Stack
from .pki import Pki
from .servers import Site
from .workload import apply_then_plan, assert_untouched, assert_workload_done, run, write_source


def test_ca_trusted_through_ssl_cert_file(stack: Stack, pki: Pki) -> None:
    nginx = stack.nginx(Site(tls=pki))
    outcome = apply_then_plan(Path.cwd(), nginx.base_url, env={"SSL_CERT_FILE": str(pki.ca_cert)})
    assert_workload_done(outcome, stack.sandbox_url)


def test_ca_trusted_through_ssl_cert_dir(stack: Stack, pki: Pki, tmp_path: Path) -> None:
    # a folder of CA certificates named by their subject hash, as `openssl rehash` makes it
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is needed to name the CA file by its subject hash")
    subject_hash = subprocess.run(
        [openssl, "x509", "-hash", "-noout", "-in", str(pki.ca_cert)],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    folder = tmp_path / "certs"
    folder.mkdir()
    shutil.copy(pki.ca_cert, folder / f"{subject_hash}.0")
    nginx = stack.nginx(Site(tls=pki))
    outcome = apply_then_plan(Path.cwd(), nginx.base_url, env={"SSL_CERT_DIR": str(folder)})
    assert_workload_done(outcome, stack.sandbox_url)


def test_ca_trusted_through_ca_bundle_option(stack: Stack, pki: Pki) -> None:
    nginx = stack.nginx(Site(tls=pki))
    outcome = apply_then_plan(Path.cwd(), nginx.base_url, "--ca-bundle", str(pki.ca_cert), env={})
    assert_workload_done(outcome, stack.sandbox_url)


def test_unknown_ca_is_refused_at_once_and_nothing_is_written(stack: Stack, pki: Pki) -> None:
    nginx = stack.nginx(Site(tls=pki))
    source = write_source(Path.cwd())
    r = run(["apply", str(source), "--yes", "--no-progress", "--base-url", nginx.base_url], {})
    assert r.exit_code == 2, r.output
    # the message names the host, says why, and the three ways to trust the CA
    assert "127.0.0.1" in r.stderr and "certificate" in r.stderr.lower(), r.stderr
    for fix in ("SSL_CERT_FILE", "--ca-bundle", "--system-trust"):
        assert fix in r.stderr, (fix, r.stderr)
    assert "[code None]" not in r.output
    # one attempt: a single refused handshake, no request reached nginx or the sandbox
    assert len(nginx.refused_handshakes()) == 1, nginx.refused_handshakes()
    assert nginx.access_lines() == []
    assert_untouched(stack.sandbox_url)
