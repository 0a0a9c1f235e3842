"""The XML pieces of an .xlsx package: text and URL escaping as Excel does it, column
widths, cell styles and ``xl/styles.xml`` (used by
``linksync.report.xlsx_stream``).

Text is escaped as Excel does: ``& < >`` become entities, control characters XML 1.0
forbids become ``_xHHHH_`` (and a literal ``_xHHHH_`` gets its underscore escaped, so
Excel shows it unchanged); lone surrogates, which UTF-8 cannot carry, become U+FFFD.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

from linksync.report.cells import xml_attr

MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
CT_NS = "http://schemas.openxmlformats.org/package/2006/content-types"
CT_SHEET = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
CT_WORKBOOK = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
CT_STYLES = "application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"
XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'

#: Anything in a text that needs more than copying: XML specials, control characters,
#: a literal ``_xHHHH_``, lone surrogates and the two non-characters.
_NEEDS_ESCAPE = re.compile("[&<>\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]|_x[0-9a-fA-F]{4}_")
_ODD = re.compile("[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]|_x[0-9a-fA-F]{4}_")
_LITERAL_ESCAPE = re.compile("(_x[0-9a-fA-F]{4}_)")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\ufffe\uffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_URL_ENCODED = re.compile("%[0-9a-fA-F]{2}")
_URL_UNSAFE = re.compile('[%" <>\\[\\]^`{}]')
#: Those characters percent-encoded (lowercase hex, as Excel writes them).
_URL_ESCAPES = str.maketrans({ch: f"%{ord(ch):02x}" for ch in '%" <>[]^`{}'})


def escape_text(text: str) -> str:
    """``text`` as the content of an xlsx ``<t>`` element."""
    if not _NEEDS_ESCAPE.search(text):
        return text
    text = escape(text)  # & < >
    if _ODD.search(text):
        text = _LITERAL_ESCAPE.sub(r"_x005F\1", text)
        text = _CONTROL.sub(lambda m: f"_x{ord(m.group()):04X}_", text)
        text = _SURROGATE.sub("\ufffd", text)
    return text


def escape_url(url: str) -> str:
    """``url`` with the characters Excel wants percent-encoded in a link target."""
    if not _URL_UNSAFE.search(url) or _URL_ENCODED.search(url):
        return url  # nothing to encode, or already encoded
    return url.translate(_URL_ESCAPES)


def column_width(chars: float) -> float:
    """Excel's stored width for a column ``chars`` characters wide (Calibri 11)."""
    pixels = int(chars * 7 + 0.5) + 5
    return (pixels * 256 // 7) / 256


@dataclass(frozen=True, slots=True)
class CellStyle:
    """The formatting of a cell. Colours are 'RRGGBB' with or without a leading '#'.
    ``num_format``: Excel's number format code (``yyyy-mm-dd hh:mm`` shows a serial
    date as a date); ``wrap``: text wrapped in the cell, aligned to its top."""

    bold: bool = False
    size: float = 11
    font_color: str | None = None
    fill: str | None = None
    underline: bool = False
    bottom_border: bool = False
    num_format: str | None = None
    wrap: bool = False


def _argb(color: str) -> str:
    return "FF" + color.lstrip("#").upper()


def styles_xml(styles: Sequence[CellStyle]) -> str:
    """``xl/styles.xml`` with the default style (index 0) and ``styles`` as 1, 2, ..."""
    fonts = ['<font><sz val="11"/><name val="Calibri"/><family val="2"/></font>']
    fills = [
        '<fill><patternFill patternType="none"/></fill>',
        '<fill><patternFill patternType="gray125"/></fill>',
    ]
    borders = [
        "<border><left/><right/><top/><bottom/><diagonal/></border>",
        '<border><left/><right/><top/><bottom style="thin"><color auto="1"/></bottom>'
        "<diagonal/></border>",
    ]
    xfs = ['<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>']
    formats: dict[str, int] = {}  # code -> id; custom formats are numbered from 164
    for s in styles:
        font = (
            "<font>"
            + ("<b/>" if s.bold else "")
            + ("<u/>" if s.underline else "")
            + f'<sz val="{s.size:g}"/>'
            + (f'<color rgb="{_argb(s.font_color)}"/>' if s.font_color else "")
            + '<name val="Calibri"/><family val="2"/></font>'
        )
        fonts.append(font)
        fill_id = 0
        if s.fill:
            fills.append(
                '<fill><patternFill patternType="solid">'
                f'<fgColor rgb="{_argb(s.fill)}"/><bgColor indexed="64"/></patternFill></fill>'
            )
            fill_id = len(fills) - 1
        border_id = 1 if s.bottom_border else 0
        fmt_id = formats.setdefault(s.num_format, 164 + len(formats)) if s.num_format else 0
        xfs.append(
            f'<xf numFmtId="{fmt_id}" fontId="{len(fonts) - 1}" fillId="{fill_id}" '
            f'borderId="{border_id}" xfId="0" applyFont="1"'
            + (' applyFill="1"' if fill_id else "")
            + (' applyBorder="1"' if border_id else "")
            + (' applyNumberFormat="1"' if fmt_id else "")
            + (
                ' applyAlignment="1"><alignment vertical="top" wrapText="1"/></xf>'
                if s.wrap
                else "/>"
            )
        )
    num_fmts = "".join(
        f'<numFmt numFmtId="{i}" formatCode="{xml_attr(code)}"/>' for code, i in formats.items()
    )
    if num_fmts:
        num_fmts = f'<numFmts count="{len(formats)}">{num_fmts}</numFmts>'
    return (
        f'{XML_DECL}<styleSheet xmlns="{MAIN_NS}">{num_fmts}'
        f'<fonts count="{len(fonts)}">{"".join(fonts)}</fonts>'
        f'<fills count="{len(fills)}">{"".join(fills)}</fills>'
        f'<borders count="{len(borders)}">{"".join(borders)}</borders>'
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/>'
        f'</cellStyleXfs><cellXfs count="{len(xfs)}">{"".join(xfs)}</cellXfs>'
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
        '<dxfs count="0"/><tableStyles count="0" defaultTableStyle="TableStyleMedium9" '
        'defaultPivotStyle="PivotStyleLight16"/></styleSheet>'
    )
