"""The flags of the run request: a click option for each field of a request value that
names a flag (``linksync.pipeline.request``), made of the field alone: its flag and the
word for its value, its help, its default, its type, ``--x/--no-x`` for a yes-or-no the
profile may set either way, a repeated flag for a list, its choices and bounds
(``linksync.pipeline.fields.flag_of``). A new run option is its field and its profile
key; its flag is on every command that takes its value at once::

    @click.command("validate")
    @request_flags(Reading)
    def validate_command(**flags): ...

A command receives each flag as the field's name; ``given_flags``
(``linksync.cli.common``) gives the ones given to ``linksync.pipeline.fields.from_flags``.
Flags that are no field (a command's own: ``--json``, ``--yes``, ``--format``) are
written by hand beside the command.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection
from dataclasses import fields
from typing import Any

import click

from linksync.cli.common import F, with_options
from linksync.pipeline.fields import Flag, flag_of


def request_flags(*kinds: type[Any], only: Collection[str] = ()) -> Callable[[F], F]:
    """A decorator adding the flags of the fields of ``kinds`` (``only``: of these
    fields alone), in the order the fields are declared."""
    options = [
        flag_option(flag)
        for kind in kinds
        for f in fields(kind)
        if (flag := flag_of(f)) and (not only or f.name in only)
    ]
    return lambda fn: with_options(fn, options)


def flag_option(flag: Flag) -> Callable[[F], F]:
    """The click option of a field's flag: the command receives it by the field's name,
    None (or ``()``, or off) when not given."""
    declared = f"{flag.on}/{flag.off}" if flag.off else flag.on
    options: dict[str, Any] = {"help": flag.help, "metavar": flag.metavar}
    if flag.kind == "bool":  # --x/--no-x: None, the profile's; --x alone: off
        options |= {"default": None} if flag.off else {"is_flag": True, "default": False}
    else:
        options |= {"type": value_type(flag), "multiple": flag.many, "envvar": flag.env}
    if isinstance(flag.default, int | float) and not isinstance(flag.default, bool):
        options |= {"default": flag.default, "show_default": True}  # a number: shown
    return click.option(declared, flag.name, **options)


def value_type(flag: Flag) -> click.ParamType | None:
    """What one value of the flag may be: one of its choices, a number within its
    bounds, a file (FILE: never a folder) or a path (PATH), else a text."""
    if flag.choices:
        module, _, name = flag.choices.partition(":")
        return click.Choice(getattr(importlib.import_module(module), name))
    if flag.kind == "int":
        return click.IntRange(*flag.bounds) if flag.bounds else click.INT
    if flag.kind == "float":
        return click.FloatRange(*flag.bounds) if flag.bounds else click.FLOAT
    if flag.metavar in ("FILE", "PATH"):
        return click.Path(dir_okay=flag.metavar == "PATH")
    return None
