"""linksync.sync.jsontext.readable: the same JSON value as json.dumps, a line per list item."""

from __future__ import annotations

import json
import random

from linksync.sync.jsontext import readable


def _value(rng: random.Random, depth: int = 0) -> object:
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.randint(-(10**12), 10**12)
    if kind == 3:
        return rng.random() * 1e6
    if kind == 4:
        chars = 'ab "\\\n\t\u00e9\u2028\U0001f600/'
        return "".join(rng.choice(chars) for _ in range(rng.randrange(9)))
    if kind == 5:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    size = rng.randrange(4)
    return {f"k{rng.randrange(20)}\n\u00e9": _value(rng, depth + 1) for _ in range(size)}


def test_readable_is_the_same_value_as_json_dumps() -> None:
    rng = random.Random(5)
    for _ in range(300):
        value = _value(rng)
        assert json.loads(readable(value)) == json.loads(json.dumps(value))


def test_objects_are_indented_with_sorted_keys_and_list_items_on_their_own_lines() -> None:
    plan = {"format": 1, "changes": [{"slug": "b", "action": "create"}, {"slug": "é"}], "x": []}
    assert readable(plan) == (
        "{\n"
        '  "changes": [\n'
        '    {"action": "create", "slug": "b"},\n'
        '    {"slug": "é"}\n'
        "  ],\n"
        '  "format": 1,\n'
        '  "x": []\n'
        "}"
    )
