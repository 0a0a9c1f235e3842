"""The records held once per row or per link are compact (msgspec Structs) and still
read as the dataclasses they were: ``dataclasses.replace``, ``fields``, ``asdict``."""

from __future__ import annotations

import dataclasses
import gc
import json

from linksync.model import Action, LinkSpec, Provenance, RemoteLink
from linksync.sync.plan import Change

PROV = Provenance("links.csv", None, 7, columns={"url": "Destination"})
SPEC = LinkSpec("https://e.com/a", "a", managed=frozenset({"url", "slug"}), provenance=PROV)
LINK = RemoteLink("lnk.test", "a", "https://e.com/a", id="lnk_1", tags=("x",))


def test_replace_fields_and_asdict_work_as_on_a_dataclass() -> None:
    moved = dataclasses.replace(SPEC, url="https://e.com/b")
    assert (moved.url, moved.slug, moved.provenance) == ("https://e.com/b", "a", PROV)
    assert SPEC.url == "https://e.com/a"  # a copy: the record itself is unchanged
    assert dataclasses.replace(LINK, url="https://e.com/c").tags == ("x",)
    change = Change(Action.UPDATE, "lnk.test", "a", 0, SPEC, LINK)
    blocked = dataclasses.replace(change, blocked_by="STALE_PLAN")
    assert (blocked.blocked_by, blocked.is_write, change.is_write) == ("STALE_PLAN", False, True)
    assert [f.name for f in dataclasses.fields(Provenance)] == [
        "source", "sheet", "row", "columns", "timezone", "declared"
    ]  # fmt: skip
    assert dataclasses.is_dataclass(SPEC) and dataclasses.asdict(SPEC)["provenance"] == {
        "source": "links.csv", "sheet": None, "row": 7,
        "columns": {"url": "Destination"}, "timezone": None, "declared": None,
    }  # fmt: skip


def test_records_compare_and_serialise_as_before() -> None:
    assert LinkSpec.from_dict(json.loads(json.dumps(SPEC.to_dict()))) == SPEC
    assert RemoteLink.from_dict(LINK.to_dict()) == LINK and LINK.extra == {}
    change = Change(Action.UNCHANGED, "lnk.test", "a", 0, SPEC, LINK)
    assert change == Change.from_dict(json.loads(json.dumps(change.to_dict())))
    assert change.payload == {} and change.key == ("lnk.test", "a")


def test_the_collector_does_not_walk_them() -> None:
    assert not any(gc.is_tracked(r) for r in (SPEC, PROV, LINK))
    assert not gc.is_tracked(Change(Action.UNCHANGED, "lnk.test", "a", 0, SPEC, LINK))


def test_a_result_row_holds_the_report_columns_in_order_as_plain_json() -> None:
    # Every report and the journal start from this row: its columns, in their order,
    # and text where the record holds enums and tuples.
    from linksync.model import RESULT_COLUMNS, RowResult, Status

    result = RowResult(
        Action.UPDATE, Status.FAILED, source="links.csv", sheet="Spring", row=7,
        domain="lnk.test", slug="a", short_url="https://lnk.test/a", url="https://e.com/a",
        changed_fields=("url", "tags"), http_status=409, error_constant="SLUG_EXISTS",
        error_code=40901, message="taken", request_id="req_1", attempts=2,
    )  # fmt: skip
    row = result.to_dict()
    assert tuple(row) == RESULT_COLUMNS
    assert (type(row["action"]), type(row["status"])) == (str, str)
    expected = {
        "source": "links.csv", "sheet": "Spring", "row": 7, "domain": "lnk.test",
        "slug": "a", "short_url": "https://lnk.test/a", "url": "https://e.com/a",
        "action": "update", "status": "failed", "changed_fields": "url,tags",
        "http_status": 409, "error_constant": "SLUG_EXISTS", "error_code": 40901,
        "message": "taken", "request_id": "req_1", "attempts": 2,
    }  # fmt: skip
    assert json.dumps(row) == json.dumps(expected)
    assert RowResult.from_dict(row) == result
