"""The diff: desired links + remote state + options -> Plan. Pure: no I/O.

Rules (docs/service.md, "Sync semantics"):

- Identity is (domain, slug); a row naming no domain gets the default domain, else the
  system domain. A row without slug is matched by (domain, url): one match is that link,
  none means create, several is AMBIGUOUS_MATCH; a create sends the row's stable slug
  (``linksync.sync.slugs``), or none with ``slugless=random``.
- Only managed fields are compared (``linksync.sync.compare``): tags as sets, URLs
  trimmed, timestamps as instants; the password is write-only: a row's password for a
  link that has one is compared with the fingerprint of the one this machine last sent
  (``passwords``), else not sent, with a PASSWORD_NOT_SENT warning on the row. A row
  whose empty cells leave values of the link as they are says which (``Change.notes``).
- expiresAt cannot be patched: a different expiry is a ``replace`` (delete + create)
  with ``allow_replace``, else the row is invalid with REPLACE_REQUIRED.
- A row for a custom domain the workspace lacks is DOMAIN_NOT_FOUND, for one not active
  DOMAIN_NOT_ACTIVE; rows with validation errors are ``invalid``; two rows claiming the
  same link are DUPLICATE_IN_SOURCE (the later one).
- Mirror mode deletes remote links in scope that no row claims. A row that failed
  (validation, an unknown domain) protects every link of its slug in the scope, whatever
  domain it named, and every link of its URL (a misspelt slug); the plan names each
  ``skip``, kept by that row. While rows or sheets a workbook hides are skipped unread,
  no link is deleted: each delete is refused with HIDDEN_ROW (HIDDEN_SHEET); with
  ``retire_to`` each is a ``retire``.
  Quota and safety are judged on the finished list of changes.
- An update, replace or delete of a link another owner tag marks is refused
  (OWNED_BY_OTHER) unless ``allow_takeover`` (``linksync.sync.ownership``); a link
  ``ignore:`` names is skipped (``linksync.sync.ignoring``).
- Links of listed domains no row claims, outside the scope, are ``unmanaged``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from contextlib import nullcontext
from dataclasses import replace

from linksync.model import Action, LinkKey, LinkSpec, Place, Problem, RemoteLink, Severity
from linksync.model.links import fold_slug
from linksync.sync.compare import compare, create_payload, row_domain, said_of, unsent_password
from linksync.sync.fingerprints import PasswordMemory
from linksync.sync.ignoring import Ignoring
from linksync.sync.matched import Matched
from linksync.sync.options import Mode, SyncOptions
from linksync.sync.ownership import (
    hidden_refusal,
    kept_by_invalid,
    other_owners,
    takeover_note,
    takeover_refused,
    unmanaged_links,
)
from linksync.sync.plan import Change, FieldChange, Plan, Unmanaged, sort_changes
from linksync.sync.quiet import PlanChanges
from linksync.sync.retire import retire_deletes
from linksync.sync.rowchecks import named_keys, stable_slug
from linksync.sync.rowchecks import problem as _problem
from linksync.sync.safety import judge_safety, mark_quota, quota_note
from linksync.sync.slugs import MAX_CANDIDATES, Slugless
from linksync.sync.state import KeyMap, LinkIndex, RemoteState, unclaimed
from linksync.sync.unchanged import QuickDiff


def _domain_problem(remote: RemoteState, spec: LinkSpec, domain: str) -> Problem | None:
    """The problem of a row's domain: not registered in the workspace, or not active."""
    if domain == remote.system_domain:
        return None
    info = remote.custom_domains.get(domain)
    if info is None:
        return _problem(
            "DOMAIN_NOT_FOUND",
            f"domain {domain} is not registered in this workspace",
            spec,
            "domain",
        )
    if not info.active:
        return _problem(
            "DOMAIN_NOT_ACTIVE",
            f"domain {domain} is registered but not active (status {info.status})",
            spec,
            "domain",
        )
    return None


def _missing_url(spec: LinkSpec) -> Problem | None:
    """The problem of a row with neither a slug nor a destination URL."""
    if spec.slug or (spec.url and spec.url.strip()):
        return None
    return _problem("MISSING_URL", "row has neither a slug nor a destination URL", spec, "url")


class _Differ:
    """One diff run's working state (kept out of ``diff`` so each step stays small)."""

    def __init__(
        self,
        remote: RemoteState,
        options: SyncOptions,
        problems: Iterable[Problem],
        invalid: Collection[int] = (),
        desired: Sequence[LinkSpec] = (),
        passwords: PasswordMemory | None = None,
        matched: Matched | None = None,
        parked: bool = False,
    ):
        self.remote = remote
        self.passwords = passwords
        self.desired = desired
        self._named: set[LinkKey] | None = None
        self.invalid = frozenset(invalid)
        self.options = options
        self.by_place: dict[Place, list[Problem]] = {}
        self.hidden: list[Problem] = []  # unread hidden rows and sheets: may name links
        for p in problems:
            if p.provenance is not None and p.provenance.row is not None:
                self.by_place.setdefault(p.provenance.place, []).append(p)
            elif p.constant in ("HIDDEN_SHEET", "UNREAD_SHEET"):  # (rows: ``row_change``)
                self.hidden.append(p)
        self.claimed: KeyMap[int] = KeyMap()  # key -> the row that claims it
        self.claimed_urls: dict[tuple[str, str], int] = {}
        self.protected_urls: set[tuple[str, str]] = set()
        self.kept_by: dict[str, LinkSpec] = {}  # folded slug or URL -> 1st failed row naming it
        self.ignoring = Ignoring(options)  # links left alone (ignore:)
        self.quick = QuickDiff(
            remote, options, self.invalid, self.by_place, self.claimed, matched=matched,
            parked=parked,
        )  # fmt: skip

    def row_change(self, index: int, spec: LinkSpec) -> Change:
        """The change of row ``index`` of ``desired`` (``spec``)."""
        domain = row_domain(spec, self.options, self.remote.system_domain)
        prov = spec.provenance
        found = list(self.by_place.get(prov.place, ())) if prov and self.by_place else []
        hidden = next((p for p in found if p.constant == "HIDDEN_ROW"), None) if found else None
        if hidden is not None:
            self.hidden.append(hidden)
        if index in self.invalid or (found and any(p.severity is Severity.ERROR for p in found)):
            self._protect(spec, domain, index)
            return Change(Action.INVALID, domain, spec.slug, index, spec, problems=tuple(found))
        if hidden is not None:  # a row the workbook hides, not read: no link, no domain
            if spec.slug:  # it claims nothing: nor a claim held for it (``QuickDiff``)
                self.quick.release(LinkKey.of(domain, spec.slug), index)
            rest = tuple(p for p in found if p is not hidden)
            return Change(Action.SKIP, "", None, index, spec, problems=rest, reason=hidden.message)
        blocked = _domain_problem(self.remote, spec, domain) or _missing_url(spec)
        if blocked is not None:
            self._protect(spec, domain, index)
            return self._invalid(index, spec, domain, spec.slug, None, (*found, blocked))
        link, match_problem = self._match(index, spec, domain)
        if match_problem is not None:
            return self._invalid(index, spec, domain, spec.slug, link, (*found, match_problem))
        return self.ignoring.skip_or(self._decide, index, spec, domain, link, tuple(found))

    def _invalid(
        self,
        index: int,
        spec: LinkSpec,
        domain: str,
        slug: str | None,
        link: RemoteLink | None,
        problems: Sequence[Problem],
        fields: tuple[FieldChange, ...] = (),
    ) -> Change:
        problems = tuple(problems)
        return Change(Action.INVALID, domain, slug, index, spec, link, fields, problems=problems)

    def _protect(self, spec: LinkSpec, domain: str, index: int) -> None:
        if spec.slug:
            self.quick.claim(LinkKey.of(domain, spec.slug), index)
            self.kept_by.setdefault(spec.slug.lower(), spec)
        elif spec.url:
            self.protected_urls.add((domain, spec.url.strip()))
        if spec.url:  # and the links of its URL: the slug may be what is misspelt
            self.kept_by.setdefault(spec.url.strip(), spec)

    def _match(
        self, index: int, spec: LinkSpec, domain: str
    ) -> tuple[RemoteLink | None, Problem | None]:
        """The remote link a row refers to, or a problem (duplicate, ambiguous)."""
        if spec.slug:
            key = LinkKey(domain, fold_slug(spec.slug))  # the domain is folded already
            link = self.quick.link(key)
        else:
            url = (spec.url or "").strip()
            first = self.claimed_urls.get((domain, url))
            if first is not None:
                return None, self._duplicate(spec, first)
            self.claimed_urls[(domain, url)] = index
            matches = self.remote.with_url(domain, url)
            if len(matches) > 1:
                self.protected_urls.add((domain, url))
                slugs = ", ".join(sorted(x.slug for x in matches))
                return None, _problem(
                    "AMBIGUOUS_MATCH",
                    f"no slug given and {len(matches)} links on {domain} have this URL "
                    f"({slugs}); add the slug to the row",
                    spec,
                    "slug",
                )
            if not matches:
                return None, None
            link = matches[0]
            key = link.key
        first = self.quick.claim(key, index)
        return link, (self._duplicate(spec, first) if first != index else None)

    def _duplicate(self, spec: LinkSpec, first: int) -> Problem:
        other = self.desired[first] if first < len(self.desired) else None
        where = other.provenance.where() if other and other.provenance else f"row #{first + 1}"
        return _problem(
            "DUPLICATE_IN_SOURCE", f"same link as an earlier row ({where})", spec, "slug"
        )

    def _decide(
        self,
        index: int,
        spec: LinkSpec,
        domain: str,
        link: RemoteLink | None,
        found: tuple[Problem, ...],
    ) -> Change:
        mode = self.options.mode
        if link is None:
            if mode is Mode.UPDATE_ONLY:
                return Change(
                    Action.SKIP,
                    domain,
                    spec.slug,
                    index,
                    spec,
                    problems=found,
                    reason="link does not exist (update-only mode)",
                )
            if not spec.url:
                problem = _problem("MISSING_URL", "a new link needs a destination URL", spec, "url")
                return self._invalid(index, spec, domain, spec.slug, None, (*found, problem))
            slug = spec.slug or None
            if slug is None and self.options.slugless is Slugless.STABLE:
                slug = self._stable_slug(domain, spec.url)
                if slug is None:
                    problem = _problem(
                        "SLUG_EXISTS",
                        f"no stable slug is free for this row: its {MAX_CANDIDATES} "
                        "candidates are reserved or taken by links to other URLs; give "
                        "the row a slug",
                        spec,
                        "slug",
                    )
                    return self._invalid(index, spec, domain, None, None, (*found, problem))
                self.claimed[LinkKey.of(domain, slug)] = index
            payload = create_payload(spec, domain, self.options, slug=slug)
            return Change(Action.CREATE, domain, slug, index, spec, None, (), payload, found)
        cmp = compare(spec, link, self.options, passwords=self.passwords)
        notes = said_of(spec, link, cmp, self.options)
        if cmp.same:
            found = (*found, *unsent_password(spec, cmp))
            return Change(
                Action.UNCHANGED, domain, link.slug, index, spec, link, problems=found, notes=notes
            )
        if mode is Mode.CREATE_ONLY:
            return Change(
                Action.SKIP,
                domain,
                link.slug,
                index,
                spec,
                link,
                cmp.fields,
                problems=found,
                reason="link exists and differs (create-only mode)",
            )
        if other_owners(link.tags, self.options):
            what = "replace" if cmp.needs_replace else "update"
            if not self.options.allow_takeover:
                problem = takeover_refused(link, spec, self.options, what)
                return self._invalid(
                    index, spec, domain, link.slug, link, (*found, problem), cmp.fields
                )
            found = (*found, takeover_note(link, spec, self.options))
        if cmp.needs_replace:
            if not self.options.allow_replace:
                problem = _problem(
                    "REPLACE_REQUIRED",
                    "expiresAt differs and cannot be patched; run with --allow-replace "
                    "to delete and re-create the link",
                    spec,
                    "expires_at",
                )
                return self._invalid(
                    index, spec, domain, link.slug, link, (*found, problem), cmp.fields
                )
            problems = found
            if link.has_password and not ("password" in spec.managed and spec.password):
                problems = (
                    *found,
                    Problem(
                        "REPLACE_REQUIRED",
                        "the remote link has a password the row does not give; the "
                        "re-created link will have none",
                        spec.provenance,
                        "password",
                        Severity.WARNING,
                    ),
                )
            payload = create_payload(spec, domain, self.options, carry=link)
            return Change(
                Action.REPLACE, domain, link.slug, index, spec, link, cmp.fields, payload,
                problems, notes=notes,
            )  # fmt: skip
        found = (*found, *unsent_password(spec, cmp))
        return Change(
            Action.UPDATE, domain, link.slug, index, spec, link, cmp.fields, cmp.patch, found,
            notes=notes,
        )  # fmt: skip

    def _stable_slug(self, domain: str, url: str) -> str | None:
        """The row's stable slug (``linksync.sync.rowchecks.stable_slug``)."""
        if self._named is None:
            self._named = named_keys(self.desired, self.options, self.remote.system_domain)
        return stable_slug(domain, url, self.remote, (self._named, self.claimed))

    def in_scope(self, link: RemoteLink) -> bool:
        opts = self.options
        if opts.scope_domains and link.domain.lower() not in opts.scope_domains:
            return False
        return opts.owner_tag is None or opts.owner_tag in link.tags

    def deletes(self, start: int) -> list[Change]:
        out: list[Change] = []
        protected, in_scope = self.protected_urls, self.in_scope
        left = [
            (key, link)
            for key, link in unclaimed(self.remote.links, self.claimed, self.quick.claimed_on())
            if in_scope(link) and (key.domain, link.url.strip()) not in protected
        ]
        for key, link in sorted(self.ignoring.spare(left)):
            kept = kept_by_invalid(link, self.kept_by, start) if self.kept_by else None
            if kept is not None:
                out.append(kept)
                continue
            action = Action.DELETE
            problems: tuple[Problem, ...] = ()
            if self.hidden:  # a hidden row or sheet may name this link
                action, problems = Action.INVALID, (hidden_refusal(self.hidden),)
            elif other_owners(link.tags, self.options):
                if self.options.allow_takeover:
                    problems = (takeover_note(link, None, self.options),)
                else:
                    action = Action.INVALID
                    problems = (takeover_refused(link, None, self.options, "delete"),)
            out.append(Change(action, key.domain, link.slug, start, None, link, problems=problems))
        return out


def diff(
    desired: Sequence[LinkSpec],
    remote: RemoteState,
    options: SyncOptions,
    *,
    problems: Iterable[Problem] = (),
    invalid: Collection[int] = (),
    target: str | None = None,
    passwords: PasswordMemory | None = None,
) -> Plan:
    """The plan that brings ``remote`` in step with ``desired``. Pure.

    ``problems`` are local validation findings (``linksync.validate``): a row with an
    error-severity problem (matched by source, sheet and row) is ``invalid``; warnings
    ride along on the row's change. ``invalid`` names rows (positions in ``desired``)
    that are invalid whatever their provenance (``Validation.invalid``). ``passwords``:
    the fingerprints of the passwords this machine sent to the target's links
    (``linksync.sync.fingerprints``; none: a password a link has is never compared).
    """
    matched = remote.matched if remote.matched and remote.matched.fits(desired, options) else None
    if options.system_domain is None:
        options = replace(options, system_domain=remote.system_domain)
    index = remote.links  # the links matched to quiet rows may be left out of it
    opened = index.unsettled() if matched and isinstance(index, LinkIndex) else nullcontext(False)
    with opened as parked:  # (``LinkIndex.park``) until the unclaimed links are named
        differ = _Differ(remote, options, problems, invalid, desired, passwords, matched, parked)
        # a Change for each row but the quiet ones, only counted (``linksync.sync.quiet``)
        rows = [ch for ch in differ.quick.plan_rows(desired, differ.row_change) if ch is not None]
        if options.deletes:
            rows += retire_deletes(differ.deletes(len(desired)), options)
        claims = differ.claimed, differ.protected_urls, differ.in_scope, differ.quick.claimed_on()
        unmanaged = unmanaged_links(remote, options, *claims)
    changes = mark_quota(rows, remote)  # the quiet rows plan no create nor write
    quota = quota_note(changes, remote)
    return Plan(
        changes=PlanChanges(sort_changes(changes), differ.quick.quiet),
        options=options,
        fetches=remote.fetches,
        requests=remote.requests,
        quota=quota,
        safety=judge_safety(changes, remote, options, differ.in_scope),
        target=target,
        unmanaged=Unmanaged(unmanaged, tuple(sorted(remote.listed_domains - {""}))),
        ignored=differ.ignoring.ignored(),
    )
