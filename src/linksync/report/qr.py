"""QR codes of short links, for print campaigns: an SVG and a PNG per link, in a zip.

Each code encodes the short URL exactly as the service returned it (``shortUrl``); a
link the service gave no short URL gets no code (never one built from domain and
slug), and the run says so. Codes are full-size QR codes (``segno.make_qr``: phone
cameras read those, while the Micro QR that ``segno.make`` picks for short texts is
rarely supported), error correction at least M (segno raises it to Q or H when that
fits in the same size), the 4-module quiet zone the standard asks for. The same link
always gives the same bytes.

The zip (``--qr FILE.zip``) holds ``<domain>/<slug>.svg`` and ``<domain>/<slug>.png``
for each link, sorted, plus ``index.csv`` (domain, slug, short URL, file names) so a
print shop can see what each file encodes. Names are made safe: characters other than
letters, digits, ``-`` and ``_`` (and ``.`` in a domain) become ``_``, no name starts
with a dot, names are at most about 90 characters, and a name that had to change (or
would collide with another) gets a short hash of the original, so two links never
share a file and no entry can leave its folder. The zip is deterministic (fixed entry
times) and written atomically (``linksync.safe.outputs``).

Rendering costs about 5 ms per code in segno (most of it the standard's choice of the
best mask) plus about 4 ms for the PNG and SVG: see ``docs/ui.md`` for measurements.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from linksync.model import Action, RemoteLink, RowResult, Status
from linksync.report.cells import neutralize
from linksync.safe.outputs import AtomicFile, Output

#: Extension of the ``--qr`` output.
QR_SUFFIXES = (".zip",)
#: Pixels per module of the PNG (a 3-4 cm print at 300 dpi for a typical short URL).
PNG_SCALE = 10
#: Quiet zone around the code, in modules (the standard's minimum).
BORDER = 4
#: The lowest error correction level; segno raises it when the size allows.
ERROR_LEVEL = "m"
#: Entry time of every zip member (zip's epoch), so equal input gives equal bytes.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
_NAME_MAX = 80
_UNSAFE_SLUG = re.compile(r"[^A-Za-z0-9_-]+")
_UNSAFE_DOMAIN = re.compile(r"[^a-z0-9.-]+|\.{2,}")


@dataclass(frozen=True, slots=True)
class QrLink:
    """One short link to draw: its identity and the exact short URL to encode."""

    domain: str
    slug: str
    short_url: str


@dataclass(frozen=True, slots=True)
class QrImages:
    """The two images of one code."""

    png: bytes
    svg: bytes


@dataclass(frozen=True, slots=True)
class QrInfo:
    """What ``write_qr_zip`` wrote: the zip, the links in it, and the links left out
    with the reason (``"domain/slug: why"``)."""

    path: Path
    links: int
    left_out: tuple[str, ...] = ()


def render_qr(short_url: str) -> QrImages:
    """PNG and SVG of the QR code of ``short_url`` (raises ``segno.DataOverflowError``
    when the text is too long for any QR code)."""
    import segno  # here: a run that draws no code does without it

    code = segno.make_qr(short_url, error=ERROR_LEVEL)
    png, svg = io.BytesIO(), io.BytesIO()
    code.save(png, kind="png", scale=PNG_SCALE, border=BORDER)
    code.save(svg, kind="svg", border=BORDER, scale=PNG_SCALE, title=short_url, unit="px")
    return QrImages(png.getvalue(), svg.getvalue())


#: Rows with a code per sheet up to which an annotated workbook holds the codes as
#: images in the cells; past it, hyperlinks to PNG files (see ``qr_sheet``).
QR_IMAGE_LIMIT = 5000


class QrCodes:
    """Rendered codes by short URL, so a run that writes the zip and the annotated
    copy draws each code once. ``sheet_image_limit``: see ``QR_IMAGE_LIMIT``."""

    def __init__(self, *, sheet_image_limit: int = QR_IMAGE_LIMIT) -> None:
        self._images: dict[str, QrImages | str] = {}
        self.sheet_image_limit = sheet_image_limit

    def get(self, short_url: str) -> QrImages | str:
        """The images, or why there are none (a text too long for a QR code)."""
        held = self._images.get(short_url)
        if held is None:
            import segno

            try:
                held = render_qr(short_url)
            except segno.DataOverflowError:
                held = f"the short URL is too long for a QR code ({len(short_url)} characters)"
            self._images[short_url] = held
        return held


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _safe(text: str, unsafe: re.Pattern[str], fallback: str) -> str:
    clean = unsafe.sub("_", text).strip("._")[:_NAME_MAX]
    if clean != text or not clean:
        clean = f"{clean or fallback}-{_hash(text)}"
    return clean


def entry_stems(links: Iterable[QrLink]) -> dict[QrLink, str]:
    """A safe, unique relative name ``domain/slug`` (no extension) for each link."""
    out: dict[QrLink, str] = {}
    taken: set[str] = set()
    for link in links:
        folder = _safe(link.domain.lower(), _UNSAFE_DOMAIN, "domain")
        stem = f"{folder}/{_safe(link.slug, _UNSAFE_SLUG, 'link')}"
        if stem.lower() in taken:  # a case-insensitive file system would merge them
            stem = f"{stem}-{_hash(link.domain + '/' + link.slug + link.short_url)}"
        taken.add(stem.lower())
        out[link] = stem
    return out


def _unique(links: Iterable[QrLink]) -> list[QrLink]:
    seen: dict[tuple[str, str], QrLink] = {}
    for link in links:
        seen.setdefault((link.domain.lower(), link.slug.lower()), link)
    return sorted(seen.values(), key=lambda ln: (ln.domain.lower(), ln.slug.lower(), ln.slug))


def in_place(result: RowResult) -> bool:
    """Whether a run left the row's link in place: applied or unchanged, not deleted."""
    return result.status is Status.OK and result.action is not Action.DELETE and bool(result.slug)


def _with_short_url(
    found: Iterable[tuple[str | None, str, str | None]],
) -> tuple[list[QrLink], list[str]]:
    """Of (domain, slug, short URL) triples, the links with a short URL, once each; and
    the ones without a short URL from the service."""
    links: list[QrLink] = []
    missing: list[str] = []
    for domain, slug, short_url in found:
        if short_url:
            links.append(QrLink(domain or "", slug, short_url))
        else:
            missing.append(f"{domain}/{slug}: the service returned no short URL")
    return _unique(links), sorted(set(missing))


def links_of_results(rows: Iterable[RowResult]) -> tuple[list[QrLink], list[str]]:
    """The links a run left in place that carry a short URL, once each; and the ones
    without a short URL from the service."""
    return _with_short_url((r.domain, r.slug or "", r.short_url) for r in rows if in_place(r))


def links_of_remote(remote: Iterable[RemoteLink]) -> tuple[list[QrLink], list[str]]:
    """The same for a workspace listing (``export --qr``)."""
    return _with_short_url((link.domain, link.slug, link.short_url) for link in remote)


def qr_output(path: str | Path) -> Output:
    """The ``--qr`` output, for the preflight of a run."""
    return Output(Path(path), "--qr", QR_SUFFIXES)


def _member(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


def _index(rows: Iterator[tuple[QrLink, str]]) -> bytes:
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\r\n")
    writer.writerow(["domain", "slug", "short_url", "svg", "png"])
    for link, stem in rows:
        cells = [link.domain, link.slug, link.short_url, f"{stem}.svg", f"{stem}.png"]
        writer.writerow([neutralize(c) for c in cells])
    return ("\ufeff" + text.getvalue()).encode("utf-8")


def write_qr_zip(
    links: Iterable[QrLink],
    out: str | Path,
    *,
    codes: QrCodes | None = None,
    left_out: Iterable[str] = (),
) -> QrInfo:
    """Write the zip of ``links``' codes to ``out`` atomically (see module docstring).
    ``left_out``: links already known to have no code, reported with the others."""
    codes = codes or QrCodes()
    skipped = list(left_out)
    drawn: list[tuple[QrLink, str]] = []
    target = AtomicFile(out, "wb")
    try:
        with zipfile.ZipFile(target.file, "w") as archive:
            for link, stem in entry_stems(_unique(links)).items():
                images = codes.get(link.short_url)
                if isinstance(images, str):
                    skipped.append(f"{link.domain}/{link.slug}: {images}")
                    continue
                archive.writestr(_member(f"{stem}.svg"), images.svg)
                archive.writestr(_member(f"{stem}.png"), images.png)
                drawn.append((link, stem))
            archive.writestr(_member("index.csv"), _index(iter(drawn)))
    except BaseException:
        target.discard()
        raise
    return QrInfo(target.commit(), len(drawn), tuple(sorted(skipped)))
