"""What the repository leaves to people, as the engine plans it: fields named by
``ignore_changes`` (the options', and a row's file's own through ``LinkSpec.declared``)
are sent on create, never updated, kept by a replace; links an ``ignore:`` entry names
are skipped and spared by a mirror, counted in the plan's ``Ignored``. Pure diffs first,
then ``linksync.plan`` / ``apply`` with a ``SyncPolicy`` on the in-process sandbox."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from test_sync_diff import remote, spec, state

import linksync
from linksync.errors import ConfigError
from linksync.model import Action, LinkSpec, Provenance
from linksync.model.declared import Declared
from linksync.sync import Mode, SyncOptions, diff
from support.cli_runs import remote_links

NO_JOURNAL = linksync.Outputs(journal=False)


def declaring(s: LinkSpec, *fields: str) -> LinkSpec:
    """``s`` as a YAML file with ``ignore_changes: [fields]`` reads it."""
    prov = Provenance("links.yaml", None, 2, declared=Declared(None, frozenset(fields)))
    return msgspec.structs.replace(s, provenance=prov)


def test_fields_left_to_people_are_never_updated_and_make_no_change() -> None:
    row = spec("promo", "https://e.com/new", tags=["a"], description="mine")
    st = state(remote("promo", "https://e.com/old", tags=["b"], description="theirs"))
    plan = diff([row], st, SyncOptions(ignore_changes=("tags", "description")))
    (ch,) = plan.changes
    assert ch.action is Action.UPDATE and ch.payload == {"url": "https://e.com/new"}
    assert ch.changed_fields == ("url",)
    assert "description, tags left to people (ignore_changes)" in ch.notes

    only_theirs = diff([declaring(row, "url", "tags", "description")], st, SyncOptions())
    assert [c.action for c in only_theirs.changes] == [Action.UNCHANGED]
    assert not only_theirs.has_changes


def test_a_create_sends_them_and_a_replace_keeps_the_links_own() -> None:
    row = declaring(spec("promo", tags=["a"], description="mine"), "tags", "description")
    (create,) = diff([row], state(), SyncOptions()).changes
    assert create.action is Action.CREATE
    assert (create.payload["tags"], create.payload["description"]) == (["a"], "mine")

    later = declaring(
        spec("promo", tags=["a"], description="mine", expires_at="2031-01-01T00:00:00Z"),
        "tags",
        "description",
    )
    held = remote("promo", tags=["by-hand"], description="theirs")
    (replace,) = diff([later], state(held), SyncOptions(allow_replace=True)).changes
    assert replace.action is Action.REPLACE
    assert (replace.payload["tags"], replace.payload["description"]) == (["by-hand"], "theirs")


def test_ignore_entries_skip_rows_and_spare_a_mirrors_deletes() -> None:
    st = state(
        remote("Promo-Spring", tags=[]),
        remote("hand", tags=["hand-made"]),
        remote("old"),
        remote("keep"),
    )
    options = SyncOptions(
        mode=Mode.MIRROR, scope_domains=("lnk.test",), ignore=("promo-*", "tag:hand-made")
    )
    plan = diff([spec("keep"), spec("promo-spring", "https://e.com/changed")], st, options)
    actions = {c.slug: c.action for c in plan.changes}
    assert actions == {
        "keep": Action.UNCHANGED,
        "Promo-Spring": Action.SKIP,  # a pattern matches any case
        "old": Action.DELETE,
    }
    assert plan.ignored.count == 2
    assert {(slug, entry) for _, slug, entry in plan.ignored.links} == {
        ("Promo-Spring", "promo-*"),
        ("hand", "tag: hand-made"),
    }
    assert plan.counts["delete"] == 1 and plan.counts["skip"] == 1


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"ignore_changes": ("slug",)}, '"slug" cannot be named: the slug is the link'),
        ({"ignore_changes": ("tag",)}, 'unknown field "tag" (did you mean "tags"?)'),
        ({"ignore": ("promo_*",)}, '"promo_*" can never match a slug'),
        ({"ignore": ({"owner": "x"},)}, "is no entry"),
    ],
)
def test_a_wrong_name_is_a_config_error_naming_it(options: dict[str, object], words: str) -> None:
    with pytest.raises(ConfigError) as got:
        SyncOptions(**options)  # type: ignore[arg-type]
    assert words in str(got.value)


def link(slug: str, url: str, **fields: object) -> LinkSpec:
    return LinkSpec(
        url=url,
        slug=slug,
        domain="lnk.test",
        managed=frozenset({"url", *fields}),
        provenance=Provenance("links.yaml", None, 2),
        **fields,  # type: ignore[arg-type]
    )


def test_the_library_leaves_fields_and_links_to_people(workdir: Path) -> None:
    seeded = linksync.apply(
        [
            link("spring", "https://e.com/spring", tags=("spring",)),
            link("promo-a", "https://e.com/promo"),
            link("old", "https://e.com/old"),
        ],
        outputs=NO_JOURNAL,
    )
    assert seeded.exit_code == 0
    policy = linksync.SyncPolicy(
        mode="mirror",
        scope_domains=["lnk.test"],
        ignore=["promo-*"],
        ignore_changes=["tags"],
    )
    rows = [link("spring", "https://e.com/spring", tags=("other",))]
    planned = linksync.plan(rows, sync=policy)
    assert [(c.slug, c.action) for c in planned.plan.changes] == [
        ("spring", Action.UNCHANGED),
        ("old", Action.DELETE),
    ]
    assert planned.plan.ignored.count == 1
    results = linksync.apply(rows, sync=policy, outputs=NO_JOURNAL)
    assert results.exit_code == 0
    held = {x.slug: x for x in remote_links(workdir)}
    assert set(held) == {"spring", "promo-a"}
    assert held["spring"].tags == ("spring",)

    with pytest.raises(ConfigError, match='unknown field "tagz"'):
        linksync.plan(rows, sync=linksync.SyncPolicy(ignore_changes=["tagz"]))
