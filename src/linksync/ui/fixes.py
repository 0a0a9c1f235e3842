"""What to change, in plain words, for each error constant a row can carry: the last
column of the page's Check table and of its plan.

The constants and what they mean are ``linksync.errors``'s table; this one only says,
for a person editing a spreadsheet, what to do about each (the row's own message says
what exactly is wrong). Every constant has advice (``linksync.errors.advice``); the
page names its own controls in a few.
"""

from __future__ import annotations

import unicodedata

from linksync.errors.advice import ADVICE

#: The page's words: the one advice table (``linksync.errors.advice``), with the page's
#: own controls named where they help.
FIXES: dict[str, str] = {
    **ADVICE,
    "INVALID_URL": (
        "Type the full web address, starting with https://, without spaces. A pasted "
        "address can carry invisible characters: retype it, or tick "
        "“Fix invisible characters” below."
    ),
    "UNKNOWN_COLUMN": ("Choose what this column holds in the column step, or “Not used”."),
}


def fix_for(constant: str | None) -> str:
    """What to change for ``constant``, in plain words ("" for none or unknown)."""
    return FIXES.get(constant or "", "")


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
