"""The diff: desired links + remote state + options -> Plan. Pure: no I/O.

Rules (DESIGN.md, "Sync semantics"):

- Identity is (domain, slug); a row naming no domain gets the default domain, else the
  system domain. A row without slug is matched by (domain, url): one match is that link,
  none means create (the service generates the slug), several is AMBIGUOUS_MATCH.
- Only managed fields are compared (``LinkSpec.managed``; ``url`` whenever it is given).
  Tags compare as sets, URLs as given after trimming, timestamps as instants, and an
  empty string equals no value. The password is write-only: sent on create, on update
  only when the remote has none or ``reset_passwords``.
- expiresAt cannot be patched: a different expiry is a ``replace`` (delete + create)
  with ``allow_replace``, else the row is invalid with REPLACE_REQUIRED.
- A row for a custom domain the workspace lacks is DOMAIN_NOT_FOUND, for one not active
  DOMAIN_NOT_ACTIVE; rows with validation errors are ``invalid``; two rows claiming the
  same link are DUPLICATE_IN_SOURCE (the later one).
- Mirror mode deletes remote links in scope that no row claims (an invalid row still
  protects its link). Quota and safety are judged on the finished list of changes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from linksync.model import API_NAMES, Action, LinkSpec, Problem, RemoteLink, Severity
from linksync.sync.options import Mode, SyncOptions
from linksync.sync.plan import Change, FieldChange, Plan, QuotaNote, Safety, sort_changes
from linksync.sync.state import Key, RemoteState

#: Fields compared on an existing link (password separately: it is write-only).
COMPARED_FIELDS: tuple[str, ...] = ("url", "description", "tags", "apple", "google")


@dataclass(frozen=True, slots=True)
class Comparison:
    """How a desired link differs from its remote record."""

    fields: tuple[FieldChange, ...]
    patch: Mapping[str, Any]
    needs_replace: bool

    @property
    def same(self) -> bool:
        return not self.fields


def row_domain(spec: LinkSpec, options: SyncOptions, system_domain: str) -> str:
    """The domain a row's link lives on (lower case)."""
    return (spec.domain or options.default_domain or system_domain).strip().lower()


def desired_tags(spec: LinkSpec, options: SyncOptions) -> tuple[str, ...]:
    """The row's tags plus the owner tag, source order, no repeats."""
    tags = list(spec.tags or ())
    if options.owner_tag is not None:
        tags.append(options.owner_tag)
    return tuple(dict.fromkeys(t for t in tags if t))


def same_instant(a: str | None, b: str | None) -> bool:
    """Timestamps compare as instants; unparseable values compare as text."""
    if not a or not b:
        return not a and not b
    pa, pb = _instant(a), _instant(b)
    if pa is None or pb is None:
        return a.strip() == b.strip()
    return pa == pb


def _instant(value: str) -> datetime | None:
    try:
        dt = datetime.fromisoformat(value.strip().replace("z", "Z"))
    except ValueError:
        return None
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def _text(value: str | None) -> str | None:
    return value if value else None


def compare(spec: LinkSpec, remote: RemoteLink, options: SyncOptions) -> Comparison:
    """Managed fields of ``spec`` that differ from ``remote``, and the PATCH body that
    makes them equal (wire names). ``needs_replace`` when the expiry differs."""
    fields: list[FieldChange] = []
    patch: dict[str, Any] = {}
    managed = spec.managed
    if spec.url is not None and spec.url.strip() != remote.url.strip():
        fields.append(FieldChange("url", remote.url, spec.url.strip()))
        patch["url"] = spec.url.strip()
    for name in ("description", "apple", "google"):
        if name in managed:
            new, old = _text(spec.value(name)), _text(getattr(remote, name))
            if new != old:
                fields.append(FieldChange(name, old, new))
                patch[API_NAMES[name]] = new
    if "tags" in managed:
        tags = desired_tags(spec, options)
        if set(tags) != set(remote.tags):
            fields.append(FieldChange("tags", tuple(remote.tags), tags))
            patch["tags"] = list(tags)
    if "password" in managed:
        if spec.password:
            if not remote.has_password or options.reset_passwords:
                fields.append(FieldChange("password", None, "***"))
                patch["password"] = spec.password
        elif remote.has_password:
            fields.append(FieldChange("password", "***", None))
            patch["password"] = None
    needs_replace = False
    if "expires_at" in managed and not same_instant(spec.expires_at, remote.expires_at):
        fields.append(FieldChange("expires_at", remote.expires_at, spec.expires_at))
        needs_replace = True
    return Comparison(tuple(fields), patch, needs_replace)


def create_payload(
    spec: LinkSpec,
    domain: str,
    options: SyncOptions,
    *,
    carry: RemoteLink | None = None,
) -> dict[str, Any]:
    """The POST body for ``spec`` (wire names). With ``carry`` (a replace), fields the
    row does not manage keep the remote record's values."""
    body: dict[str, Any] = {"url": (spec.url or (carry.url if carry else "")).strip()}
    if spec.slug:
        body["slug"] = spec.slug
    elif carry is not None:
        body["slug"] = carry.slug
    if domain:
        body["domain"] = domain
    for name in ("description", "apple", "google", "expires_at"):
        value = spec.value(name) if name in spec.managed else None
        if name not in spec.managed and carry is not None and name != "expires_at":
            value = getattr(carry, name)
        if value:
            body[API_NAMES[name]] = value
    if "tags" in spec.managed or carry is None:
        tags = desired_tags(spec, options)
    else:
        tags = tuple(dict.fromkeys([*carry.tags, *desired_tags(spec, options)]))
    if tags:
        body["tags"] = list(tags)
    if "password" in spec.managed and spec.password:
        body["password"] = spec.password
    return body


def _place(spec: LinkSpec) -> tuple[str, str | None, int | None] | None:
    p = spec.provenance
    return (p.source, p.sheet, p.row) if p is not None else None


def _problem(constant: str, message: str, spec: LinkSpec | None, field: str | None) -> Problem:
    return Problem(constant, message, spec.provenance if spec else None, field)


class _Differ:
    """One diff run's working state (kept out of ``diff`` so each step stays small)."""

    def __init__(
        self,
        remote: RemoteState,
        options: SyncOptions,
        problems: Iterable[Problem],
        invalid: Collection[int] = (),
    ):
        self.remote = remote
        self.invalid = frozenset(invalid)
        self.options = options
        self.by_place: dict[tuple[str, str | None, int | None], list[Problem]] = {}
        for p in problems:
            if p.provenance is not None and p.provenance.row is not None:
                place = (p.provenance.source, p.provenance.sheet, p.provenance.row)
                self.by_place.setdefault(place, []).append(p)
        self.claimed: dict[Key, int] = {}
        self.claimed_urls: dict[tuple[str, str], int] = {}
        self.protected_urls: set[tuple[str, str]] = set()
        self.rows: dict[int, LinkSpec] = {}

    def row_change(self, index: int, spec: LinkSpec) -> Change:
        self.rows[index] = spec
        domain = row_domain(spec, self.options, self.remote.system_domain)
        place = _place(spec)
        found = list(self.by_place.get(place, ())) if place is not None else []
        if index in self.invalid or any(p.severity is Severity.ERROR for p in found):
            self._protect(spec, domain, index)
            return Change(Action.INVALID, domain, spec.slug, index, spec, problems=tuple(found))
        blocked = self._domain_problem(spec, domain) or self._missing_url(spec)
        if blocked is not None:
            self._protect(spec, domain, index)
            return self._invalid(index, spec, domain, spec.slug, None, (*found, blocked))
        link, match_problem = self._match(index, spec, domain)
        if match_problem is not None:
            return self._invalid(index, spec, domain, spec.slug, link, (*found, match_problem))
        return self._decide(index, spec, domain, link, tuple(found))

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
        return Change(
            Action.INVALID, domain, slug, index, spec, link, fields, problems=tuple(problems)
        )

    def _protect(self, spec: LinkSpec, domain: str, index: int) -> None:
        if spec.slug:
            self.claimed.setdefault((domain, spec.slug.lower()), index)
        elif spec.url:
            self.protected_urls.add((domain, spec.url.strip()))

    def _domain_problem(self, spec: LinkSpec, domain: str) -> Problem | None:
        if domain == self.remote.system_domain:
            return None
        info = self.remote.custom_domains.get(domain)
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

    def _missing_url(self, spec: LinkSpec) -> Problem | None:
        if spec.slug or (spec.url and spec.url.strip()):
            return None
        return _problem("MISSING_URL", "row has neither a slug nor a destination URL", spec, "url")

    def _match(
        self, index: int, spec: LinkSpec, domain: str
    ) -> tuple[RemoteLink | None, Problem | None]:
        """The remote link a row refers to, or a problem (duplicate, ambiguous)."""
        if spec.slug:
            key = (domain, spec.slug.lower())
            link = self.remote.get(domain, spec.slug)
        else:
            url = (spec.url or "").strip()
            first = self.claimed_urls.get((domain, url))
            if first is not None:
                return None, self._duplicate(spec, first)
            self.claimed_urls[(domain, url)] = index
            matches = [x for x in self.remote.on_domain(domain) if x.url.strip() == url]
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
        first = self.claimed.get(key)
        if first is not None:
            return link, self._duplicate(spec, first)
        self.claimed[key] = index
        return link, None

    def _duplicate(self, spec: LinkSpec, first: int) -> Problem:
        other = self.rows.get(first)
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
            payload = create_payload(spec, domain, self.options)
            return Change(Action.CREATE, domain, spec.slug, index, spec, None, (), payload, found)
        cmp = compare(spec, link, self.options)
        if cmp.same:
            return Change(Action.UNCHANGED, domain, link.slug, index, spec, link, problems=found)
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
                Action.REPLACE, domain, link.slug, index, spec, link, cmp.fields, payload, problems
            )
        return Change(
            Action.UPDATE, domain, link.slug, index, spec, link, cmp.fields, cmp.patch, found
        )

    def in_scope(self, link: RemoteLink) -> bool:
        opts = self.options
        if opts.scope_domains and link.domain.lower() not in opts.scope_domains:
            return False
        return opts.owner_tag is None or opts.owner_tag in link.tags

    def deletes(self, start: int) -> list[Change]:
        out: list[Change] = []
        for key, link in sorted(self.remote.links.items()):
            if not self.in_scope(link) or key in self.claimed:
                continue
            if (key[0], link.url.strip()) in self.protected_urls:
                continue
            out.append(Change(Action.DELETE, key[0], link.slug, start, None, link))
        return out


def diff(
    desired: Sequence[LinkSpec],
    remote: RemoteState,
    options: SyncOptions,
    *,
    problems: Iterable[Problem] = (),
    invalid: Collection[int] = (),
    target: str | None = None,
) -> Plan:
    """The plan that brings ``remote`` in step with ``desired``. Pure.

    ``problems`` are local validation findings (``linksync.validate``): a row with an
    error-severity problem (matched by source, sheet and row) is ``invalid``; warnings
    ride along on the row's change. ``invalid`` names rows (positions in ``desired``)
    that are invalid whatever their provenance (``Validation.invalid``).
    """
    if options.system_domain is None:
        options = options.with_system_domain(remote.system_domain)
    differ = _Differ(remote, options, problems, invalid)
    changes = [differ.row_change(i, spec) for i, spec in enumerate(desired)]
    if options.deletes:
        changes.extend(differ.deletes(len(desired)))
    changes = _mark_quota(changes, remote)
    quota = None
    if remote.org is not None:
        creates = sum(1 for c in changes if c.action is Action.CREATE)
        quota = QuotaNote(remote.org.link_count, remote.org.link_quota, creates)
    return Plan(
        changes=sort_changes(changes),
        options=options,
        fetches=remote.fetches,
        requests=remote.requests,
        quota=quota,
        safety=judge_safety(changes, remote, options, differ),
        target=target,
    )


def _mark_quota(changes: list[Change], remote: RemoteState) -> list[Change]:
    """Warn on each create past the room left under the link quota (in plan order)."""
    if remote.org is None:
        return changes
    room = max(0, remote.org.link_quota - remote.org.link_count)
    out: list[Change] = []
    seen = 0
    for ch in changes:
        if ch.action is Action.CREATE:
            seen += 1
            if seen > room:
                warning = Problem(
                    "QUOTA_WOULD_EXCEED",
                    f"create {seen} of the plan; only {room} more links fit under the "
                    f"link quota of {remote.org.link_quota}",
                    ch.provenance,
                    None,
                    Severity.WARNING,
                )
                ch = replace(ch, problems=(*ch.problems, warning))
        out.append(ch)
    return out


def judge_safety(
    changes: Sequence[Change], remote: RemoteState, options: SyncOptions, differ: _Differ
) -> Safety:
    """octoDNS-style thresholds on updates+replaces+deletes against existing links.

    Existing links: in mirror mode those in the delete scope; otherwise the links of the
    domains the plan writes to (each domain's total when the fetch learned it).
    """
    updates = sum(1 for c in changes if c.action in (Action.UPDATE, Action.REPLACE))
    deletes = sum(1 for c in changes if c.action is Action.DELETE)
    if options.deletes:
        existing = sum(1 for link in remote.links.values() if differ.in_scope(link))
    else:
        touched = {c.domain for c in changes if c.action in (Action.UPDATE, Action.REPLACE)}
        existing = 0
        for d in sorted(touched):
            total = remote.domain_total(d)
            existing += total if total is not None else len(remote.on_domain(d))
    changed = updates + deletes
    reason = None
    if options.max_deletes is not None and deletes > options.max_deletes:
        reason = f"{deletes} deletes exceed the maximum of {options.max_deletes}"
    elif existing >= max(1, options.min_existing) and changed / existing > options.max_change_ratio:
        reason = (
            f"{changed} updates and deletes touch {changed / existing:.0%} of the "
            f"{existing} existing links, above the {options.max_change_ratio:.0%} limit"
        )
    return Safety(existing, changed, deletes, reason is not None, reason)
