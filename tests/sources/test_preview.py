"""The column preview (``linksync.sources.preview``): each header, the field it feeds,
how it was matched and example values, as the readers read the file."""

from __future__ import annotations

import io
from pathlib import Path

import openpyxl
import pytest
from msoffcrypto.format.ooxml import OOXMLFile  # type: ignore[import-untyped]

from linksync.errors import SourceError
from linksync.sources.preview import How, preview


def _csv(tmp_path: Path, text: str, name: str = "links.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    return path


CAMPAIGN = (
    "sep=;\nSpring campaign\n\n"
    "Destination URL;Title;Description;Clicks;Owner;Approver\n"
    "https://example.com/a;Hats;Spring hats;3;ana;x\n"
)


def test_each_column_says_how_it_was_matched(tmp_path: Path) -> None:
    path = _csv(tmp_path, CAMPAIGN)
    (sheet,) = preview([path], {"Owner": "tags", "Approver": "ignore"})
    assert sheet.source == str(path)  # named as the readers name it
    assert sheet.header_rows == (4, 4)  # under the sep= line, a title and a blank row
    assert [(c.letter, c.header, c.field, c.how) for c in sheet.columns] == [
        ("A", "Destination URL", "url", How.ALIAS),
        ("B", "Title", "description", How.SECOND),
        ("C", "Description", "description", How.ALIAS),
        ("D", "Clicks", "", How.IGNORED),
        ("E", "Owner", "tags", How.CHOSEN),
        ("F", "Approver", "", How.IGNORED_CHOSEN),
    ]
    assert sheet.unmapped == () and sheet.note is None


def test_a_column_nobody_claims_is_listed_as_not_read(tmp_path: Path) -> None:
    (sheet,) = preview([_csv(tmp_path, CAMPAIGN)], None)
    approver = sheet.columns[-1]
    assert (approver.field, approver.how, approver.unmapped) == ("", How.UNMAPPED, True)
    assert sheet.unmapped == ("Approver",)
    assert sheet.to_dict()["columns"][-1]["how"] == "not mapped: its values are not read"


def test_examples_are_the_first_three_values_cut_to_sixty_characters(tmp_path: Path) -> None:
    long = "https://example.com/" + "x" * 80
    rows = ["", "https://example.com/1", long, "", "https://example.com/3", "https://e.com/4"]
    path = _csv(tmp_path, "url\n" + "\n".join(rows) + "\n")
    (column,) = preview([path], None)[0].columns
    assert column.examples == ("https://example.com/1", long[:59] + "…", "https://example.com/3")


def test_a_sheet_without_a_url_column_says_so(tmp_path: Path) -> None:
    (no_header,) = preview([_csv(tmp_path, "Name;Thing\nfoo;bar\n")], None)
    assert no_header.columns == () and no_header.header_rows is None
    assert "no header row naming a destination URL column" in str(no_header.note)
    (mapped,) = preview([_csv(tmp_path, "Name;Thing\nfoo;bar\n")], {"Thing": "tags"})
    assert "no column of destination URLs" in str(mapped.note)


def test_workbook_sheets_in_order_hidden_ones_left_out_and_yaml_has_no_columns(
    tmp_path: Path,
) -> None:
    book = openpyxl.Workbook()
    first = book.active
    assert first is not None
    first.title = "Spring"
    first.append(["Spring campaign"])
    first.append(["url", "slug"])
    first.append(["https://example.com/s", "s"])
    hidden = book.create_sheet("Old")
    hidden.sheet_state = "hidden"
    hidden.append(["url"])
    summer = book.create_sheet("Summer")
    summer.append(["Destination URL"])
    summer.append(["https://example.com/u"])
    workbook = tmp_path / "campaign.xlsx"
    book.save(workbook)
    yaml = tmp_path / "links.yaml"
    yaml.write_text("links:\n  - url: https://example.com/y\n", "utf-8")

    sheets = preview([workbook, yaml], None)
    assert [(s.title, s.kind, s.header_rows) for s in sheets] == [
        (f"{workbook}, sheet Spring", "table", (2, 2)),
        (f"{workbook}, sheet Summer", "table", (1, 1)),
        (str(yaml), "yaml", None),
    ]
    assert sheets[0].columns[1].examples == ("s",)
    assert "no columns to map" in str(sheets[2].note)


def test_an_encrypted_workbook_is_previewed_with_its_password_decrypted_in_memory(
    tmp_path: Path,
) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Autumn"
    sheet.append(["Destination URL", "Back-half"])
    sheet.append(["https://example.com/a", "leaves"])
    plain = io.BytesIO()
    book.save(plain)
    locked = io.BytesIO()
    OOXMLFile(io.BytesIO(plain.getvalue())).encrypt("s3cr3t", locked)
    workbook = tmp_path / "campaign.xlsx"
    workbook.write_bytes(locked.getvalue())

    (view,) = preview([workbook], None, workbook_password="s3cr3t")
    assert view.title == f"{workbook}, sheet Autumn"
    assert [(c.header, c.examples) for c in view.columns] == [
        ("Destination URL", ("https://example.com/a",)),
        ("Back-half", ("leaves",)),
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign.xlsx"], "nothing written"
    with pytest.raises(SourceError, match="the password given does not open it"):
        preview([workbook], None, workbook_password="wrong")
    with pytest.raises(SourceError, match="this workbook is encrypted"):
        preview([workbook], None)


def test_column_letters_go_past_z(tmp_path: Path) -> None:
    headers = ["url", *[f"Tag {i}" for i in range(1, 28)]]  # numbered tags columns
    path = _csv(tmp_path, ",".join(headers) + "\nhttps://example.com/a\n")
    letters = [c.letter for c in preview([path], None)[0].columns]
    assert letters[:2] == ["A", "B"] and letters[25:] == ["Z", "AA", "AB"]
