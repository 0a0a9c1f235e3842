"""The run request (``linksync.pipeline.request``): the runs are plain functions of at
most 10 parameters taking its values; every field has its line of help; the command
line's flags, the profile's keys and the fields agree (a flag without a field, a field
whose flag is no option, a profile key no field names fail here, unless a table below
says why); the values each front end builds from them are the same."""

from __future__ import annotations

import inspect
import pydoc
from collections.abc import Callable, Mapping
from dataclasses import Field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any

import click
import pytest
import yaml

import linksync
from linksync.cli import cli
from linksync.cli.apply import apply_command
from linksync.cli.common import given_flags
from linksync.cli.sources import validate_command
from linksync.cli.sync import plan_command
from linksync.cli.undo import undo_command
from linksync.config import resolve
from linksync.config.profiles import PROFILE_KEYS, parse_profile
from linksync.config.targets import TARGET_ONLY_KEYS
from linksync.errors import ConfigError
from linksync.pipeline import entry
from linksync.pipeline.fields import (
    command_words,
    flag_of,
    flags_of,
    from_flags,
    from_profile,
    over,
    profile_fields,
)
from linksync.pipeline.inputs import LIMIT_KEYS, SourceReading, sync_options
from linksync.pipeline.request import (
    Connection,
    Hooks,
    Notify,
    Outputs,
    PlanOutputs,
    Reading,
    SyncPolicy,
)

VALUES = (Reading, SyncPolicy, Notify, Outputs, PlanOutputs, Hooks, Connection)
RUNS: dict[str, Callable[..., Any]] = {
    "plan": linksync.plan,
    "plan_async": linksync.plan_async,
    "apply": linksync.apply,
    "apply_async": linksync.apply_async,
    "prepare_apply": entry.prepare_apply,
    "plan_all": linksync.plan_all,
    "apply_all": linksync.apply_all,
}


def params(fn: Callable[..., Any]) -> list[inspect.Parameter]:
    return list(inspect.signature(fn).parameters.values())


@pytest.mark.parametrize("name", RUNS)
def test_each_run_is_a_plain_function_of_at_most_10_parameters(name: str) -> None:
    fn = RUNS[name]
    assert inspect.isfunction(fn) and fn.__name__ == fn.__qualname__ == name
    assert "__wrapped__" not in vars(fn) and "__signature__" not in vars(fn)
    first, *rest = params(fn)
    assert first.name in {"sources", "targets"} and len(rest) + 1 <= 10
    for p in rest:
        assert p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY), f"{name}({p.name})"
        assert p.default is not p.empty, f"{name}({p.name}): no default"


def test_the_sync_and_async_forms_take_the_same_parameters_and_return_their_own() -> None:
    assert params(linksync.plan) == params(linksync.plan_async)
    assert params(linksync.apply) == params(linksync.apply_async) == params(entry.prepare_apply)
    assert inspect.iscoroutinefunction(linksync.plan_async)
    assert inspect.iscoroutinefunction(linksync.apply_async)
    assert inspect.signature(linksync.plan).return_annotation == "Planned"
    assert inspect.signature(linksync.apply).return_annotation == "Results"


def test_plan_and_apply_are_written_with_def_and_no_run_reads_its_locals() -> None:
    source = Path(entry.__file__).read_text(encoding="utf-8")
    assert "\ndef plan(" in source and "\ndef apply(" in source
    for path in Path(entry.__file__).parent.glob("*.py"):
        assert "locals()" not in path.read_text(encoding="utf-8"), path.name


@pytest.mark.parametrize("name", ["plan", "apply", "plan_all", "apply_all"])
def test_help_of_a_run_has_a_line_per_parameter(name: str) -> None:
    fn = RUNS[name]
    args = (inspect.getdoc(fn) or "").partition("\nArgs:\n")[2].splitlines()
    described = [line.split(":")[0].strip() for line in args if not line.startswith(" " * 8)]
    assert described == [p.name for p in params(fn)]


@pytest.mark.parametrize("kind", VALUES, ids=lambda k: k.__name__)
def test_help_of_a_value_shows_each_field_its_flag_and_its_profile_key(kind: type) -> None:
    shown = " ".join(pydoc.render_doc(kind, renderer=pydoc.plaintext).split())
    for f in kind.__dataclass_fields__.values():
        assert f"{f.name}: {' '.join(f.metadata['help'].split())}" in shown
        for said in (f.metadata["flag"], f.metadata["profile"]):
            assert said is None or said in shown


def test_a_value_reads_an_empty_text_or_list_as_not_given() -> None:
    reading = Reading(sheets=[], encoding="  ", empty_values=["N/A"], mapping={1: "url"})  # type: ignore[dict-item]
    assert reading.sheets is None and reading.encoding is None
    assert reading.empty_values == ("N/A",) and reading.mapping == {"1": "url"}
    assert SyncPolicy(scope_domains=["a.test"], owner_tag="").scope_domains == ("a.test",)
    assert SyncPolicy(owner_tag="").owner_tag is None
    assert Outputs(reports=["a.csv"]).reports == ("a.csv",)
    assert "slack://" not in repr(Notify(urls=["slack://T/B/secret"]))
    assert "secret" not in repr(Connection(proxy="http://u:secret@proxy:3128"))


# --- the command line's flags and the fields --------------------------------------------


def because(reason: str, *flags: str) -> dict[str, str]:
    return dict.fromkeys(flags, reason)


#: Flags of no field (flag -> reason), by what they are.
TARGET = because(
    "the target: one run takes it resolved, settings=linksync.config.resolve(...)",
    *("--config", "--profile", "--base-url", "--api-key-file", "--sandbox"),
)
SELECTING = because("selects plan_all/apply_all, and their targets", "--all", "--target")
LOGGING = {"--log-format": "the command line's log; the API takes a logging.Logger (Hooks.logger)"}
PLANNING = {"--format": "how the command line shows the plan (table, json, markdown)"}
JSON = {"--json": "how the command line shows the result (of a run over targets, for apply)"}
APPLYING = {
    **JSON,
    "--plan": "apply(plan=...): the saved plan is the run's own parameter",
    "--yes": "the confirmation is Hooks.events.confirm (a RunEvents)",
    "--no-progress": "the command line's progress bar; the API takes Hooks.on_progress",
}
VALIDATING = {
    "--default-domain": "validate's own (no target): plan and apply take the profile's",
    **JSON,
    "--config": TARGET["--config"],
    "--profile": TARGET["--profile"],
}

UNDOING = {
    **LOGGING,
    "--last": "undo's own: the latest run instead of RUN",
    "--runs-dir": "undo(runs_dir=...): where the journals are is the undo's own parameter",
    "--yes": APPLYING["--yes"],
    "--no-progress": APPLYING["--no-progress"],
}

#: A command, the request values it takes, its flags of no field (flag -> reason) and
#: the fields of those values it does not offer (flag -> reason).
Case = tuple[click.Command, tuple[type, ...], Mapping[str, str], Mapping[str, str]]
CASES: dict[str, Case] = {
    "plan": (
        plan_command,
        (Reading, SyncPolicy, Notify, PlanOutputs, Connection),
        {**TARGET, **SELECTING, **LOGGING, **PLANNING},
        {},
    ),
    "apply": (
        apply_command,
        (Reading, SyncPolicy, Notify, Outputs, Connection),
        {**TARGET, **SELECTING, **LOGGING, **APPLYING},
        {},
    ),
    "validate": (validate_command, (Reading,), VALIDATING, {}),
    "undo": (
        undo_command,
        (Outputs, Connection),
        {**TARGET, **UNDOING},
        because("an undo reads no spreadsheet: nothing to annotate", "--annotate", "--qr"),
    ),
}


def long_flag(param: click.Parameter) -> str:
    if isinstance(param, click.Argument):
        return str(param.name)
    return max(param.opts, key=len)


def options_of(command: click.Command) -> dict[str, click.Option]:
    return {long_flag(p): p for p in command.params if isinstance(p, click.Option)}


def field_flags(kinds: tuple[type, ...]) -> dict[str, tuple[str, Field[Any]]]:
    """Flag -> the field that names it (``Reading.strict``)."""
    return {
        flags_of(f)[0]: (f"{kind.__name__}.{f.name}", f)
        for kind in kinds
        for f in fields(kind)
        if flags_of(f)[0]
    }


def declared_otherwise(param: click.Option, name: str, f: Field[Any]) -> list[str]:
    """How an option differs from the flag its field makes (``fields.flag_of``): its
    form, the name the command receives, its help, its metavar, repeated or not."""
    flag = flag_of(f)
    assert flag is not None
    said = {
        "flag": ("/".join([long_flag(param), *param.secondary_opts]), f"{flag.on}/{flag.off}"),
        "name": (param.name, f.name),
        "help": (param.help, flag.help),
        "metavar": (param.metavar, flag.metavar),
        "repeatable": (param.multiple, flag.many),
    }
    said["flag"] = (said["flag"][0], said["flag"][1].removesuffix("/None"))
    return [
        f"{name}: the option's {what} is {got!r}, the field's {want!r}"
        for what, (got, want) in said.items()
        if got != want
    ]


def disagreements(
    command: click.Command,
    kinds: tuple[type, ...],
    cli_only: Mapping[str, str],
    left_out: Mapping[str, str] = MappingProxyType({}),
) -> list[str]:
    """What does not agree: a flag of no field, a field's flag the command does not
    have or declares otherwise than the field says, a table entry that is stale."""
    options = options_of(command)
    named = field_flags(kinds)
    wrong: list[str] = []
    for flag, param in options.items():
        if flag in named and flag not in left_out:
            wrong += declared_otherwise(param, *named[flag])
        elif flag not in cli_only:
            wrong.append(f"{flag}: no field of {', '.join(k.__name__ for k in kinds)} names it")
    wrong += [
        f"{name}: {flag} is no option of {command.name}"
        for flag, (name, _) in named.items()
        if flag not in options and flag not in left_out
    ]
    wrong += [f"CLI-only table: {f} is no option" for f in cli_only if f not in options]
    wrong += [f"CLI-only table: {f} is a field's flag" for f in cli_only if f in named]
    wrong += [f"left-out table: {f} is an option" for f in left_out if f in options]
    return wrong


@pytest.mark.parametrize("case", CASES)
def test_the_flags_and_the_fields_agree(case: str) -> None:
    assert disagreements(*CASES[case]) == []


def test_a_new_flag_without_a_field_or_a_field_without_its_flag_fails_the_check() -> None:
    command, kinds, cli_only, _ = CASES["apply"]
    grown = click.Command("apply", params=[*command.params, click.Option(["--utm-policy"])])
    assert disagreements(grown, kinds, cli_only) == [
        "--utm-policy: no field of Reading, SyncPolicy, Notify, Outputs, Connection names it"
    ]
    fewer = click.Command("apply", params=[p for p in command.params if p.name != "owner_tag"])
    assert disagreements(fewer, kinds, cli_only) == [
        "SyncPolicy.owner_tag: --owner-tag is no option of apply"
    ]


def test_a_flag_written_by_hand_otherwise_than_its_field_fails_the_check() -> None:
    command, kinds, cli_only, _ = CASES["plan"]
    by_hand = click.Option(["--owner-tag", "owner"], help="Only links with this tag.")
    params = [by_hand if p.name == "owner_tag" else p for p in command.params]
    assert disagreements(click.Command("plan", params=params), kinds, cli_only) == [
        "SyncPolicy.owner_tag: the option's name is 'owner', the field's 'owner_tag'",
        "SyncPolicy.owner_tag: the option's help is 'Only links with this tag.', the field's "
        "'Only links with this tag may be deleted; added to every link created. [profile: "
        "owner_tag]'",
    ]


def every_command() -> dict[str, click.Command]:
    """Each command of the CLI by its words (``links create``)."""
    ctx = click.Context(cli)
    found: dict[str, click.Command] = {}

    def walk(words: str, command: click.Command) -> None:
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                walk(f"{words} {name}".strip(), command.get_command(ctx, name))  # type: ignore[arg-type]
        else:
            found[words] = command

    walk("", cli)
    return found


def test_every_command_that_reaches_a_target_offers_the_connection_as_its_fields_say() -> None:
    reaching = {w: c for w, c in every_command().items() if "--base-url" in options_of(c)}
    assert {"plan", "apply", "undo", "export", "org", "links create"} <= set(reaching)
    wrong = [
        f"{words}: {problem}"
        for words, command in reaching.items()
        for problem in disagreements(command, (Connection,), dict.fromkeys(options_of(command)))
        if "table" not in problem
    ]
    assert wrong == []


@pytest.mark.parametrize("kind", VALUES, ids=lambda k: k.__name__)
def test_the_help_of_a_flag_is_the_help_of_its_field(kind: type) -> None:
    for f in fields(kind):
        flag = flag_of(f)
        if flag is None:
            continue
        line = f.metadata["help"]
        assert flag.help.startswith(line[0].upper() + line[1:]), f.name
        rest = flag.help.removeprefix(line[0].upper() + line[1:])
        assert rest == "" or (rest.startswith(" [") and rest.endswith("]")), f.name


# --- the profile's keys and the fields ----------------------------------------------------

#: Profile keys of no field (key -> reason).
PROFILE_ONLY = {
    **because(
        "the target: linksync.config resolves it into the run's settings",
        *("base_url", "sandbox", "api_key_env", "api_key_file", "insecure", "proxy"),
        *("ca_bundle", "trust", "concurrency", "sandbox_db", "sandbox_config", "timeout"),
        "retry",
    ),
    "limits": "a block: its keys are fields (limits.max_deletes...)",
    "utm_rules": "the team's UTM rules, a block validation checks (Reading.fix_utm_case "
    "fixes the case it refuses)",
    "workbook_password_env": "the variable holding the workbook password: "
    "Reading.workbook_password_file's other source (a secret is no profile value)",
}


def profile_disagreements(keys: frozenset[str]) -> list[str]:
    named = profile_fields(*VALUES)
    known = keys | {f"limits.{k}" for k in LIMIT_KEYS}
    wrong = [
        f"{kind.__name__}.{name}: no profile key {key}"
        for key, (kind, name) in named.items()
        if key not in known
    ]
    wrong += [
        f"profile key {key}: no field names it"
        for key in sorted(keys - set(named) - set(PROFILE_ONLY))
    ]
    wrong += [
        f"profile-only table: {key} is no profile key" for key in PROFILE_ONLY if key not in keys
    ]
    return wrong


def test_the_profile_keys_and_the_fields_agree() -> None:
    assert profile_disagreements(PROFILE_KEYS) == []
    limits = {key for key in profile_fields(*VALUES) if key.startswith("limits.")}
    assert limits == {f"limits.{k}" for k in LIMIT_KEYS}
    # a target's own keys of the run (mode, mirror scope) are fields too
    assert TARGET_ONLY_KEYS - {"profile", "files"} <= set(SyncPolicy.__dataclass_fields__)


def test_a_new_profile_key_without_a_field_fails_the_check() -> None:
    assert profile_disagreements(PROFILE_KEYS | {"utm_policy"}) == [
        "profile key utm_policy: no field names it"
    ]


# --- the same values from every front end -------------------------------------------------

PROFILE = {
    "encoding": "cp1252",
    "date_format": "dmy",
    "timezone": "Europe/Berlin",
    "empty_values": ["N/A"],
    "columns": {"Ziel": "url", "Kampagne": "tags"},
    "strict": True,
    "include_hidden": True,
    "check_destinations": True,
    "owner_tag": "managed",
    "default_domain": "Go.Example.com",
    "slugless": "random",
    "limits": {"max_deletes": 5, "max_change_ratio": 1, "min_existing": 3},
    "notify": ["json://localhost/hook"],
    "notify_on": ["drift"],
}


def test_a_profile_builds_the_values_its_keys_name() -> None:
    profile = parse_profile("team", PROFILE)
    assert from_profile(Reading, profile) == Reading(
        mapping={"Ziel": "url", "Kampagne": "tags"},
        encoding="cp1252",
        date_format="dmy",
        timezone="Europe/Berlin",
        empty_values=("N/A",),
        include_hidden=True,
        strict=True,
        check_destinations=True,
    )
    assert from_profile(SyncPolicy, profile) == SyncPolicy(
        default_domain="Go.Example.com",
        owner_tag="managed",
        max_deletes=5,
        max_change_ratio=1,
        min_existing=3,
        slugless="random",
    )
    assert from_profile(Notify, profile) == Notify(urls=("json://localhost/hook",), on=("drift",))


def test_values_given_go_over_the_profiles_and_a_mapping_over_its_columns() -> None:
    profile = parse_profile("team", PROFILE)
    read = SourceReading.of(
        Reading(mapping={"Kampagne": "ignore"}, strict=False, encoding="utf-8"), profile
    ).reading
    assert read.mapping == {"Ziel": "url", "Kampagne": "ignore"}
    assert (read.strict, read.encoding, read.date_format) == (False, "utf-8", "dmy")
    asked = over(SyncPolicy(max_deletes=0), from_profile(SyncPolicy, profile))
    assert (asked.max_deletes, asked.owner_tag) == (0, "managed")


def test_the_engine_options_are_the_policy_over_the_profile(tmp_path: Path) -> None:
    (tmp_path / "linksync.yaml").write_text(yaml.safe_dump(PROFILE), encoding="utf-8")
    settings = resolve(cwd=tmp_path, env={}, sandbox=True)
    options = sync_options(SyncPolicy(mode="mirror", max_deletes=1), settings)
    assert (options.mode.value, options.owner_tag, options.default_domain) == (
        "mirror",
        "managed",
        "go.example.com",
    )
    assert (options.max_deletes, options.max_change_ratio, options.min_existing) == (1, 1.0, 3)
    assert isinstance(options.max_change_ratio, float)
    assert options.system_domain == settings.system_domain  # the built-in sandbox's


def _parsed(command: click.Command, words: list[str]) -> dict[str, Any]:
    """The flags ``given_flags`` reads from ``words`` (as the command line gets them)."""
    with command.make_context(command.name or "", words):
        return given_flags()


def test_the_command_line_of_a_request_gives_the_same_request() -> None:
    reading = Reading(
        sheets=["Links", "More"],
        mapping={"Approved by": "ignore"},
        date_format="%d.%m.%Y",
        empty_values=("N/A", "-"),
        include_hidden=False,
        strict=True,
        fix_utm_case=True,
        check_destinations=False,
    )
    policy = SyncPolicy(
        mode="mirror", scope_domains=("a.test",), owner_tag="managed", max_deletes=0, force=True
    )
    outputs = Outputs(reports=("out.csv",), qr="qr.zip", lock_wait=30.0)
    words = command_words([reading, policy, outputs])
    flags = _parsed(apply_command, ["links.xlsx", *words])
    assert from_flags(Reading, flags) == reading
    assert from_flags(SyncPolicy, flags) == policy
    assert from_flags(Outputs, flags) == outputs
    assert "--no-include-hidden" in words and "--no-check-destinations" in words


def test_flags_not_given_leave_every_field_to_the_profile() -> None:
    flags = _parsed(plan_command, ["links.csv"])
    assert (from_flags(Reading, flags), from_flags(SyncPolicy, flags)) == (Reading(), SyncPolicy())
    assert from_flags(PlanOutputs, flags) == PlanOutputs()
    with pytest.raises(ConfigError, match="--map expects HEADER=FIELD"):
        _parsed(plan_command, ["links.csv", "--map", "url"])
