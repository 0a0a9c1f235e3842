"""--check-destinations and the campaign's ``utm_*`` parameters, against a real
http.server on 127.0.0.1: a redirect that keeps the query, one that drops it, a chain of
two whose second hop drops it, one that changes a value, one to another host. A
parameter the row's URL carries and the final URL lacks is DEST_UTM_DROPPED on its row
(a warning; an error under --strict), in validate, plan (table and markdown), apply and
its reports."""

from __future__ import annotations

import csv
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner, Result

from linksync.cli import cli
from linksync.validate.destinations import Politeness, check_urls, utm_changes

FAST = Politeness(timeout=2.0, rate=200.0, retry_after_max=1.0, max_redirects=5)
UTM = "utm_source=newsletter&utm_medium=email&utm_campaign=spring"


class _Shop(BaseHTTPRequestHandler):
    """A shop whose old addresses redirect to ``/spring``, each in its own way."""

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def _route(self) -> None:
        parts = urlsplit(self.path)
        query = f"?{parts.query}" if parts.query else ""
        port = self.server.server_address[1]
        moves = {
            "/keep": (302, f"/spring{query}"),
            "/drop": (302, "/spring"),
            "/chain": (301, f"/hop{query}"),  # keeps it on the first hop...
            "/hop": (302, "/spring"),  # ...and loses it on the second
            "/change": (302, "/spring?utm_source=Newsletter&utm_medium=email&utm_campaign=spring"),
            "/half": (302, "/spring?utm_source=newsletter&ref=old"),
            "/away": (302, f"http://localhost:{port}/spring"),
            "/gone-after": (302, "/missing"),
        }
        if parts.path in moves:
            status, location = moves[parts.path]
            self.send_response(status)
            self.send_header("Location", location)
        else:
            self.send_response(200 if parts.path == "/spring" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_HEAD = _route
    do_GET = _route


@pytest.fixture
def shop() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Shop)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_each_redirect_is_judged_by_the_utm_parameters_the_final_url_keeps(shop: str) -> None:
    urls = {p: f"{shop}{p}?{UTM}" for p in ("/keep", "/drop", "/chain", "/change", "/half")}
    urls["plain"] = f"{shop}/drop?ref=old"  # no utm_* asked: nothing to lose
    done = check_urls(urls.values(), politeness=FAST)
    verdicts = {p: done.verdicts[u] for p, u in urls.items()}
    lost = {p: v.utm_dropped for p, v in verdicts.items()}
    assert lost == {
        "/keep": (),
        "/drop": ("utm_source", "utm_medium", "utm_campaign"),
        "/chain": ("utm_source", "utm_medium", "utm_campaign"),
        "/change": (),  # a value changed counts as kept...
        "/half": ("utm_medium", "utm_campaign"),  # ref= was never the row's: not named
        "plain": (),
    }
    assert verdicts["/change"].utm_changed == (("utm_source", "newsletter", "Newsletter"),)
    assert verdicts["/chain"].redirects == (301, 302)
    assert verdicts["/chain"].final == f"{shop}/spring"
    assert all(v.constant is None for v in verdicts.values()), "same host: no other finding"
    assert "Checked 6 destination URL(s)" in done.summary()
    assert "3 with a finding" in done.summary(), "a lost parameter is a finding"


def test_a_page_that_fails_after_the_redirect_has_its_own_finding_only(shop: str) -> None:
    url = f"{shop}/gone-after?{UTM}"
    verdict = check_urls([url], politeness=FAST).verdicts[url]
    assert (verdict.constant, verdict.utm_dropped) == ("DEST_NOT_FOUND", ())


def test_values_are_compared_decoded_and_only_the_rows_parameters_count() -> None:
    asked = "https://a.test/?utm_campaign=spring%20sale&utm_source=x&page=2"
    assert utm_changes(asked, "https://a.test/?utm_campaign=spring+sale&utm_source=x") == ((), ())
    assert utm_changes(asked, "https://a.test/#utm_source=x") == (
        ("utm_campaign", "utm_source"),
        (),
    ), "in a fragment, analytics do not see them"
    assert utm_changes("https://a.test/?page=2", "https://a.test/") == ((), ())


# --- on the rows, through the command line ---------------------------------------------


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _sheet(folder: Path, shop: str) -> Path:
    """A marketer's CSV: some URLs carry their UTM query, others get it from columns."""
    path = folder / "campaign.csv"
    rows = [
        "url,slug,utm_source,utm_medium,utm_campaign",
        f"{shop}/keep?{UTM},kept,,,",
        f"{shop}/drop,dropped,newsletter,email,spring",  # the columns make the query
        f"{shop}/chain?{UTM},chained,,,",
        f"{shop}/change?{UTM},changed,,,",
        f"{shop}/drop,no-utm,,,",
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


DROPPED = (
    "the destination redirects to {shop}/spring ({statuses}), which drops utm_source, "
    "utm_medium, utm_campaign: the campaign's numbers are lost; point the link at the final "
    "address, or fix the redirect to keep the query string"
)


def test_validate_warns_on_each_row_that_loses_its_parameters(workdir: Path, shop: str) -> None:
    path = _sheet(workdir, shop)
    result = run("validate", str(path), "--check-destinations")
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert out.count("DEST_UTM_DROPPED") == 2, result.output
    assert DROPPED.format(shop=shop, statuses="302") in out  # row 3, from its columns
    assert DROPPED.format(shop=shop, statuses="301, 302") in out  # row 4, the chain
    assert "row 3" in out and "row 4" in out
    for quiet in ("row 2", "row 5", "row 6"):
        assert quiet not in out, f"{quiet}: kept, changed, or no utm_* to lose"


def test_json_names_the_row_and_strict_makes_it_an_error(workdir: Path, shop: str) -> None:
    path = _sheet(workdir, shop)
    result = run("validate", str(path), "--check-destinations", "--json")
    found = [p for p in json.loads(result.stdout)["problems"] if p["constant"].startswith("DEST")]
    assert [(p["row"], p["constant"], p["severity"]) for p in found] == [
        (3, "DEST_UTM_DROPPED", "warning"),
        (4, "DEST_UTM_DROPPED", "warning"),
    ]
    strict = run("validate", str(path), "--check-destinations", "--strict")
    assert strict.exit_code == 1, strict.output
    assert "DEST_UTM_DROPPED" in strict.output and "an error under --strict" in strict.output


def test_a_redirect_to_another_host_that_drops_them_makes_two_findings(
    workdir: Path, shop: str
) -> None:
    path = workdir / "away.csv"
    path.write_text(f"url,slug\n{shop}/away?{UTM},away\n", encoding="utf-8")
    result = run("validate", str(path), "--check-destinations", "--json")
    found = [p["constant"] for p in json.loads(result.stdout)["problems"]]
    assert found == ["DEST_OTHER_HOST", "DEST_UTM_DROPPED"]


def test_plan_shows_it_on_the_row_in_the_table_and_the_markdown(workdir: Path, shop: str) -> None:
    path = _sheet(workdir, shop)
    table = run("plan", str(path), "--check-destinations")
    assert table.exit_code == 0, table.output
    assert "DEST_UTM_DROPPED" in table.output and "Plan: 5 create" in table.output
    markdown = run("plan", str(path), "--check-destinations", "--format", "markdown")
    assert markdown.exit_code == 0, markdown.output
    lines = [line for line in markdown.output.splitlines() if "DEST_UTM_DROPPED" in line]
    assert len(lines) == 2, markdown.output
    assert "lnk.test/dropped" in lines[0] and "lnk.test/chained" in lines[1]
    assert f"{shop}/spring (301, 302), which drops utm_source" in lines[1]


def test_apply_sends_the_rows_and_reports_the_loss_on_each(workdir: Path, shop: str) -> None:
    path = _sheet(workdir, shop)
    args = ["apply", str(path), "--check-destinations", "--yes"]
    result = run(*args, "--report", "run.csv", "--report", "run.json")
    assert result.exit_code == 0, result.output
    with Path("run.csv").open(encoding="utf-8-sig", newline="") as f:
        table = {r["slug"]: r for r in csv.DictReader(f)}
    doc = {r["slug"]: r for r in json.loads(Path("run.json").read_text("utf-8"))["results"]}
    for rows in (table, doc):
        for slug in ("dropped", "chained"):
            assert rows[slug]["status"] == "ok" and not rows[slug]["error_constant"]
            assert rows[slug]["message"].startswith("warning DEST_UTM_DROPPED: "), rows[slug]
            assert f"{shop}/spring" in rows[slug]["message"]
        for slug in ("kept", "changed", "no-utm"):
            assert not rows[slug]["message"], rows[slug]


def test_apply_strict_leaves_the_rows_that_lose_them_unsent(workdir: Path, shop: str) -> None:
    path = _sheet(workdir, shop)
    result = run("apply", str(path), "--check-destinations", "--strict", "--yes")
    assert result.exit_code == 1, result.output
    listed = run("links", "list", "--json").output
    assert '"kept"' in listed and '"dropped"' not in listed and '"chained"' not in listed
