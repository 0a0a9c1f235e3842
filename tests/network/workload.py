"""The one workload every network test runs: a campaign file of 36 rows against a
workspace that holds 24 of them already (6 changed since, 18 the same: a quarter,
under the default safety threshold of updates).

``linksync apply`` must list the workspace, create 12 links and patch 6; a second
``linksync plan --detailed-exitcode`` must then find nothing to do. The CLI runs in this
process (click's runner) with an environment of the test's own: every proxy and trust
variable the test does not set is removed for the run.
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import httpx
from click.testing import CliRunner, Result

from linksync.cli import cli
from linksync.sandbox import DEFAULT_FULL_KEY

SEEDED = 24
CHANGED = 6
ROWS = 36
CREATES = ROWS - SEEDED
AUTH = {"Authorization": f"Bearer {DEFAULT_FULL_KEY}"}

#: Variables that change where requests go or what is trusted: the host's own values
#: (a CI runner's proxy, a developer's CA file) never leak into a test's run.
NETWORK_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "LINKSYNC_BASE_URL",
    "LINKSYNC_API_KEY",
    "LINKSYNC_PROFILE",
)


def slug(n: int) -> str:
    return f"net-{n:02d}"


def desired(n: int) -> tuple[str, str]:
    """(url, description) row ``n`` of the file asks for."""
    return f"https://example.com/campaign/{n}", f"row {n} as planned"


def seed(sandbox_url: str) -> None:
    """Put links 0-23 into the sandbox directly (not through nginx or a proxy): the
    first CHANGED with an older description, the rest as the file has them."""
    with httpx.Client(base_url=sandbox_url, headers=AUTH, trust_env=False) as http:
        for n in range(SEEDED):
            url, description = desired(n)
            if n < CHANGED:
                description = f"row {n} before the change"
            body = {"url": url, "slug": slug(n), "description": description}
            r = http.post("/api/v1/links", json=body)
            assert r.status_code == 201, r.text


def write_source(folder: Path) -> Path:
    path = folder / "campaign.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["slug", "url", "description"])
        for n in range(ROWS):
            out.writerow([slug(n), *desired(n)])
    return path


def workspace(sandbox_url: str) -> list[dict[str, object]]:
    """Every link of the sandbox, read directly."""
    with httpx.Client(base_url=sandbox_url, headers=AUTH, trust_env=False) as http:
        r = http.get("/api/v1/links", params={"limit": 100})
        assert r.status_code == 200, r.text
        links: list[dict[str, object]] = r.json()["data"]
        assert len(links) < 100
        return links


def assert_converged(sandbox_url: str) -> None:
    """Each row's link exists once, as the file asks."""
    links = workspace(sandbox_url)
    per_slug = Counter(str(link["slug"]) for link in links)
    assert per_slug == {slug(n): 1 for n in range(ROWS)}, per_slug
    by_slug = {link["slug"]: link for link in links}
    for n in range(ROWS):
        url, description = desired(n)
        assert (by_slug[slug(n)]["url"], by_slug[slug(n)]["description"]) == (url, description)


def assert_untouched(sandbox_url: str) -> None:
    """The workspace holds the seeded links only, as seeded."""
    links = workspace(sandbox_url)
    assert sorted(str(link["slug"]) for link in links) == [slug(n) for n in range(SEEDED)]
    for link in links:
        n = int(str(link["slug"]).removeprefix("net-"))
        assert (link["description"] == desired(n)[1]) == (n >= CHANGED)


def run(args: list[str], env: dict[str, str]) -> Result:
    """``linksync ARGS`` with the full-access key and exactly ``env`` for the network."""
    clean: dict[str, str | None] = dict.fromkeys(NETWORK_VARIABLES)
    clean["LINKSYNC_API_KEY"] = DEFAULT_FULL_KEY
    clean.update(env)
    return CliRunner().invoke(cli, args, env=clean, catch_exceptions=False)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the apply and the plan after it said; the report's rows."""

    apply: Result
    plan: Result
    report: list[dict[str, str]]

    def texts(self) -> str:
        """Everything a user saw or kept: both runs' output and the report file."""
        rows = "\n".join(",".join(r.values()) for r in self.report)
        return "\n".join([self.apply.stdout, self.apply.stderr, self.plan.stdout, rows])


def apply_then_plan(folder: Path, base_url: str, *flags: str, env: dict[str, str]) -> Outcome:
    """Apply the campaign through ``base_url``, then plan it again (same flags, same
    environment); the report of the apply is read back."""
    source = write_source(folder)
    report = folder / "report.csv"
    target = ["--base-url", base_url, *flags]
    applied = run(["apply", str(source), "--yes", "--no-progress", "--report", str(report),
                   *target], env)  # fmt: skip
    planned = run(["plan", str(source), "--detailed-exitcode", *target], env)
    rows: list[dict[str, str]] = []
    if report.exists():
        with report.open(newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    return Outcome(applied, planned, rows)


def assert_workload_done(outcome: Outcome, sandbox_url: str) -> None:
    """The apply created 12 links and updated 6, every row fine; the plan after it
    has nothing to do; the workspace holds each row's link once; no key in sight."""
    applied, planned = outcome.apply, outcome.plan
    assert applied.exit_code == 0, applied.output
    actions = Counter(row["action"] for row in outcome.report)
    assert actions == {"create": CREATES, "update": CHANGED, "unchanged": SEEDED - CHANGED}, (
        actions,
        applied.output,
    )
    failed = [row for row in outcome.report if row["status"] not in ("ok", "unchanged")]
    assert failed == [], failed
    assert planned.exit_code == 0, planned.output  # --detailed-exitcode: 3 if anything left
    assert_converged(sandbox_url)
    assert DEFAULT_FULL_KEY not in outcome.texts()
