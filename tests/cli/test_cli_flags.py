"""The flags of the run request are made of its fields (``linksync.cli.flags``): a new
field with a flag is a working option of every command that takes its value, with the
field's help, its ``--x/--no-x`` form, its repeated values, its bounds and choices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click
from click.testing import CliRunner, Result

from linksync.cli.common import given_flags, handle_errors
from linksync.cli.flags import request_flags
from linksync.pipeline.fields import from_flags, option, request_value


@request_value
class Drafts:
    """A run option a newcomer adds: its field is all the command line needs."""

    skip_drafts: bool | None = option(
        "skip the rows marked draft.",
        default=None,
        flag="--skip-drafts/--no-skip-drafts",
        profile="skip_drafts",
    )
    owners: Sequence[str] | None = option("only these owners' rows.", default=None, flag="--owner")
    wait: float = option("seconds to wait.", default=0, flag="--wait SECONDS", bounds=(0, None))
    report: str | None = option("a report file.", default=None, flag="--report FILE")
    mode: str | None = option(
        "how.", default=None, flag="--mode", choices="linksync.sync.options:MODES"
    )
    secret: str | None = option("no flag: the API's own.", default=None)


@click.command("drafts")
@request_flags(Drafts)
@handle_errors
def drafts_command(**kw: Any) -> None:
    click.echo(repr(from_flags(Drafts, given_flags())))


def run(*args: str) -> Result:
    return CliRunner().invoke(drafts_command, list(args), terminal_width=200)


def test_a_new_field_is_offered_with_its_help_and_its_profile_key() -> None:
    shown = " ".join(run("--help").output.split())
    assert (
        "--skip-drafts / --no-skip-drafts Skip the rows marked draft. [profile: skip_drafts]"
        in (shown)
    )
    assert "--owner TEXT Only these owners' rows. [repeatable]" in shown
    assert "--wait SECONDS Seconds to wait. [default: 0; x>=0]" in shown
    assert "--report FILE" in shown and "--secret" not in shown
    assert "--mode [upsert|create-only|update-only|mirror] How." in shown


def test_the_flags_given_build_the_value_and_the_rest_is_left_to_the_profile() -> None:
    given = run("--no-skip-drafts", "--owner", "ana", "--owner", "bo", "--wait", "2.5")
    assert given.exit_code == 0, given.output
    assert given.output.strip() == (
        "Drafts(skip_drafts=False, owners=('ana', 'bo'), wait=2.5, report=None, mode=None, "
        "secret=None)"
    )
    none = run()
    assert none.output.strip() == (
        "Drafts(skip_drafts=None, owners=None, wait=0.0, report=None, mode=None, secret=None)"
    )


def test_a_value_out_of_its_bounds_or_choices_or_a_folder_for_a_file_is_a_usage_error(
    tmp_path: Any,
) -> None:
    for args, said in (
        (["--wait", "-1"], "-1.0 is not in the range x>=0"),
        (["--mode", "sideways"], "'sideways' is not one of"),
        (["--report", str(tmp_path)], "is a directory"),
    ):
        result = run(*args)
        assert result.exit_code == 2 and said in result.output, result.output
