"""Small network components of the tests' own, on 127.0.0.1, each in a thread with its
own event loop (so a CLI run in the test's thread can use them):

- ``Relay``: a forward proxy. Absolute-form requests (``GET http://host/...``, plain
  http targets) are sent on to the target, one upstream connection each; ``CONNECT``
  opens a tunnel (https targets). It records every request line and the
  ``Proxy-Authorization`` it was given; ``refuse_auth`` answers 407 instead.
- ``Relay(tls=ctx, upstream=...)``: a TLS front (the role nginx plays): decrypts and
  pipes to a plain http server. ``connections`` counts the connections made to either
  (a TLS handshake that fails included).
- ``make_pki``: a CA and server certificates made with the ``openssl`` command.
"""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
import threading
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

import pytest


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with suppress(Exception):
            writer.close()


async def _both_ways(
    r1: asyncio.StreamReader,
    w1: asyncio.StreamWriter,
    r2: asyncio.StreamReader,
    w2: asyncio.StreamWriter,
) -> None:
    await asyncio.gather(_pipe(r1, w2), _pipe(r2, w1))


@dataclass
class Relay:
    """A forward proxy, or (``upstream`` given) a TLS front for a plain server."""

    tls: ssl.SSLContext | None = None
    upstream: tuple[str, int] | None = None
    refuse_auth: bool = False
    lines: list[str] = field(default_factory=list)
    auth: list[str | None] = field(default_factory=list)
    connections: int = 0
    port: int = 0
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    _server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def __enter__(self) -> Relay:
        started = threading.Event()
        self._loop = asyncio.new_event_loop()

        async def start() -> None:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
            self.port = self._server.sockets[0].getsockname()[1]
            started.set()

        def run() -> None:
            assert self._loop is not None
            asyncio.set_event_loop(self._loop)
            self._loop.run_until_complete(start())
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        assert started.wait(10), "the relay did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        loop = self._loop
        assert loop is not None and self._thread is not None

        async def stop() -> None:
            if self._server is not None:
                self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(10)
        loop.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            if self.tls is not None:  # counted before the handshake, which may fail
                await writer.start_tls(self.tls)
            if self.upstream is not None:
                up_r, up_w = await asyncio.open_connection(*self.upstream)
                await _both_ways(reader, writer, up_r, up_w)
                return
            while await self._one_request(reader, writer):
                pass
        except (ConnectionError, OSError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            with suppress(Exception):
                writer.close()

    async def _one_request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers: list[tuple[str, str]] = []
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers.append((name.strip(), value.strip()))
        lower = {k.lower(): v for k, v in headers}
        self.lines.append(lines[0])
        self.auth.append(lower.get("proxy-authorization"))
        if self.refuse_auth:
            writer.write(
                b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                b'proxy-authenticate: Basic realm="test"\r\ncontent-length: 0\r\n\r\n'
            )
            await writer.drain()
            return False
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            up_r, up_w = await asyncio.open_connection(host.strip("[]"), int(port))
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
            await _both_ways(reader, writer, up_r, up_w)
            return False
        body = await reader.readexactly(int(lower.get("content-length", "0")))
        url = target.split("://", 1)[1]
        hostport, _, path = url.partition("/")
        host, _, port = hostport.rpartition(":")
        up_r, up_w = await asyncio.open_connection(host, int(port or 80))
        keep = [
            (k, v)
            for k, v in headers
            if not k.lower().startswith("proxy-") and k.lower() != "connection"
        ]
        out = [f"{method} /{path} HTTP/1.1", *(f"{k}: {v}" for k, v in keep), "connection: close"]
        up_w.write(("\r\n".join(out) + "\r\n\r\n").encode("latin-1") + body)
        await up_w.drain()
        answer = await up_r.read()  # the target closes after one answer
        up_w.close()
        writer.write(answer)
        await writer.drain()
        return b"connection: close" not in answer.lower()


@dataclass(frozen=True)
class Pki:
    """A CA, and certificates it signed: for 127.0.0.1, and for another name."""

    ca: Path
    cert: Path
    key: Path
    wrong_cert: Path
    wrong_key: Path

    def server_context(self, *, wrong_name: bool = False) -> ssl.SSLContext:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        if wrong_name:
            ctx.load_cert_chain(self.wrong_cert, self.wrong_key)
        else:
            ctx.load_cert_chain(self.cert, self.key)
        return ctx


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_pki(folder: Path) -> Pki:
    """A CA made here (``openssl``; the test is skipped where the command is missing)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make a CA for this test")
    folder.mkdir(parents=True, exist_ok=True)
    _openssl(
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-subj", "/CN=linksync test CA", "-keyout", "ca.key", "-out", "ca.pem",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=folder,
    )  # fmt: skip
    for name, san in (("server", "IP:127.0.0.1"), ("wrong", "DNS:other.example")):
        (folder / f"{name}.ext").write_text(
            f"subjectAltName={san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
        )
        _openssl(
            "req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}",
            "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=folder,
        )  # fmt: skip
        _openssl(
            "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", f"{name}.ext",
            "-out", f"{name}.pem", cwd=folder,
        )  # fmt: skip
    return Pki(
        ca=folder / "ca.pem",
        cert=folder / "server.pem",
        key=folder / "server.key",
        wrong_cert=folder / "wrong.pem",
        wrong_key=folder / "wrong.key",
    )
