"""Real nginx and tinyproxy on 127.0.0.1, each in a temporary folder of its own.

Each one runs in the foreground as a child of the test (``nginx -g 'daemon off;'``,
``tinyproxy -d``), from a config file written here, on a free port, with its pid file
and logs in its folder. ``start_*`` returns once the port accepts connections;
``Daemon.stop()`` ends the process by its pid and waits for it.

The access log of nginx is written in the format ``LOG_FORMAT``: ``access_lines`` reads
it back, one ``Access`` per request nginx answered.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .pki import Pki

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
TINYPROXY = shutil.which("tinyproxy") or "/usr/bin/tinyproxy"
START_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0


def free_port() -> int:
    """A port nothing listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Daemon:
    """A server process of the test: its pid, port and folder."""

    name: str
    process: subprocess.Popen[bytes]
    port: int
    folder: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def output(self) -> str:
        return (self.folder / f"{self.name}.out").read_text(errors="replace")

    def stop(self) -> None:
        """SIGTERM by pid, wait; SIGKILL if it has not ended within STOP_TIMEOUT."""
        if self.process.poll() is None:
            os.kill(self.pid, signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.kill(self.pid, signal.SIGKILL)
                self.process.wait(STOP_TIMEOUT)


def settled_text(path: Path, quiet: float = 0.03, timeout: float = 2.0) -> str:
    """The text of a server's log once it stopped growing for ``quiet`` seconds: a
    server writes a request's line as it finishes it, which may be just after the
    client had its answer."""
    deadline = time.monotonic() + timeout
    size = -1
    while time.monotonic() < deadline:
        now = path.stat().st_size if path.exists() else 0
        if now == size:
            break
        size = now
        time.sleep(quiet)
    return path.read_text(errors="replace") if path.exists() else ""


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _pid_in(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _start(name: str, argv: list[str], port: int, folder: Path, logs: list[Path]) -> Daemon:
    """Start ``argv``; ready once its pid file (``NAME.pid`` in ``folder``, written
    after the port is bound) holds its pid and the port accepts a connection, so a
    process of someone else's on that port is never taken for it."""
    pid_file = folder / f"{name}.pid"
    pid_file.unlink(missing_ok=True)
    with (folder / f"{name}.out").open("wb") as out:
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=folder
        )
    daemon = Daemon(name, process, port, folder)
    deadline = time.monotonic() + START_TIMEOUT
    while process.poll() is None and time.monotonic() < deadline:
        if _pid_in(pid_file) == process.pid and _listening(port):
            return daemon
        time.sleep(0.01)
    daemon.stop()
    said = "\n".join(p.read_text(errors="replace") for p in logs if p.exists())
    raise RuntimeError(
        f"{name} did not listen on 127.0.0.1:{port} (exit {process.returncode}):\n"
        f"{daemon.output()}\n{said}"
    )


def _start_on_free_port(launch: Callable[[int], Daemon]) -> Daemon:
    """Start with a free port; another one if that port was taken meanwhile (a parallel
    test worker may have picked it too)."""
    for attempt in range(3):
        try:
            return launch(free_port())
        except RuntimeError as exc:
            taken = "in use" in str(exc) or "Could not create listening sockets" in str(exc)
            if not taken or attempt == 2:
                raise
    raise AssertionError("unreachable")


# --- nginx ------------------------------------------------------------------------------

LOG_FORMAT = (
    "$remote_addr $connection $connection_requests $status "
    "ce=$sent_http_content_encoding te=$sent_http_transfer_encoding "
    'gz=$gzip_ratio "$request"'
)
_ACCESS = re.compile(
    r"^(?P<addr>\S+) (?P<conn>\d+) (?P<nreq>\d+) (?P<status>\d+) ce=(?P<ce>\S*) "
    r"te=(?P<te>\S*) gz=(?P<gz>\S*) "
    r"\"(?P<method>\S+) (?P<target>\S+) (?P<proto>[^\"]+)\"$"
)


@dataclass(frozen=True, slots=True)
class Access:
    """One line of the nginx access log: a request nginx answered."""

    remote_addr: str
    connection: int
    connection_requests: int
    status: int
    content_encoding: str
    transfer_encoding: str
    gzip_ratio: str
    method: str
    target: str


@dataclass(frozen=True, slots=True)
class Site:
    """What the nginx in front of the sandbox does besides proxying: TLS with ``tls``,
    more ``directives`` in its server block, and with ``allow_only`` every client but
    that address is answered 403."""

    tls: Pki | None = None
    directives: str = ""
    allow_only: str | None = None


@dataclass
class Nginx:
    daemon: Daemon
    scheme: str

    @property
    def base_url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.daemon.port}"

    @property
    def access_log(self) -> Path:
        return self.daemon.folder / "access.log"

    @property
    def error_log(self) -> Path:
        return self.daemon.folder / "error.log"

    def access_lines(self) -> list[Access]:
        """Every request nginx answered so far (it writes each line as it answers)."""
        lines = []
        for raw in settled_text(self.access_log).splitlines():
            m = _ACCESS.match(raw)
            assert m is not None, f"unexpected access log line: {raw!r}"
            lines.append(
                Access(
                    remote_addr=m["addr"],
                    connection=int(m["conn"]),
                    connection_requests=int(m["nreq"]),
                    status=int(m["status"]),
                    content_encoding=m["ce"].strip("-"),
                    transfer_encoding=m["te"].strip("-"),
                    gzip_ratio=m["gz"].strip("-"),
                    method=m["method"],
                    target=m["target"],
                )
            )
        return lines

    def refused_handshakes(self) -> list[str]:
        """The error log's lines of TLS handshakes a client broke off or refused (the
        readiness probe, which connects and sends nothing, is not one of them)."""
        return [
            line
            for line in settled_text(self.error_log).splitlines()
            if "while SSL handshaking" in line
            and "client closed connection while SSL handshaking" not in line
        ]

    def stop(self) -> None:
        self.daemon.stop()


def _nginx_conf(folder: Path, port: int, upstream: str, site: Site) -> str:
    d = folder
    user = ""
    if os.geteuid() == 0:  # workers would run as nobody, who cannot enter the temp folder
        user = f"user {pwd.getpwuid(0).pw_name};"
    tls = ""
    if site.tls is not None:
        tls = (
            f"ssl_certificate {site.tls.server_cert};\n"
            f"        ssl_certificate_key {site.tls.server_key};"
        )
    access = f"allow {site.allow_only};\n        deny all;" if site.allow_only else ""
    ssl = " ssl" if site.tls is not None else ""
    return f"""
{user}
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log info;
events {{ worker_connections 256; }}
http {{
    log_format net '{LOG_FORMAT}';
    access_log {d}/access.log net;
    client_body_temp_path {d}/tmp/body;
    proxy_temp_path {d}/tmp/proxy;
    fastcgi_temp_path {d}/tmp/fastcgi;
    uwsgi_temp_path {d}/tmp/uwsgi;
    scgi_temp_path {d}/tmp/scgi;
    upstream sandbox {{
        server {upstream};
        keepalive 8;
    }}
    server {{
        listen 127.0.0.1:{port}{ssl};
        {tls}
        {access}
        {site.directives}
        location / {{
            proxy_pass http://sandbox;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
        }}
    }}
}}
"""


def start_nginx(folder: Path, upstream_base_url: str, site: Site) -> Nginx:
    """nginx in ``folder`` on a free port of 127.0.0.1, proxying to the sandbox at
    ``upstream_base_url`` (``http://127.0.0.1:PORT``)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tmp").mkdir(exist_ok=True)
    upstream = upstream_base_url.removeprefix("http://")

    def launch(port: int) -> Daemon:
        conf = folder / "nginx.conf"
        conf.write_text(_nginx_conf(folder, port, upstream, site))
        argv = [NGINX, "-c", str(conf), "-p", str(folder), "-e", str(folder / "error.log")]
        return _start("nginx", [*argv, "-g", "daemon off;"], port, folder, [folder / "error.log"])

    daemon = _start_on_free_port(launch)
    return Nginx(daemon, "https" if site.tls is not None else "http")


# --- tinyproxy --------------------------------------------------------------------------

PROXY_USER = "proxyuser"
PROXY_PASSWORD = "pr0xy-s3cret-9f8e7d"


@dataclass
class Tinyproxy:
    daemon: Daemon

    @property
    def url(self) -> str:
        """The proxy's URL with its credentials (what a user puts in HTTPS_PROXY)."""
        return f"http://{PROXY_USER}:{PROXY_PASSWORD}@127.0.0.1:{self.daemon.port}"

    @property
    def log(self) -> Path:
        return self.daemon.folder / "tinyproxy.log"

    def requests(self) -> list[str]:
        """The request lines the proxy logged, e.g. ``CONNECT 127.0.0.1:8443 HTTP/1.1``
        or ``GET http://127.0.0.1:8080/api/v1/links?... HTTP/1.1``."""
        found = re.findall(r"Request \(file descriptor \d+\): (.+)$", settled_text(self.log), re.M)
        return [line.strip() for line in found]

    def stop(self) -> None:
        self.daemon.stop()


def start_tinyproxy(folder: Path, *, bind: str, connect_port: int) -> Tinyproxy:
    """tinyproxy in ``folder`` on a free port of 127.0.0.1, for clients of 127.0.0.1
    with Basic proxy authentication, opening its outgoing connections from ``bind``;
    CONNECT only to ``connect_port``. Every request is logged (``LogLevel Info``)."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "tinyproxy.log"

    def launch(port: int) -> Daemon:
        conf = folder / "tinyproxy.conf"
        conf.write_text(
            f"Port {port}\n"
            "Listen 127.0.0.1\n"
            f"Bind {bind}\n"
            "Timeout 30\n"
            f'LogFile "{log}"\n'
            "LogLevel Info\n"
            f'PidFile "{folder}/tinyproxy.pid"\n'
            "MaxClients 100\n"
            "Allow 127.0.0.1\n"
            f"BasicAuth {PROXY_USER} {PROXY_PASSWORD}\n"
            f"ConnectPort {connect_port}\n"
        )
        return _start("tinyproxy", [TINYPROXY, "-d", "-c", str(conf)], port, folder, [log])

    return Tinyproxy(_start_on_free_port(launch))
