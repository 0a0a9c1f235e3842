"""Every warning and error carries the constant that names its cause.

(a) The table: every constant has its HTTP status and code (service and design
constants) or neither (local ones), a meaning, and advice (``linksync.errors.advice``);
the page's advice names only constants of the table.

(b) The sites: every string literal of ``src/linksync`` that is a constant of the table
is registered below under its module and function, with the cause it names. A new site
(or a constant moved to another site) fails here until it is registered, so a reviewer
sees which constant a new message carries; a constant passed to a problem, an issue,
a row result or a service error that is not in the table fails too. The registry says
what each site emits; ``test_sites_name_their_cause.py`` drives the sources' sites with
inputs and checks the constant a user sees.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from linksync.errors import ERRORS, Origin
from linksync.errors.advice import ADVICE, advice_for

SRC = Path(__file__).resolve().parents[2] / "src" / "linksync"

#: Where the table itself and the advice live: every constant is named there.
TABLES = {"errors/table.py", "errors/advice.py", "ui/fixes.py"}

#: (module, function) -> the constants its literals name. ``<module>`` is module level
#: (a mapping such as ``model.results.ERROR_FIELDS``). Keep each entry the cause it names.
SITES: dict[tuple[str, str], set[str]] = {
    ("api/failures.py", "<module>"): {
        "EDGE_UNAVAILABLE",
        "INTERNAL_ERROR",
        "RATE_LIMITED",
        "UNAUTHORIZED",
    },
    ("api/failures.py", "_constant_for"): {"UNEXPECTED_RESPONSE"},
    ("api/network.py", "certificate_error"): {"CERTIFICATE_ERROR"},
    ("api/network.py", "proxy_auth_error"): {"PROXY_AUTH_ERROR"},
    ("api/parse.py", "unexpected"): {"UNEXPECTED_RESPONSE"},
    ("errors/tree.py", "<module>"): {  # RAISES: the class an answer raises
        "CERTIFICATE_ERROR",
        "FORBIDDEN",
        "LINK_NOT_FOUND",
        "PROXY_AUTH_ERROR",
        "QUOTA_EXCEEDED",
        "RATE_LIMITED",
        "SLUG_EXISTS",
        "TRANSPORT_ERROR",
        "UNAUTHORIZED",
    },
    ("errors/tree.py", "__init__"): {"TRANSPORT_ERROR"},
    ("model/results.py", "<module>"): {
        "INVALID_EXPIRY",
        "INVALID_SLUG",
        "INVALID_URL",
        "RESERVED_SLUG",
        "SLUG_EXISTS",
    },
    ("model/results.py", "not_attempted"): {"NOT_ATTEMPTED"},
    ("model/outcome.py", "<module>"): {  # _ENDINGS: what ended a run, by type
        "CONFIG_ERROR",
        "FILE_ERROR",
        "INTERRUPTED",
        "LOCK_HELD",
        "MIRROR_REFUSED",
        "PLAN_MISMATCH",
        "UNEXPECTED_ERROR",
        "UNSAFE_PLAN",
    },
    ("model/outcome.py", "error_constant"): {"FILE_ERROR", "UNEXPECTED_ERROR"},
    ("pipeline/all_runs.py", "_log_failed"): {"CONFIG_ERROR"},  # a target that cannot start
    ("pipeline/inputs.py", "<module>"): {"EMPTY_SOURCE"},  # NO_SOURCES: an empty list
    ("pipeline/notify.py", "end_stopped"): {"INTERRUPTED"},  # the run_end of a hard stop
    ("rules/__init__.py", "check_slug"): {"INVALID_SLUG", "RESERVED_SLUG"},
    ("rules/__init__.py", "check_url"): {"INVALID_URL"},
    ("rules/__init__.py", "parse_expiry"): {"INVALID_EXPIRY"},
    ("sandbox/ai.py", "suggest_slug"): {"RESERVED_SLUG"},
    ("sandbox/app.py", "json_body"): {"INVALID_REQUEST"},
    ("sandbox/app.py", "on_error"): {"INTERNAL_ERROR", "INVALID_REQUEST", "NOT_FOUND"},
    ("sandbox/app.py", "require_write"): {"FORBIDDEN"},
    ("sandbox/backend.py", "_domain_by_id"): {"DOMAIN_NOT_FOUND"},
    ("sandbox/backend.py", "_link"): {"LINK_NOT_FOUND"},
    ("sandbox/backend.py", "create_domain"): {"DOMAIN_EXISTS", "QUOTA_EXCEEDED"},
    ("sandbox/backend.py", "create_link"): {"INTERNAL_ERROR", "QUOTA_EXCEEDED", "SLUG_EXISTS"},
    ("sandbox/backend.py", "delete_domain"): {"DOMAIN_NOT_FOUND"},
    ("sandbox/backend.py", "delete_link"): {"LINK_NOT_FOUND"},
    ("sandbox/backend.py", "invite_member"): {"MEMBER_EXISTS"},
    ("sandbox/backend.py", "link_domain"): {"DOMAIN_NOT_FOUND"},
    ("sandbox/backend.py", "update_link"): {"LINK_NOT_FOUND"},  # deleted meanwhile
    ("sandbox/gate.py", "__call__"): {
        "EDGE_UNAVAILABLE",
        "INTERNAL_ERROR",
        "RATE_LIMITED",
        "UNAUTHORIZED",
    },
    ("sandbox/rules.py", "_description"): {"INVALID_REQUEST"},
    ("sandbox/rules.py", "_object"): {"INVALID_REQUEST"},
    ("sandbox/rules.py", "_opt_str"): {"INVALID_REQUEST"},
    ("sandbox/rules.py", "_password"): {"INVALID_REQUEST"},
    ("sandbox/rules.py", "_positive_int"): {"INVALID_REQUEST"},
    ("sandbox/rules.py", "_tags"): {"INVALID_REQUEST"},
    ("sandbox/rules.py", "_unknown"): {"INVALID_REQUEST"},
    ("sandbox/rules.py", "_url"): {"INVALID_URL"},
    ("sandbox/rules.py", "check_slug"): {"INVALID_SLUG", "RESERVED_SLUG"},
    ("sandbox/rules.py", "parse_domain_create"): {"INVALID_REQUEST"},
    ("sandbox/rules.py", "parse_invite"): {"INVALID_REQUEST"},
    ("sandbox/rules.py", "parse_link_create"): {"INVALID_EXPIRY"},
    ("sandbox/rules.py", "parse_link_patch"): {"INVALID_REQUEST"},
    ("sandbox/rules.py", "parse_list_query"): {"INVALID_REQUEST"},
    ("sources/__init__.py", "_read_dir"): {"EMPTY_SOURCE"},
    ("sources/changed.py", "_not_read"): {"EMPTY_SOURCE"},  # a changed file not read
    ("sources/changed.py", "read_changed"): {"EMPTY_SOURCE"},  # its version at the ref
    ("sources/column_report.py", "held_guesses"): {"GUESSED_COLUMN"},
    ("sources/__init__.py", "read_source"): {"EMPTY_SOURCE"},
    ("sources/csv_reader.py", "_mixed"): {"MIXED_ENCODING"},
    ("sources/csv_reader.py", "_table"): {"INVALID_FIELD"},
    ("sources/csv_reader.py", "_unclosed"): {"INVALID_FIELD"},
    ("sources/csv_reader.py", "<module>"): {"UNCERTAIN_ENCODING"},  # _UNCERTAIN
    ("sources/csv_reader.py", "read"): {"EMPTY_SOURCE", "MISSING_URL_COLUMN"},
    ("sources/excel.py", "_nothing_to_read"): {"EMPTY_SOURCE"},
    ("sources/excel.py", "_read_book"): {"UNCHECKED_FORMAT"},
    ("sources/excel.py", "_read_sheet"): {"EMPTY_SOURCE", "MISSING_URL_COLUMN"},
    ("sources/excel_cells.py", "_errors"): {"FORMULA_WITHOUT_VALUE", "STRUCK_THROUGH"},
    ("sources/excel_cells.py", "_issue"): {"INVALID_FIELD"},
    # how the sheet looks: hidden rows skipped, hidden columns and merged cells
    ("sources/excel_layout.py", "hidden_columns"): {"HIDDEN_COLUMN"},
    ("sources/excel_layout.py", "hide_rows"): {"HIDDEN_ROW"},
    ("sources/excel.py", "_hidden_with_links"): {"HIDDEN_SHEET"},  # a hidden sheet of links
    ("sources/excel_layout.py", "spread_merged"): {"MERGED_CELLS"},
    # a sheet without a header: skipped; one holding web addresses: no mirror delete
    ("sources/excel_layout.py", "skipped_sheet"): {"MISSING_URL_COLUMN"},
    ("sources/excel_layout.py", "unread_links"): {"UNREAD_SHEET"},
    # a header's hint naming the order of its dates ("Expires (MM/DD/YYYY)")
    ("sources/date_hints.py", "column_dates"): {"DATE_ORDER"},
    ("sources/normalize.py", "_oddness"): {"AMBIGUOUS_TIME", "INVALID_EXPIRY"},
    # a day-first or month-first date the --date-format given does not read
    ("sources/normalize.py", "read_expiry"): {"INVALID_EXPIRY"},
    ("sources/shortlinks.py", "_disagree"): {"CONFLICTING_COLUMNS"},
    ("sources/shortlinks.py", "split_short"): {"INVALID_FIELD"},  # a short link not split
    ("sources/table.py", "_conflicts"): {"CONFLICTING_COLUMNS"},
    ("sources/table.py", "build_frame"): {"REPEATED_HEADER", "ROW_STATE_COLUMN", "SECTION_TITLE"},
    ("sources/table.py", "unknown_column_problem"): {"UNKNOWN_COLUMN"},
    ("sources/urlparts.py", "_added"): {"URL_PARAM_ADDED"},
    # a query cell that is not name=value pairs; two columns giving one parameter
    ("sources/urlparts.py", "_query"): {"CONFLICTING_COLUMNS", "INVALID_FIELD"},
    ("sources/urlparts.py", "merge_url_parts"): {"URL_PARAM_REPLACED"},
    ("sources/urlparts.py", "params"): {"UTM_QUERY_VALUE"},
    # the plan's last line counts the passwords not sent
    ("report/plans.py", "left_to_do"): {"PASSWORD_NOT_SENT"},
    ("sources/yaml_fields.py", "_fields"): {"URL_PARAM_REPLACED"},
    ("sources/yaml_fields.py", "_utm_problem"): {"INVALID_FIELD"},  # a utm: not a mapping
    # a value YAML cut at a "#word" comment (url: https://e.com/p #top)
    ("sources/yaml_fields.py", "<module>"): {"COMMENT_IN_VALUE"},
    ("sources/yaml_reader.py", "_entry"): {"INVALID_FIELD", "UNKNOWN_KEY"},
    ("sources/yaml_reader.py", "_file_problem"): {"INVALID_FIELD"},
    ("sources/yaml_reader.py", "_read_file"): {"EMPTY_SOURCE"},
    ("sources/yaml_reader.py", "_unknown"): {"UNKNOWN_KEY"},
    # a password in clear in defaults:; a link's ignore_changes naming an unknown field
    ("sources/yaml_reader.py", "_default_password"): {"SECRET_IN_SOURCE"},
    ("sources/yaml_reader.py", "_own_ignore"): {"INVALID_FIELD"},
    # a password a link refers to that cannot be read; one written in clear
    ("sources/yaml_secrets.py", "_password"): {"MISSING_SECRET", "SECRET_IN_SOURCE"},
    ("sources/yaml_reader.py", "read"): {"EMPTY_SOURCE"},
    ("sync/calls.py", "adopt_stable"): {"SLUG_EXISTS"},
    ("sync/calls.py", "converge"): {"REPLACE_REQUIRED"},
    ("sync/calls.py", "recheck"): {"AMBIGUOUS_MATCH"},
    ("sync/compare.py", "unsent_password"): {"PASSWORD_NOT_SENT"},
    # SLUG_EXISTS: every stable slug candidate of a slugless row is taken.
    ("sync/diff.py", "_decide"): {"MISSING_URL", "REPLACE_REQUIRED", "SLUG_EXISTS"},
    ("sync/diff.py", "_domain_problem"): {"DOMAIN_NOT_ACTIVE", "DOMAIN_NOT_FOUND"},
    ("sync/diff.py", "_duplicate"): {"DUPLICATE_IN_SOURCE"},
    ("sync/diff.py", "_match"): {"AMBIGUOUS_MATCH"},
    ("sync/diff.py", "_missing_url"): {"MISSING_URL"},
    ("sync/diff.py", "row_change"): {"HIDDEN_ROW"},  # a hidden row: a skip, not read
    # a hidden sheet, or one without a header holding web addresses: no mirror delete
    ("sync/diff.py", "__init__"): {"HIDDEN_SHEET", "UNREAD_SHEET"},
    ("sync/ownership.py", "hidden_refusal"): {"HIDDEN_ROW", "HIDDEN_SHEET", "UNREAD_SHEET"},
    ("sync/execute.py", "<module>"): {"INTERRUPTED"},
    ("sync/execute.py", "not_attempted"): {"NOT_ATTEMPTED"},
    ("sync/ownership.py", "<module>"): {"OWNED_BY_OTHER"},
    ("sync/ownership.py", "owner_tag_unused"): {"OWNER_TAG_UNUSED"},
    ("sync/results.py", "static_result"): {"PASSWORD_NOT_IN_PLAN"},
    ("sync/safety.py", "<module>"): {"EMPTY_SOURCE"},  # DECLARES_NOTHING: refuses a mirror
    ("sync/safety.py", "mark_quota"): {"QUOTA_WOULD_EXCEED"},
    ("sync/stale.py", "mark_stale"): {"STALE_PLAN"},
    ("validate/duplicates.py", "duplicates"): {"DUPLICATE_IN_SOURCE"},
    # a destination check (--check-destinations): the causes' words, and each verdict
    ("validate/dest_findings.py", "<module>"): {
        "DEST_CLIENT_ERROR",
        "DEST_HTTPS_AVAILABLE",
        "DEST_NOT_FOUND",
        "DEST_OTHER_HOST",
        "DEST_REDIRECT_LOOP",
        "DEST_SERVER_ERROR",
        "DEST_TIMEOUT",
        "DEST_TLS_ERROR",
        "DEST_UNREACHABLE",
    },
    ("validate/dest_findings.py", "findings"): {"DEST_UTM_DROPPED"},
    ("validate/destinations.py", "_failure"): {
        "DEST_TIMEOUT",
        "DEST_TLS_ERROR",
        "DEST_UNREACHABLE",
    },
    ("validate/destinations.py", "classify"): {
        "DEST_CLIENT_ERROR",
        "DEST_HTTPS_AVAILABLE",
        "DEST_NOT_FOUND",
        "DEST_OTHER_HOST",
        "DEST_SERVER_ERROR",
    },
    ("validate/destinations.py", "check"): {"DEST_REDIRECT_LOOP"},
    ("validate/filters.py", "_why_slug"): {"RESERVED_SLUG"},
    ("validate/rows.py", "_descriptions"): {"INVALID_REQUEST"},
    ("validate/rows.py", "_domains"): {"INVALID_FIELD"},
    ("validate/rows.py", "_expiry"): {"INVALID_EXPIRY"},
    ("validate/rows.py", "_fix"): {"INVALID_FIELD", "INVALID_SLUG", "INVALID_URL"},
    ("validate/rows.py", "_missing_url"): {"MISSING_URL"},
    ("validate/rows.py", "_nothing"): {"INVALID_FIELD"},
    ("validate/rows.py", "run"): {"HIDDEN_ROW"},  # a hidden row: nothing to check
    ("validate/rows.py", "_slugs"): {"INVALID_FIELD"},
    ("validate/rows.py", "_stripped"): {"INVALID_URL"},  # invisible in a utm_* or query cell
    ("validate/rows.py", "_tags"): {"INVALID_FIELD", "INVALID_REQUEST"},
    ("validate/rows.py", "_urls"): {"INVALID_FIELD", "INVALID_URL"},
    # the team's UTM rules
    ("validate/utm.py", "_row"): {"UTM_MISSING"},
    ("validate/utm.py", "_value"): {"UTM_CASE", "UTM_NOT_ALLOWED", "UTM_SPACES", "UTM_TOO_LONG"},
}

#: Sites known to carry a wrong constant, each fixed on another branch. Empty: the
#: encoding warning's MISSING_URL is UNCERTAIN_ENCODING since trust-inputs' merge.
KNOWN_WRONG: set[tuple[str, str, str]] = set()

#: The sites allowed to say a row has no destination URL: MISSING_URL is not the
#: constant of an empty file, a missing column or an encoding guess.
MISSING_URL_SITES = {
    ("validate/rows.py", "_missing_url"),
    ("sync/diff.py", "_missing_url"),
    ("sync/diff.py", "_decide"),
}

#: Calls that carry a constant: a problem, a reader's issue, a row result, a raised
#: error (``ServiceError``, ``ApiError``...) and the helpers that build them.
_EMITTERS = re.compile(r"Problem|CellIssue|from_change|_?problem|_file_problem|add|.*Error")
_CAPS = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _literals() -> tuple[dict[tuple[str, str], set[str]], list[str]]:
    """(module, function) -> constants named there; and the emitted literals that look
    like a constant but are not one of the table (a typo)."""
    found: dict[tuple[str, str], set[str]] = {}
    unknown: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel in TABLES:
            continue

        def walk(node: ast.AST, where: str, rel: str = rel) -> None:
            for child in ast.iter_child_nodes(node):
                name = where
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    name = child.name
                value = getattr(child, "value", None)
                if isinstance(child, ast.Constant) and isinstance(value, str) and value in ERRORS:
                    found.setdefault((rel, name), set()).add(value)
                if isinstance(child, ast.Call) and _EMITTERS.fullmatch(_callee(child)):
                    for arg in [*child.args, *(k.value for k in child.keywords)]:
                        for lit in ast.walk(arg):
                            text = getattr(lit, "value", None)
                            if (
                                isinstance(lit, ast.Constant)
                                and isinstance(text, str)
                                and _CAPS.fullmatch(text)
                                and text not in ERRORS
                            ):
                                unknown.append(f"{rel}:{lit.lineno}: {text}")
                walk(child, name)

        walk(ast.parse(path.read_text(encoding="utf-8")), "<module>")
    return found, unknown


def _callee(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


@pytest.mark.parametrize("constant", sorted(ERRORS))
def test_every_constant_has_its_code_meaning_and_advice(constant: str) -> None:
    e = ERRORS[constant]
    if e.origin is Origin.LOCAL:
        assert e.http_status is None and e.code is None, "a local constant has no code"
    else:
        assert e.http_status is not None and e.code is not None
        assert str(e.code).startswith(str(e.http_status)), "codes start with their status"
    assert len(e.meaning.split()) >= 2, "a meaning in words"
    assert advice_for(constant).strip().endswith((".", ")")), "advice is a sentence"


def test_advice_names_only_constants_of_the_table() -> None:
    assert set(ADVICE) == set(ERRORS)
    assert advice_for("NOT_A_CONSTANT") == "" and advice_for(None) == ""


def test_every_emitting_site_is_registered_with_its_constants() -> None:
    found, _ = _literals()
    new = {k: sorted(v) for k, v in found.items() if k not in SITES}
    gone = sorted(k for k in SITES if k not in found)
    changed = {k: (sorted(SITES[k]), sorted(v)) for k, v in found.items() if SITES.get(k, v) != v}
    assert not new, f"register these sites (module, function) -> constants: {new}"
    assert not gone, f"these sites no longer name a constant: remove them: {gone}"
    assert not changed, f"these sites name other constants than registered: {changed}"


def test_no_emitter_names_a_constant_outside_the_table() -> None:
    _, unknown = _literals()
    assert unknown == []


def test_missing_url_is_only_said_of_a_row_without_url() -> None:
    found, _ = _literals()
    sites = {
        (module, fn)
        for (module, fn), constants in found.items()
        if "MISSING_URL" in constants and (module, fn, "MISSING_URL") not in KNOWN_WRONG
    }
    assert sites == MISSING_URL_SITES
