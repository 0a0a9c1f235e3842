"""No public function of the package takes more than 10 parameters:
what a run is asked beyond that is grouped in typed values
(``linksync.pipeline.request``), as httpx groups its options in ``Timeout`` and
``Limits``. Public: the facade's names, and every public name of every module of
the package (a module whose name starts with ``_`` is private); for a class, its
public methods and its own ``__init__`` (a dataclass's generated ``__init__`` is a
value's fields, not a function's parameters)."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from typing import Any

import linksync

MAX_PARAMETERS = 10


def _packages() -> Iterator[Any]:
    yield linksync
    for info in pkgutil.iter_modules(linksync.__path__, "linksync."):
        if info.ispkg:
            yield importlib.import_module(info.name)


def _modules() -> Iterator[Any]:
    """Every module of the package whose name has no part starting with ``_``."""
    for info in pkgutil.walk_packages(linksync.__path__, "linksync."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            yield importlib.import_module(info.name)


def _callables(obj: Any, name: str) -> Iterator[tuple[str, Callable[..., Any]]]:
    if inspect.isfunction(obj):
        yield name, obj
    elif inspect.isclass(obj):
        for attr, member in vars(obj).items():
            if attr.startswith("_") and attr != "__init__":
                continue
            if attr == "__init__" and dataclasses.is_dataclass(obj):
                continue
            if isinstance(member, classmethod | staticmethod):
                member = member.__func__
            if inspect.isfunction(member):
                yield f"{name}.{attr}", member


def public_callables() -> dict[str, Callable[..., Any]]:
    """Every package's ``__all__`` (the facade's too)."""
    found: dict[str, Callable[..., Any]] = {}
    for package in _packages():
        for name in getattr(package, "__all__", ()):
            obj = getattr(package, name)
            for qualified, fn in _callables(obj, f"{package.__name__}.{name}"):
                found[qualified] = fn
    return found


def module_callables() -> dict[str, Callable[..., Any]]:
    """The facade's names, and every public name defined in a module of the package."""
    found = {k: v for k, v in public_callables().items() if k.count(".") == 1}
    for module in _modules():
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            for qualified, fn in _callables(obj, f"{module.__name__}.{name}"):
                found[qualified] = fn
    return found


def parameters(fn: Callable[..., Any]) -> list[str]:
    return [p for p in inspect.signature(fn).parameters if p not in ("self", "cls")]


def test_the_walk_sees_the_runs() -> None:
    found = module_callables()
    for name in ("plan", "apply", "plan_all", "apply_all", "plan_async", "apply_async"):
        assert f"linksync.{name}" in found
    assert "linksync.pipeline.entry.prepare_apply" in found
    assert "linksync.pipeline.checking.check" in found
    assert "linksync.pipeline.applying.ApplyRun.__init__" in found
    assert "linksync.sync.diff" in public_callables()
    assert "linksync.config.resolve" in found
    assert "linksync.model.results.RowResult.from_change" in found
    assert "linksync.sync.execute.execute" in found


def test_no_public_function_takes_more_than_10_parameters() -> None:
    many = {
        name: len(parameters(fn))
        for name, fn in module_callables().items()
        if len(parameters(fn)) > MAX_PARAMETERS
    }
    assert many == {}
