"""What the repository leaves to people, as the diff applies it. Pure: no I/O.

- **Fields** (``ignore_changes``: the options', and each row's file's or link's own,
  ``LinkSpec.declared``): a create sends the row's value; an update never compares
  them, so a link whose only differences are such fields is ``unchanged``, with a
  note naming them (``linksync.sync.compare`` drops them: ``ignored_fields``,
  ``left_note``). A replace (a new expiry) keeps the link's own values of them.
- **Links** (``ignore``: the profile's, the flags', every read file's ``defaults:
  ignore:``): a link whose slug matches a pattern (``promo-*``, without regard to case)
  or that carries a tag named (``tag:NAME``) is never created, updated or deleted, in
  any mode. A row that declares one is a ``skip`` with the reason; a mirror does not
  delete one. Both are counted in the plan's ``Ignored``, and neither is a change.

A file's ``ignore:`` entries are the run's (``linksync.pipeline.inputs``): every file's
rows and every delete of the run leave those links alone, as the profile's would.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable

from linksync.model import Action, LinkKey, LinkSpec, Problem, RemoteLink
from linksync.model.ignore_rules import IgnoreEntry, parse_ignore
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Change
from linksync.sync.verdicts import Ignored


def ignored_fields(spec: LinkSpec, options: SyncOptions) -> frozenset[str]:
    """The fields the row's update leaves to people: the options' and its file's."""
    own = spec.declared.ignore_changes
    if not options.ignore_changes:
        return own
    return own.union(options.ignore_changes)


def left_note(names: Collection[str]) -> str:
    """'tags, description left to people (ignore_changes)': fields that differ and that
    the update leaves as people set them."""
    return f"{', '.join(names)} left to people (ignore_changes)"


class Ignoring:
    """One diff's ``ignore:`` entries, compiled, and the links they left alone."""

    def __init__(self, options: SyncOptions) -> None:
        entries = parse_ignore(options.ignore)
        self.patterns: list[tuple[IgnoreEntry, re.Pattern[str]]] = [
            (e, rx) for e in entries if (rx := e.regex()) is not None
        ]
        self.tags = [e for e in entries if e.tag is not None]
        self.found: list[tuple[str, str, str]] = []
        self.active = bool(self.patterns or self.tags)

    def entry(self, slug: str | None, tags: Iterable[str] = ()) -> IgnoreEntry | None:
        """The first entry naming a link of ``slug`` carrying ``tags``, or None."""
        if slug:
            folded = slug.lower()
            for e, rx in self.patterns:
                if rx.match(folded):
                    return e
        if self.tags:
            held = set(tags)
            return next((e for e in self.tags if e.tag in held), None)
        return None

    def skip_or(
        self,
        decide: Callable[[int, LinkSpec, str, RemoteLink | None, tuple[Problem, ...]], Change],
        index: int,
        spec: LinkSpec,
        domain: str,
        link: RemoteLink | None,
        found: tuple[Problem, ...],
    ) -> Change:
        """The ``skip`` of a row whose link an entry names (the link it matched, else
        the row's own slug), else what ``decide`` makes of the row."""
        if self.active:
            slug = link.slug if link is not None else spec.slug
            e = self.entry(slug, link.tags if link is not None else ())
            if e is not None and slug is not None:
                self.found.append((domain, slug, e.shown))
                why = f"left alone (ignore: {e.shown}): neither created, updated nor deleted"
                return Change(
                    Action.SKIP, domain, slug, index, spec, link, problems=found, reason=why
                )
        return decide(index, spec, domain, link, found)

    def spare(self, links: list[tuple[LinkKey, RemoteLink]]) -> list[tuple[LinkKey, RemoteLink]]:
        """``links`` (a mirror's deletes) but those an entry names, which are counted."""
        if not self.active:
            return links
        kept: list[tuple[LinkKey, RemoteLink]] = []
        for key, link in links:
            e = self.entry(link.slug, link.tags)
            if e is None:
                kept.append((key, link))
            else:
                self.found.append((key.domain, link.slug, e.shown))
        return kept

    def ignored(self) -> Ignored:
        return Ignored(tuple(sorted(self.found)))
