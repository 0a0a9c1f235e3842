"""The AI helper tools, as deterministic heuristics on the URL (no network).

- ``suggest_slug(url)``: up to four meaningful words of the path (else the host's main
  label), lower-case, joined by single hyphens, at most 40 characters; never reserved.
- ``suggest_og(url)``: a title from the last meaningful path words and the site name,
  and a one-sentence description naming the site.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote, urlsplit

from linksync import rules

_WORD_RE = re.compile(r"[a-z0-9]+", re.ASCII)
_NOISE = frozenset(
    {
        "www",
        "index",
        "html",
        "htm",
        "php",
        "aspx",
        "asp",
        "jsp",
        "amp",
        "en",
        "us",
        "the",
        "a",
        "an",
        "of",
        "and",
        "utm",
        "http",
        "https",
    }
)
_HOST_NOISE = frozenset({"www", "m", "app", "go", "com", "org", "net", "co", "io"})
MAX_SUGGESTED_CHARS = 40


def _words(text: str) -> list[str]:
    """ASCII words of ``text`` (accents folded: 'été' -> 'ete'), noise removed."""
    folded = unicodedata.normalize("NFKD", unquote(text)).encode("ascii", "ignore").decode()
    return [w for w in _WORD_RE.findall(folded.lower()) if w not in _NOISE]


def site_name(url: str) -> str:
    """'shop.example.co.uk' -> 'example': the registrable label, skipping the top-level
    label and common second-level ones (co, com, org...)."""
    host = (urlsplit(url).hostname or "").lower()
    labels = [lbl for lbl in host.split(".") if lbl]
    if len(labels) > 1:
        labels = labels[:-1]
    while len(labels) > 1 and labels[-1] in _HOST_NOISE:
        labels = labels[:-1]
    name = labels[-1] if labels else ""
    return name if name and name not in _HOST_NOISE else "link"


def path_words(url: str) -> list[str]:
    parts = urlsplit(url)
    words = _words(parts.path)
    # drop long numeric ids and hashes, which make poor slugs
    return [w for w in words if not (w.isdigit() and len(w) > 4) and len(w) <= 24]


def suggest_slug(url: str) -> str:
    words = path_words(url)[-4:] or _words(site_name(url)) or ["link"]
    slug = ""
    for word in words:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > MAX_SUGGESTED_CHARS:
            break
        slug = candidate
    if not slug:
        slug = words[0][:MAX_SUGGESTED_CHARS]
    if rules.check_slug(slug) == "RESERVED_SLUG":
        slug = f"{slug}-link"
    return slug


def suggest_og(url: str) -> tuple[str, str]:
    site = site_name(url)
    site_title = site.capitalize()
    words = [w for w in path_words(url) if not w.isdigit()][-5:]
    if words:
        topic = " ".join(words).capitalize()
        title = f"{topic} | {site_title}"
        description = f"{topic} on {site_title}. Open the link to read more."
    else:
        title = site_title
        description = f"Home page of {site_title}."
    return title, description
