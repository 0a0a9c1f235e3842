"""``linksync template`` with the profile's utm_rules: the UTM
columns carry dropdowns of the allowed values, and the examples still validate."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
from click.testing import CliRunner

from linksync.cli import cli

RULES = """\
utm_rules:
  required: [utm_source, utm_medium, utm_campaign, utm_content]
  allowed:
    utm_source: [facebook, newsletter, google]
    utm_medium: [social, mail, cpc]
    utm_content: {content}
  lowercase: true
"""


def _config(tmp_path: Path, content: str = "[banner, text-link]") -> Path:
    config = tmp_path / "linksync.yaml"
    config.write_text(RULES.format(content=content), encoding="utf-8")
    return config


def _template(tmp_path: Path, config: Path, name: str = "links.xlsx") -> Path:
    out = tmp_path / name
    res = CliRunner().invoke(cli, ["template", str(out), "--config", str(config)])
    assert res.exit_code == 0, res.output
    return out


def _validations(path: Path) -> dict[str, tuple[str, str, str | None]]:
    """header -> (range, formula, input message) of each list validation of Links."""
    ws = openpyxl.load_workbook(path)["Links"]
    headers = [c.value for c in ws[1]]
    out = {}
    for dv in ws.data_validations.dataValidation:
        assert dv.type == "list"
        ref = str(dv.sqref)
        col = openpyxl.utils.cell.column_index_from_string(ref.split(":")[0].rstrip("0123456789"))
        out[headers[col - 1]] = (ref, dv.formula1, dv.prompt)
    return out


def test_utm_columns_get_dropdowns_of_the_allowed_values(tmp_path: Path) -> None:
    out = _template(tmp_path, _config(tmp_path))
    wb = openpyxl.load_workbook(out)
    headers = [c.value for c in wb["Links"][1]]
    assert headers[-4:] == ["utm_source", "utm_medium", "utm_campaign", "utm_content"]
    found = _validations(out)
    assert set(found) == {"utm_source", "utm_medium", "utm_content"}  # campaign: no list
    assert found["utm_source"][:2] == ("J2:J1001", '"facebook,newsletter,google"')
    assert found["utm_medium"][:2] == ("K2:K1001", '"social,mail,cpc"')
    assert found["utm_content"][:2] == ("M2:M1001", '"banner,text-link"')
    assert found["utm_medium"][2] == "The team's utm_rules: utm_medium one of: social, mail, cpc"
    assert "utm_source one of: facebook, newsletter, google" in [
        row[1] for row in wb["Instructions"].iter_rows(values_only=True)
    ]


def test_the_examples_pass_the_rules(tmp_path: Path) -> None:
    config = _config(tmp_path)
    for name in ("links.xlsx", "links.csv"):
        out = _template(tmp_path, config, name)
        res = CliRunner().invoke(cli, ["validate", str(out), "--config", str(config), "--json"])
        assert res.exit_code == 0, res.output
        assert json.loads(res.output)["problems"] == []
    rows = list(
        openpyxl.load_workbook(tmp_path / "links.xlsx")["Links"].iter_rows(values_only=True)
    )
    # "email" is not an allowed medium: the first allowed one instead; an empty
    # required cell gets the first allowed value (or the example's, without a list)
    assert [r[9:13] for r in rows[1:]] == [
        ("newsletter", "social", "spring-2026", "banner"),
        ("facebook", "social", "spring-2026", "banner"),
        ("facebook", "social", "spring-2026", "banner"),
    ]


def test_a_list_past_255_characters_is_kept_on_a_hidden_sheet(tmp_path: Path) -> None:
    values = [f"creative-variant-{n:03d}" for n in range(40)]
    out = _template(tmp_path, _config(tmp_path, json.dumps(values)))
    wb = openpyxl.load_workbook(out)
    assert wb["Lists"].sheet_state == "hidden"
    ref, formula, _ = _validations(out)["utm_content"]
    assert (ref, formula) == ("M2:M1001", "Lists!$E$2:$E$41")
    assert [c.value for c in wb["Lists"]["E"]] == ["utm_content", *values]


def test_without_rules_no_dropdown(tmp_path: Path) -> None:
    config = tmp_path / "linksync.yaml"
    config.write_text("default_domain: go.example.com\n", encoding="utf-8")
    out = _template(tmp_path, config)
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["Links", "Instructions"]
    assert list(wb["Links"].data_validations.dataValidation) == []
    assert wb["Links"]["L1"].value == "utm_campaign" and wb["Links"]["M1"].value is None
