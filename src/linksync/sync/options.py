"""What a sync run is asked to do: the mode, the scope of deletes, the safety limits.

``SyncOptions`` is a plain frozen value built by the CLI (or by a Python caller) and read
by the diff, the remote-state fetch and the executor. It never holds the API key.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from linksync.errors import ConfigError
from linksync.model.ignore_rules import entry_texts, parse_ignore, parse_ignore_changes
from linksync.rules import check_url
from linksync.sync.slugs import SLUGLESS_MODES, Slugless


class Mode(StrEnum):
    """What the sync may do. ``mirror`` is ``upsert`` plus deletes inside the scope."""

    UPSERT = "upsert"
    CREATE_ONLY = "create-only"
    UPDATE_ONLY = "update-only"
    MIRROR = "mirror"


MODES: tuple[str, ...] = tuple(m.value for m in Mode)


@dataclass(frozen=True, slots=True)
class SyncOptions:
    """Options of one plan/apply.

    - ``default_domain``: domain of rows that name none (else the system domain).
    - ``system_domain``: the service's own domain; ``None`` means "find out" (the
      remote-state fetch learns it from the target or the workspace's links).
    - ``scope_domains`` / ``owner_tag``: the only links mirror mode may delete are those
      on the named domains (all domains when none are named) and, when an owner tag is
      given, carrying it. Mirror mode needs at least one of the two. The owner tag is
      added to every link linksync creates, and to the tags of rows that manage tags.
    - Safety (octoDNS-style): a plan whose updates+replaces+deletes exceed
      ``max_change_ratio`` of the existing links in scope (when there are at least
      ``min_existing``), or whose deletes exceed ``max_deletes``, is refused unless
      ``force``.
    - ``allow_takeover``: update, replace or delete links that another owner tag marks
      (``linksync.sync.ownership``), replacing that tag by ``owner_tag``; without it
      such writes are refused (OWNED_BY_OTHER).
    - ``slugless``: how a row without a slug is created (``linksync.sync.slugs``):
      ``stable`` (default) sends a slug derived from the domain and URL, so racing runs
      on any number of machines make one link; ``random`` lets the service pick one.
    - ``ignore_changes``: fields left to people (``linksync.model.ignore_rules``): sent
      on create, never updated nor reported as drift (over each row's file's own).
    - ``ignore``: links left alone, never created, updated nor deleted: slug patterns
      (``promo-*``) and tags (``tag:NAME``), as ``IgnoreEntry.text`` writes them.
    - ``retire_to``: a mirror retires instead of deleting (``linksync.sync.retire``):
      each link it would delete is updated to point at this URL and tagged ``retired``.
    """

    mode: Mode = Mode.UPSERT
    default_domain: str | None = None
    system_domain: str | None = None
    scope_domains: tuple[str, ...] = ()
    owner_tag: str | None = None
    allow_replace: bool = False
    allow_takeover: bool = False
    reset_passwords: bool = False
    max_deletes: int | None = None
    max_change_ratio: float = 0.30
    min_existing: int = 10
    force: bool = False
    slugless: Slugless = Slugless.STABLE
    ignore_changes: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    retire_to: str | None = None

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "ignore_changes", parse_ignore_changes(self.ignore_changes))
            object.__setattr__(self, "ignore", entry_texts(parse_ignore(self.ignore)))
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        if not isinstance(self.slugless, Slugless):
            try:
                object.__setattr__(self, "slugless", Slugless(str(self.slugless).strip().lower()))
            except ValueError:
                raise ConfigError(
                    f"unknown slugless mode {self.slugless!r}; choose one of "
                    f"{', '.join(SLUGLESS_MODES)}"
                ) from None
        if not isinstance(self.mode, Mode):
            try:
                object.__setattr__(self, "mode", Mode(str(self.mode)))
            except ValueError:
                raise ConfigError(
                    f"unknown mode {self.mode!r}; choose one of {', '.join(MODES)}"
                ) from None
        object.__setattr__(
            self, "scope_domains", tuple(sorted({d.strip().lower() for d in self.scope_domains}))
        )
        for name in ("default_domain", "system_domain"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, value.strip().lower())
        if self.owner_tag is not None and not self.owner_tag.strip():
            object.__setattr__(self, "owner_tag", None)
        if self.max_deletes is not None and self.max_deletes < 0:
            raise ConfigError("--max-deletes must be 0 or more")
        if not 0.0 <= self.max_change_ratio <= 1.0:
            raise ConfigError("the maximum change ratio must be between 0 and 1")
        if self.retire_to is not None:
            url = self.retire_to.strip()
            if check_url(url) is not None:
                raise ConfigError(
                    f"--retire-to {self.retire_to!r}: not a URL the service takes (INVALID_URL): "
                    "give an http:// or https:// address, e.g. https://example.com/ended"
                )
            object.__setattr__(self, "retire_to", url)
        if self.mode is Mode.MIRROR and not self.scope_domains and self.owner_tag is None:
            raise ConfigError(
                "mirror mode deletes only inside an explicit scope: name the domains "
                "(--domain D) and/or an ownership tag (--owner-tag T)"
            )

    @property
    def deletes(self) -> bool:
        return self.mode is Mode.MIRROR

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["mode"] = self.mode.value
        out["scope_domains"] = list(self.scope_domains)
        out["slugless"] = self.slugless.value
        out["ignore_changes"] = list(self.ignore_changes)
        out["ignore"] = list(self.ignore)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SyncOptions:
        return cls(
            mode=Mode(data.get("mode", "upsert")),
            default_domain=data.get("default_domain"),
            system_domain=data.get("system_domain"),
            scope_domains=tuple(data.get("scope_domains") or ()),
            owner_tag=data.get("owner_tag"),
            allow_replace=bool(data.get("allow_replace", False)),
            allow_takeover=bool(data.get("allow_takeover", False)),
            reset_passwords=bool(data.get("reset_passwords", False)),
            max_deletes=data.get("max_deletes"),
            max_change_ratio=float(data.get("max_change_ratio", 0.30)),
            min_existing=int(data.get("min_existing", 10)),
            force=bool(data.get("force", False)),
            # A plan saved before stable slugs existed created slugless rows at random.
            slugless=Slugless(data.get("slugless", Slugless.RANDOM.value)),
            ignore_changes=tuple(data.get("ignore_changes") or ()),
            ignore=tuple(data.get("ignore") or ()),
            retire_to=data.get("retire_to"),
        )
