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
- Merge keys are merged as YAML defines them: ``<<: *common`` (or ``<<: [*a, *b]``)
  brings the keys of those mappings that the mapping does not give itself (its own
  keys win; in a list, an earlier mapping wins over a later one; a merged mapping's
  own merge keys are resolved first). A merged value is built once and shared, so
  merging one mapping into a thousand links is no alias bomb; the keys merges bring
  into a file are counted, and a file past ``MAX_MERGED_KEYS`` is refused. A ``<<``
  whose value is not a mapping or a list of mappings is refused with its line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from linksync.sources.options import MAX_YAML_DEPTH

_TOO_DEEP = f"nested deeper than {MAX_YAML_DEPTH} levels"

#: The merge key, written plain (a quoted "<<" is an ordinary key).
MERGE_KEY = "<<"
#: Keys merge keys may bring into the mappings of one file, all merges counted.
MAX_MERGED_KEYS = 1_000_000

#: (key, key node, value node) of a mapping.
Pair = tuple[str, Node, Node]

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
    """Turns nodes into plain values, refusing containers reached twice (but for
    values merge keys bring, built once and shared) and resolving merge keys."""

    seen: set[int] = field(default_factory=set)
    #: Containers already built (node id -> value), for values merge keys bring again.
    built: dict[int, Any] = field(default_factory=dict)
    #: Value nodes a merge key brought: reaching one again reuses what was built.
    shared: set[int] = field(default_factory=set)
    #: Mappings merged (node id -> their pairs, their own merge keys resolved).
    flat: dict[int, list[Pair]] = field(default_factory=dict)
    #: Mappings being merged (one that merges itself is refused).
    merging: set[int] = field(default_factory=set)
    #: Keys merged so far in this file (``MAX_MERGED_KEYS``).
    merged: int = 0

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
        if id(node) in self.shared and id(node) in self.built:
            return self.built[id(node)]
        self.enter(node)
        value: Any
        if isinstance(node, SequenceNode):
            value = [self.plain(n, depth + 1) for n in node.value]
        else:
            assert isinstance(node, MappingNode)
            if _merges(node):
                items = [(key, v) for key, _, v in self._items(node, depth)]
            else:
                items = [(str(self.plain(k, depth + 1)), v) for k, v in node.value]
            value = {key: self.plain(v, depth + 1) for key, v in items}
        self.built[id(node)] = value
        return value

    def pairs(self, node: MappingNode) -> Iterator[Pair]:
        """The mapping's keys in order, then the keys its merge keys bring (those it does
        not give itself)."""
        check_tag(node)
        self.enter(node)
        if not _merges(node):
            for k, v in node.value:
                key = self.scalar(k)
                yield ("" if key is None else key), k, v
            return
        yield from self._items(node, 0)

    def _items(self, node: MappingNode, depth: int) -> list[Pair]:
        own: list[Pair] = []
        merges: list[Node] = []
        for k, v in node.value:
            if _is_merge_key(k):
                merges.append(v)
                continue
            key = self.scalar(k)
            own.append((("" if key is None else key), k, v))
        given = {key for key, _, _ in own}
        extra: list[Pair] = []
        for value in merges:
            for pair in self._merged(value, depth + 1):
                if pair[0] not in given:
                    given.add(pair[0])
                    extra.append(pair)
        self.merged += len(extra)
        if self.merged > MAX_MERGED_KEYS:
            raise Refused(
                f"merge keys (<<) bring more than {MAX_MERGED_KEYS:,} keys into this file", node
            )
        self.shared.update(id(v) for _, _, v in extra)
        return own + extra

    def _merged(self, value: Node, depth: int) -> list[Pair]:
        """The pairs ``<<: value`` brings: a mapping's, or a list of mappings' (an earlier
        mapping wins over a later one)."""
        check_tag(value)
        if isinstance(value, MappingNode):
            sources = [value]
        elif isinstance(value, SequenceNode) and all(
            isinstance(n, MappingNode) for n in value.value
        ):
            sources = value.value
        else:
            raise Refused(
                "a merge key (<<) takes a mapping or a list of mappings, such as "
                "<<: *common or <<: [*common, *spring]",
                value,
            )
        out: list[Pair] = []
        keys: set[str] = set()
        for source in sources:
            for pair in self._flat(source, depth):
                if pair[0] not in keys:
                    keys.add(pair[0])
                    out.append(pair)
        return out

    def _flat(self, node: MappingNode, depth: int) -> list[Pair]:
        """A merged mapping's pairs, its own merge keys resolved (once per mapping)."""
        found = self.flat.get(id(node))
        if found is not None:
            return found
        check_tag(node)
        if depth >= MAX_YAML_DEPTH:
            raise Refused(_TOO_DEEP, node)
        if id(node) in self.merging:
            raise Refused("a merge key (<<) merges a mapping into itself", node)
        self.merging.add(id(node))
        found = self.flat[id(node)] = self._items(node, depth)
        self.merging.discard(id(node))
        return found


def _is_merge_key(node: Node) -> bool:
    """A plain ``<<`` (the pure-Python parser gives plain scalars the style None,
    libyaml the style '')."""
    return isinstance(node, ScalarNode) and not node.style and node.value == MERGE_KEY


def _merges(node: MappingNode) -> bool:
    return any(_is_merge_key(k) for k, _ in node.value)


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


#: YAML's line breaks (``str.splitlines`` knows more, which YAML reads as text).
_BREAKS = re.compile(r"\r\n|\r|\n|\x85|\u2028|\u2029")
#: What follows a plain value on its line when YAML reads ``#word`` as a comment.
_GLUED_COMMENT = re.compile(r"[ \t]+(#\S.*?)[ \t]*$")


def source_lines(text: str) -> list[str]:
    """The text's lines as YAML counts them (for ``glued_comment``)."""
    return _BREAKS.split(text)


def glued_comment(node: Node, lines: list[str]) -> Glued | None:
    """The first plain value in ``node`` (itself, or a value of the list or mapping it
    is, one level down as ``utm:`` and ``tags:`` are) that YAML ends at a comment whose
    ``#`` touches the word after it: ``url: https://e.com/page #pricing`` reads as
    ``https://e.com/page``, ``description: Sale #1 for members`` as ``Sale`` and
    ``description: #1 pick`` as null. A comment written ``# text`` (a space after ``#``)
    or after a quoted value is a comment."""
    nodes: list[tuple[str | None, Node]] = [(None, node)]
    if isinstance(node, SequenceNode):
        nodes = [("-", n) for n in node.value]
    elif isinstance(node, MappingNode):
        nodes = [(str(k.value) if isinstance(k, ScalarNode) else None, v) for k, v in node.value]
    for inner, n in nodes:
        if not isinstance(n, ScalarNode) or n.style:
            continue
        end = n.end_mark
        if end.line >= len(lines):
            continue
        found = _GLUED_COMMENT.fullmatch(lines[end.line][end.column :])
        if found is not None:
            return Glued(n, found.group(1), inner)
    return None


@dataclass(frozen=True)
class Glued:
    """A plain value YAML cut at a comment: the value, the comment, and the key (or
    ``-``, a list item) it has under the key checked (None: the key's own value)."""

    node: ScalarNode
    comment: str
    inner: str | None


#: Keys whose value is an address: the part after ``#`` would be its fragment.
_ADDRESS_KEYS = frozenset({"url", "apple", "google"})


def glued_message(
    key: str, found: Glued, field: str, stops: str = "the link is not sent", within: str = ""
) -> str:
    """What to say of a ``glued_comment`` under ``key`` (of the link field ``field``;
    ``within``: "defaults."); a password's value is never said."""
    node, comment, inner = found.node, found.comment, found.inner
    where = f"YAML reads the text after {within}{key}: on line {line_of(node)}"
    if inner is not None:
        item = "-" if inner == "-" else f"{inner}:"
        where = f"YAML reads the text after {item} under {within}{key}: on line {line_of(node)}"
    if field == "password":
        return (
            f"{where} from its # on as a comment, so the value read may be only part of "
            f'what was meant: {stops}; quote the whole value ("...") if the # belongs to '
            "it, or write the comment with a space after the # (# note)"
        )
    text = "" if node.tag == NULL else str(node.value)
    glue = "" if field in _ADDRESS_KEYS else " "
    kept = f"{text}{glue}{comment}" if text else comment
    read = f"the value is read as {text!r}" if text else "the value is read as empty (null)"
    written = f'- "{kept}"' if inner == "-" else f'{inner or key}: "{kept}"'
    return (
        f"{where}, {comment!r}, as a comment, so {read}: {stops}; if {comment!r} belongs "
        f"to the value, quote it ({written}); if it is a comment, write a space after "
        f"the # (# {comment[1:]})"
    )


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
