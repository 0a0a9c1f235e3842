"""The JSON Schema (draft 2020-12) of the YAML link files, for editors and CI.

``link_file_schema()`` describes the format of docs/architecture.md, as
``linksync.sources`` reads it: a mapping with optional ``defaults`` and ``links`` (a
list of links, or a mapping keyed by slug whose values are links or just URLs), or a
bare list of links. Keys use the wire names; the snake_case alias ``expires_at`` is
accepted. ``null`` clears a field and ``[]`` clears the tags; a password may be a
reference (``{env: NAME}``, ``{file: PATH}``); ``ignore_changes`` (a link, defaults) and
``ignore`` (defaults) say what the repository leaves to people. ``links: []`` declares
a file without links (``links:`` with nothing under it is refused, as the reader
refuses it); top-level keys starting with ``x-`` hold anchors and are not read. Merge
keys (``<<``) are resolved by editors before they validate (yaml-language-server does).

The value rules come from ``linksync.rules`` (slug pattern, length, reserved words), so
the schema and local validation cannot disagree. JSON Schema patterns have no flags, so
the case-insensitive slug pattern is spelled with both cases.

Editors pick the schema up from the first line of a file::

    # yaml-language-server: $schema=../links.schema.json

``linksync schema > links.schema.json`` writes it; ``render_schema()`` is that text
(sorted keys, two-space indent, final newline), stable from run to run.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from linksync.model.ignore_rules import CHANGEABLE
from linksync.rules import MAX_SLUG_BYTES, RESERVED_SLUGS, SLUG_RE
from linksync.safe.outputs import write_text_atomic

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "urn:linksync:link-file:v1"

#: UTM parameters a file's defaults may add to every link's URL.
UTM_KEYS: tuple[str, ...] = ("source", "medium", "campaign", "term", "content")

#: A case-insensitive http(s) URL with a host and no whitespace (the detailed checks,
#: such as invisible characters, are local validation's).
URL_PATTERN = r"^[Hh][Tt][Tt][Pp][Ss]?://[^\s/?#]+(?:[/?#]\S*)?$"


#: What the readers accept as an expiry (``linksync.rules.timestamps.parse_iso`` with assume_utc, or
#: a bare date): JSON Schema's ``format: date-time`` would refuse the zone-less and
#: date-only forms the readers take as UTC.
EXPIRY_PATTERN = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"(?:[Tt ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]{1,9})?)?(?:[Zz]|[+-][0-9]{2}:?[0-9]{2})?)?$"
)


#: A variable's name (``{env: NAME}``), and an ``ignore:`` slug pattern or ``tag:NAME``.
ENV_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
IGNORE_PATTERN = r"^(?:[A-Za-z0-9*?\[\]!-]+|[Tt][Aa][Gg]:.+)$"


def _both_cases(text: str) -> str:
    """A regex matching ``text`` in any letter case without flags: 'api' -> '[Aa][Pp][Ii]'."""
    return "".join(f"[{ch.upper()}{ch.lower()}]" if ch.isalpha() else re.escape(ch) for ch in text)


def slug_pattern() -> str:
    """``rules.SLUG_RE`` as an anchored ECMA-262 pattern without the IGNORECASE flag."""
    pattern = SLUG_RE.pattern
    if SLUG_RE.flags & re.IGNORECASE:
        pattern = pattern.replace("a-z", "A-Za-z")
    return f"^{pattern}$"


def reserved_pattern() -> str:
    """Matches exactly a reserved slug, in any letter case."""
    words = "|".join(_both_cases(w) for w in sorted(RESERVED_SLUGS))
    return f"^(?:{words})$"


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _link_properties() -> dict[str, Any]:
    expires = _nullable(
        {
            "type": "string",
            "pattern": EXPIRY_PATTERN,
            "description": "ISO 8601 instant after which the link stops resolving, such as "
            '"2026-12-31T23:59:59Z"; without a zone, or as a bare date, it is taken as UTC '
            "(a date means midnight). Cannot be changed in place: a new value needs "
            "--allow-replace.",
        }
    )
    return {
        "url": {"$ref": "#/$defs/url", "description": "Destination URL (http:// or https://)."},
        "slug": {"$ref": "#/$defs/slug"},
        "domain": {"$ref": "#/$defs/domain"},
        "description": _nullable(
            {"type": "string", "description": "Human-readable title or memo."}
        ),
        "tags": {"$ref": "#/$defs/tags"},
        "password": {
            "description": "Password gating the redirect. Write-only: the service never "
            "returns it, so an export cannot contain it. Keep it out of git: {env: NAME} "
            "reads it from a variable, {file: PATH} from a file beside this one (inside "
            "the repository); a password written in clear is warned of (SECRET_IN_SOURCE). "
            "null removes it.",
            "anyOf": [
                {"type": "string", "minLength": 1},
                {"$ref": "#/$defs/secretRef"},
                {"type": "null"},
            ],
        },
        "expiresAt": expires,
        "expires_at": expires,
        "apple": _nullable({"$ref": "#/$defs/url", "description": "Redirect for iOS visitors."}),
        "google": _nullable(
            {"$ref": "#/$defs/url", "description": "Redirect for Android visitors."}
        ),
        "utm": {"$ref": "#/$defs/utm"},
        "ignore_changes": {"$ref": "#/$defs/ignoreChanges"},
    }


def _defaults_properties() -> dict[str, Any]:
    """What a file's defaults may set: every link field but url and slug, plus utm,
    ignore_changes and ignore."""
    props = _link_properties()
    del props["url"], props["slug"]
    props["ignore"] = {"$ref": "#/$defs/ignore"}
    return props


def _one_key(key: str, value: dict[str, Any]) -> dict[str, Any]:
    """An object holding ``key`` (of the schema ``value``) and nothing else."""
    return dict(type="object", properties={key: value}, required=[key], additionalProperties=False)


def _left_to_people() -> dict[str, Any]:
    """The definitions of ``ignore_changes`` and ``ignore`` (``linksync.model.ignore_rules``)
    and of a password's reference."""
    return {
        "secretRef": {
            "description": "Where the password is read at run time: a variable "
            "({env: VIP_PASSWORD}) or a file relative to this one, inside the repository "
            "({file: secrets/vip.txt}). Plans and reports say 'set from env VIP_PASSWORD'.",
            "anyOf": [
                _one_key("env", {"type": "string", "pattern": ENV_NAME_PATTERN}),
                _one_key("file", {"type": "string", "minLength": 1}),
            ],
        },
        "ignoreChanges": {
            "description": "Fields left to people: sent when the link is created, never "
            "updated nor reported as drift.",
            "type": "array",
            "items": {"enum": list(CHANGEABLE)},
        },
        "ignore": {
            "description": "Links left alone by every run (never created, updated nor "
            "deleted, in any mode): slug patterns (promo-*, any case) and {tag: NAME}.",
            "type": "array",
            "items": {
                "anyOf": [
                    {"type": "string", "pattern": IGNORE_PATTERN},
                    _one_key("tag", {"type": "string", "minLength": 1}),
                ]
            },
        },
    }


def _link(*, slug_from_key: bool) -> dict[str, Any]:
    description = (
        "A link whose slug is its key in the links mapping."
        if slug_from_key
        else "A link. Without slug the service generates one (matched by domain and URL)."
    )
    properties = _link_properties()
    if slug_from_key:
        del properties["slug"]
    return {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": ["url"],
        "additionalProperties": False,
        "not": {"required": ["expiresAt", "expires_at"]},
    }


def link_file_schema() -> dict[str, Any]:
    """The JSON Schema of a YAML link file, as a plain dict."""
    defs: dict[str, Any] = {
        "slug": {
            "type": "string",
            "description": "Letters and digits, single hyphens between groups, at most "
            f"{MAX_SLUG_BYTES} bytes, not a reserved word. Quote slugs YAML would read "
            "as numbers or booleans ('007', 'no').",
            "pattern": slug_pattern(),
            "maxLength": MAX_SLUG_BYTES,
            "not": {"pattern": reserved_pattern()},
        },
        "url": {"type": "string", "pattern": URL_PATTERN, "maxLength": 8192},
        "domain": {
            "type": "string",
            "description": "Custom or system domain (host name). Default: the profile's "
            "default domain, else the system domain.",
            "minLength": 1,
            "pattern": r"^[^\s/:@]+$",
        },
        "tags": {
            "description": "Classification tags, compared as a set: a list, or one text "
            "split on commas, semicolons or bars. [] or null clears them.",
            "anyOf": [
                {"type": "array", "items": {"type": "string", "minLength": 1}},
                {"type": "string"},
                {"type": "null"},
            ],
        },
        "utm": {
            "type": "object",
            "description": "UTM parameters added to the destination URL (parameters the "
            "URL already has are kept). Keys: source, medium, campaign, term, content, "
            "or their utm_ forms.",
            "properties": {
                key: _nullable({"type": "string"})
                for name in UTM_KEYS
                for key in (name, f"utm_{name}")
            },
            "additionalProperties": False,
        },
        "defaults": {
            "type": "object",
            "description": "Applies to every link of this file unless the link sets it; "
            "tags and utm are merged with the link's own.",
            "properties": _defaults_properties(),
            "additionalProperties": False,
        },
        **_left_to_people(),
        "link": _link(slug_from_key=False),
        "keyedLink": _link(slug_from_key=True),
        "linkList": {"type": "array", "items": {"$ref": "#/$defs/link"}},
        "linkMap": {
            "type": "object",
            "description": "Links keyed by slug; a value may be just the destination URL.",
            "propertyNames": {"$ref": "#/$defs/slug"},
            "additionalProperties": {
                "anyOf": [{"$ref": "#/$defs/keyedLink"}, {"$ref": "#/$defs/url"}]
            },
        },
        "document": {
            "type": "object",
            "properties": {
                "defaults": _nullable({"$ref": "#/$defs/defaults"}),
                "links": {
                    "description": "The links of this file: [] (or {}) for a file that "
                    "declares none on purpose.",
                    "anyOf": [{"$ref": "#/$defs/linkList"}, {"$ref": "#/$defs/linkMap"}],
                },
            },
            "patternProperties": {
                "^x-": {
                    "description": "Not read: holds anchors for merge keys (<<: *common) "
                    "and aliases."
                }
            },
            "required": ["links"],
            "additionalProperties": False,
        },
    }
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": SCHEMA_ID,
        "title": "linksync link file",
        "description": "Declared short links (links as code). A mapping with optional "
        "defaults and links (a list, or a mapping keyed by slug), or a bare list of links.",
        "anyOf": [{"$ref": "#/$defs/document"}, {"$ref": "#/$defs/linkList"}],
        "$defs": defs,
    }


def render_schema() -> str:
    """The schema as stable JSON text: sorted keys, two-space indent, final newline."""
    return json.dumps(link_file_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schemas_for(
    files: Sequence[Path], schema_ref: str | None
) -> tuple[tuple[Path, ...], tuple[str, ...]]:
    """Write the schema where the ``$schema=`` line of ``files`` points (a local .json
    path, relative to each file), as ``export`` does: the paths written, and warnings
    (a file there that is not a linksync schema is kept as it is)."""
    if not schema_ref or "://" in schema_ref or not schema_ref.endswith(".json"):
        return (), ()
    text = render_schema()
    out: list[Path] = []
    warnings: list[str] = []
    for parent in sorted({f.parent for f in files}):
        target = Path(os.path.normpath(parent / schema_ref))
        if target.exists() and SCHEMA_ID not in target.read_text("utf-8", errors="replace"):
            warnings.append(f"{target} exists and is not a linksync schema; left as it is")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(target, text)
        out.append(target)
    return tuple(out), tuple(warnings)
