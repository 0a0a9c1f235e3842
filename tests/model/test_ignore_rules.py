"""``ignore_changes`` and ``ignore`` as a profile, a flag or a YAML file writes them:
the fields a PATCH can change, slug patterns matched in any case, tags matched exactly;
every other name refused naming it."""

from __future__ import annotations

import pytest

from linksync.model.ignore_rules import CHANGEABLE, entry_texts, parse_ignore, parse_ignore_changes


@pytest.mark.parametrize(
    ("value", "fields"),
    [
        (["tags", "description"], ("description", "tags")),
        ("tags, description", ("description", "tags")),
        (("tags,description", "url"), ("url", "description", "tags")),  # --ignore-changes
        ([], ()),
        (None, ()),
    ],
)
def test_fields_in_one_order(value: object, fields: tuple[str, ...]) -> None:
    assert parse_ignore_changes(value) == fields


def test_every_field_a_patch_changes_may_be_named() -> None:
    assert parse_ignore_changes(list(CHANGEABLE)) == CHANGEABLE
    assert set(CHANGEABLE) == {"url", "description", "tags", "apple", "google", "password"}


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (["tgas"], 'unknown field "tgas" (did you mean "tags"?)'),
        (["expiresAt"], '"expiresAt" cannot be named: an expiry is never updated in place'),
        (["slug"], '"slug" cannot be named: the slug is the link\'s identity'),
        ([1], "must be a list of field names"),
        ({"tags": True}, "must be a list of field names"),
    ],
)
def test_an_unknown_field_is_named(value: object, words: str) -> None:
    with pytest.raises(ValueError) as got:
        parse_ignore_changes(value)
    assert words in str(got.value)


def test_ignore_entries_have_one_text_form_and_match_as_slugs_and_tags_do() -> None:
    entries = parse_ignore(["Promo-*", {"tag": "Hand-Made"}, "TAG: frozen", "promo-*"])
    assert entry_texts(entries) == ("promo-*", "tag:Hand-Made", "tag:frozen")
    pattern = entries[0].regex()
    assert pattern is not None and pattern.match("promo-spring") and not pattern.match("xpromo")
    assert [e.shown for e in entries] == ["promo-*", "tag: Hand-Made", "tag: frozen"]
    assert parse_ignore("old-?") == parse_ignore(["old-?"])


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (["promo_*"], '"promo_*" can never match a slug'),
        (["go.example.com/promo"], "can never match a slug"),
        ([{"tag": ""}], "a tag entry needs the tag's name"),
        ([{"slug": "x"}], "is no entry"),
        ([""], "is no entry"),
    ],
)
def test_an_entry_that_can_match_nothing_is_named(value: object, words: str) -> None:
    with pytest.raises(ValueError) as got:
        parse_ignore(value)
    assert words in str(got.value)
