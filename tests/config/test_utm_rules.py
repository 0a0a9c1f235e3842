"""A profile's ``utm_rules:`` block: read and checked, and a bad
block is a configuration error (exit 2) naming the key, before anything is read."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from linksync.cli import cli
from linksync.config.profiles import parse_profile
from linksync.errors import ConfigError


def test_a_block_with_every_kind_of_rule_is_read() -> None:
    prof = parse_profile(
        None,
        {
            "utm_rules": {
                "required": ["utm_source", "medium", "utm_campaign"],
                "allowed": {"utm_source": ["facebook", "newsletter"], "content": "^v[0-9]$"},
                "pattern": {"utm_campaign": "^[a-z0-9-]+$"},
                "lowercase": True,
                "no_spaces": "_",
                "max_length": 100,
            }
        },
    )
    rules = prof.utm_rules
    assert rules is not None
    assert rules.required == ("utm_source", "utm_medium", "utm_campaign")
    assert rules.allowed == {"utm_source": ("facebook", "newsletter")}
    assert rules.patterns == {"utm_content": "^v[0-9]$", "utm_campaign": "^[a-z0-9-]+$"}
    assert (rules.lowercase, rules.no_spaces, rules.max_length) == (True, "_", 100)
    assert "utm_source one of: facebook, newsletter" in rules.describe()
    assert parse_profile(None, {}).utm_rules is None


@pytest.mark.parametrize(
    ("block", "words"),
    [
        ({"required": ["utm_sorce"]}, 'did you mean "utm_source"'),
        ({"allowed": {"utm_source": []}}, "utm_rules.allowed.utm_source must be a non-empty"),
        ({"pattern": {"utm_campaign": "(["}}, "not a valid regular expression"),
        ({"lowercase": "yes please"}, "utm_rules.lowercase must be true or false"),
        ({"no_spaces": "--"}, "utm_rules.no_spaces must be"),
        ({"max_length": 0}, "utm_rules.max_length must be a whole number"),
        ({"maxlength": 5}, "unknown key(s) maxlength"),
        ([1], "utm_rules must be a mapping"),
    ],
)
def test_a_bad_block_is_a_config_error_naming_the_key(block: object, words: str) -> None:
    with pytest.raises(ConfigError, match="profile 'team'") as info:
        parse_profile("team", {"utm_rules": block})
    assert words in str(info.value)


def test_a_bad_block_stops_validate_with_exit_2(workdir: Path) -> None:
    (workdir / "linksync.yaml").write_text("utm_rules: {max_length: -1}\n", encoding="utf-8")
    (workdir / "c.csv").write_text("url\nhttps://example.com/\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", "c.csv"])
    assert result.exit_code == 2
    assert "utm_rules.max_length" in result.output
