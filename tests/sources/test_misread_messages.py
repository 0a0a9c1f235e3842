"""Messages that point the user the right way when a value does not read.

- With ``--date-format dmy`` given, a date that does not fit it (``12/31/2027``) said
  "pass --date-format dmy"; now it says the date does not read as the format given,
  and what it reads as the other way round.
- A ``utm:`` written as a YAML list was reported under ``key "url"`` at the link's
  first line; now under ``key "utm"`` with its own line."""

from __future__ import annotations

from pathlib import Path

from hostile_inputs import Expect, remote, run, validate


def test_a_date_that_does_not_fit_the_date_format_given(workdir: Path) -> None:
    path = workdir / "export.csv"
    # As Excel saves "CSV UTF-8" on a machine set to day-first dates.
    path.write_bytes(
        "\ufeffSlug,Destination URL,Expiry\r\n"
        "spring,https://example.com/spring,31/12/2030\r\n"
        "summer,https://example.com/summer,12/31/2030\r\n".encode()
    )
    checked = validate(
        path,
        "--date-format",
        "dmy",
        code=1,
        expect=[
            Expect(
                3,
                "Expiry",
                "'12/31/2030' is not a date as --date-format dmy (31/12/2026) reads it; "
                "it reads as mdy (2030-12-31): write it as 2030-12-31",
            )
        ],
        good_rows=[2],
    )
    messages = [p["message"] for p in checked.problems]
    assert len(messages) == 1 and "pass --date-format" not in messages[0], messages
    result = run("apply", "export.csv", "--date-format", "dmy", "--yes", "--no-progress")
    assert result.exit_code == 1, result.output
    assert sorted(remote(workdir)) == ["spring"]


def test_a_yaml_date_that_does_not_fit_the_date_format_given(workdir: Path) -> None:
    path = workdir / "links.yaml"
    path.write_text(
        "links:\n  spring:\n    url: https://example.com/spring\n    expires_at: 12/31/2030\n",
        encoding="utf-8",
    )
    checked = validate(path, "--date-format", "dmy", code=1)
    messages = [p["message"] for p in checked.problems]
    assert messages == [
        "'12/31/2030' is not a date as --date-format dmy (31/12/2026) reads it; it reads "
        "as mdy (2030-12-31): write it as 2030-12-31, or fix the date"
    ], messages


def test_a_utm_list_is_named_by_its_key_and_line(workdir: Path) -> None:
    path = workdir / "links.yaml"
    path.write_text(
        "links:\n"
        "  spring:\n"
        "    url: https://example.com/spring\n"
        "    description: Spring sale\n"
        "    utm:\n"
        "      - source: newsletter\n"
        "      - medium: email\n"
        "  summer: https://example.com/summer\n",
        encoding="utf-8",
    )
    checked = validate(path, code=1)
    [problem] = checked.problems
    assert problem["column"] == "utm", problem
    assert problem["message"] == (
        'key "utm" on line 5: expected a mapping such as {source: newsletter}, not a list'
    ), problem
    result = run("validate", str(path))
    assert 'key "url"' not in result.output, result.output
    assert 'key "utm" on line 5' in result.output, result.output
