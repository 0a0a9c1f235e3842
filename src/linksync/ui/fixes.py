"""What to change, in plain words, for each error constant a row can carry: the last
column of the page's Check table and of its plan.

The constants and what they mean are ``linksync.errors``'s table; this one only says,
for a person editing a spreadsheet, what to do about each (the row's own message says
what exactly is wrong). A constant without an entry here shows its meaning from the
error table; ``tests/ui`` checks every entry names a constant of that table.
"""

from __future__ import annotations

import unicodedata

from linksync.errors import ERRORS

FIXES: dict[str, str] = {
    "INVALID_URL": (
        "Type the full web address, starting with https://, without spaces. A pasted "
        "address can carry invisible characters: retype it, or tick "
        "“Fix invisible characters” below."
    ),
    "MISSING_URL": "Fill in the destination URL of this row, or delete the row.",
    "INVALID_SLUG": (
        "Use only letters, digits, - and _ in the slug (back-half), or leave it empty to "
        "let the service pick one."
    ),
    "RESERVED_SLUG": "The service keeps this slug for itself: pick another one.",
    "INVALID_EXPIRY": (
        "Put a date in the future (for example 2030-12-31 23:59), or leave the cell empty "
        "for a link that never expires."
    ),
    "DUPLICATE_IN_SOURCE": (
        "The same short link is on two rows: change the slug on one of them, or delete "
        "the second row."
    ),
    "INVALID_FIELD": (
        "This cell is not what its column expects (the detail says why): correct it or "
        "empty it. For an unknown column: choose what it holds in the column step, or "
        "“Not used”."
    ),
    "INVALID_REQUEST": (
        "The service would refuse this value (the detail says why): shorten it, or "
        "remove line breaks and invisible characters."
    ),
    "EMPTY_SOURCE": "There is nothing to read here: check you picked the right file or sheet.",
    "DOMAIN_NOT_FOUND": (
        "This domain is not in your workspace: correct it, or empty the cell to use the "
        "default domain."
    ),
    "DOMAIN_NOT_ACTIVE": "This domain is not active yet: wait until it is, or use another.",
    "AMBIGUOUS_MATCH": (
        "Several links already point to this address: give the row a slug so it is "
        "clear which one you mean."
    ),
    "REPLACE_REQUIRED": (
        "An existing link's expiry cannot be changed in place: keep the old date, or ask "
        "whoever runs linksync to replace it (--allow-replace)."
    ),
    "OWNED_BY_OTHER": "Another team's link: leave it out of your sheet, or ask its owner.",
    "SLUG_EXISTS": "Someone already uses this short link: pick another slug.",
    "QUOTA_WOULD_EXCEED": (
        "Your plan's link limit is reached: remove rows, delete old links, or ask for a "
        "larger plan."
    ),
    "QUOTA_EXCEEDED": (
        "Your plan's link limit is reached: remove rows, delete old links, or ask for a "
        "larger plan."
    ),
    "STALE_PLAN": "The link changed in the workspace after the plan was shown: plan again.",
    "NOT_ATTEMPTED": "Not sent, because the run stopped first: apply again to send it.",
    "INTERRUPTED": "The run was stopped: apply again to send what is left.",
    "LINK_NOT_FOUND": "The link is gone from the workspace: plan again.",
    "UNAUTHORIZED": "The API key was refused: ask whoever set up linksync for a valid key.",
    "FORBIDDEN": "This API key may not make changes: ask for a key that may write.",
    "RATE_LIMITED": "The service asked to slow down: apply again in a minute.",
    "INTERNAL_ERROR": "The service failed: apply again; it sends only what is left.",
    "EDGE_UNAVAILABLE": "The service was unavailable: apply again; it sends only what is left.",
    "TRANSPORT_ERROR": "The service did not answer: check the connection and apply again.",
    "CERTIFICATE_ERROR": (
        "The service's certificate is not trusted on this machine: ask whoever set up "
        "linksync to trust its CA (ca_bundle: or trust: system in the profile)."
    ),
    "UNEXPECTED_RESPONSE": (
        "The service's answer made no sense (a proxy page?): check the target's address."
    ),
}


def fix_for(constant: str | None) -> str:
    """What to change for ``constant``, in plain words ("" for none)."""
    if not constant:
        return ""
    if constant in FIXES:
        return FIXES[constant]
    known = ERRORS.get(constant)
    return known.meaning if known is not None else ""


def visible(value: object) -> str:
    """A cell value as text with every invisible or control character shown by its code
    point (``spring/[U+200B]hats``), so a person can see what the error is about."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    out = []
    for ch in text:
        kind = unicodedata.category(ch)
        if kind in ("Cf", "Cc", "Co", "Cn", "Zl", "Zp") or (kind == "Zs" and ch != " "):
            out.append(f"[U+{ord(ch):04X}]")
        else:
            out.append(ch)
    return "".join(out)
