"""The QR column of an annotated workbook (``--annotate`` with ``--qr``).

Next to Short link, Status and Error, a fourth column "QR code" holds, on each row
whose link is in place after the run (created, updated, replaced or unchanged, with a
short URL from the service), the QR code of that short URL:

- an image anchored in the row's cell (about 2 cm, the row made tall enough), while
  the sheet has at most ``QR_IMAGE_LIMIT`` (5,000) such rows;
- past that, a hyperlink to the PNG in a folder beside the workbook
  (``<workbook name>-qr/<domain>/<slug>.png``, see ``qr_folder``), because thousands
  of drawing objects make a workbook slow to open and to save (measured in docs/ui.md).

Rows without a code say why in the cell (no short URL from the service, or one too long
for a QR code). A copy annotated again gets the column refilled, its old images
removed; annotated again without ``--qr``, the column is emptied rather than left
stale. A CSV copy has no QR column (a CSV cell cannot hold an image): the zip has the
codes.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from linksync.model import RowResult
from linksync.model.links import column_letter
from linksync.report.qr import QrCodes, QrLink, entry_stems, in_place
from linksync.safe.outputs import AtomicFile, Output

QR_HEADER = "QR code"
#: Shown size of a code in a cell, in pixels (the PNG itself is larger, for print).
QR_CELL_PX = 76
_ROW_HEIGHT_PT = QR_CELL_PX * 0.75 + 4
_COLUMN_WIDTH = 12


def qr_folder(annotated: Path) -> Path:
    """Where the PNGs of a large annotated copy go: ``done.xlsx`` -> ``done-qr/``."""
    return annotated.with_name(f"{annotated.stem}-qr")


def qr_folder_output(annotated: Path) -> Output:
    """The folder, for the preflight (it is written only for a large sheet)."""
    return Output(qr_folder(annotated), f"QR images of --annotate {annotated}", folder=True)


def _link_of(result: RowResult) -> QrLink | str | None:
    """The link to draw for a row, None when the row has no link in place, or why the
    row has none although its link is in place."""
    if not in_place(result):
        return None
    if not result.short_url:
        return "no short URL from the service"
    return QrLink(result.domain or "", result.slug or "", result.short_url)


def _remove_images(ws: Any, column: int) -> None:
    """Drop images anchored in ``column`` (1-based): the codes of an earlier run."""
    kept = []
    for image in ws._images:
        anchor = getattr(image, "anchor", None)
        start = getattr(anchor, "_from", None)
        if start is not None and start.col == column - 1:
            continue
        kept.append(image)
    ws._images = kept


def clear_qr_column(ws: Any, column: int, first_row: int) -> None:
    """Empty a QR column left by an earlier ``--qr`` run (header included)."""
    _remove_images(ws, column)
    for row in range(first_row, ws.max_row + 1):
        cell = ws.cell(row, column)
        cell.value = None
        cell.hyperlink = None


def fill_qr_column(
    ws: Any,
    rows: dict[int, RowResult],
    column: int,
    codes: QrCodes,
    annotated: Path,
) -> None:
    """Put each row's code in ``column`` (1-based) of ``ws``: images, or hyperlinks to
    PNG files under ``qr_folder(annotated)`` past ``codes.sheet_image_limit`` rows."""
    from openpyxl.drawing.image import Image  # type: ignore[import-untyped]

    _remove_images(ws, column)
    letter = column_letter(column - 1)
    ws.column_dimensions[letter].width = _COLUMN_WIDTH
    wanted = {row: _link_of(result) for row, result in rows.items()}
    links = [link for link in wanted.values() if isinstance(link, QrLink)]
    as_images = len(links) <= codes.sheet_image_limit
    stems = entry_stems(sorted(set(links), key=lambda ln: (ln.domain, ln.slug)))
    folder = qr_folder(annotated)
    for row, link in sorted(wanted.items()):
        cell = ws.cell(row, column)
        cell.hyperlink = None
        cell.value = None
        if link is None:
            continue
        images = codes.get(link.short_url) if isinstance(link, QrLink) else link
        if isinstance(images, str):
            cell.value = f"no QR code: {images}"
            cell.data_type = "s"
            continue
        assert isinstance(link, QrLink)
        if as_images:
            image = Image(io.BytesIO(images.png))
            image.width = image.height = QR_CELL_PX
            ws.add_image(image, f"{letter}{row}")
            held = ws.row_dimensions[row].height
            ws.row_dimensions[row].height = max(held or 0, _ROW_HEIGHT_PT)
        else:
            relative = f"{folder.name}/{stems[link]}.png"
            target = folder / f"{stems[link]}.png"
            target.parent.mkdir(parents=True, exist_ok=True)
            with AtomicFile(target, "wb") as fh:
                fh.write(images.png)
            cell.value = relative
            cell.data_type = "s"
            cell.hyperlink = relative
            cell.style = "Hyperlink"
