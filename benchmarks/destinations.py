"""How long ``--check-destinations`` takes: 2,000 distinct URLs against local servers
answering after 50-200 ms (uniform, so 125 ms on average), spread over 50 hosts (50
ports of 127.0.0.1: the check limits requests per host and port), at the default
politeness (2 at a time per host, 20 requests a second in all, HEAD), and once more
without the total cap to show what the per-host limit alone allows.

What it shows: at the defaults the total cap decides (2,000 / 20 per second = 100 s);
the per-host limit over 50 hosts would allow 50 x 2 / 0.125 s = 800 a second. With one
host the per-host limit decides instead (2,000 x 0.125 / 2 = 125 s). The servers run in
a process of their own so the client's event loop is measured alone. Prints JSON.

    .venv/bin/python benchmarks/destinations.py [--urls 2000] [--hosts 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import socket
import time

from linksync.validate.destinations import Politeness, check_urls


def _free_ports(n: int) -> list[int]:
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


async def _serve(ports: list[int]) -> None:
    rng = random.Random(7)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                if not head:
                    break
                await asyncio.sleep(rng.uniform(0.05, 0.2))
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    servers = [await asyncio.start_server(answer, "127.0.0.1", p, backlog=512) for p in ports]
    await asyncio.gather(*(s.serve_forever() for s in servers))


def _server_process(ports: list[int]) -> None:
    asyncio.run(_serve(ports))


def _wait_listening(ports: list[int]) -> None:
    deadline = time.monotonic() + 10
    for port in ports:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)


def _run(urls: list[str], politeness: Politeness) -> dict[str, object]:
    done = check_urls(urls, politeness=politeness)
    bad = sum(1 for v in done.verdicts.values() if v.constant)
    return {
        "urls": done.checked,
        "seconds": round(done.seconds, 2),
        "urls_per_s": round(done.checked / done.seconds, 1),
        "findings": bad,
        "per_host": politeness.per_host,
        "rate_cap_per_s": politeness.rate or None,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--urls", type=int, default=2000)
    parser.add_argument("--hosts", type=int, default=50)
    args = parser.parse_args()
    ports = _free_ports(args.hosts)
    server = multiprocessing.Process(target=_server_process, args=(ports,), daemon=True)
    server.start()
    try:
        _wait_listening(ports)
        urls = [f"http://127.0.0.1:{ports[i % len(ports)]}/page/{i}" for i in range(args.urls)]
        default = _run(urls, Politeness())
        uncapped = _run([u + "?again" for u in urls], Politeness(rate=0))
    finally:
        server.terminate()
        server.join(5)
    print(
        json.dumps(
            {
                "benchmark": "destinations",
                "latency_ms": "uniform 50-200",
                "hosts": args.hosts,
                "default_politeness": default,
                "without_total_cap": uncapped,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
