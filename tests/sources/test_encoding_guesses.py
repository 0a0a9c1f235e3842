"""Files that are not UTF-8: the guess carries its own constant (UNCERTAIN_ENCODING), a
short file is never read as a script of another language, and a short file that reads
as plausible text in several encodings is not read at all: the user is asked for
--encoding, with the readings shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_inputs import GOOD, Expect, remote, run, validate

from linksync.errors import ERRORS
from linksync.errors.table import Origin
from linksync.sources import read_sources
from linksync.sources.encoding_guess import readings

HEAD = "slug,url,description\n"
GOOD_ROW = f"{GOOD[0]},{GOOD[1]},fine\n"

#: One short row in each language, as a marketer's export writes it.
SHORT = [
    ("cp1251", "Весенняя распродажа обуви"),
    ("gb18030", "春季促销活动开始了"),
    ("big5", "春季促銷活動開始了"),
    ("shift_jis", "春のセール開催中です"),
    ("euc-kr", "봄맞이 할인 행사 시작"),
    ("iso-8859-2", "Wiosenna promocja w Łodzi i źródło"),
]


def _file(workdir: Path, name: str, text: str, encoding: str) -> Path:
    path = workdir / name
    path.write_bytes(text.encode(encoding))
    return path


def _uncertain(problems: list[dict[str, object]]) -> list[dict[str, object]]:
    return [p for p in problems if p["constant"] == "UNCERTAIN_ENCODING"]


def test_the_constant_is_a_local_one_of_the_table() -> None:
    entry = ERRORS["UNCERTAIN_ENCODING"]
    assert entry.origin is Origin.LOCAL and entry.http_status is None
    assert "--encoding" in entry.meaning


@pytest.mark.parametrize("encoding,text", SHORT, ids=[e for e, _ in SHORT])
def test_a_short_file_is_read_in_its_own_script_with_the_warning(
    workdir: Path, encoding: str, text: str
) -> None:
    body = HEAD + GOOD_ROW + f"x,https://e.com/x,{text}\n"
    path = _file(workdir, f"{encoding}.csv", body, encoding)
    checked = validate(path, code=0, good_rows=[2, 3])
    [warning] = _uncertain(checked.problems)
    assert warning["severity"] == "warning" and "MISSING_URL" not in json.dumps(warning)
    assert f"read as {encoding.replace('euc-kr', 'cp949')}" in str(warning["message"])
    assert {s.slug: s.description for s in read_sources([path]).specs}["x"] == text
    # --strict refuses the guess; --encoding reads it without a word.
    validate(path, "--strict", code=1, expect=[Expect(None, None, "not certain")])
    named = validate(path, "--encoding", encoding, code=0, good_rows=[2, 3])
    assert named.doc["warnings"] == 0


def test_a_short_chinese_file_is_never_read_as_korean() -> None:
    """charset-normalizer takes a short GB18030 line for cp949; linksync does not."""
    for text in ("春季促销活动开始了", "免费送货到家", "会员专享优惠券", "夏季新款连衣裙"):
        data = (HEAD + f"x,https://e.com/x,{text}\n").encode("gb18030")
        found = {e for r in readings(data) for e in r.encodings}
        assert "gb18030" in found and "cp949" not in found, (text, found)


def test_a_short_file_that_reads_two_ways_is_not_read(workdir: Path) -> None:
    # Two characters: as GB18030 促销 (promotion), as Big5 棻种; nothing tells them apart.
    path = _file(workdir, "tags.csv", "slug,url,title\nx,https://e.com/x,促销\n", "gb18030")
    checked = validate(path, code=1)
    [error] = _uncertain(checked.problems)
    assert error["severity"] == "error" and error["row"] is None
    message = str(error["message"])
    assert "too short to tell" in message and "--encoding gb18030" in message
    assert "as gb18030: 'x,https://e.com/x,促销'" in message and "as big5" in message
    assert checked.doc["rows"] == 0
    apply = run("apply", str(path), "--yes", "--no-progress")
    assert apply.exit_code == 1 and "nothing applied" in apply.output
    assert remote(workdir) == {}
    named = validate(path, "--encoding", "gb18030", code=0)
    assert named.doc["rows"] == 1 and named.doc["warnings"] == 0


def test_a_file_utf8_at_first_and_ambiguous_later_is_not_read(workdir: Path) -> None:
    """The first 256 KB decide UTF-8; the bytes past them are judged the same way."""
    filler = "".join(f"r{i},https://example.com/r{i},plain\n" for i in range(9000))
    assert len(filler) > 256 * 1024
    data = (HEAD + filler).encode() + "x,https://e.com/x,促销\n".encode("gb18030")
    path = workdir / "late.csv"
    path.write_bytes(data)
    checked = validate(path, code=1)
    [error] = _uncertain(checked.problems)
    assert error["severity"] == "error" and "too short to tell" in str(error["message"])


def test_western_text_that_also_reads_as_central_european_is_warned(workdir: Path) -> None:
    """Léto v Brně (ISO-8859-2) reads as Léto v Brnì in cp1252: read as cp1252, the
    default, and the warning shows the other reading, so --strict refuses it."""
    path = _file(workdir, "cz.csv", HEAD + "x,https://e.com/x,Léto v Brně\n", "iso-8859-2")
    checked = validate(path, code=0)
    [warning] = _uncertain(checked.problems)
    assert "read as cp1252" in str(warning["message"])
    assert "Brně" in str(warning["message"])
    validate(path, "--strict", code=1, expect=[Expect(None, None, "not certain")])


def test_plain_french_is_read_without_a_word(workdir: Path) -> None:
    path = _file(workdir, "fr.csv", HEAD + "x,https://e.com/x,Été à Paris\n", "cp1252")
    checked = validate(path, code=0)
    assert checked.doc["warnings"] == 0


@pytest.mark.parametrize(
    "text,encoding,not_as",
    [
        ("Весенняя распродажа", "cp1251", "cp1252"),  # Âåñåííÿÿ: no ASCII letter in a word
        ("Frühlingsangebote", "cp1252", "cp1251"),  # Frьhling: Cyrillic in a Latin word
        ("Ofertas en España", "cp1252", "iso-8859-2"),  # Espańa: ń before a vowel
        ("新商品が入荷しました", "shift_jis", "cp949"),  # rare Hangul syllables
        ("봄맞이 할인 행사 시작", "euc-kr", "gb18030"),  # Han words with spaces
    ],
)
def test_readings_in_another_script_are_not_plausible(
    text: str, encoding: str, not_as: str
) -> None:
    found = readings(f"x,{text}\n".encode(encoding))
    assert all(not_as not in r.encodings for r in found), [r.encodings for r in found]
