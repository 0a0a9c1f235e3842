"""What to change, in plain words, for each error constant a row can carry: the last
column of the page's Check table and of its plan.

The constants and what they mean are ``linksync.errors``'s table; the advice is its
one advice table (``linksync.errors.advice``), for a person editing a spreadsheet (the
row's own message says what exactly is wrong). The page shows it in its own words
(``linksync.ui.words.page_words``): where the advice names a command-line flag, the
page names its own control instead ("tick “Fix invisible characters” in the Options").
"""

from __future__ import annotations

import unicodedata

from linksync.errors.advice import advice_for
from linksync.ui.words import page_words


def fix_for(constant: str | None) -> str:
    """What to change for ``constant``, in the page's words ("" for none or unknown)."""
    return page_words(advice_for(constant))


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
