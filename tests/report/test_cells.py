from __future__ import annotations

import pytest

from linksync.model import Action, RowResult, Status
from linksync.report.cells import (
    FORMULA_PREFIXES,
    is_formula_like,
    neutralize,
    report_row,
    xml_text,
)
from linksync.safe.secrets import redact


@pytest.mark.parametrize("prefix", FORMULA_PREFIXES)
def test_neutralize_each_dangerous_first_character(prefix: str) -> None:
    text = f"{prefix}SUM(A1:A9)"
    assert is_formula_like(text)
    assert neutralize(text) == "'" + text


@pytest.mark.parametrize("text", ["", "plain", "https://x.test/a", " =1+1", "a=b", "'quoted"])
def test_neutralize_leaves_safe_text(text: str) -> None:
    assert not is_formula_like(text)
    assert neutralize(text) == text


def test_redact_every_occurrence_and_ignores_empty_secret() -> None:
    assert redact("key k1 and k1 again", ["k1", ""]) == "key *** and *** again"


def test_xml_text_replaces_characters_xml_cannot_carry() -> None:
    assert xml_text("a\x00b\x1fc\td\ne\uffff") == "a\ufffdb\ufffdc\td\ne\ufffd"


def test_report_row_redacts_secrets_in_text_values() -> None:
    r = RowResult(Action.CREATE, Status.FAILED, message="bad key sk_1", url="https://x/?k=sk_1")
    row = report_row(r, ["sk_1"])
    assert row["message"] == "bad key ***"
    assert row["url"] == "https://x/?k=***"
    assert row["attempts"] == 0


@pytest.mark.parametrize(
    ("message", "url", "shown_message", "shown_url"),
    [
        ("plain", "https://x/a", "plain", "https://x/a"),  # nothing to hide: as written
        ("sent Bearer abc.def", "https://x/a", "sent Bearer ***", "https://x/a"),
        ("fine", "https://x/?k=sk_2", "fine", "https://x/?k=***"),  # the second secret
        ("no sk_", "_1 here", "no sk_", "_1 here"),  # a secret split over two values
    ],
)
def test_report_row_redacts_each_value_that_holds_a_secret_and_no_other(
    message: str, url: str, shown_message: str, shown_url: str
) -> None:
    r = RowResult(Action.CREATE, Status.FAILED, message=message, url=url, slug="s")
    row = report_row(r, ["sk_1", "sk_2"])
    assert (row["message"], row["url"], row["slug"]) == (shown_message, shown_url, "s")
    assert row == {**r.to_dict(), "message": shown_message, "url": shown_url}
