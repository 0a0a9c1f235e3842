"""Fixtures of the ops tests, and a small JSON Schema checker.

``jsonschema`` is not a dependency, so ``check_schema`` implements the subset of draft
2020-12 that ``linksync.export.schema`` uses (type, properties, patternProperties,
required, additionalProperties, propertyNames, items, uniqueItems, anyOf, not, enum, $ref to
$defs, pattern, minLength, maxLength, format date-time). It returns the list of violations
(empty when the instance is valid), so a test can assert what was refused and why.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from linksync.export.schema import link_file_schema

_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "null": type(None),
    "boolean": bool,
}


def _type_ok(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def _date_time_ok(value: str) -> bool:
    if not re.fullmatch(r"\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)", value):
        return False
    try:
        datetime.fromisoformat(value.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def ecma_search(pattern: str, value: str) -> bool:
    """``re.search`` with ECMA-262's ``$`` (end of input; Python's also matches before
    a final newline)."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.search(pattern, value) is not None


def check_schema(schema: dict[str, Any], instance: Any) -> list[str]:
    root = schema
    errors: list[str] = []

    def resolve(ref: str) -> dict[str, Any]:
        assert ref.startswith("#/$defs/"), ref
        resolved: dict[str, Any] = root["$defs"][ref.removeprefix("#/$defs/")]
        return resolved

    def walk(s: dict[str, Any], v: Any, at: str) -> None:
        if "$ref" in s:
            walk(resolve(s["$ref"]), v, at)
        if "type" in s:
            names = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(_type_ok(v, n) for n in names):
                errors.append(f"{at}: not of type {names}")
                return
        if "anyOf" in s:
            branches = [check_branch(b, v, at) for b in s["anyOf"]]
            if all(branches):
                found = "; ".join(e for branch in branches for e in branch)
                errors.append(f"{at}: matches no anyOf branch ({found})")
        if "enum" in s and v not in s["enum"]:
            errors.append(f"{at}: {v!r} is not one of {s['enum']}")
        if "not" in s and not check_branch(s["not"], v, at):
            errors.append(f"{at}: matches a 'not' schema")
        if isinstance(v, str):
            if "pattern" in s and not ecma_search(s["pattern"], v):
                errors.append(f"{at}: {v!r} does not match {s['pattern']}")
            if "minLength" in s and len(v) < s["minLength"]:
                errors.append(f"{at}: shorter than {s['minLength']}")
            if "maxLength" in s and len(v) > s["maxLength"]:
                errors.append(f"{at}: longer than {s['maxLength']}")
            if s.get("format") == "date-time" and not _date_time_ok(v):
                errors.append(f"{at}: {v!r} is not a date-time")
        if isinstance(v, list):
            for i, item in enumerate(v):
                if "items" in s:
                    walk(s["items"], item, f"{at}[{i}]")
            if s.get("uniqueItems") and len({repr(x) for x in v}) != len(v):
                errors.append(f"{at}: items not unique")
        if isinstance(v, dict):
            props = s.get("properties", {})
            for name in s.get("required", []):
                if name not in v:
                    errors.append(f"{at}: missing required {name!r}")
            for key, item in v.items():
                if "propertyNames" in s:
                    walk(s["propertyNames"], key, f"{at}.<key {key}>")
                patterns = [p for p in s.get("patternProperties", {}) if ecma_search(p, key)]
                if key in props:
                    walk(props[key], item, f"{at}.{key}")
                elif patterns:
                    for p in patterns:
                        walk(s["patternProperties"][p], item, f"{at}.{key}")
                elif s.get("additionalProperties") is False:
                    errors.append(f"{at}: unexpected property {key!r}")
                elif isinstance(s.get("additionalProperties"), dict):
                    walk(s["additionalProperties"], item, f"{at}.{key}")

    def check_branch(s: dict[str, Any], v: Any, at: str) -> list[str]:
        nonlocal errors
        saved, errors = errors, []
        walk(s, v, at)
        found, errors = errors, saved
        return found

    walk(schema, instance, "$")
    return errors


@pytest.fixture(scope="session")
def schema_errors() -> Callable[[Any], list[str]]:
    """Violations of linksync's link-file schema by an instance (empty: valid)."""
    schema = link_file_schema()
    return lambda instance: check_schema(schema, instance)


@pytest.fixture(scope="session")
def pattern_matches() -> Callable[[str, str], bool]:
    """Whether a JSON Schema ``pattern`` (ECMA-262) matches a string."""
    return ecma_search
