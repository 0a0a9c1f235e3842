"""The keywords of ``linksync.plan``, ``apply``, ``plan_all`` and ``apply_all``: one line
of help each, written once (``ARGS``) and added to each function's docstring as an
``Args:`` section by ``documented``, so ``help(linksync.apply)`` lists every keyword with
its default. A keyword is named like the command-line flag it stands for (``--owner-tag``
-> ``owner_tag``; a repeatable flag's keyword takes a list, and is plural: ``--report`` ->
``reports``); ``tests/pipeline/test_api_keywords.py`` checks the flags and the keywords
agree. ``variant`` names and documents ``plan`` (made of ``plan_async``) and ``apply`` /
``apply_async`` (made of ``prepare_apply``): one signature for each pair, which
``help()`` and editors show."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

#: One line per keyword; a function may word a keyword its own way (``documented``).
ARGS: dict[str, str] = {
    "sources": "file paths (CSV, Excel, YAML; a folder) or LinkSpec objects.",
    "settings": "the target and profile (linksync.config.resolve); default: the "
    "environment or ./linksync.yaml, else ConfigError; the built-in sandbox when asked "
    "for: resolve(sandbox=True) or LINKSYNC_SANDBOX=1.",
    "options": "SyncOptions instead of the profile's (the keywords below still override).",
    "sheets": "--sheet: only these workbook sheets.",
    "mapping": "--map: {HEADER: FIELD}, read column HEADER as FIELD ('ignore' skips it).",
    "encoding": "--encoding: of CSV files (default: detected).",
    "date_format": "--date-format: dmy, mdy or a strptime pattern for non-ISO dates.",
    "timezone": "--timezone: the IANA zone of date-times written without one (default UTC).",
    "empty_values": "--empty-value: cell texts read as empty (N/A, -, TBD).",
    "workbook_password_file": "--workbook-password-file: the password of encrypted "
    "workbooks, read from this file.",
    "include_hidden": "--include-hidden: read the rows a workbook hides (None: the "
    "profile's include_hidden; else they are skipped).",
    "strict": "--strict/--no-strict: every warning about the sources is an error.",
    "fix_invisible": "--fix-invisible: strip invisible characters (warned).",
    "fix_utm_case": "--fix-utm-case: lower the case and replace spaces in UTM values "
    "the profile's utm_rules refuse (each fix warned).",
    "check_destinations": "--check-destinations: request each destination URL first and "
    "report dead ones on their rows (None: the profile's check_destinations).",
    "ai_slug": "--ai-slug: fill empty slugs from the AI tool.",
    "ai_og": "--ai-og: fill empty descriptions from the AI tool.",
    "mode": "--mode: what the sync may do (upsert, mirror, ...).",
    "default_domain": "the domain of rows without one (profile default_domain).",
    "system_domain": "the service's own domain (profile system_domain).",
    "scope_domains": "--domain: mirror scope, the only domains where links may be deleted.",
    "owner_tag": "--owner-tag: only links with this tag may be deleted; added to creates.",
    "allow_replace": "--allow-replace: delete+create links whose expiry differs.",
    "allow_takeover": "--allow-takeover: update/delete links another owner tag marks.",
    "reset_passwords": "--reset-passwords: send passwords even when set already.",
    "max_deletes": "--max-deletes: refuse more deletes than this.",
    "max_change_ratio": "refuse a plan changing more than this share of the links "
    "(profile limits).",
    "min_existing": "the ratio check applies from this many links on (profile limits).",
    "force": "--force: apply even above the safety thresholds.",
    "slugless": "--slugless: rows without a slug, stable (derived) or random.",
    "logger": "the run's structured events (default: logging.getLogger('linksync')).",
    "events": "a RunEvents: what a front end is told, and the confirmation.",
    "out": "--out: save the plan as JSON (checked before the first request; for apply(plan=...)).",
    "detailed_exitcode": "--detailed-exitcode: exit_code 3 when the plan has changes.",
    "plan": "--plan: a saved plan, a Plan or the file plan(out=...) wrote, applied only to "
    "the workspace it was made for, beside its own unchanged sources (rows changed since "
    "are refused with STALE_PLAN).",
    "reports": "--report: report files (.csv .xlsx .json .jsonl .md .xml).",
    "annotate": "--annotate: an annotated copy of each spreadsheet source, in order.",
    "qr": "--qr: a zip of QR codes of the short links.",
    "lock": "--lock: None, the target's own lock; a path; False, none.",
    "lock_wait": "--lock-wait: seconds to wait for another run's lock.",
    "journal": "--journal: None, .linksync/runs/<run-id>.jsonl; a path; False, none.",
    "reads": "more files the run must never write (uploads).",
    "on_progress": "a ProgressSink told of each row and the rate limiter's wait.",
    "cancel": "set it from any thread: stop sending, keep the reports.",
    "targets": "--target: the targets' names, or Workspace objects (default: every "
    "target of the config).",
    "config": "--config: the config file with targets: (default: ./linksync.yaml).",
    "env": "the environment (default: os.environ).",
    "cwd": "where ./linksync.yaml and a sandbox's default state are (default: here).",
    "insecure": "--insecure: allow plain http:// to a host other than localhost.",
    "concurrency": "--concurrency: requests in flight at most, per target.",
    "network": "NetworkFlags of --proxy, --ca-bundle, --system-trust, for every target.",
    "progress": "the ProgressSink of each target, by its name.",
    # alerts (linksync.pipeline.notify)
    "notify": "--notify: apprise URLs to alert at the run's end (secrets; default: the "
    "profile's notify).",
    "notify_on": "--notify-on: failed, drift, stopped, always (default: the profile's "
    "notify_on, else failed and stopped).",
}


def documented(**own: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Add ``Args:``, a line per parameter (``own`` words some of them its own way);
    a parameter without a line is a ``TypeError`` at import."""
    lines = {**ARGS, **own}

    def add(fn: Callable[P, R]) -> Callable[P, R]:
        names = list(inspect.signature(fn).parameters)
        missing = [name for name in names if name not in lines]
        if missing:
            raise TypeError(f"{fn.__name__}: no help for {', '.join(missing)}")
        args = "\n".join(f"    {name}: {lines[name]}" for name in names)
        fn.__doc__ = f"{inspect.cleandoc(fn.__doc__ or '')}\n\nArgs:\n{args}\n"
        return fn

    return add


def variant(made: Callable[P, R], fn: Callable[P, Any], name: str, summary: str) -> Callable[P, R]:
    """``made`` (a wrapper of ``fn``) named ``name``, with ``fn``'s parameters (and its
    own return type) for ``help()``, and ``fn``'s docstring under its own first
    paragraph."""
    returns = inspect.signature(made).return_annotation
    functools.update_wrapper(made, fn)
    made.__signature__ = inspect.signature(fn).replace(return_annotation=returns)  # type: ignore[attr-defined]
    made.__name__ = made.__qualname__ = name
    rest = inspect.cleandoc(fn.__doc__ or "").partition("\n\n")[2]
    made.__doc__ = f"{summary}\n\n{rest}"
    return made


def given(values: dict[str, Any], names: Any) -> dict[str, Any]:
    """The keywords among ``values`` (a function's ``locals()``) that ``names`` holds."""
    return {k: v for k, v in values.items() if k in names}
