"""The config file's YAML, read as it is written: a key given twice in one mapping (a
target named twice under ``targets:``, ``owner_tag`` twice in a profile) is a
``ConfigError`` naming both lines. YAML parsers keep the last of the two in silence,
so the first block (its files, its key, its scope) was dropped without a word.

Merge keys (``<<: *base``) are not duplicates: a mapping's own key overrides a merged
one, as YAML defines it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from linksync.errors import ConfigError

_MERGE = "tag:yaml.org,2002:merge"


def load_config_text(text: str, path: Path) -> Any:
    """``text`` (the config file at ``path``) as Python values; ``yaml.YAMLError`` for
    text that is not YAML, ``ConfigError`` for a key given twice in one mapping."""

    class _Loader(yaml.SafeLoader):
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
            _refuse_twice(self, node, path)
            return super().construct_mapping(node, deep=deep)

    return yaml.load(text, Loader=_Loader)  # a SafeLoader: no Python objects


def _refuse_twice(loader: yaml.SafeLoader, node: yaml.MappingNode, path: Path) -> None:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE:
            continue
        key = loader.construct_object(key_node)
        line = key_node.start_mark.line + 1
        try:
            first = seen.setdefault(key, line)
        except TypeError:  # an unhashable key: PyYAML's own message says so
            continue
        if first != line:
            raise ConfigError(
                f"config {path}, line {line}: key {key!r} is given twice (first on line "
                f"{first}); YAML would keep the second and drop the first without a "
                "word: keep one"
            )
