"""A small streaming SpreadsheetML (.xlsx) writer: rows go to temporary files as they
arrive, and the zip package is assembled on ``close``.

It writes what linksync's workbooks need (the results report, an export, the template)
and nothing more: text and number cells (text always as an inline string, so nothing is
ever read as a formula), a few cell styles (number formats for dates), external
hyperlinks, frozen top rows, an autofilter, column widths, dropdown lists (data
validation) and hidden sheets. The package is
the OOXML minimal structure: ``[Content_Types].xml``, ``_rels/.rels``,
``xl/workbook.xml``, ``xl/_rels/workbook.xml.rels``, ``xl/styles.xml`` and one
``xl/worksheets/sheetN.xml`` (with ``_rels/sheetN.xml.rels`` when it has links) per sheet.

Text is escaped as Excel does (``linksync.report.xlsx_xml``). Text longer than a cell
holds is cut, ending with an ellipsis.
"""

from __future__ import annotations

import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from linksync.model.links import column_letter
from linksync.report.base import Spool
from linksync.report.cells import XLSX_MAX_CELL_CHARS, fit_cell, xml_attr
from linksync.report.xlsx_xml import (
    CT_NS,
    CT_SHEET,
    CT_STYLES,
    CT_WORKBOOK,
    MAIN_NS,
    PKG_REL_NS,
    REL_NS,
    XML_DECL,
    CellStyle,
    column_width,
    escape_text,
    escape_url,
    styles_xml,
)

Cell = str | int | float | None

#: Part size (bytes) above which a zip entry is written with Zip64 headers.
_ZIP64_OVER = 1 << 31


class SheetStream:
    """One worksheet, written top to bottom. Rows are numbered from 1."""

    def __init__(self, name: str, index: int) -> None:
        self.name = name
        self.index = index
        self.rows = 0
        self.max_col = -1
        self.freeze_rows = 0
        self.autofilter: tuple[int, int, int, int] | None = None  # first/last row, col
        self.widths: dict[int, float] = {}
        #: Characters of the widest value written per column, for widths that fit.
        self.max_chars: list[int] = []
        self.links = 0
        self.hidden = False
        self._validations: list[str] = []
        self._data = Spool()
        self._links: Spool | None = None
        self._rels: Spool | None = None
        self._refs = [column_letter(c) for c in range(32)]

    def _ref(self, col: int) -> str:
        refs = self._refs
        while col >= len(refs):
            refs.append(column_letter(len(refs)))
        return refs[col]

    def append(
        self,
        values: Sequence[Cell],
        style: int = 0,
        cell_styles: Mapping[int, int] | None = None,
    ) -> int:
        """Write the next row: ``values`` from column A, each cell in ``style`` unless
        ``cell_styles`` names another for its column. An empty cell (None or '') is left
        out, or written blank when it has a style. Returns the row's number."""
        self.rows += 1
        r = str(self.rows)
        n_cols = len(values)
        if n_cols:
            self._ref(n_cols - 1)  # letters for every column of this row
        refs = self._refs
        chars = self.max_chars
        if len(chars) < n_cols:
            chars.extend([0] * (n_cols - len(chars)))
        row_attr = f' s="{style}"' if style else ""
        parts = [f'<row r="{r}">']
        add = parts.append
        for col, value in enumerate(values):
            s_attr = row_attr
            if cell_styles is not None and col in cell_styles:
                s = cell_styles[col]
                s_attr = f' s="{s}"' if s else ""
            if value is None or value == "":
                if s_attr:
                    add(f'<c r="{refs[col]}{r}"{s_attr}/>')
                continue
            if isinstance(value, str):
                n = len(value)
                if n > XLSX_MAX_CELL_CHARS:
                    value = fit_cell(value)
                    n = XLSX_MAX_CELL_CHARS
                if n > chars[col]:
                    chars[col] = n
                text = escape_text(value)
                space = ' xml:space="preserve"' if text[0].isspace() or text[-1].isspace() else ""
                add(
                    f'<c r="{refs[col]}{r}"{s_attr} t="inlineStr"><is><t{space}>{text}</t></is></c>'
                )
                continue
            number = repr(value)
            if len(number) > chars[col]:
                chars[col] = len(number)
            add(f'<c r="{refs[col]}{r}"{s_attr}><v>{number}</v></c>')
        add("</row>")
        if n_cols - 1 > self.max_col:
            self.max_col = n_cols - 1
        self._data.append("".join(parts))
        return self.rows

    def link(self, row: int, col: int, url: str) -> None:
        """Make the cell at ``row``, ``col`` a link to the external ``url``."""
        if self._links is None or self._rels is None:
            self._links, self._rels = Spool(), Spool()
        self.links += 1
        rid = f"rId{self.links}"
        self._links.append(f'<hyperlink ref="{self._ref(col)}{row}" r:id="{rid}"/>')
        self._rels.append(
            f'<Relationship Id="{rid}" Type="{REL_NS}/hyperlink" '
            f'Target="{xml_attr(escape_url(url))}" TargetMode="External"/>'
        )

    def dropdown(
        self, rows: tuple[int, int], col: int, source: Sequence[str] | str, **words: str
    ) -> None:
        """A list of allowed values on rows ``rows`` (first, last) of column ``col``:
        ``source`` is the values (written in the rule) or a formula naming a range
        (``Lists!$A$2:$A$9``). ``words``: ``promptTitle``, ``prompt``, ``errorTitle``,
        ``error``, Excel's input message and error alert."""
        formula = f'"{",".join(source)}"' if not isinstance(source, str) else source
        attrs = "".join(f' {k}="{xml_attr(v)}"' for k, v in words.items())
        self._validations.append(
            '<dataValidation type="list" allowBlank="1" showInputMessage="1" '
            f'showErrorMessage="1"{attrs} sqref="{self._range(rows[0], col, rows[1], col)}">'
            f"<formula1>{escape_text(formula)}</formula1></dataValidation>"
        )

    def _range(self, first_row: int, first_col: int, last_row: int, last_col: int) -> str:
        return f"{self._ref(first_col)}{first_row}:{self._ref(last_col)}{last_row}"

    def filter_range(self) -> str | None:
        """The autofilter range as an absolute reference for a defined name."""
        if self.autofilter is None:
            return None
        r1, c1, r2, c2 = self.autofilter
        return f"{self.name}!${self._ref(c1)}${r1}:${self._ref(c2)}${r2}"

    def write_to(self, z: zipfile.ZipFile, selected: bool) -> None:
        """Put this sheet (and its links) into the package."""
        last_col = max(self.max_col, 0)
        dim = f"A1:{self._ref(last_col)}{max(self.rows, 1)}" if self.rows else "A1"
        tab = ' tabSelected="1"' if selected else ""
        view = f'<sheetView{tab} workbookViewId="0">'
        if self.freeze_rows:
            top = f"A{self.freeze_rows + 1}"
            view += (
                f'<pane ySplit="{self.freeze_rows}" topLeftCell="{top}" '
                f'activePane="bottomLeft" state="frozen"/>'
                f'<selection pane="bottomLeft" activeCell="{top}" sqref="{top}"/>'
            )
        view += "</sheetView>"
        cols = "".join(
            f'<col min="{c + 1}" max="{c + 1}" width="{column_width(w):.16g}" customWidth="1"/>'
            for c, w in sorted(self.widths.items())
        )
        head = (
            f'{XML_DECL}<worksheet xmlns="{MAIN_NS}" xmlns:r="{REL_NS}">'
            f'<dimension ref="{dim}"/><sheetViews>{view}</sheetViews>'
            '<sheetFormatPr defaultRowHeight="15"/>'
            + (f"<cols>{cols}</cols>" if cols else "")
            + "<sheetData>"
        )
        tail = "</sheetData>"
        if self.autofilter is not None:
            tail += f'<autoFilter ref="{self._range(*self.autofilter)}"/>'
        if self._validations:
            tail += f'<dataValidations count="{len(self._validations)}">'
            tail += "".join(self._validations) + "</dataValidations>"
        name = f"xl/worksheets/sheet{self.index}.xml"
        # Zip64 only when a part may pass 4 GB: some readers dislike it on small parts.
        big = self._data.size() + (self._links.size() if self._links else 0) > _ZIP64_OVER
        with z.open(name, "w", force_zip64=big) as out:
            out.write(head.encode())
            self._data.copy_to(out)
            out.write(tail.encode())
            if self._links is not None:
                out.write(b"<hyperlinks>")
                self._links.copy_to(out)
                out.write(b"</hyperlinks>")
            out.write(
                b'<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" '
                b'header="0.3" footer="0.3"/></worksheet>'
            )
        if self._rels is not None:
            rels = f"xl/worksheets/_rels/sheet{self.index}.xml.rels"
            with z.open(rels, "w", force_zip64=self._rels.size() > _ZIP64_OVER) as out:
                out.write(f'{XML_DECL}<Relationships xmlns="{PKG_REL_NS}">'.encode())
                self._rels.copy_to(out)
                out.write(b"</Relationships>")

    def close(self) -> None:
        for spool in (self._data, self._links, self._rels):
            if spool is not None:
                spool.close()


class StreamingWorkbook:
    """Sheets and styles of one workbook, written as a zip package by ``save``."""

    def __init__(self) -> None:
        self.sheets: list[SheetStream] = []
        self.styles: list[CellStyle] = []

    def add_style(self, style: CellStyle) -> int:
        """The style's index, for ``SheetStream.append``."""
        self.styles.append(style)
        return len(self.styles)

    def add_sheet(self, name: str) -> SheetStream:
        """A new sheet, after the others. ``name``: a valid Excel sheet name, used as it
        is in references (letters, digits and ``_``)."""
        sheet = SheetStream(name, len(self.sheets) + 1)
        self.sheets.append(sheet)
        return sheet

    def save(self, path: Path) -> None:
        """Write the package to ``path`` (which is overwritten); the first sheet is active."""
        n = len(self.sheets)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
            z.writestr("[Content_Types].xml", self._content_types())
            z.writestr(
                "_rels/.rels",
                f'{XML_DECL}<Relationships xmlns="{PKG_REL_NS}">'
                f'<Relationship Id="rId1" Type="{REL_NS}/officeDocument" '
                'Target="xl/workbook.xml"/></Relationships>',
            )
            z.writestr("xl/workbook.xml", self._workbook_xml())
            rels = "".join(
                f'<Relationship Id="rId{s.index}" Type="{REL_NS}/worksheet" '
                f'Target="worksheets/sheet{s.index}.xml"/>'
                for s in self.sheets
            )
            z.writestr(
                "xl/_rels/workbook.xml.rels",
                f'{XML_DECL}<Relationships xmlns="{PKG_REL_NS}">{rels}'
                f'<Relationship Id="rId{n + 1}" Type="{REL_NS}/styles" Target="styles.xml"/>'
                "</Relationships>",
            )
            z.writestr("xl/styles.xml", styles_xml(self.styles))
            for i, sheet in enumerate(self.sheets):
                sheet.write_to(z, selected=i == 0)

    def _content_types(self) -> str:
        sheets = "".join(
            f'<Override PartName="/xl/worksheets/sheet{s.index}.xml" ContentType="{CT_SHEET}"/>'
            for s in self.sheets
        )
        return (
            f'{XML_DECL}<Types xmlns="{CT_NS}">'
            '<Default Extension="rels" '
            'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/xl/workbook.xml" ContentType="{CT_WORKBOOK}"/>'
            f'<Override PartName="/xl/styles.xml" ContentType="{CT_STYLES}"/>'
            f"{sheets}</Types>"
        )

    def _workbook_xml(self) -> str:
        sheets = "".join(
            f'<sheet name="{xml_attr(s.name)}" sheetId="{s.index}"'
            + (' state="hidden"' if s.hidden else "")
            + f' r:id="rId{s.index}"/>'
            for s in self.sheets
        )
        names = "".join(
            f'<definedName name="_xlnm._FilterDatabase" localSheetId="{s.index - 1}" '
            f'hidden="1">{xml_attr(ref)}</definedName>'
            for s in self.sheets
            if (ref := s.filter_range()) is not None
        )
        return (
            f'{XML_DECL}<workbook xmlns="{MAIN_NS}" xmlns:r="{REL_NS}">'
            f'<bookViews><workbookView activeTab="0"/></bookViews>'
            f"<sheets>{sheets}</sheets>"
            + (f"<definedNames>{names}</definedNames>" if names else "")
            + "</workbook>"
        )

    def close(self) -> None:
        """Release the temporary files."""
        for sheet in self.sheets:
            sheet.close()
