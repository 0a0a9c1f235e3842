"""YAML reader: links as code, one file or a directory tree of *.yaml / *.yml.

Format (docs/architecture.md): an optional ``defaults:`` block and ``links:`` as a
list or a mapping keyed by slug (a value may then be just the URL), or a bare list.
Keys are the wire names (``expiresAt``) or their snake_case forms (``expires_at``).

Safety and fidelity:

- The document is only *composed* (libyaml's C parser when PyYAML has it) with a
  resolver that knows nothing but ``null``: every other plain scalar stays the text
  typed, so ``slug: no``, ``slug: 0123`` and ``tags: [2025-12-31]`` are never turned
  into False, 83 or a date. No constructor ever runs, so no Python tag can execute;
  such tags are refused by name.
- Values are built by a walk that refuses any mapping or list reached twice, which
  stops alias bombs ("billion laughs") at once; anchors on plain values still work.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from linksync.errors import SourceError
from linksync.model import FIELD_FROM_API, LINK_FIELDS, LinkSpec, Problem, Provenance, Severity
from linksync.sources.columns import UTM_FIELDS
from linksync.sources.frame import ReadResult, SpecFrame, UnknownColumn
from linksync.sources.normalize import dedupe, merge_utm, normalize_expiry, split_tags

YAML_SUFFIXES: frozenset[str] = frozenset({".yaml", ".yml"})

_BaseLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TAG = "tag:yaml.org,2002:"
_NULL, _STR, _MAP, _SEQ = _TAG + "null", _TAG + "str", _TAG + "map", _TAG + "seq"
#: Explicit scalar tags whose text is kept as typed (never converted).
_TEXT_TAGS = frozenset(_TAG + t for t in ("str", "int", "float", "bool", "timestamp"))


class TextLoader(_BaseLoader):  # type: ignore[misc]
    """Safe loader whose implicit resolver knows only null: everything else is text."""

    yaml_implicit_resolvers: ClassVar[dict[str, list[tuple[str, re.Pattern[str]]]]] = {}


TextLoader.add_implicit_resolver(_NULL, re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])

#: YAML key -> field: wire names, snake_case names, and the utm block.
_KEYS: dict[str, str] = {**{k: k for k in LINK_FIELDS}, **FIELD_FROM_API, "utm": "utm"}
_UTM_KEYS: dict[str, str] = {
    **{f: f for f in UTM_FIELDS},
    **{f.removeprefix("utm_"): f for f in UTM_FIELDS},
}
_SCALAR_FIELDS = ("url", "slug", "domain", "description", "password", "apple", "google")


class _Refused(Exception):
    def __init__(self, message: str, node: Node):
        super().__init__(message)
        self.node = node


@dataclass
class _Walk:
    """Turns nodes into plain values, refusing containers reached twice."""

    seen: set[int] = field(default_factory=set)

    def enter(self, node: Node) -> None:
        if id(node) in self.seen:
            raise _Refused("an alias repeats a mapping or list (alias bombs are refused)", node)
        self.seen.add(id(node))

    def scalar(self, node: Node) -> str | None:
        if not isinstance(node, ScalarNode):
            raise _Refused("expected a single value", node)
        _check_tag(node)
        return None if node.tag == _NULL else str(node.value)

    def plain(self, node: Node) -> Any:
        if isinstance(node, ScalarNode):
            return self.scalar(node)
        _check_tag(node)
        self.enter(node)
        if isinstance(node, SequenceNode):
            return [self.plain(n) for n in node.value]
        assert isinstance(node, MappingNode)
        return {str(self.plain(k)): self.plain(v) for k, v in node.value}

    def pairs(self, node: MappingNode) -> Iterator[tuple[str, Node, Node]]:
        _check_tag(node)
        self.enter(node)
        for k, v in node.value:
            key = self.scalar(k)
            yield ("" if key is None else key), k, v


def _check_tag(node: Node) -> None:
    tag = node.tag or ""
    if isinstance(node, ScalarNode):
        if tag == _NULL or tag in _TEXT_TAGS:
            return
    elif (isinstance(node, MappingNode) and tag == _MAP) or (
        isinstance(node, SequenceNode) and tag == _SEQ
    ):
        return
    if "python" in tag:
        raise _Refused(f"Python tags are not allowed ({tag})", node)
    raise _Refused(f"tag {tag} is not allowed", node)


def _line(node: Node) -> int:
    return int(node.start_mark.line) + 1


def iter_yaml_files(path: Path) -> list[Path]:
    """A file, or every *.yaml / *.yml under a directory (sorted, hidden skipped)."""
    if path.is_dir():
        found = [
            p
            for p in path.rglob("*")
            if p.suffix.lower() in YAML_SUFFIXES
            and p.is_file()
            and not any(part.startswith(".") for part in p.relative_to(path).parts)
        ]
        return sorted(found)
    return [path]


def read_yaml_path(path: Path, display: str) -> ReadResult:
    """Read a YAML file or a directory tree of them."""
    result = ReadResult()
    if path.is_dir():
        for p in iter_yaml_files(path):
            shown = str(Path(display) / p.relative_to(path))
            _read_file(p, shown, result)
    else:
        _read_file(path, display, result)
    return result


def _read_file(path: Path, display: str, result: ReadResult) -> None:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise SourceError(f"{display}: cannot read: {exc.strerror or exc}", path=display) from exc
    except UnicodeDecodeError as exc:
        raise SourceError(f"{display}: not UTF-8 text", path=display) from exc
    try:
        loader = TextLoader(text)
        try:
            root = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise SourceError(f"{display}: not valid YAML: {exc}", path=display) from exc
    try:
        _FileReader(display, result).read(root)
    except _Refused as exc:
        raise SourceError(
            f"{display}, line {_line(exc.node)}: refused: {exc}", path=display
        ) from None


@dataclass
class _FileReader:
    display: str
    result: ReadResult
    walk: _Walk = field(default_factory=_Walk)
    defaults: dict[str, Any] = field(default_factory=dict)
    specs: list[LinkSpec] = field(default_factory=list)
    row_problems: list[tuple[int, Problem]] = field(default_factory=list)
    unknown: dict[str, None] = field(default_factory=dict)

    def read(self, root: Node | None) -> None:
        links: Node | None = None
        if root is not None:
            _check_tag(root)
        if root is None:
            pass
        elif isinstance(root, SequenceNode):
            links = root
        elif isinstance(root, MappingNode):
            for key, _, value in self.walk.pairs(root):
                if key == "defaults":
                    self._defaults(value)
                elif key == "links":
                    links = value
                else:
                    self.unknown.setdefault(key, None)
        else:
            self._file_problem("the file holds a single value, not links")
        if links is not None:
            _check_tag(links)
        if isinstance(links, SequenceNode):
            self.walk.enter(links)
            for item in links.value:
                self._entry(item, None, None)
        elif isinstance(links, MappingNode):
            for slug, key_node, value in self.walk.pairs(links):
                self._entry(value, slug, key_node)
        elif links is not None and not (isinstance(links, ScalarNode) and links.tag == _NULL):
            self._file_problem("links: must be a list or a mapping keyed by slug", links)
        if self.unknown:
            self.result.unknown.extend(UnknownColumn(self.display, None, k) for k in self.unknown)
            names = ", ".join(f'"{k}"' for k in self.unknown)
            self.result.problems.append(
                Problem(
                    "INVALID_FIELD",
                    f"unknown key(s) ignored: {names}",
                    Provenance(self.display),
                    None,
                    Severity.WARNING,
                )
            )
        if self.specs:
            frame = SpecFrame.from_specs(self.specs, tuple(self.row_problems), source=self.display)
            self.result.frames.append(frame)
        self.result.problems.extend(p for _, p in self.row_problems)

    def _file_problem(self, message: str, node: Node | None = None) -> None:
        row = _line(node) if node is not None else None
        self.result.problems.append(
            Problem("INVALID_FIELD", message, Provenance(self.display, None, row))
        )

    def _defaults(self, node: Node) -> None:
        if isinstance(node, ScalarNode) and node.tag == _NULL:
            return
        if not isinstance(node, MappingNode):
            self._file_problem("defaults: must be a mapping", node)
            return
        for key, _, value in self.walk.pairs(node):
            fname = _KEYS.get(key)
            if fname is None:
                self.unknown.setdefault(f"defaults.{key}", None)
                continue
            self.defaults[fname] = (key, self.walk.plain(value))

    def _entry(self, node: Node, slug_key: str | None, key_node: Node | None) -> None:
        _check_tag(node)
        index = len(self.specs)
        line = _line(key_node if key_node is not None else node)
        columns: dict[str, str] = {}
        raw: dict[str, Any] = {}
        problems: list[tuple[str, str]] = []  # (field, message)
        if slug_key is not None:
            raw["slug"], columns["slug"] = slug_key, "(key)"
        if isinstance(node, ScalarNode) and slug_key is not None:
            raw["url"], columns["url"] = self.walk.scalar(node), "(value)"
        elif isinstance(node, MappingNode):
            for key, _, value in self.walk.pairs(node):
                fname = _KEYS.get(key)
                if fname is None:
                    self.unknown.setdefault(key, None)
                    continue
                if fname == "slug" and slug_key is not None:
                    text = self.walk.plain(value)
                    if text != slug_key:
                        problems.append(
                            ("slug", f"slug {text!r} differs from its key {slug_key!r}")
                        )
                    continue
                raw[fname], columns[fname] = self.walk.plain(value), key
        else:
            problems.append(("url", "a link entry must be a mapping of fields"))
        for fname, (key, value) in self.defaults.items():
            if fname not in raw and fname not in ("tags", "utm"):
                raw[fname], columns[fname] = value, f"defaults.{key}"
        prov = Provenance(self.display, None, line, columns)
        values, managed = self._fields(raw, columns, problems)
        values.setdefault("url", None)
        spec = LinkSpec(**values, managed=frozenset(managed), provenance=prov)
        self.specs.append(spec)
        for fname, message in problems:
            self.row_problems.append((index, Problem("INVALID_FIELD", message, prov, fname)))

    def _fields(
        self, raw: dict[str, Any], columns: dict[str, str], problems: list[tuple[str, str]]
    ) -> tuple[dict[str, Any], set[str]]:
        values: dict[str, Any] = {}
        managed: set[str] = set()
        for fname in _SCALAR_FIELDS:
            if fname in raw:
                v = raw[fname]
                if v is not None and not isinstance(v, str):
                    problems.append((fname, f"{columns[fname]}: expected text, got a {_kind(v)}"))
                    continue
                if isinstance(v, str):
                    v = v.strip(" \t\r\n") or None
                    if v is not None and fname == "domain":
                        v = v.lower()
                values[fname] = v
                managed.add(fname)
        if "expires_at" in raw:
            v = raw["expires_at"]
            if v is None or isinstance(v, str):
                values["expires_at"] = normalize_expiry(v) if v is not None and v.strip() else None
                managed.add("expires_at")
            else:
                problems.append(("expires_at", f"{columns['expires_at']}: expected a date-time"))
        self._tags(raw, columns, problems, values, managed)
        utm = self._utm(raw.get("utm"), problems)
        if utm and values.get("url"):
            values["url"] = merge_utm(values["url"], utm)
        return values, managed

    def _tags(
        self,
        raw: dict[str, Any],
        columns: dict[str, str],
        problems: list[tuple[str, str]],
        values: dict[str, Any],
        managed: set[str],
    ) -> None:
        base: tuple[str, ...] = ()
        if "tags" in self.defaults:
            key, dv = self.defaults["tags"]
            base = self._tag_list(dv, problems) or ()
            if "tags" not in raw:
                columns["tags"] = f"defaults.{key}"
        if "tags" in raw:
            own = self._tag_list(raw["tags"], problems)
            if own is None:
                return
            # An explicit empty list (or null) clears every tag, defaults included.
            values["tags"] = dedupe((*base, *own)) if own else ()
            managed.add("tags")
        elif "tags" in self.defaults:
            values["tags"] = base
            managed.add("tags")

    @staticmethod
    def _tag_list(v: Any, problems: list[tuple[str, str]]) -> tuple[str, ...] | None:
        if v is None:
            return ()
        if isinstance(v, str):
            return split_tags(v)
        if isinstance(v, list) and all(isinstance(t, str) for t in v):
            return dedupe(v)
        problems.append(("tags", "tags: expected a list of text values"))
        return None

    def _utm(self, v: Any, problems: list[tuple[str, str]]) -> dict[str, str | None]:
        merged: dict[str, str | None] = {}
        for source in (self.defaults.get("utm", (None, None))[1], v):
            if source is None:
                continue
            if not isinstance(source, dict):
                problems.append(("url", "utm: expected a mapping such as {source: newsletter}"))
                continue
            for key, value in source.items():
                name = _UTM_KEYS.get(key)
                if name is None or not (value is None or isinstance(value, str)):
                    problems.append(("url", f"utm: unknown key or bad value {key!r}"))
                    continue
                merged[name] = value
        return merged


def _kind(v: Any) -> str:
    return "list" if isinstance(v, list) else "mapping" if isinstance(v, dict) else type(v).__name__
