"""What a repository leaves to people: ``ignore_changes:`` (fields) and ``ignore:``
(whole links), as a profile, a YAML file's ``defaults:`` (and, for fields, a link)
write them::

    defaults:
      ignore_changes: [tags, description]   # sent on create, never updated
      ignore:                               # never created, updated or deleted
        - promo-*                           # a slug pattern (fnmatch, any case)
        - tag: hand-made                    # links carrying this tag

``ignore_changes`` may name the fields a PATCH can change (``CHANGEABLE``); another
name is refused with the nearest one. An ``ignore:`` entry is a slug pattern (``*``,
``?`` and ``[...]`` as wildcards, matched without regard to case, as slugs are) or a
tag (``{tag: NAME}``, or the text ``tag:NAME``; matched exactly, as the service holds
tags). Each entry has one text form (``IgnoreEntry.text``: ``promo-*``, ``tag:NAME``),
which the engine's options and a saved plan hold.

``parse_ignore_changes`` and ``parse_ignore`` raise ``ValueError`` naming the entry at
fault; the caller words it as a config error (a profile, a flag) or a file problem
(YAML). Plain values, no I/O: a reader, the config and the engine all take them.
"""

from __future__ import annotations

import difflib
import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: The fields ``ignore_changes`` may name: those a PATCH changes (wire names).
CHANGEABLE: tuple[str, ...] = ("url", "description", "tags", "apple", "google", "password")
#: Fields a link has that no PATCH changes, and why naming them means nothing.
_NOT_CHANGEABLE = {
    "expiresAt": "an expiry is never updated in place (a new one is a replace)",
    "expires_at": "an expiry is never updated in place (a new one is a replace)",
    "slug": "the slug is the link's identity",
    "domain": "the domain is the link's identity",
}
#: What a slug pattern may hold: a slug's characters and fnmatch's wildcards.
_PATTERN = re.compile(r"^[A-Za-z0-9*?\[\]!-]+$")
_TAG_PREFIX = "tag:"


def parse_ignore_changes(value: Any) -> tuple[str, ...]:
    """The fields of an ``ignore_changes:`` value (a list, or texts with commas:
    ``--ignore-changes tags,description``), in ``CHANGEABLE``'s order. ``ValueError``
    for an unknown name (with the nearest)."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [v for v in value.split(",") if v.strip()]
    if not isinstance(value, list | tuple | set | frozenset) or not all(
        isinstance(v, str) for v in value
    ):
        raise ValueError(
            "ignore_changes must be a list of field names, such as [tags, description]"
        )
    names = {part.strip() for v in value for part in v.split(",") if part.strip()}
    for name in sorted(names):
        if name not in CHANGEABLE:
            raise ValueError(_unknown_field(name))
    return tuple(f for f in CHANGEABLE if f in names)


def _unknown_field(name: str) -> str:
    known = ", ".join(CHANGEABLE)
    why = _NOT_CHANGEABLE.get(name)
    if why is not None:
        return f'ignore_changes: "{name}" cannot be named: {why}; the fields it may name: {known}'
    near = difflib.get_close_matches(name.lower(), CHANGEABLE, n=1, cutoff=0.5)
    hint = f' (did you mean "{near[0]}"?)' if near else ""
    return f'ignore_changes: unknown field "{name}"{hint}; the fields it may name: {known}'


@dataclass(frozen=True, slots=True)
class IgnoreEntry:
    """One ``ignore:`` entry: a slug ``pattern`` (lower case) or a ``tag``."""

    pattern: str | None = None
    tag: str | None = None

    @property
    def text(self) -> str:
        """``promo-*`` or ``tag:NAME``: the entry as the options hold it."""
        return self.pattern if self.pattern is not None else f"{_TAG_PREFIX}{self.tag}"

    @property
    def shown(self) -> str:
        """``promo-*`` or ``tag: NAME``: the entry as a message names it."""
        return self.pattern if self.pattern is not None else f"tag: {self.tag}"

    def regex(self) -> re.Pattern[str] | None:
        """The pattern as a regular expression (None for a tag)."""
        return re.compile(fnmatch.translate(self.pattern)) if self.pattern is not None else None


def parse_ignore(value: Any) -> tuple[IgnoreEntry, ...]:
    """The entries of an ``ignore:`` value: a list (or one entry) of slug patterns,
    ``{tag: NAME}`` mappings and ``tag:NAME`` texts, repeats dropped. ``ValueError``
    naming an entry that is neither, or a pattern that can never match a slug."""
    if value is None:
        return ()
    items = list(value) if isinstance(value, list | tuple) else [value]
    out: dict[str, IgnoreEntry] = {}
    for item in items:
        entry = _entry(item)
        out.setdefault(entry.text, entry)
    return tuple(out.values())


def _entry(item: Any) -> IgnoreEntry:
    if isinstance(item, IgnoreEntry):
        return item
    if isinstance(item, Mapping):
        if set(map(str, item)) != {"tag"} or not isinstance(item.get("tag"), str):
            raise ValueError(
                f"ignore: {dict(item)!r} is no entry: write a slug pattern (promo-*) or "
                "{tag: NAME}"
            )
        return _tag(str(item["tag"]))
    if not isinstance(item, str) or not item.strip():
        raise ValueError(
            f"ignore: {item!r} is no entry: write a slug pattern (promo-*) or {{tag: NAME}}"
        )
    text = item.strip()
    if text.lower().startswith(_TAG_PREFIX):
        return _tag(text[len(_TAG_PREFIX) :])
    if not _PATTERN.match(text):
        raise ValueError(
            f'ignore: "{text}" can never match a slug (letters, digits and hyphens, with '
            "* ? and [...] as wildcards); a tag is written {tag: NAME}"
        )
    return IgnoreEntry(pattern=text.lower())


def _tag(name: str) -> IgnoreEntry:
    if not name.strip():
        raise ValueError("ignore: a tag entry needs the tag's name: {tag: NAME}")
    return IgnoreEntry(tag=name.strip())


def entry_texts(entries: Iterable[IgnoreEntry]) -> tuple[str, ...]:
    """The text form of each entry (``IgnoreEntry.text``)."""
    return tuple(e.text for e in entries)
