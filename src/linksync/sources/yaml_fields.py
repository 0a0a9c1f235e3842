"""The fields of one YAML link: text, expiry, tags and the utm block, each checked
against what the file's ``defaults:`` give (``linksync.sources.yaml_reader``)."""

from __future__ import annotations

from typing import Any

from yaml.nodes import Node

from linksync.model import Severity
from linksync.sources.aliases import UTM_FIELDS
from linksync.sources.normalize import (
    dedupe,
    expiry_oddity,
    merge_utm_checked,
    normalize_expiry,
    split_tags,
)
from linksync.sources.options import ReadOptions
from linksync.sources.yaml_nodes import glued_comment, glued_message

_UTM_KEYS: dict[str, str] = {
    **{f: f for f in UTM_FIELDS},
    **{f.removeprefix("utm_"): f for f in UTM_FIELDS},
}
_SCALAR_FIELDS = ("url", "slug", "domain", "description", "password", "apple", "google")

#: A value YAML cut at a comment (``url: https://e.com/page #pricing``).
GLUED = "COMMENT_IN_VALUE"

#: A finding of a link entry named by its own constant: (constant, field, message,
#: severity, column).
Named = tuple[str, str | None, str, Severity, str | None]


class LinkFields:
    """The field conversions of ``_FileReader``: ``opts``, the file's ``defaults``
    (field -> (key, value)) and the entry's ``named`` findings are the reader's."""

    opts: ReadOptions
    defaults: dict[str, Any]
    named: list[Named]
    lines: list[str]
    #: The line of each key of the entry being read (field -> line).
    key_lines: dict[str, int]

    def _glued(self, value: Node, key: str, fname: str, column: str) -> None:
        """A value YAML cut at a ``#word`` comment is an error of its link."""
        glued = glued_comment(value, self.lines)
        if glued is not None:
            message = glued_message(key, glued, fname)
            self.named.append((GLUED, fname, message, Severity.ERROR, column))

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
                what = f"expected a mapping such as {{source: newsletter}}, not a {_kind(source)}"
                self._utm_problem(slot, what)
                continue
            for key, value in source.items():
                name = _UTM_KEYS.get(key)
                if name is None or not (value is None or isinstance(value, str)):
                    self._utm_problem(slot, f"unknown key or bad value {key!r}")
                    continue
                out[slot][name] = value
        return out[0], out[1]

    def _utm_problem(self, slot: int, what: str) -> None:
        """A ``utm:`` block that cannot be read (the link's own, or the file's default
        with ``slot`` 1): an error of the link, named by its key and line."""
        if slot:
            key, at = f"defaults.{self.defaults['utm'][0]}", ""
        else:
            line = self.key_lines.get("utm")
            key, at = "utm", f" on line {line}" if line else ""
        message = f'key "{key}"{at}: {what}'
        self.named.append(("INVALID_FIELD", "url", message, Severity.ERROR, key))


def _kind(v: Any) -> str:
    return "list" if isinstance(v, list) else "mapping" if isinstance(v, dict) else type(v).__name__
