"""The page's words for what the command line calls flags: every text the page shows
(a row's message, the advice beside it, a refusal, a run's summary) passes through
``page_words``, which puts the page's own control where the library's text names a
command-line flag (``--date-format dmy`` -> “Dates in your file” in the Options), or,
for what only a terminal run or the profile does, says that, without the flag.

There is one advice table (``linksync.errors.advice``) and one set of messages (the
readers', the validator's, the engine's); this module holds only ``CONTROLS``, what the
page calls each flag, so a new advice entry or message needs no second wording here,
only its flag's entry when the flag is new (``tests/ui/test_ui_words.py`` finds every
flag the library's messages name and checks each has one).

Each entry gives the flag's words, used wherever it appears, and phrases of known
messages said better whole (tried first: "pass --fix-utm-case" -> "tick “Fix UTM case”
in the Options"). A flag with no entry still never shows: it becomes "an option of a
terminal run".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from linksync.sources.aliases import COLUMN_FIELDS, SHORT_URL

#: The page's words for the fields a column can feed (``COLUMN_FIELDS`` order): the
#: lists of the Columns step, and the advice that names one.
FIELD_LABELS: dict[str, str] = {
    "url": "Destination URL",
    "slug": "Slug (back-half)",
    "domain": "Domain",
    "description": "Title / description",
    "tags": "Tags",
    "password": "Password",
    "expires_at": "Expiry date",
    "apple": "iOS URL",
    "google": "Android URL",
    SHORT_URL: "Full short link (domain and slug)",
    "utm_source": "UTM source",
    "utm_medium": "UTM medium",
    "utm_campaign": "UTM campaign",
    "utm_term": "UTM term",
    "utm_content": "UTM content",
}
assert tuple(FIELD_LABELS) == COLUMN_FIELDS, "one label per field a column can feed"

Words = str | Callable[[re.Match[str]], str]

#: Where the page's reading and run options are: the form above the plan.
OPTIONS = "in the Options"
#: The box the page asks the password of an encrypted workbook in (``linksync.ui.unlock``).
PASSWORD_BOX = "“Workbook password” in the Check step"
_CONFIRM = "“I checked every change above: apply it anyway”"
_TERMINAL = "ask whoever runs linksync"


def _mapping_words(m: re.Match[str]) -> str:
    """``--map HEADER=FIELD`` as the Columns step's list: 'choose “Not used” for
    "Notes" in the Columns step'."""
    header, _, field = m["arg"].strip('"').partition("=")
    who = m["who"] or "it"
    subject = f'"{header}"' if header and header != "HEADER" else who
    label = "Not used" if field == "ignore" else FIELD_LABELS.get(field)
    if label is not None:
        return f"choose “{label}” for {subject} in the Columns step"
    if subject == "them":
        return "choose what each holds in the Columns step"
    return f"choose what {subject} holds in the Columns step"


@dataclass(frozen=True, slots=True)
class Control:
    """What the page says for one flag: ``words`` wherever the flag (and ``argument``,
    a regex of what follows it in messages) appears; ``phrases``, (regex, words) of
    whole phrases of known messages, tried first."""

    words: Words
    argument: str = ""
    phrases: tuple[tuple[str, Words], ...] = ()


_MAP_PHRASE = (
    r'(?:(?:map (?P<who>it|them|one|the other)(?: one)? )?with )?--map (?P<arg>"[^"]*"|[^\s,;)]+)'
)

#: Every flag the library's messages and advice name, in the page's words.
CONTROLS: dict[str, Control] = {
    # --- the page's own controls -------------------------------------------------------
    "--map": Control(
        "the column's list in the Columns step",
        phrases=((_MAP_PHRASE, _mapping_words),),
    ),
    "--date-format": Control(
        f"“Dates in your file” {OPTIONS}",
        argument=r"(?:dmy|mdy|iso|PATTERN|[a-z]+(?:\|[A-Za-z]+)+)",
        phrases=(
            (
                r"(?:pass |use |with )?--date-format (?:dmy|mdy)"
                r"(?: \(or mdy, or the profile's date_format:\))?",
                f"choose “Day first” or “Month first” at “Dates in your file” {OPTIONS}",
            ),
        ),
    ),
    "--encoding": Control(
        f"“Encoding of CSV files” {OPTIONS}",
        argument=r"(?:ENCODING|ENC|[a-z][\w-]*\d[\w-]*)",
        phrases=(
            (
                r"pass --encoding with the one that reads right \(e\.g\. --encoding ([\w-]+)\)",
                rf"choose the one that reads right (e.g. \1) at “Encoding of CSV files” {OPTIONS}",
            ),
            (
                r"(?:pass|use) --encoding(?: ENCODING)?( \(or the profile's encoding:\))?"
                r"(?: to choose)?",
                rf"choose the file's encoding at “Encoding of CSV files” {OPTIONS}\1",
            ),
            (r"with --encoding", f"at “Encoding of CSV files” {OPTIONS}"),
        ),
    ),
    "--empty-value": Control(
        f"“Cells that mean empty” {OPTIONS}",
        argument=r"(?:TEXT|'[^']*'|\"[^\"]*\")",
        phrases=(
            (
                r"pass --empty-value ('[^']*'|\"[^\"]*\"|\S+)",
                rf"add \1 to “Cells that mean empty” {OPTIONS}",
            ),
        ),
    ),
    "--fix-invisible": Control(
        f"“Fix invisible characters” {OPTIONS}",
        phrases=(
            (
                r"(?:use|pass|run with|with) --fix-invisible",
                f"tick “Fix invisible characters” {OPTIONS}",
            ),
        ),
    ),
    "--fix-utm-case": Control(
        f"“Fix UTM case” {OPTIONS}",
        phrases=(
            (r"\(--fix-utm-case\)", "(“Fix UTM case” is ticked)"),
            (r"(?:use|pass|run with|with) --fix-utm-case", f"tick “Fix UTM case” {OPTIONS}"),
        ),
    ),
    "--check-destinations": Control(
        f"“Check destinations” {OPTIONS}",
        phrases=(
            (
                r"(?:use|pass|run with|with) --check-destinations",
                f"tick “Check destinations” {OPTIONS}",
            ),
        ),
    ),
    "--mode": Control(f"“Mode” {OPTIONS}", argument=r"[a-z-]+"),
    "--domain": Control(
        f"“Mirror deletes on” {OPTIONS}",
        argument=r"(?:D|DOMAIN)",
        phrases=((r"\(--domain D\)", f"(at “Mirror deletes on” {OPTIONS})"),),
    ),
    "--force": Control(
        f"the box {_CONFIRM} under the plan",
        phrases=(
            (
                r"(?:(?:run again with|run with|pass|use) )?--force"
                r"(?: to apply(?: it)?(?: anyway)?)?",
                f"tick {_CONFIRM} under the plan, then apply",
            ),
        ),
    ),
    "--qr": Control("the QR codes"),
    "--annotate": Control(
        "the annotated copy",
        argument=r"(?:FILE|\S+\.(?:xlsx|xlsm|csv))",
    ),
    "--report": Control(
        "the results report",
        argument=r"FILE",
        phrases=((r"use --report for the results", "the results report has them"),),
    ),
    # --- what the profile, or only a terminal run, does ------------------------------
    "--strict": Control(
        "the profile's strict: true",
        phrases=((r"under --strict", "when the profile says strict: true"),),
    ),
    "--timezone": Control(
        f"“Time zone of your dates” {OPTIONS}",
        argument=r"(?:ZONE|[A-Z][\w/+-]+)",
        phrases=(
            (
                r"(?:pass |use |with )--timezone(?: ZONE)?",
                f"choose the zone at “Time zone of your dates” {OPTIONS}",
            ),
        ),
    ),
    "--sheet": Control(
        "a sheet name (a terminal run's option)",
        argument=r"NAME",
        phrases=(
            (
                r"name one with --sheet",
                "unhide the sheet to read in Excel, save, and drop it again",
            ),
        ),
    ),
    "--workbook-password-file": Control(
        PASSWORD_BOX,
        argument=r"(?:FILE|\S+(?=:))",
        phrases=(
            (
                r"give the password with --workbook-password-file FILE \(a file holding it\)",
                f"type its password at {PASSWORD_BOX}",
            ),
            (
                r"give its password with --workbook-password-file FILE",
                f"type its password at {PASSWORD_BOX}",
            ),
            (
                r"the file given with --workbook-password-file",
                f"the password typed at {PASSWORD_BOX}",
            ),
        ),
    ),
    "--allow-replace": Control(
        f"replacing links ({_TERMINAL})",
        phrases=(
            (r" \(--allow-replace\)", ""),
            (
                r"run with --allow-replace to delete and re-create the link",
                f"only a terminal run may delete and re-create the link ({_TERMINAL})",
            ),
            (r"run with --allow-replace", f"only a terminal run may replace it ({_TERMINAL})"),
        ),
    ),
    "--allow-takeover": Control(
        f"taking links over ({_TERMINAL})",
        phrases=(
            (r"run with --allow-takeover to do that", f"only a terminal run may ({_TERMINAL})"),
            (r"; --allow-takeover takes it", "; only a terminal run may take it over"),
            (r" \(--allow-takeover\)", ""),
        ),
    ),
    "--reset-passwords": Control(f"resetting passwords ({_TERMINAL})"),
    "--include-hidden": Control(f"reading hidden rows and sheets ({_TERMINAL})"),
    "--base-url": Control(f"the target ({_TERMINAL})", argument=r"URL"),
    "--sandbox": Control(f"the built-in sandbox ({_TERMINAL})"),
    "--ai-slug": Control(f"slugs from the AI tool ({_TERMINAL})"),
    "--ai-og": Control(f"descriptions from the AI tool ({_TERMINAL})"),
    "--slugless": Control("the profile's slugless:", argument=r"(?:stable|random|MODE)"),
    "--owner-tag": Control("the profile's owner_tag:", argument=r"(?:T|TAG)"),
    "--ignore": Control("the profile's ignore:", argument=r"(?:PATTERN|\S+)"),
    "--ignore-changes": Control("the profile's ignore_changes:", argument=r"(?:FIELD|\S+)"),
    "--retire-to": Control("the profile's retire_to:", argument=r"(?:URL|'[^']*')"),
    "--max-deletes": Control("the profile's limits: max_deletes", argument=r"N"),
    "--proxy": Control(
        "the proxy linksync ui is started with",
        argument=r"(?:URL|http://USER:PASSWORD@HOST:PORT)",
    ),
    "--ca-bundle": Control(
        "a CA file (the profile's ca_bundle:)",
        argument=r"FILE",
        phrases=(
            (r"--ca-bundle FILE \(profile ca_bundle: FILE\)", "the profile's ca_bundle: FILE"),
        ),
    ),
    "--system-trust": Control(
        "the system's trust store (the profile's trust: system)",
        phrases=(
            (
                r"--system-trust \(profile trust: system: the operating system's trust store\)",
                "the profile's trust: system (the operating system's trust store)",
            ),
        ),
    ),
    "--insecure": Control(
        "the profile's insecure: true",
        phrases=(
            (
                r"pass --insecure \(insecure: true in the profile\)",
                "set insecure: true in the profile",
            ),
        ),
    ),
    "--api-key-file": Control("a key file given when linksync ui starts", argument=r"FILE"),
    "--profile": Control("the profile linksync ui is started with", argument=r"NAME"),
    "--config": Control("a config file with targets:", argument=r"FILE"),
    "--plan": Control(
        "a saved plan",
        argument=r"FILE",
        phrases=(
            (
                r"give the sources to apply --plan so they can be read from there",
                "show the plan again on the page",
            ),
        ),
    ),
    "--out": Control("the saved plan", argument=r"FILE"),
    "--changed-since": Control(
        f"reading only the files changed since a git ref ({_TERMINAL})",
        argument=r"(?:REF|HEAD[~^\d]*|main|master|[0-9a-f]{7,40}|[\w.-]+[/~^][\w./~^-]*\w)",
    ),
    "--journal": Control("the run's journal", argument=r"FILE"),
    "--lock": Control(
        "the run lock",
        argument=r"FILE",
        phrases=((r" or --lock FILE", ""),),
    ),
    "--lock-wait": Control(
        f"waiting for the lock ({_TERMINAL})",
        argument=r"SECONDS",
        phrases=((r", or pass --lock-wait SECONDS to wait for it", ", then apply again"),),
    ),
    "--detailed-exitcode": Control(
        "a plan's exit code 3", phrases=((r" \(--detailed-exitcode\)", ""),)
    ),
    "--format": Control("the JSON plan", phrases=((r" \(see --format json\)", ""),)),
    "--split-by": Control("the export's split (domain or tag)"),
    "--notify-on": Control("the alerts' setting (the profile's notify_on:)"),
}

#: A flag no entry names: never shown as a flag.
FALLBACK = "an option of a terminal run"
_ANY_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*(?:[ =][A-Z][A-Z_=]*\b)?")


def _compile() -> list[tuple[re.Pattern[str], Words]]:
    phrases = [(re.compile(p), w) for c in CONTROLS.values() for p, w in c.phrases]
    flags = [
        (
            re.compile(
                rf"(?<![\w-]){re.escape(flag)}(?![\w-])"
                + (rf"(?:[ =]{c.argument}(?![\w-]))?" if c.argument else "")
            ),
            c.words,
        )
        for flag, c in CONTROLS.items()
    ]
    return [*phrases, *flags, (_ANY_FLAG, FALLBACK)]


_RULES = _compile()


def page_words(text: str | None) -> str:
    """``text`` with every command-line flag in the page's words (see module docstring)."""
    out = text or ""
    if "--" not in out:
        return out
    for pattern, words in _RULES:
        out = pattern.sub(words, out)
    return out
