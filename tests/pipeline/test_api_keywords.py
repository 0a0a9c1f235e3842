"""The public run functions spell out their keywords, and the CLI's flags and the API's
keywords agree: a flag of ``linksync plan``/``apply`` (or of their ``--all`` form) is a
keyword of ``linksync.plan``/``apply`` (``plan_all``/``apply_all``) of the same name,
unless one of the tables below says why not; a new flag without a keyword fails here."""

from __future__ import annotations

import inspect
import pydoc
from collections.abc import Callable, Mapping
from typing import Any

import click
import pytest

import linksync
from linksync.cli.apply import apply_command
from linksync.cli.sync import plan_command
from linksync.pipeline import prepare_apply

PUBLIC: dict[str, Callable[..., Any]] = {
    "plan": linksync.plan,
    "plan_async": linksync.plan_async,
    "apply": linksync.apply,
    "apply_async": linksync.apply_async,
    "prepare_apply": prepare_apply,
    "plan_all": linksync.plan_all,
    "apply_all": linksync.apply_all,
}


@pytest.mark.parametrize("name", PUBLIC)
def test_every_keyword_is_spelled_out_with_a_default_and_a_line_of_help(name: str) -> None:
    fn = PUBLIC[name]
    first, *rest = inspect.signature(fn).parameters.values()
    assert first.name in {"sources", "targets"}
    assert first.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert rest, "no keywords"
    for p in rest:
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, f"{name}({p.name}): not keyword-only"
        assert p.default is not inspect.Parameter.empty, f"{name}({p.name}): no default"
    args = (inspect.getdoc(fn) or "").partition("\nArgs:\n")[2].splitlines()
    described = [line.split(":")[0].strip() for line in args]
    assert described == [first.name, *(p.name for p in rest)]
    shown = pydoc.render_doc(fn, renderer=pydoc.plaintext)
    assert "**" not in shown.split("\n")[2]  # help() shows the signature, no **kw
    assert all(f"{p.name}:" in shown for p in rest)


def test_the_sync_and_async_forms_take_the_same_keywords_and_return_their_own() -> None:
    def params(fn: Callable[..., Any]) -> list[inspect.Parameter]:
        return list(inspect.signature(fn).parameters.values())

    assert params(linksync.plan) == params(linksync.plan_async)
    assert params(linksync.apply) == params(linksync.apply_async) == params(prepare_apply)
    assert inspect.iscoroutinefunction(linksync.plan_async)
    assert inspect.iscoroutinefunction(linksync.apply_async)
    assert inspect.signature(linksync.plan).return_annotation == "Planned"
    assert inspect.signature(linksync.apply).return_annotation == "Results"
    assert linksync.apply.__name__ == "apply" and linksync.plan.__name__ == "plan"


# --- the CLI's flags and the API's keywords ---------------------------------------------


def because(reason: str, *names: str) -> dict[str, str]:
    return dict.fromkeys(names, reason)


#: Flags whose keyword has another name (flag -> (keyword, reason)).
RENAMED = {
    "--map": ("mapping", "a {HEADER: FIELD} mapping; `map` would shadow the builtin"),
    "--domain": ("scope_domains", "the SyncOptions field and profile key"),
}

# Flags without a keyword of their name (flag -> reason), by what they are.
TARGET = because(
    "the API takes the target resolved: settings=linksync.config.resolve(...)",
    *("--config", "--profile", "--base-url", "--api-key-file", "--insecure"),
    *("--concurrency", "--proxy", "--ca-bundle", "--system-trust"),
    "--sandbox",  # settings=linksync.config.resolve(sandbox=True)
)
SELECTING = because("selects plan_all/apply_all instead", "--all", "--target")
LOGGING = because("the CLI's log; the API takes a logging.Logger (logger)", "--log-format")
PLANNING = because("how the CLI renders the plan (table, json, markdown)", "--format")
APPLYING = {
    "--yes": "the confirmation is events.confirm (a RunEvents); the API asks none",
    "--no-progress": "the CLI's progress bar; the API takes on_progress (a ProgressSink)",
    "--json": "how the CLI renders a run over targets (refused without --all)",
}
#: With --all these are refused (``cli.options.refuse``): each target names its own.
REFUSED_WITH_ALL = because(
    "refused with --all/--target: each target names its own",
    *("sources", "--profile", "--base-url", "--api-key-file"),
)
APPLY_REFUSED_WITH_ALL = because(
    "refused with --all/--target: an output of one run", "--plan", "--annotate", "--qr",
    "--journal", "--lock",
)  # fmt: skip
ALL_TARGETS: dict[str, Any] = {
    "--all": "every target: targets=None",
    "--target": ("targets", "the names (or Workspace objects)"),
    "--sandbox": "env={'LINKSYNC_SANDBOX': '1'}, or the Workspace objects of "
    "load_workspaces(sandbox=True): targets without a base_url use the sandbox",
    **{f: ("network", "NetworkFlags(proxy, ca_bundle, system_trust), as Workspace.settings "
           "takes them") for f in ("--proxy", "--ca-bundle", "--system-trust")},
}  # fmt: skip

# Keywords without a flag (keyword -> reason).
PROFILE_ONLY = because(
    "a profile setting (a SyncOptions field) with no flag",
    *("default_domain", "system_domain", "max_change_ratio", "min_existing"),
)
ONE_RUN_ONLY = {
    **PROFILE_ONLY,
    "settings": "the resolved target (the CLI's --config, --profile, --base-url...)",
    "options": "SyncOptions instead of the profile's, for library callers",
    "events": "what a front end is told (the CLI passes its CliEvents)",
    "logger": "the CLI passes the logger --log-format set up",
}
APPLY_ONLY = {
    "on_progress": "the CLI passes its progress bar (--no-progress: none)",
    "cancel": "a library caller's stop signal (the CLI's is Ctrl-C)",
    "reads": "files a front end uploaded (the page), never written",
}
ALL_ONLY = {
    **PROFILE_ONLY,
    "env": "the environment, for library callers (the CLI's is os.environ)",
    "cwd": "where ./linksync.yaml is, for library callers (the CLI's is the cwd)",
    "events": "what a front end is told, per target (the CLI passes TargetEvents)",
    "logger": "the CLI passes the logger --log-format set up",
}
APPLY_ALL_ONLY = {
    "cancel": APPLY_ONLY["cancel"],
    "progress": "a progress sink per target; the CLI shows none for several targets",
}

Case = tuple[click.Command, Callable[..., Any], Mapping[str, Any], Mapping[str, str]]
CASES: dict[str, Case] = {
    "plan": (
        plan_command,
        linksync.plan,
        {**TARGET, **SELECTING, **LOGGING, **PLANNING},
        ONE_RUN_ONLY,
    ),
    "apply": (
        apply_command,
        linksync.apply,
        {**TARGET, **SELECTING, **LOGGING, **APPLYING},
        {**ONE_RUN_ONLY, **APPLY_ONLY},
    ),
    "plan --all": (
        plan_command,
        linksync.plan_all,
        {**REFUSED_WITH_ALL, **ALL_TARGETS, **LOGGING, **PLANNING},
        ALL_ONLY,
    ),
    "apply --all": (
        apply_command,
        linksync.apply_all,
        {**REFUSED_WITH_ALL, **APPLY_REFUSED_WITH_ALL, **ALL_TARGETS, **LOGGING, **APPLYING},
        {**ALL_ONLY, **APPLY_ALL_ONLY},
    ),
}


def flag_of(param: click.Parameter) -> str:
    if isinstance(param, click.Argument):
        return str(param.name)
    return max(param.opts, key=len)


def disagreements(
    command: click.Command,
    fn: Callable[..., Any],
    cli_only: Mapping[str, Any],
    api_only: Mapping[str, str],
) -> list[str]:
    """What does not agree: a flag without a keyword of its name (a repeatable flag's
    keyword may be plural), a keyword without a flag, a table entry that is stale."""
    keywords = set(inspect.signature(fn).parameters)
    renamed = {f: k for f, (k, _) in RENAMED.items()}
    renamed |= {f: v[0] for f, v in cli_only.items() if isinstance(v, tuple)}
    wrong: list[str] = []
    matched: set[str] = set()
    flags = {flag_of(p): p for p in command.params}
    for flag, param in flags.items():
        name = flag.removeprefix("--").replace("-", "_")
        names = {renamed[flag]} if flag in renamed else {name}
        if getattr(param, "multiple", False) and flag not in renamed:
            names.add(name + "s")
        found = names & keywords
        matched |= found
        if flag in cli_only and not isinstance(cli_only[flag], tuple):
            if found:
                wrong.append(f"{flag} is in the CLI-only table but {fn.__name__} has {found}")
        elif not found:
            wrong.append(f"{flag}: {fn.__name__} has no keyword {' or '.join(sorted(names))}")
    wrong += [f"CLI-only table: {f} is no flag" for f in cli_only if f not in flags]
    for keyword in sorted(keywords - matched):
        if keyword not in api_only:
            wrong.append(f"{fn.__name__}({keyword}=...) has no flag and no reason")
    wrong += [f"API-only table: {k} is a flag's keyword" for k in api_only if k in matched]
    wrong += [f"API-only table: {fn.__name__} has no {k}" for k in api_only if k not in keywords]
    return wrong


@pytest.mark.parametrize("case", CASES)
def test_the_cli_flags_and_the_api_keywords_agree(case: str) -> None:
    command, fn, cli_only, api_only = CASES[case]
    assert disagreements(command, fn, cli_only, api_only) == []


def test_a_new_flag_without_a_keyword_fails_the_check() -> None:
    command, fn, cli_only, api_only = CASES["apply"]
    grown = click.Command("apply", params=[*command.params, click.Option(["--utm-policy"])])
    found = disagreements(grown, fn, cli_only, api_only)
    assert found == ["--utm-policy: apply has no keyword utm_policy"]
    fewer = click.Command("apply", params=[p for p in command.params if p.name != "owner_tag"])
    found = disagreements(fewer, fn, cli_only, api_only)
    assert found == ["apply(owner_tag=...) has no flag and no reason"]
