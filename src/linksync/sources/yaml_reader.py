"""YAML reader: links as code, one file or a directory tree of *.yaml / *.yml.

Format (docs/architecture.md): an optional ``defaults:`` block and ``links:`` as a
list or a mapping keyed by slug (a value may then be just the URL), or a bare list.
Keys are the wire names (``expiresAt``) or their snake_case forms (``expires_at``).

Nothing is coerced and nothing is unsafe (``linksync.sources.yaml_nodes``). Nothing is
dropped in silence either:

- an unknown key of a link (``desciption``) is a warning on that link, naming the key
  and its line (with the known key it resembles); an unknown top-level or
  ``defaults:`` key is a warning for the file, with its line. ``--strict`` makes them
  errors.
- a key given twice in one mapping (``url`` twice, or ``expiresAt`` and
  ``expires_at``) is an error naming both lines: neither value is kept at random.
- a wrong structure (``links: 5``, ``defaults: [...]``) is an error for the file, so
  validate, plan and apply all refuse it alike.
- a file with no document at all is an error ("nothing to read") when given by itself.
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
from linksync.rules.timestamps import zone_name
from linksync.rules.utm import UtmRules, parse_utm_rules
from linksync.sources.aliases import UTM_FIELDS
from linksync.sources.frame import ReadResult, SpecFrame, UnknownColumn
from linksync.sources.normalize import (
    dedupe,
    expiry_oddity,
    merge_utm_checked,
    normalize_expiry,
    split_tags,
)
from linksync.sources.options import ReadOptions
from linksync.sources.yaml_nodes import (
    NULL,
    YAML_SUFFIXES,
    Refused,
    Walk,
    check_tag,
    compose,
    iter_yaml_files,
    line_of,
)

__all__ = ["YAML_SUFFIXES", "iter_yaml_files", "read_yaml_path"]

#: YAML key -> field: wire names, snake_case names, and the utm block.
_KEYS: dict[str, str] = {**{k: k for k in LINK_FIELDS}, **FIELD_FROM_API, "utm": "utm"}
_UTM_KEYS: dict[str, str] = {
    **{f: f for f in UTM_FIELDS},
    **{f.removeprefix("utm_"): f for f in UTM_FIELDS},
}
_SCALAR_FIELDS = ("url", "slug", "domain", "description", "password", "apple", "google")


def read_yaml_path(path: Path, display: str, opts: ReadOptions) -> ReadResult:
    """Read a YAML file or a directory tree of them."""
    result = ReadResult()
    if path.is_dir():
        for p in iter_yaml_files(path):
            shown = str(Path(display) / p.relative_to(path))
            _read_file(p, shown, result, opts, direct=False)
    else:
        _read_file(path, display, result, opts, direct=True)
    return result


def _read_file(
    path: Path, display: str, result: ReadResult, opts: ReadOptions, direct: bool
) -> None:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise SourceError(f"{display}: cannot read: {exc.strerror or exc}", path=display) from exc
    except UnicodeDecodeError as exc:
        raise SourceError(f"{display}: not UTF-8 text", path=display) from exc
    try:
        root = compose(text)
        if root is None:
            message = "nothing to read: the file holds no YAML document"
            severity = Severity.ERROR if direct else Severity.WARNING
            result.problems.append(
                Problem("EMPTY_SOURCE", message, Provenance(display), None, severity)
            )
            return
        _FileReader(display, result, opts).read(root)
    except yaml.YAMLError as exc:
        raise SourceError(f"{display}: not valid YAML: {exc}", path=display) from exc
    except Refused as exc:
        raise SourceError(
            f"{display}, line {line_of(exc.node)}: refused: {exc}", path=display
        ) from None


def _suggest(key: str, known: list[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.75)
    return f' (did you mean "{close[0]}"?)' if close else ""


@dataclass
class _FileReader:
    display: str
    result: ReadResult
    opts: ReadOptions
    walk: Walk = field(default_factory=Walk)
    defaults: dict[str, Any] = field(default_factory=dict)
    #: ``defaults: utm_rules:``, the file's UTM rules (over the profile's).
    utm_rules: UtmRules | None = None
    specs: list[LinkSpec] = field(default_factory=list)
    row_problems: list[tuple[int, Problem]] = field(default_factory=list)
    #: Findings of a link entry named by their own constant: (constant, field, message,
    #: severity, column); the entry's other findings are INVALID_FIELD.
    named: list[tuple[str, str | None, str, Severity, str | None]] = field(default_factory=list)

    def read(self, root: Node) -> None:
        links: Node | None = None
        check_tag(root)
        if isinstance(root, SequenceNode):
            links = root
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
                else:
                    self._unknown(key, key_node, ["defaults", "links"])
        else:
            self._file_problem("the file holds a single value, not links", root)
        if links is not None:
            check_tag(links)
        if isinstance(links, SequenceNode):
            self.walk.enter(links)
            for item in links.value:
                self._entry(item, None, None)
        elif isinstance(links, MappingNode):
            for slug, key_node, value in self.walk.pairs(links):
                self._entry(value, slug, key_node)
        elif links is not None and not (isinstance(links, ScalarNode) and links.tag == NULL):
            self._file_problem("links: must be a list or a mapping keyed by slug", links)
        if self.specs:
            frame = SpecFrame.from_specs(self.specs, tuple(self.row_problems), source=self.display)
            if self.utm_rules is not None:
                frame = replace(frame, utm_rules=self.utm_rules)
            self.result.frames.append(frame)
        self.result.problems.extend(p for _, p in self.row_problems)

    def _file_problem(
        self,
        message: str,
        node: Node,
        severity: Severity = Severity.ERROR,
        constant: str = "INVALID_FIELD",
    ) -> None:
        self.result.problems.append(
            Problem(
                constant, message, Provenance(self.display, None, line_of(node)), None, severity
            )
        )

    def _unknown(self, key: str, node: Node, known: list[str]) -> None:
        self.result.unknown.append(UnknownColumn(self.display, None, key))
        self._file_problem(
            f'unknown key "{key}" ignored{_suggest(key, known)}',
            node,
            Severity.WARNING,
            "UNKNOWN_COLUMN",
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
            fname = _KEYS.get(key)
            if fname is None:
                self._unknown(f"defaults.{key}", key_node, [f"defaults.{k}" for k in _KEYS])
                continue
            if fname in lines:
                prev, line = lines[fname]
                self._file_problem(
                    f"defaults.{key} (line {line_of(key_node)}) repeats defaults.{prev} "
                    f"(line {line}): keep one",
                    key_node,
                )
                continue
            lines[fname] = (key, line_of(key_node))
            self.defaults[fname] = (key, self.walk.plain(value))

    def _entry(self, node: Node, slug_key: str | None, key_node: Node | None) -> None:
        check_tag(node)
        index = len(self.specs)
        line = line_of(key_node if key_node is not None else node)
        columns: dict[str, str] = {}
        raw: dict[str, Any] = {}
        lines: dict[str, Node] = {}  # field -> its key node (lines only for messages)
        problems: list[tuple[str | None, str, Severity, str | None]] = []
        if slug_key is not None:
            raw["slug"], columns["slug"] = slug_key, "(key)"
        if isinstance(node, ScalarNode) and slug_key is not None:
            raw["url"], columns["url"] = self.walk.scalar(node), "(value)"
        elif isinstance(node, MappingNode):
            for key, knode, value in self.walk.pairs(node):
                fname = _KEYS.get(key)
                if fname is None:
                    self.result.unknown.append(UnknownColumn(self.display, None, key))
                    message = f'unknown key "{key}" (line {line_of(knode)}) ignored'
                    message += _suggest(key, list(_KEYS))
                    self.named.append(("UNKNOWN_COLUMN", None, message, Severity.WARNING, key))
                    continue
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
        zone = self.opts.timezone
        prov = Provenance(
            self.display, None, line, columns, zone_name(zone) if zone is not None else None
        )
        plain: list[tuple[str, str]] = []
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

    def _fields(
        self, raw: dict[str, Any], columns: dict[str, str], problems: list[tuple[str, str]]
    ) -> tuple[dict[str, Any], set[str]]:
        values: dict[str, Any] = {}
        managed: set[str] = set()
        empties = self.opts.empty_values
        for fname in _SCALAR_FIELDS:
            if fname in raw:
                v = raw[fname]
                if v is not None and not isinstance(v, str):
                    problems.append((fname, f"{columns[fname]}: expected text, got a {_kind(v)}"))
                    continue
                if isinstance(v, str):
                    if empties and self.opts.is_empty_value(v):
                        continue
                    v = v.strip(" \t\r\n") or None
                    if v is not None and fname == "domain":
                        v = v.lower()
                values[fname] = v
                managed.add(fname)
        if "expires_at" in raw:
            v = raw["expires_at"]
            if isinstance(v, str) and self.opts.is_empty_value(v):
                pass
            elif v is None or isinstance(v, str):
                fmt, zone = self.opts.date_format, self.opts.timezone
                text = v.strip() if v is not None else ""
                values["expires_at"] = normalize_expiry(text, fmt, zone) if text else None
                managed.add("expires_at")
                odd = expiry_oddity(text, fmt, zone) if text else None
                if odd is not None:
                    constant, message, error = odd
                    severity = Severity.ERROR if error else Severity.WARNING
                    self.named.append((constant, "expires_at", message, severity, None))
            else:
                problems.append(("expires_at", f"{columns['expires_at']}: expected a date-time"))
        self._tags(raw, columns, problems, values, managed)
        own, defaults = self._utm(raw.get("utm"), problems)
        if (own or defaults) and values.get("url"):
            values["url"], replaced = merge_utm_checked(values["url"], own, defaults)
            for name, old, new in replaced:
                message = f"the URL's {name}={old!r} was replaced by utm: {new!r}"
                self.named.append(("URL_PARAM_REPLACED", "url", message, Severity.WARNING, "utm"))
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

    def _utm(
        self, v: Any, problems: list[tuple[str, str]]
    ) -> tuple[dict[str, str | None], dict[str, str | None]]:
        """(the entry's own utm values, the file's utm defaults)."""
        out: list[dict[str, str | None]] = [{}, {}]
        for slot, source in ((1, self.defaults.get("utm", (None, None))[1]), (0, v)):
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
                out[slot][name] = value
        return out[0], out[1]


def _kind(v: Any) -> str:
    return "list" if isinstance(v, list) else "mapping" if isinstance(v, dict) else type(v).__name__
