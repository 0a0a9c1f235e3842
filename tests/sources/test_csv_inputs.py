"""Messy CSV files: ragged rows, unclosed quotes, encodings, conflicting columns, UTM,
tags, dates and placeholders. Each bad row is named with file, row and column; the
good row beside it stays valid; the file is never changed."""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

import pytest
from hostile_inputs import GOOD, Expect, validate

from linksync.pipeline.inputs import read_and_validate
from linksync.sources import read_sources

HEAD = "slug,url,description\n"
GOOD_ROW = f"{GOOD[0]},{GOOD[1]},fine\n"


def _csv(workdir: Path, name: str, text: str | bytes) -> Path:
    path = workdir / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def _descriptions(path: Path, *args: str, **kw: object) -> dict[str | None, str | None]:
    return {s.slug: s.description for s in read_sources([path], **kw).specs}  # type: ignore[arg-type]


# --- structure ------------------------------------------------------------------------


def test_ragged_row_with_extra_values_is_an_error(workdir: Path) -> None:
    path = _csv(workdir, "r.csv", HEAD + GOOD_ROW + "rag,https://e.com/r,Sale, 50% off\n")
    validate(path, code=1, expect=[Expect(3, "D (no header)", "' 50% off'")], good_rows=[2])


def test_extra_value_in_the_first_row_shifts_nothing(workdir: Path) -> None:
    """pandas would take a first record with one value too many for one with an index
    and shift every value left: the other rows keep their own columns."""
    path = _csv(workdir, "r1.csv", HEAD + "rag,https://e.com/r,d,extra\n" + GOOD_ROW)
    validate(path, code=1, expect=[Expect(2, "D (no header)", "'extra'")], good_rows=[3])
    assert _descriptions(path) == {"rag": "d", GOOD[0]: "fine"}


def test_extra_value_found_when_most_columns_are_not_read(workdir: Path) -> None:
    head = "slug,url,c1,c2,c3,c4,c5\n"
    text = head + f"{GOOD[0]},{GOOD[1]},1,2,3,4,5\nrag,https://e.com/r,1,2,3,4,5,extra\n"
    path = _csv(workdir, "wide.csv", text)
    validate(path, code=1, expect=[Expect(3, "H (no header)", "'extra'")], good_rows=[2])


def test_extra_value_after_an_empty_extra_is_found(workdir: Path) -> None:
    path = _csv(workdir, "r2.csv", HEAD + GOOD_ROW + "rag,https://e.com/r,d,,hidden\n")
    validate(path, code=1, expect=[Expect(3, "E (no header)", "'hidden'")], good_rows=[2])


def test_trailing_separators_are_not_extra_values(workdir: Path) -> None:
    path = _csv(workdir, "t.csv", HEAD + GOOD_ROW + "tail,https://e.com/t,d,,\n")
    validate(path, code=0, good_rows=[2, 3])


def test_ragged_row_found_when_a_quote_sits_inside_a_value(workdir: Path) -> None:
    text = HEAD + GOOD_ROW + 'tv,https://e.com/tv,5" screen\nrag,https://e.com/r,d,extra\n'
    path = _csv(workdir, "q.csv", text)
    validate(path, code=1, expect=[Expect(4, "D (no header)", "'extra'")], good_rows=[2, 3])


def test_ragged_row_inside_quoted_multiline_values(workdir: Path) -> None:
    text = HEAD + 'multi,https://e.com/m,"line one\nline two, still quoted"\n' + GOOD_ROW
    text += "rag,https://e.com/r,d,extra\n"
    path = _csv(workdir, "m.csv", text)
    validate(path, code=1, expect=[Expect(4, "D (no header)", "'extra'")], good_rows=[2, 3])


def test_unclosed_quote_names_its_row_and_keeps_the_rows_before(workdir: Path) -> None:
    text = HEAD + GOOD_ROW + 'open,"https://e.com/q,d\nafter,https://e.com/a,d\n'
    path = _csv(workdir, "open.csv", text)
    checked = validate(path, code=1, expect=[Expect(3, "url", "never closes")], good_rows=[2])
    assert checked.doc["valid"] == 1 and checked.doc["invalid"] == 1


def test_a_classic_mac_file_is_read_row_by_row(workdir: Path) -> None:
    """Lines ended by a carriage return alone (Excel's "CSV (Macintosh)"), as the csv
    module reads them: its header found, its rows numbered, a ragged row and a quote
    that never closes named on their own rows."""
    head, good = HEAD.replace("\n", "\r"), GOOD_ROW.replace("\n", "\r")
    path = _csv(workdir, "mac.csv", head + good + "rag,https://e.com/r,d,extra\r" + good)
    expect = [Expect(3, "D (no header)", "'extra'"), Expect(4, "slug", "declared twice")]
    validate(path, code=1, expect=expect, good_rows=[2])
    sep = _csv(workdir, "sep.csv", "sep=;\rslug;url\r" + ";".join(GOOD) + "\r")
    assert validate(sep, code=0, good_rows=[3]).doc["valid"] == 1
    text = head + good + 'open,"https://e.com/q,d\rafter,https://e.com/a,d\rlast,x,d\r'
    words = "this row and the 2 line(s) after it were not read"
    validate(_csv(workdir, "open.csv", text), code=1, expect=[Expect(3, "url", words)])


# --- encodings ------------------------------------------------------------------------


def test_mixed_utf8_and_cp1252_says_so_on_the_row(workdir: Path) -> None:
    data = (HEAD + GOOD_ROW + "utf,https://e.com/u,café crème\n").encode("utf-8")
    data += "win,https://e.com/w,déjà vu\n".encode("cp1252")
    path = _csv(workdir, "mixed.csv", data)
    validate(path, code=0, expect=[Expect(4, "(encoding)", "déjà vu", "warning")], good_rows=[2, 3])
    descriptions = _descriptions(path)
    assert descriptions["utf"] == "café crème" and descriptions["win"] == "déjà vu"
    validate(path, "--strict", code=1, expect=[Expect(4, "(encoding)", "--strict")])


def test_mixed_encodings_whose_rows_cannot_be_told_do_not_claim_they_are_named(
    workdir: Path,
) -> None:
    # A quote inside a value sends the file to the csv module's scan, which keeps no line
    # ends to tell the cp1252 line's row by: the warning says so, and shows the text.
    data = (HEAD + 'tv,https://e.com/tv,5" screen\nutf,https://e.com/u,café\n').encode("utf-8")
    data += "win,https://e.com/w,déjà vu\n".encode("cp1252")
    checked = validate(_csv(workdir, "mixed.csv", data), code=0, good_rows=[2, 3, 4])
    (warning,) = [p for p in checked.doc["problems"] if p["constant"] == "MIXED_ENCODING"]
    assert "déjà vu" in warning["message"] and "cannot be told" in warning["message"]
    assert "are named" not in warning["message"]


def test_plain_cp1252_is_read_without_a_warning(workdir: Path) -> None:
    path = _csv(
        workdir, "w.csv", (HEAD + GOOD_ROW + "fr,https://e.com/f,Été à Paris\n").encode("cp1252")
    )
    checked = validate(path, code=0, good_rows=[2, 3])
    assert checked.doc["warnings"] == 0
    assert _descriptions(path)["fr"] == "Été à Paris"


@pytest.mark.parametrize(
    "encoding,text",
    [
        ("cp1251", "Весенняя распродажа обуви"),
        ("gb18030", "春季促销活动开始了"),
        ("shift_jis", "春のセール開催中です"),
        ("iso-8859-2", "Wiosenna promocja w Łodzi i źródło"),
    ],
)
def test_uncertain_encoding_is_warned_with_an_example(
    workdir: Path, encoding: str, text: str
) -> None:
    data = (HEAD + GOOD_ROW + f"x,https://e.com/x,{text}\n").encode(encoding)
    path = _csv(workdir, f"{encoding}.csv", data)
    checked = validate(path, code=0, expect=[Expect(None, None, "not certain", "warning")])
    [warning] = [p for p in checked.problems if "not certain" in p["message"]]
    assert "read as" in warning["message"] and "--encoding" in warning["message"]
    validate(path, "--strict", code=1, expect=[Expect(None, None, "not certain")])
    # With the encoding named, the text is read as written and nothing is warned.
    named = validate(path, "--encoding", encoding, code=0, good_rows=[2, 3])
    assert named.doc["warnings"] == 0
    assert _descriptions(path, encoding=encoding)["x"] == text


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_is_detected(workdir: Path, codec: str) -> None:
    text = HEAD + GOOD_ROW + "u16,https://e.com/u,Größe\n"
    path = _csv(workdir, f"{codec}.csv", text.encode(codec))
    validate(path, code=0, good_rows=[2, 3])
    assert _descriptions(path)["u16"] == "Größe"


def test_wrong_explicit_encoding_names_the_line(workdir: Path) -> None:
    path = _csv(workdir, "bad.csv", (HEAD + GOOD_ROW + "x,https://e.com/x,café\n").encode("cp1252"))
    validate(path, "--encoding", "utf-8", code=2, refused_words="line 3")


# --- columns --------------------------------------------------------------------------


def test_two_url_columns_that_differ_name_the_conflict(workdir: Path) -> None:
    text = (
        "slug,url,url\n"
        + f"{GOOD[0]},{GOOD[1]},{GOOD[1]}\n"
        + "two,https://e.com/a,https://e.com/b\n"
    )
    path = _csv(workdir, "two.csv", text)
    validate(path, code=1, expect=[Expect(3, "url", "differ on this row")], good_rows=[2])


def test_preferred_column_wins_with_a_warning_for_the_sheet(workdir: Path) -> None:
    text = (
        "slug,url,Description,Title\n"
        + f"{GOOD[0]},{GOOD[1]},d,d\nx,https://e.com/x,Long text,Short\n"
    )
    path = _csv(workdir, "pref.csv", text)
    validate(path, code=0, expect=[Expect(None, "Title", '"Description" is used', "warning")])


def test_numbered_tags_columns_are_merged(workdir: Path) -> None:
    text = "slug,url,Tag 1,Tag 2,Tag 3\n" + f"{GOOD[0]},{GOOD[1]},sale,spring,\n"
    path = _csv(workdir, "tags.csv", text)
    checked = validate(path, code=0, good_rows=[2])
    assert checked.doc["unknown_columns"] == []
    [spec] = read_sources([path]).specs
    assert spec.tags == ("sale", "spring")


def test_two_row_header_in_a_csv_export(workdir: Path) -> None:
    text = (
        "Destination URL,Slug,UTM,,\n,,Source,Medium,Campaign\nhttps://e.com/s,s1,news,email,c1\n"
    )
    path = _csv(workdir, "two-row.csv", text)
    validate(path, code=0, good_rows=[3])
    [spec] = read_sources([path]).specs
    assert spec.url == "https://e.com/s?utm_source=news&utm_medium=email&utm_campaign=c1"


def test_utm_in_the_url_and_in_a_column(workdir: Path) -> None:
    text = (
        "slug,url,utm_source\n"
        + f"{GOOD[0]},{GOOD[1]},\nu,https://e.com/u?UTM_SOURCE=old&x=1,new\n"
    )
    path = _csv(workdir, "utm.csv", text)
    validate(path, code=0, expect=[Expect(3, "utm_source", "'old' was replaced", "warning")])
    urls = {s.slug: s.url for s in read_sources([path]).specs}
    assert urls["u"] == "https://e.com/u?utm_source=new&x=1"


# --- values ---------------------------------------------------------------------------


def test_alt_enter_line_breaks_separate_tags(workdir: Path) -> None:
    path = _csv(workdir, "br.csv", 'slug,url,tags\nbr,https://e.com/b,"sale\nspring"\n')
    validate(path, code=0, good_rows=[2])
    assert read_sources([path]).specs[0].tags == ("sale", "spring")


@pytest.mark.parametrize(
    "tags,words",
    [("x" * 150, "at most 100 characters"), ("sale\u200b", "ZERO WIDTH SPACE")],
    ids=["too-long", "invisible"],
)
def test_tags_the_service_would_refuse(workdir: Path, tags: str, words: str) -> None:
    path = _csv(
        workdir, "tags.csv", f"slug,url,tags\n{GOOD[0]},{GOOD[1]},ok\nbad,https://e.com/b,{tags}\n"
    )
    validate(path, code=1, expect=[Expect(3, "tags", words)], good_rows=[2])


def test_too_many_tags(workdir: Path) -> None:
    many = ";".join(f"t{i}" for i in range(101))
    path = _csv(
        workdir, "many.csv", f"slug,url,tags\n{GOOD[0]},{GOOD[1]},ok\nbad,https://e.com/b,{many}\n"
    )
    validate(path, code=1, expect=[Expect(3, "tags", "at most 100")], good_rows=[2])


def test_description_longer_than_the_service_takes(workdir: Path) -> None:
    path = _csv(
        workdir, "long.csv", HEAD + GOOD_ROW + "long,https://e.com/l," + "d" * 10_001 + "\n"
    )
    validate(path, code=1, expect=[Expect(3, "description", "10,001 characters")], good_rows=[2])


def test_day_first_dates_need_a_date_format(workdir: Path) -> None:
    text = "slug,url,expires\n" + f"{GOOD[0]},{GOOD[1]},2031-01-01\nd,https://e.com/d,31/12/2030\n"
    path = _csv(workdir, "dmy.csv", text)
    validate(path, code=1, expect=[Expect(3, "expires", "--date-format dmy")], good_rows=[2])
    validate(path, "--date-format", "dmy", code=0, good_rows=[2, 3])
    [_, spec] = read_sources([path], date_format="dmy").specs
    assert spec.expires_at == "2030-12-31T00:00:00.000Z"


@pytest.mark.parametrize(
    "placeholder,column", [("N/A", "expires"), ("TBD", "slug"), ("-", "description")]
)
def test_placeholders_are_errors_unless_named_empty(
    workdir: Path, placeholder: str, column: str
) -> None:
    row = {"slug": "p", "expires": "2031-01-01", "description": "d"}
    row[column] = placeholder
    text = "slug,url,expires,description\n" + f"{GOOD[0]},{GOOD[1]},2031-01-01,ok\n"
    text += f"{row['slug']},https://e.com/p,{row['expires']},{row['description']}\n"
    path = _csv(workdir, "ph.csv", text)
    validate(path, code=1, expect=[Expect(3, column, "placeholder")], good_rows=[2])
    validate(path, "--empty-value", placeholder.lower(), code=0, good_rows=[2, 3])


@pytest.mark.parametrize("value,words", [("N/A", "placeholder"), ("#N/A", "Excel error")])
def test_placeholder_in_the_url_column_is_named_once(workdir: Path, value: str, words: str) -> None:
    path = _csv(workdir, "pu.csv", HEAD + GOOD_ROW + f"p,{value},d\n")
    checked = validate(path, code=1, expect=[Expect(3, "url", words)], good_rows=[2])
    assert [p["constant"] for p in checked.problems if p["row"] == 3] == ["INVALID_FIELD"]


def test_excel_error_exported_as_text_is_not_a_slug(workdir: Path) -> None:
    path = _csv(workdir, "na.csv", HEAD + GOOD_ROW + "#N/A,https://e.com/n,d\n")
    checked = validate(path, code=1, expect=[Expect(3, "slug", "Excel error #N/A")], good_rows=[2])
    assert [p["constant"] for p in checked.problems if p["row"] == 3] == ["INVALID_FIELD"]


def test_csv_cell_over_the_csv_module_limit(workdir: Path) -> None:
    path = _csv(workdir, "big.csv", HEAD + "big,https://e.com/b," + "x" * 200_000 + "\n" + GOOD_ROW)
    validate(path, code=1, expect=[Expect(2, "description", "200,000 characters")], good_rows=[3])


def _mixed_file(rng: random.Random) -> tuple[str, list[int]]:
    """A small CSV as editors and pasted cells make them (line ends of every kind,
    quoted line breaks, quotes inside values, ragged rows), and the rows of it with
    values beyond the header, as the csv module reads it."""
    cells = ["a", "", "x\ry", "line\nbreak", 'say ""hi""', '5" tv', "Sale, 50% off"]
    end = rng.choice(["\n", "\r\n", "\r"])
    lines = ["slug,url,description"]
    for i in range(rng.randint(1, 12)):
        values = [f"s-{i}", f"https://example.com/{i}", rng.choice(cells)]
        values += ["extra"] * rng.choice([0, 0, 0, 1])
        lines.append(",".join(f'"{v}"' if "\n" in v or "," in v else v for v in values))
    text = end.join(lines) + end
    records = list(csv.reader(io.StringIO(text, newline="")))
    ragged = [n + 1 for n, r in enumerate(records) if n and len(r) > 3 and any(r[3:])]
    return text, ragged


@pytest.mark.parametrize("seed", range(3))
def test_rows_with_extra_values_are_those_the_csv_module_reads(workdir: Path, seed: int) -> None:
    rng = random.Random(seed)
    for k in range(40):
        text, ragged = _mixed_file(rng)
        path = _csv(workdir, f"m{k}.csv", text)
        _, checked = read_and_validate([path])
        extra = [p.provenance.row for p in checked.problems if "to no column" in p.message]
        assert extra == ragged, text
