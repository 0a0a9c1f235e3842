"""What to change, in plain words, for every constant of the error table: the advice the
page's Check table and plan show beside a row's message (``linksync.ui.fixes`` adds
the page's own controls to a few), one entry per constant (``tests/errors`` walks the
table and checks each has one).

Advice that names a value rule (slug, URL, expiry, tag) says the rule the service
applies (``linksync.rules``): ``tests/validate/test_advice.py`` applies each such
advice to a bad value (``linksync.validate.suggest``) and the validator must accept
the result. The row's own message says what exactly is wrong, and names a value that
would pass when one is near (``use 'black-friday'``).
"""

from __future__ import annotations

_QUOTA = (
    "Your plan's link limit is reached: remove rows, delete old links, or ask for a larger plan."
)

ADVICE: dict[str, str] = {
    "INVALID_URL": (
        "Type the full web address, starting with https://, without spaces or invisible "
        "characters (a pasted address can carry some: retype it, or use --fix-invisible)."
    ),
    "MISSING_URL": "Fill in the destination URL of this row, or delete the row.",
    "INVALID_SLUG": (
        "Use only letters and digits in the slug (back-half), with single hyphens between "
        "groups (spring-sale-2026; no spaces, no _), or leave it empty to let the service "
        "pick one."
    ),
    "RESERVED_SLUG": "The service keeps this slug for itself: pick another one.",
    "INVALID_EXPIRY": (
        "Put a date in the future (for example 2030-12-31 23:59), or leave the cell empty "
        "for a link that never expires; a time the clocks skip in your time zone does "
        "not exist: write one that does."
    ),
    "DATE_ORDER": (
        "Make the header's hint and --date-format (or the profile's date_format:) name "
        "the same order (dmy: 31/12/2026, mdy: 12/31/2026), or write the dates as "
        "2026-12-31."
    ),
    "AMBIGUOUS_TIME": (
        "This time happens twice in your time zone (clocks set back): the first one is "
        "used; to mean the second, write it with its offset (2026-11-01T01:30-05:00)."
    ),
    "UNAUTHORIZED": "The API key was refused: ask whoever set up linksync for a valid key.",
    "FORBIDDEN": "This API key may not make changes: ask for a key that may write.",
    "QUOTA_EXCEEDED": _QUOTA,
    "LINK_NOT_FOUND": "The link is gone from the workspace: plan again.",
    "DOMAIN_NOT_FOUND": (
        "This domain is not in your workspace: correct it, or empty the cell to use the "
        "default domain."
    ),
    "SLUG_EXISTS": "Someone already uses this short link: pick another slug.",
    "RATE_LIMITED": "The service asked to slow down: apply again in a minute.",
    "INTERNAL_ERROR": "The service failed: apply again; it sends only what is left.",
    "EDGE_UNAVAILABLE": "The service was unavailable: apply again; it sends only what is left.",
    "INVALID_REQUEST": (
        "The service would refuse this value (the detail says why): shorten it, or "
        "remove line breaks and invisible characters."
    ),
    "NOT_FOUND": "The service does not know this address: check the target's base URL.",
    "DOMAIN_EXISTS": "This domain is registered already: use it, or pick another name.",
    "MEMBER_EXISTS": "This person is a member or invited already: nothing to do.",
    "EMPTY_SOURCE": "There is nothing to read here: check you picked the right file or sheet.",
    "MISSING_URL_COLUMN": (
        'Name the column of destination URLs (e.g. "Destination URL"), or map it with '
        "--map HEADER=url (a profile's columns: block)."
    ),
    "UNKNOWN_COLUMN": (
        "Map the column to a field (--map HEADER=FIELD, or the profile's columns:), or "
        "to ignore to silence this."
    ),
    "GUESSED_COLUMN": (
        "Name the column by its field (utm_content, Destination URL) or map it with "
        "--map HEADER=FIELD to read it; map it to ignore to silence this."
    ),
    "ROW_STATE_COLUMN": (
        "linksync sends every row of the sheet: remove the rows you do not want sent, or "
        "map the column to ignore (--map HEADER=ignore) to silence this."
    ),
    "REPEATED_HEADER": (
        "Put the second table on a sheet (or in a file) of its own, or delete its title "
        "and header rows if its rows belong to the first table."
    ),
    "SECTION_TITLE": (
        "Delete the title row if the rows under it belong with the rows above; otherwise "
        "move them to a sheet (or a file) of their own, or delete them."
    ),
    "UNKNOWN_KEY": (
        "Spell the key as the message suggests (the keys are listed in "
        "docs/links-as-code.md); a top-level key starting with x- holds anchors and is "
        "not read."
    ),
    "COMMENT_IN_VALUE": (
        'Quote the whole value (url: "https://example.com/page#pricing") if the # belongs '
        "to it; write a comment with a space after the # (# pricing)."
    ),
    "CONFLICTING_COLUMNS": (
        "Keep one of the two columns, or map the other one to ignore (--map HEADER=ignore)."
    ),
    "URL_PARAM_REPLACED": (
        "The column's value is used: remove the parameter from the URL, or empty the "
        "column's cell, to silence this."
    ),
    "URL_PARAM_ADDED": (
        "Check the parameters named were meant for this link's URL; they come from the "
        "column read as the query."
    ),
    "UTM_QUERY_VALUE": (
        "Put each UTM parameter in its own utm_* column (utm_source, utm_medium, "
        "utm_campaign), or read the column as the whole query: --map HEADER=query."
    ),
    "MIXED_ENCODING": (
        "Save the file as UTF-8 again, or pass --encoding to read the whole file one way."
    ),
    "UNCERTAIN_ENCODING": (
        "Check the text shown in the message; if it is garbled, name the file's encoding "
        "with --encoding (or the profile's encoding:), or save it as UTF-8."
    ),
    "UNCHECKED_FORMAT": "Save the workbook as .xlsx to have every cell checked.",
    "FORMULA_WITHOUT_VALUE": (
        "Open the workbook in Excel or LibreOffice and save it (the formulas' values are "
        "saved with it), or copy the column and paste it as values."
    ),
    "HIDDEN_ROW": (
        "Hidden rows are not sent: unhide them (clear the filter) or run with "
        "--include-hidden to send them, or delete them to silence this."
    ),
    "HIDDEN_SHEET": (
        "Hidden sheets are not sent: unhide the sheet or run with --include-hidden to "
        "send it, name the sheets to read with --sheet, or delete the sheet."
    ),
    "UNREAD_SHEET": (
        "Add a header row naming the sheet's columns (Back-half, Destination URL) to read "
        "it, or name the sheets to read with --sheet; a mirror deletes nothing meanwhile."
    ),
    "STRUCK_THROUGH": (
        "Remove the strikethrough (Ctrl+5) from the row's cells to send it, or delete the "
        "row if it is cancelled."
    ),
    "HIDDEN_COLUMN": (
        "Unhide the column to check what is sent, or map it to ignore "
        "(--map HEADER=ignore) to leave it out."
    ),
    "MERGED_CELLS": (
        "Check the value is meant for every row the merged cell covers; unmerge the "
        "cells and fill each row to silence this."
    ),
    "PASSWORD_NOT_IN_PLAN": (
        "Give the sources to apply --plan as well, so the passwords are read from them."
    ),
    "PASSWORD_NOT_SENT": (
        "Run apply with --reset-passwords to send the passwords of your rows; after that, "
        "runs from this machine send a password again only when you change it."
    ),
    "MISSING_SECRET": (
        "Set the variable the message names where linksync runs (a CI secret), or create "
        "the file it names; validate only warns, since it may run where secrets are not."
    ),
    "SECRET_IN_SOURCE": (
        "Keep the password out of the file: write password: {env: VIP_PASSWORD} and set "
        "VIP_PASSWORD where linksync runs (a CI secret), or password: {file: PATH} for a "
        "file git ignores; then change the password, since git keeps the old one."
    ),
    "DUPLICATE_IN_SOURCE": (
        "The same short link is on two rows: change the slug on one of them, or delete "
        "the second row."
    ),
    "INVALID_FIELD": (
        "This cell is not what its column expects (the detail says why): correct it or empty it."
    ),
    # the team's UTM rules (utm_rules:)
    "UTM_MISSING": (
        "Fill in the UTM column the message names (or add it to the URL): your team's "
        "rules require it."
    ),
    "UTM_NOT_ALLOWED": (
        "Use one of the values your team allows for this UTM parameter (the message names "
        "the nearest), or ask whoever keeps the utm_rules to add it."
    ),
    "UTM_CASE": "Write the UTM value in lowercase (or run with --fix-utm-case).",
    "UTM_SPACES": (
        "Replace the spaces in the UTM value as the message says (or run with --fix-utm-case)."
    ),
    "UTM_TOO_LONG": "Shorten the UTM value to the length your team's rules allow.",
    "AMBIGUOUS_MATCH": (
        "Several links already point to this address: give the row a slug so it is "
        "clear which one you mean."
    ),
    "DOMAIN_NOT_ACTIVE": "This domain is not active yet: wait until it is, or use another.",
    "REPLACE_REQUIRED": (
        "An existing link's expiry cannot be changed in place: keep the old date, or ask "
        "whoever runs linksync to replace it (--allow-replace)."
    ),
    "OWNED_BY_OTHER": "Another team's link: leave it out of your sheet, or ask its owner.",
    "OWNER_TAG_UNUSED": (
        "Check the owner tag's spelling (--owner-tag, the profile's owner_tag:): no link "
        "carries it yet."
    ),
    "STALE_PLAN": "The link changed in the workspace after the plan was shown: plan again.",
    "PLAN_MISMATCH": (
        "Apply the saved plan to the workspace it was made for, with its own unchanged "
        "sources and options, or plan again."
    ),
    "QUOTA_WOULD_EXCEED": _QUOTA,
    "NOT_ATTEMPTED": "Not sent, because the run stopped first: apply again to send it.",
    "INTERRUPTED": "The run was stopped: apply again to send what is left.",
    "TRANSPORT_ERROR": "The service did not answer: check the connection and apply again.",
    "CERTIFICATE_ERROR": (
        "The service's certificate is not trusted on this machine: ask whoever set up "
        "linksync to trust its CA (ca_bundle: or trust: system in the profile)."
    ),
    "PROXY_AUTH_ERROR": (
        "The proxy refused linksync's user name or password: correct them in --proxy, the "
        "profile's proxy: or HTTPS_PROXY (http://USER:PASSWORD@HOST:PORT)."
    ),
    "UNEXPECTED_RESPONSE": (
        "The service's answer made no sense (a proxy page?): check the target's address."
    ),
    "CONFIG_ERROR": "Correct the profile, flag or variable the message names, then run again.",
    "LOCK_HELD": "Another run is working on this workspace: wait for it to finish.",
    "UNSAFE_PLAN": "Check the plan: if it is what you want, run again with --force.",
    "MIRROR_REFUSED": (
        "Fix the source the message names so that it declares its links (a file meant to "
        "declare none says so: links: []), then run again."
    ),
    "FILE_ERROR": "Check the file named exists and may be read (or written), then run again.",
    "UNEXPECTED_ERROR": "A bug in linksync: run again, and report it with the log if it stays.",
    # --- a destination check (--check-destinations) ---
    "DEST_NOT_FOUND": (
        "The page is gone: correct the destination URL (the campaign page may have moved) "
        "before the short link is printed or sent."
    ),
    "DEST_CLIENT_ERROR": (
        "The page refuses visitors (login, forbidden, rate limit): open it in a browser "
        "and correct the URL, or keep it if only robots are refused."
    ),
    "DEST_SERVER_ERROR": "The site fails right now: try again later, or tell whoever runs it.",
    "DEST_TIMEOUT": "The site answers too slowly or not at all: check the URL, try again later.",
    "DEST_UNREACHABLE": (
        "Check the host name for typos; if the site is internal, run the check where it "
        "can be reached (or through --proxy)."
    ),
    "DEST_TLS_ERROR": (
        "Visitors' browsers may refuse this page: fix the site's certificate, or trust "
        "your own CA with --ca-bundle or --system-trust if the site is internal."
    ),
    "DEST_REDIRECT_LOOP": "The page never loads: correct the URL, or fix the site's redirects.",
    "DEST_OTHER_HOST": (
        "Check the final URL is where the link should go (a campaign page that lands on "
        "a home page is a common mistake); put the final URL in the row if it is."
    ),
    "DEST_HTTPS_AVAILABLE": (
        "Use the https:// URL the message names: one redirect less, and no plain http."
    ),
    "DEST_UTM_DROPPED": (
        "The visits arrive without the campaign's utm_* parameters, so analytics cannot count "
        "them: point the link at the final address with its utm_* parameters, or have the "
        "site's redirect keep the query string."
    ),
}


def advice_for(constant: str | None) -> str:
    """What to change for ``constant``, in plain words ("" for none or unknown)."""
    return ADVICE.get(constant or "", "")
