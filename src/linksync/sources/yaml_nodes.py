"""YAML nodes for the links-as-code reader: a loader that converts nothing, and a walk
that refuses what could hurt.

- The document is only *composed* (libyaml's C parser when PyYAML has it) with a
  resolver that knows nothing but ``null``: every other plain scalar stays the text
  typed, so ``slug: no``, ``slug: 0123`` and ``tags: [2025-12-31]`` are never turned
  into False, 83 or a date. No constructor ever runs, so no Python tag can execute;
  such tags are refused by name.
- Values are built by a walk that refuses any mapping or list reached twice, which
  stops alias bombs ("billion laughs") at once, and any nesting deeper than
  ``MAX_YAML_DEPTH`` (a document 10,000 lists deep would exhaust Python's stack).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from linksync.sources.options import MAX_YAML_DEPTH

YAML_SUFFIXES: frozenset[str] = frozenset({".yaml", ".yml"})

_TOO_DEEP = f"nested deeper than {MAX_YAML_DEPTH} levels"

_BaseLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TAG = "tag:yaml.org,2002:"
NULL, _STR, _MAP, _SEQ = _TAG + "null", _TAG + "str", _TAG + "map", _TAG + "seq"
#: Explicit scalar tags whose text is kept as typed (never converted).
_TEXT_TAGS = frozenset(_TAG + t for t in ("str", "int", "float", "bool", "timestamp"))


class TextLoader(_BaseLoader):  # type: ignore[misc]
    """Safe loader whose implicit resolver knows only null: everything else is text."""

    yaml_implicit_resolvers: ClassVar[dict[str, list[tuple[str, re.Pattern[str]]]]] = {}


TextLoader.add_implicit_resolver(NULL, re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])


class Refused(Exception):
    """A node the reader refuses (the file is refused with its line)."""

    def __init__(self, message: str, node: Node):
        super().__init__(message)
        self.node = node


@dataclass
class Walk:
    """Turns nodes into plain values, refusing containers reached twice."""

    seen: set[int] = field(default_factory=set)

    def enter(self, node: Node) -> None:
        if id(node) in self.seen:
            raise Refused("an alias repeats a mapping or list (alias bombs are refused)", node)
        self.seen.add(id(node))

    def scalar(self, node: Node) -> str | None:
        if not isinstance(node, ScalarNode):
            raise Refused("expected a single value", node)
        check_tag(node)
        return None if node.tag == NULL else str(node.value)

    def plain(self, node: Node, depth: int = 0) -> Any:
        if isinstance(node, ScalarNode):
            return self.scalar(node)
        check_tag(node)
        if depth >= MAX_YAML_DEPTH:
            raise Refused(_TOO_DEEP, node)
        self.enter(node)
        if isinstance(node, SequenceNode):
            return [self.plain(n, depth + 1) for n in node.value]
        assert isinstance(node, MappingNode)
        return {str(self.plain(k, depth + 1)): self.plain(v, depth + 1) for k, v in node.value}

    def pairs(self, node: MappingNode) -> Iterator[tuple[str, Node, Node]]:
        check_tag(node)
        self.enter(node)
        for k, v in node.value:
            key = self.scalar(k)
            yield ("" if key is None else key), k, v


def check_tag(node: Node) -> None:
    tag = node.tag or ""
    if isinstance(node, ScalarNode):
        if tag == NULL or tag in _TEXT_TAGS:
            return
    elif (isinstance(node, MappingNode) and tag == _MAP) or (
        isinstance(node, SequenceNode) and tag == _SEQ
    ):
        return
    if "python" in tag:
        raise Refused(f"Python tags are not allowed ({tag})", node)
    raise Refused(f"tag {tag} is not allowed", node)


def line_of(node: Node) -> int:
    return int(node.start_mark.line) + 1


def iter_yaml_files(path: Path) -> list[Path]:
    """Every *.yaml / *.yml under the directory ``path`` (sorted, hidden skipped)."""
    found = [
        p
        for p in path.rglob("*")
        if p.suffix.lower() in YAML_SUFFIXES
        and p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(path).parts)
    ]
    return sorted(found)


def compose(text: str) -> Node | None:
    """The document's root node (None for an empty document). Raises yaml.YAMLError,
    or Refused for nesting too deep for the parser."""
    loader = TextLoader(text)
    try:
        return loader.get_single_node()  # type: ignore[no-any-return]
    except RecursionError:  # the pure-Python parser
        raise Refused(_TOO_DEEP, _Top()) from None
    except yaml.MarkedYAMLError as exc:
        # libyaml 0.2.5 as bundled since PyYAML 6.0.4 stops deep nesting itself: the same
        # refusal, at the line where it gave up
        if "maximum nesting depth" not in (exc.problem or ""):
            raise
        mark = exc.problem_mark or exc.context_mark
        raise Refused(_TOO_DEEP, _Top(mark.line if mark else 0)) from None
    finally:
        loader.dispose()


class _Top(ScalarNode):
    """A stand-in node (line 1 unless given), for errors that have no node of their own."""

    def __init__(self, line: int = 0) -> None:
        super().__init__(NULL, "", yaml.Mark("", 0, line, 0, "", 0))
