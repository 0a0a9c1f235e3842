"""YAML reader: links as code, one file or a directory tree of *.yaml / *.yml.

Format (docs/links-as-code.md): an optional ``defaults:`` block and ``links:`` as a
list or a mapping keyed by slug (a value may then be just the URL), or a bare list.
Keys are the wire names (``expiresAt``) or their snake_case forms (``expires_at``).
Top-level keys starting with ``x-`` are not read: they hold what merge keys (``<<``)
and aliases use.

Nothing is coerced and nothing is unsafe (``linksync.sources.yaml_nodes``). Nothing is
dropped, guessed or sent in part either; every problem names its line:

- an unknown key of a link (``descripton``) is an error on that link (``UNKNOWN_KEY``,
  with the known key it resembles): the link is not sent, the others are. An unknown
  top-level or ``defaults:`` key (``link:``, ``defaults.domian``) is an error for the
  file: nothing of the file is sent.
- a key given twice in one mapping (``url`` twice, or ``expiresAt`` and
  ``expires_at``) is an error naming both lines: neither value is kept at random.
- a wrong structure (``links: 5``, ``defaults: [...]``) is an error for the file, so
  validate, plan and apply all refuse it alike.
- a file that declares no link (empty, only comments, no ``links:`` key, ``links:``
  with nothing under it) is an ``EMPTY_SOURCE`` error for the file, in a folder too;
  ``links: []`` (or ``{}``, or a bare ``[]``) declares a file without links.
- merge keys (``<<: *common``) are merged as YAML defines them (``yaml_nodes``).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from linksync.errors import SourceError
from linksync.model import FIELD_FROM_API, LINK_FIELDS, LinkSpec, Problem, Provenance, Severity
from linksync.model.declared import Declared
from linksync.model.ignore_rules import entry_texts, parse_ignore, parse_ignore_changes
from linksync.model.utm_rules import UtmRules, parse_utm_rules
from linksync.rules.timestamps import zone_name
from linksync.sources.frame import ReadResult, SpecFrame, UnknownColumn
from linksync.sources.options import YAML_SUFFIXES, ReadOptions
from linksync.sources.sniff import refuse_binary
from linksync.sources.yaml_fields import GLUED, LinkFields, Named
from linksync.sources.yaml_nodes import (
    NULL,
    Refused,
    Walk,
    check_tag,
    compose,
    glued_comment,
    glued_message,
    line_of,
    source_lines,
)
from linksync.sources.yaml_secrets import SecretFields, SecretReader, in_clear, parse_ref

__all__ = ["YAML_SUFFIXES", "read_yaml_path"]

#: YAML key -> field: wire names, snake_case names, and the utm block.
_KEYS: dict[str, str] = {**{k: k for k in LINK_FIELDS}, **FIELD_FROM_API, "utm": "utm"}
#: What a file says of a link beyond its fields (``linksync.model.declared``).
_IGNORE_CHANGES = "ignore_changes"
#: The keys a message suggests: the wire names first (``expiresAt``), then the others.
_SHOWN_KEYS: list[str] = [
    *FIELD_FROM_API,
    *(k for k in _KEYS if k not in FIELD_FROM_API),
    _IGNORE_CHANGES,
]
_TOP_KEYS = ["links", "defaults"]
_DEFAULTS_KEYS = [*(k for k in _SHOWN_KEYS if k not in ("url", "slug")), "utm_rules", "ignore"]
#: Top-level keys that hold anchors for merge keys and aliases (not read).
_HOLDER_PREFIX = "x-"
#: How to say a file has no link on purpose.
_NO_LINKS = 'write "links: []" for a file that declares no link on purpose'


def read_yaml_path(path: Path, display: str, opts: ReadOptions) -> ReadResult:
    """Read one YAML file (a folder is listed by ``linksync.sources.folders``)."""
    result = ReadResult()
    _read_file(path, display, result, opts)
    return result


def _read_file(path: Path, display: str, result: ReadResult, opts: ReadOptions) -> None:
    refuse_binary(path, display, "YAML")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise SourceError(f"{display}: cannot read: {exc.strerror or exc}", path=display) from exc
    except UnicodeDecodeError as exc:
        raise SourceError(f"{display}: not UTF-8 text", path=display) from exc
    try:
        root = compose(text)
        if root is None:
            what = "is empty" if not text.strip() else "holds only comments"
            message = f"nothing to read: the file {what}, so it declares no link; {_NO_LINKS}"
            result.problems.append(Problem("EMPTY_SOURCE", message, Provenance(display)))
            return
        reader = _FileReader(display, result, opts, SecretReader(path, display))
        reader.lines = source_lines(text)
        reader.read(root)
    except yaml.YAMLError as exc:
        raise SourceError(f"{display}: not valid YAML: {exc}", path=display) from exc
    except Refused as exc:
        raise SourceError(
            f"{display}, line {line_of(exc.node)}: refused: {exc}", path=display
        ) from None


def _suggest(key: str, known: list[str], given: frozenset[str] = frozenset()) -> str:
    """' (did you mean "description"?)' for the known key nearest ``key``, if one is
    near; between keys as near, one the mapping does not give yet (``given``) first,
    then the first in ``known``."""
    wanted = key.lower().replace("-", "_")
    best: tuple[float, bool, int] | None = None
    name = ""
    for rank, k in enumerate(known):
        folded = k.lower().replace("-", "_")
        score = 2.0 if folded == wanted else difflib.SequenceMatcher(None, wanted, folded).ratio()
        mark = (score, k not in given, -rank)
        if score >= 0.6 and (best is None or mark > best):
            best, name = mark, k
    return f' (did you mean "{name}"?)' if name else ""


@dataclass
class _FileReader(LinkFields, SecretFields):
    display: str
    result: ReadResult
    opts: ReadOptions
    secrets: SecretReader
    walk: Walk = field(default_factory=Walk)
    defaults: dict[str, Any] = field(default_factory=dict)
    #: ``defaults: utm_rules:``, the file's UTM rules (over the profile's).
    utm_rules: UtmRules | None = None
    specs: list[LinkSpec] = field(default_factory=list)
    row_problems: list[tuple[int, Problem]] = field(default_factory=list)
    #: Findings of a link entry named by their own constant (the entry's other findings
    #: are INVALID_FIELD).
    named: list[Named] = field(default_factory=list)
    #: ``defaults: ignore_changes:`` (a link's own replace them) and ``defaults: ignore:``.
    ignore_changes: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    #: The file's lines (a comment YAML takes out of a value is found there).
    lines: list[str] = field(default_factory=list)
    key_lines: dict[str, int] = field(default_factory=dict)

    def read(self, root: Node) -> None:
        links: Node | None = None
        declared = False
        check_tag(root)
        if isinstance(root, SequenceNode):
            links, declared = root, True
        elif isinstance(root, MappingNode):
            seen: dict[str, int] = {}
            for key, key_node, value in self.walk.pairs(root):
                if key in seen and key in ("defaults", "links"):
                    self._file_problem(
                        f"{key}: given twice (lines {seen[key]} and {line_of(key_node)}): "
                        "merge them into one",
                        key_node,
                    )
                    continue
                seen[key] = line_of(key_node)
                if key == "defaults":
                    self._defaults(value)
                elif key == "links":
                    links = value
                elif not key.startswith(_HOLDER_PREFIX):
                    self._unknown(key, key_node, _TOP_KEYS)
            declared = "links" in seen
        else:
            self._file_problem("the file holds a single value, not links", root)
            declared = True  # said once, as a wrong structure
        if links is not None:
            check_tag(links)
        if isinstance(links, SequenceNode):
            self.walk.enter(links)
            for item in links.value:
                self._entry(item, None, None)
        elif isinstance(links, MappingNode):
            for slug, key_node, value in self.walk.pairs(links):
                self._entry(value, slug, key_node)
        elif isinstance(links, ScalarNode) and links.tag == NULL:
            self._file_problem(
                f'"links:" has nothing under it, so the file declares no link; {_NO_LINKS}',
                links,
                constant="EMPTY_SOURCE",
            )
        elif links is not None:
            self._file_problem("links: must be a list or a mapping keyed by slug", links)
        if not declared:
            self._file_problem(
                f'the file has no "links:" key, so it declares no link; {_NO_LINKS}',
                root,
                constant="EMPTY_SOURCE",
            )
        if self.specs or self.ignore:
            frame = SpecFrame.from_specs(self.specs, tuple(self.row_problems), source=self.display)
            if self.utm_rules is not None:
                frame = replace(frame, utm_rules=self.utm_rules)
            if self.ignore:
                frame = replace(frame, ignore=self.ignore)
            self.result.frames.append(frame)
        self.result.problems.extend(p for _, p in self.row_problems)

    def _file_problem(
        self,
        message: str,
        node: Node,
        constant: str = "INVALID_FIELD",
        severity: Severity = Severity.ERROR,
    ) -> None:
        """An error for the whole file, with its line: nothing of the file is sent (or
        a warning of the file, such as a password in clear in ``defaults:``)."""
        prov = Provenance(self.display, None, line_of(node))
        self.result.problems.append(Problem(constant, message, prov, None, severity))

    def _unknown(self, key: str, node: Node, known: list[str], within: str = "") -> None:
        """An unknown top-level or ``defaults:`` key (``within``: "defaults.")."""
        self.result.unknown.append(UnknownColumn(self.display, None, within + key))
        near = _suggest(key, known).replace('"', f'"{within}', 1)
        self._file_problem(
            f'unknown key "{within}{key}"{near}: nothing of this file is sent',
            node,
            "UNKNOWN_KEY",
        )

    def _defaults(self, node: Node) -> None:
        if isinstance(node, ScalarNode) and node.tag == NULL:
            return
        if not isinstance(node, MappingNode):
            self._file_problem("defaults: must be a mapping such as {domain: go.example.com}", node)
            return
        lines: dict[str, tuple[str, int]] = {}
        for key, key_node, value in self.walk.pairs(node):
            if key == "utm_rules":
                try:
                    self.utm_rules = parse_utm_rules(self.walk.plain(value))
                except ValueError as exc:
                    self._file_problem(f"defaults.{exc}", key_node)
                continue
            if key in (_IGNORE_CHANGES, "ignore"):
                self._left_to_people(key, self.walk.plain(value), key_node)
                continue
            fname = _KEYS.get(key)
            if fname is None:
                self._unknown(key, key_node, _DEFAULTS_KEYS, "defaults.")
                continue
            if fname in lines:
                prev, line = lines[fname]
                if _merged(node, key_node):
                    continue  # a merged key: the mapping's own key wins
                self._file_problem(
                    f"defaults.{key} (line {line_of(key_node)}) repeats defaults.{prev} "
                    f"(line {line}): keep one",
                    key_node,
                )
                continue
            lines[fname] = (key, line_of(key_node))
            glued = glued_comment(value, self.lines)
            if glued is not None:
                stops = "nothing of this file is sent"
                message = glued_message(key, glued, fname, stops, "defaults.")
                self._file_problem(message, key_node, GLUED)
            plain = self.walk.plain(value)
            if fname == "password" and not self._default_password(plain, key_node):
                continue
            self.defaults[fname] = (key, plain)

    def _left_to_people(self, key: str, value: Any, node: Node) -> None:
        """``defaults: ignore_changes:`` or ``defaults: ignore:``, checked (a mistake is an
        error of the file: nothing of it is sent)."""
        try:
            if key == _IGNORE_CHANGES:
                self.ignore_changes = parse_ignore_changes(value)
            else:
                self.ignore = entry_texts(parse_ignore(value))
        except ValueError as exc:
            self._file_problem(f"defaults.{exc}", node)

    def _default_password(self, value: Any, node: Node) -> bool:
        """Whether ``defaults: password:`` applies: a password in clear is warned of
        once, here; a reference that is written wrong, or leads out of the repository's
        tree, is an error of the file (a variable not set is said on each link)."""
        if isinstance(value, str) and value.strip():
            self._file_problem(
                f"defaults.{in_clear(None)}", node, "SECRET_IN_SOURCE", Severity.WARNING
            )
        elif isinstance(value, dict):
            try:
                found = self.secrets.resolve(parse_ref(value))
            except ValueError as exc:
                self._file_problem(f"defaults.{exc}", node)
                return False
            if found.invalid is not None:
                self._file_problem(f"defaults.{found.invalid}", node)
                return False
        return True

    def _entry(self, node: Node, slug_key: str | None, key_node: Node | None) -> None:
        check_tag(node)
        index = len(self.specs)
        line = line_of(key_node if key_node is not None else node)
        columns: dict[str, str] = {}
        raw: dict[str, Any] = {}
        lines: dict[str, Node] = {}  # field -> its key node (lines only for messages)
        problems: list[tuple[str | None, str, Severity, str | None]] = []
        own_ignore: tuple[str, ...] | None = None
        if slug_key is not None:
            raw["slug"], columns["slug"] = slug_key, "(key)"
        if isinstance(node, ScalarNode) and slug_key is not None:
            raw["url"], columns["url"] = self.walk.scalar(node), "(value)"
            self._glued(node, slug_key, "url", "(value)")
        elif isinstance(node, MappingNode):
            for key, knode, value in self.walk.pairs(node):
                if key == _IGNORE_CHANGES:
                    if own_ignore is None or not _merged(node, knode):
                        own_ignore = self._own_ignore(self.walk.plain(value))
                    continue
                fname = _KEYS.get(key)
                if fname is None:
                    self.result.unknown.append(UnknownColumn(self.display, None, key))
                    at = f" on line {line_of(knode)}" if line_of(knode) != line else ""
                    if _merged(node, knode):
                        at += " (brought by a merge key <<)"
                    near = _suggest(key, _SHOWN_KEYS, frozenset(columns.values()))
                    message = f'unknown key "{key}"{at}{near}'
                    message += ": the link is not sent"
                    self.named.append(("UNKNOWN_KEY", None, message, Severity.ERROR, key))
                    continue
                if fname in lines and _merged(node, knode):
                    continue  # the link's own key (or an earlier merged one) wins
                if fname in lines:
                    problems.append(
                        (
                            fname,
                            f'"{key}" (line {line_of(knode)}) repeats "{columns[fname]}" '
                            f"(line {line_of(lines[fname])}): keep one",
                            Severity.ERROR,
                            key,
                        )
                    )
                    continue
                lines[fname] = knode
                self._glued(value, key, fname, key)
                if fname == "slug" and slug_key is not None:
                    text = self.walk.plain(value)
                    if text != slug_key:
                        message = f"slug {text!r} differs from its key {slug_key!r}"
                        problems.append(("slug", message, Severity.ERROR, None))
                    continue
                raw[fname], columns[fname] = self.walk.plain(value), key
        else:
            problems.append(
                ("url", "a link entry must be a mapping of fields", Severity.ERROR, None)
            )
        for fname, (key, value) in self.defaults.items():
            if fname not in raw and fname not in ("tags", "utm"):
                raw[fname], columns[fname] = value, f"defaults.{key}"
        plain: list[tuple[str, str]] = []
        key_line = line_of(lines["password"]) if "password" in lines else line
        password_from = self._password(raw, columns, plain, key_line if key_line != line else None)
        ignored = self.ignore_changes if own_ignore is None else own_ignore
        declared = Declared(password_from, frozenset(ignored)) if password_from or ignored else None
        zone = self.opts.timezone
        prov = Provenance(
            self.display, None, line, columns, zone_name(zone) if zone is not None else None,
            declared,
        )  # fmt: skip
        self.key_lines = {f: line_of(k) for f, k in lines.items()}
        values, managed = self._fields(raw, columns, plain)
        problems.extend((f, m, Severity.ERROR, None) for f, m in plain)
        values.setdefault("url", None)
        spec = LinkSpec(**values, managed=frozenset(managed), provenance=prov)
        self.specs.append(spec)
        found = [("INVALID_FIELD", *p) for p in problems] + self.named
        self.named = []
        for constant, fname, message, severity, column in found:
            problem = Problem(constant, message, prov, fname, severity, column)
            self.row_problems.append((index, problem))

    def _own_ignore(self, value: Any) -> tuple[str, ...]:
        """A link's own ``ignore_changes:`` (over the file's); a mistake is an error of
        the link, which is not sent."""
        try:
            return parse_ignore_changes(value)
        except ValueError as exc:
            self.named.append(("INVALID_FIELD", None, str(exc), Severity.ERROR, _IGNORE_CHANGES))
            return ()


def _merged(node: MappingNode, key_node: Node) -> bool:
    """The pair of ``key_node`` came to ``node`` through a merge key (``<<``)."""
    return all(k is not key_node for k, _ in node.value)
