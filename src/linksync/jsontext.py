"""Readable JSON that stays fast for 100,000 items.

``json.dumps(..., indent=2)`` falls back to the pure-Python encoder (the C encoder
has no indentation): a plan of 100,000 creates took 12 s to render that way, and its
file was 159 MB, one key per line. ``readable`` indents the objects (keys sorted), and
writes each item of a list on its own line in compact form with the C encoder: the
same JSON value, a line per link or change (which also reads well in a diff on a pull
request), at about a tenth of the time.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["readable"]

_item = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode


def readable(value: Any, *, indent: int = 2) -> str:
    """``value`` as JSON: objects indented with sorted keys, list items one per line."""
    return _render(value, indent, 0)


def _render(value: Any, step: int, depth: int) -> str:
    if isinstance(value, dict) and value:
        inner = " " * (step * (depth + 1))
        parts = [
            f"{inner}{_item(str(key))}: {_render(value[key], step, depth + 1)}"
            for key in sorted(value, key=str)
        ]
        return "{\n" + ",\n".join(parts) + "\n" + " " * (step * depth) + "}"
    if isinstance(value, (list, tuple)) and value:
        inner = " " * (step * (depth + 1))
        lines = ",\n".join(inner + _item(x) for x in value)
        return "[\n" + lines + "\n" + " " * (step * depth) + "]"
    return _item(value)
