"""The team's UTM rules on each row's final URL: every rule breached
and passed, through ``linksync validate`` (exit code and the constants of its JSON),
a YAML file's ``defaults: utm_rules:``, the near-value suggestions, --fix-utm-case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from linksync.cli import cli
from linksync.model import LinkSpec, Severity
from linksync.model.utm_rules import parse_utm_rules
from linksync.validate import validate

RULES = """utm_rules:
  required: [utm_source, utm_medium, utm_campaign]
  allowed:
    utm_source: [facebook, newsletter, google]
    medium: [social, email, cpc]
  pattern: {utm_campaign: "^[a-z0-9-]+$"}
  lowercase: true
  no_spaces: "-"
  max_length: 20
"""


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def check(workdir: Path, source: str, cells: str, *flags: str) -> tuple[int, list[dict]]:
    (workdir / "linksync.yaml").write_text(RULES, encoding="utf-8")
    (workdir / "c.csv").write_text(
        f"url,slug,utm_source,utm_medium,utm_campaign\nhttps://example.com/{source},s1,{cells}\n",
        encoding="utf-8",
    )
    result = run("validate", "c.csv", "--json", *flags)
    return result.exit_code, json.loads(result.output)["problems"]


@pytest.mark.parametrize(
    ("cells", "constant", "words"),
    [
        ("facebook,social,spring-2026", None, None),
        ("newsleter,email,spring-2026", "UTM_NOT_ALLOWED", "use `newsletter`"),
        ("facebook,fax,spring-2026", "UTM_NOT_ALLOWED", "utm_medium 'fax'"),
        ("Facebook,social,spring-2026", "UTM_CASE", "use `facebook`"),
        ("facebook,social,spring 2026", "UTM_SPACES", "use `spring-2026`"),
        ("facebook,social,", "UTM_MISSING", "utm_campaign is missing"),
        ("facebook,social,spring_2026", "UTM_NOT_ALLOWED", "^[a-z0-9-]+$"),
        ("facebook,social," + "a" * 21, "UTM_TOO_LONG", "at most 20"),
    ],
)
def test_each_rule_breached_or_passed_through_the_command(
    workdir: Path, cells: str, constant: str | None, words: str | None
) -> None:
    code, problems = check(workdir, "x", cells)
    if constant is None:
        assert (code, problems) == (0, [])
        return
    assert code == 1
    assert [p["constant"] for p in problems] == [constant]
    assert problems[0]["severity"] == "error" and problems[0]["row"] == 2
    assert words in problems[0]["message"]


def test_rules_read_the_final_url_after_the_columns_are_merged(workdir: Path) -> None:
    # The URL carries utm_source itself; the columns bring the rest.
    code, problems = check(workdir, "x?utm_source=Newsletter", ",email,spring")
    assert code == 1
    assert [p["constant"] for p in problems] == ["UTM_CASE"]
    assert "utm_source 'Newsletter'" in problems[0]["message"]


def test_fix_utm_case_lists_each_fix_and_checks_the_fixed_value(workdir: Path) -> None:
    code, problems = check(workdir, "x", "Facebook,social,Spring Sale", "--fix-utm-case")
    assert code == 0
    assert [(p["constant"], p["severity"]) for p in problems] == [
        ("UTM_CASE", "warning"),
        ("UTM_CASE", "warning"),
    ]
    assert "'Facebook' changed to 'facebook'" in problems[0]["message"]
    assert "'Spring Sale' changed to 'spring-sale'" in problems[1]["message"]
    # A fixed value that is still not allowed stays an error.
    code, problems = check(workdir, "x", "Newsleter,email,a", "--fix-utm-case")
    assert code == 1
    assert [p["constant"] for p in problems] == ["UTM_CASE", "UTM_NOT_ALLOWED"]


def test_a_yaml_files_defaults_bring_rules_over_the_profiles(workdir: Path) -> None:
    (workdir / "linksync.yaml").write_text(RULES, encoding="utf-8")
    (workdir / "links.yaml").write_text(
        "defaults:\n"
        "  utm_rules:\n"
        "    allowed: {utm_source: [partner]}\n"
        "    max_length: 7\n"
        "links:\n"
        "  a: {url: 'https://example.com/a', utm: {source: partner, medium: email, "
        "campaign: ok}}\n"
        "  b: {url: 'https://example.com/b', utm: {source: google, medium: email, "
        "campaign: toolong1}}\n",
        encoding="utf-8",
    )
    result = run("validate", "links.yaml", "--json")
    assert result.exit_code == 1
    problems = json.loads(result.output)["problems"]
    assert sorted(p["constant"] for p in problems) == ["UTM_NOT_ALLOWED", "UTM_TOO_LONG"]
    assert {p["row"] for p in problems} == {7}  # entry b (line 7) only: partner is allowed here


def test_a_bad_yaml_rules_block_is_an_error_of_the_file(workdir: Path) -> None:
    (workdir / "links.yaml").write_text(
        "defaults:\n  utm_rules: {max_length: many}\nlinks:\n  a: https://example.com/a\n",
        encoding="utf-8",
    )
    result = run("validate", "links.yaml", "--json")
    assert result.exit_code == 1
    problems = json.loads(result.output)["problems"]
    assert "defaults.utm_rules.max_length" in problems[0]["message"]


def test_library_validate_takes_the_rules_and_leaves_other_parameters_alone() -> None:
    rules = parse_utm_rules({"lowercase": True, "no_spaces": True})
    url = "https://example.com/p?ref=A%20B&utm_source=Big+News#top"
    spec = LinkSpec(url=url, slug="p", managed=frozenset({"url", "slug"}))
    refused = validate([spec], utm_rules=rules)
    assert [p.constant for p in refused.errors] == ["UTM_SPACES", "UTM_CASE"]
    fixed = validate([spec], utm_rules=rules, fix_utm_case=True)
    assert fixed.ok and [p.severity for p in fixed.problems] == [Severity.WARNING]
    assert fixed.specs[0].url == "https://example.com/p?ref=A%20B&utm_source=big-news#top"
    assert validate([spec]).problems == ()  # no rules, no checks


def test_a_fix_rewrites_the_query_only() -> None:
    rules = parse_utm_rules({"lowercase": True})
    url = "https://example.com/utm_source=Ads/?utm_source=Ads&x=Ads"
    spec = LinkSpec(url=url, slug="q", managed=frozenset({"url", "slug"}))
    fixed = validate([spec], utm_rules=rules, fix_utm_case=True)
    assert fixed.specs[0].url == "https://example.com/utm_source=Ads/?utm_source=ads&x=Ads"
