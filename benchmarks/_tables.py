"""The markdown tables of docs/performance.md, from ``throughput.py``'s JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _apply_rows(rows: Sequence[dict[str, Any]]) -> list[str]:
    out = [
        "| case | R/s | E | N | requests (429s) | minimum s | linksync s "
        "| before / writing / after s | efficiency | sandbox capacity/s "
        "| efficiency vs min(R, capacity) | sequential s | speedup | failed rows "
        "| links after/expected | CLI start-up s |",
        "|" + " --- |" * 16,
    ]
    for r in rows:
        ours = r["linksync"]
        peer = r.get("sequential_peer") or {}
        ws = ours.get("workspace") or {}
        ph = ours.get("phases_s") or {}
        split = " / ".join(_fmt(ph.get(k), 1) for k in ("before_writes", "writes", "after_writes"))
        out.append(
            f"| {r['case']} | {r['rate_limit_per_s']} | {r['existing']} | {r['rows']} "
            f"| {_fmt(r.get('requests'))} ({_fmt(r.get('rate_limited'))}) "
            f"| {_fmt(r['minimum_s'])} | {_fmt(ours['wall_s'])} | {split} "
            f"| {_fmt(r.get('efficiency'))} | {_fmt(r.get('sandbox_capacity_per_s'), 0)} "
            f"| {_fmt(r.get('efficiency_vs_capacity'))} "
            f"| {_fmt(peer.get('process_wall_s'))} | {_fmt(r.get('speedup_vs_sequential'))}x "
            f"| {_fmt(ours.get('rows_failed'))} "
            f"| {ws.get('links_after')}/{ws.get('links_expected')} "
            f"| {_fmt(r.get('cli_startup_s'))} |"
        )
    return out


def _peer_rows(rows: Sequence[dict[str, Any]]) -> list[str]:
    """linksync's apply beside the hand-written aiohttp + orjson one (``fast``)."""
    out = [
        "| case | minimum s | linksync s / CPU s / efficiency "
        "| aiohttp + orjson s / CPU s / efficiency | efficiency vs peer | links as expected |",
        "|" + " --- |" * 6,
    ]
    for r in rows:
        ours, peer = r["linksync"], r["aiohttp_apply_peer"]
        both = (ours.get("workspace") or {}).get("ok") and (peer.get("workspace") or {}).get("ok")
        out.append(
            f"| {r['case']} | {_fmt(r['minimum_s'])} "
            f"| {_fmt(ours['wall_s'])} / {_fmt(ours.get('cpu_s'))} / {_fmt(r.get('efficiency'))} "
            f"| {_fmt(peer.get('wall_s'))} / {_fmt(peer.get('cpu_s'))} "
            f"/ {_fmt(peer.get('efficiency'))} | {_fmt(r.get('efficiency_vs_peer'))} "
            f"| {'yes' if both else 'NO'} |"
        )
    return out


def _cpu_rows(rows: Sequence[dict[str, Any]]) -> list[str]:
    out = [
        "| case | requests | client CPU s | sandbox CPU s | client / sandbox per 1,000 "
        "requests, whole run | client / sandbox per 1,000 requests, without start-up "
        "| client start-up CPU s |",
        "|" + " --- |" * 7,
    ]
    for r in rows:
        c = r.get("cpu") or {}
        out.append(
            f"| {r['case']} | {_fmt(r.get('requests'))} | {_fmt(c.get('client_cpu_s'))} "
            f"| {_fmt(c.get('sandbox_cpu_s'))} "
            f"| {_fmt(c.get('client_per_1000_requests'))} / "
            f"{_fmt(c.get('sandbox_per_1000_requests'))} "
            f"| {_fmt(c.get('client_marginal_per_1000'))} / "
            f"{_fmt(c.get('sandbox_marginal_per_1000'))} "
            f"| {_fmt(c.get('client_startup_cpu_s'))} |"
        )
    return out


def _pacing_rows(r: dict[str, Any]) -> list[str]:
    out = [
        "| limit / window | --concurrency | creates | requests | 429s received "
        "| failed rows | links as expected | s | windows needed |",
        "|" + " --- |" * 9,
    ]
    for p in r["points"]:
        out.append(
            f"| {p['limit']} / {p['window_s']:g} s | {p['concurrency']} | {p['rows']} "
            f"| {_fmt(p['requests'])} | {_fmt(p['rate_limited'])} | {_fmt(p['rows_failed'])} "
            f"| {'yes' if p['workspace_ok'] else 'NO'} "
            f"| {_fmt(p['wall_s'])} | {p.get('windows_needed', '-')} |"
        )
    return out


def _scale_rows(rows: Sequence[dict[str, Any]]) -> list[str]:
    out = []
    for r in rows:
        if r["case"].startswith("scale") and r["case"] != "scale-apply":
            ours, peer = r["linksync"], r.get("aiohttp_peer") or {}
            ratios = r.get("ratios") or {}
            out += [
                "| case | E | N (unchanged) | floor s | requests (minimum) "
                "| linksync s / CPU s / peak MB | aiohttp + orjson s / CPU s / peak MB "
                "| ratio wall / CPU / memory | plan exit (0 = nothing to do) |",
                "|" + " --- |" * 9,
                f"| {r['case']} | {r['existing']} | {r['rows']} | {_fmt(r.get('floor_s'))} "
                f"| {_fmt(r.get('requests'))} ({r['minimum_requests']}) "
                f"| {_fmt(ours.get('wall_s'))} / {_fmt(ours.get('cpu_s'))} "
                f"/ {_fmt(ours.get('max_rss_mb'), 0)} "
                f"| {_fmt(peer.get('wall_s'))} / {_fmt(peer.get('cpu_s'))} "
                f"/ {_fmt(peer.get('max_rss_mb'), 0)} "
                f"| {_fmt(ratios.get('wall'))} / {_fmt(ratios.get('cpu'))} "
                f"/ {_fmt(ratios.get('max_rss'))} | {ours.get('exit_code')} |",
                "",
            ]
        else:
            ours = r["linksync"]
            out += [
                "| case | R/s | creates | s | achieved/s | sandbox capacity for creates/s "
                "| efficiency vs min(R, capacity) | 429s | failed rows |",
                "|" + " --- |" * 9,
                f"| scale-apply | {r['rate_limit_per_s']} | {r['rows']} | {_fmt(ours['wall_s'])} "
                f"| {_fmt(r.get('achieved_per_s'), 0)} "
                f"| {_fmt(r.get('sandbox_create_capacity_per_s'), 0)} "
                f"| {_fmt(r.get('efficiency_vs_capacity'))} | {_fmt(r.get('rate_limited'))} "
                f"| {_fmt(ours.get('rows_failed'))} |",
                "",
            ]
    return out


def markdown(results: Sequence[dict[str, Any]]) -> str:
    applies = [r for r in results if "sequential_peer" in r]
    out: list[str] = []
    if applies:
        out += [*_apply_rows(applies), "", *_cpu_rows(applies), ""]
    peers = [r for r in applies if r.get("aiohttp_apply_peer")]
    if peers:
        out += [*_peer_rows(peers), ""]
    for r in results:
        if r["case"] == "pacing":
            out += [*_pacing_rows(r), ""]
    out += _scale_rows([r for r in results if r["case"].startswith("scale")])
    return "\n".join(out).rstrip() + "\n"
