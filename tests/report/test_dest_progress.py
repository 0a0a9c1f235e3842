"""The progress line of a destination check: on a terminal only, and only once the
check has gone on past its delay (a clock of the test's own: no timing here); the CLI's
events remove it when the last URL has its answer."""

from __future__ import annotations

import io

from rich.console import Console

from linksync.cli.events import CliEvents
from linksync.report.dest_progress import DestinationProgress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _console(*, terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=100), out


def test_a_short_check_shows_nothing_a_long_one_shows_its_counts() -> None:
    console, out = _console(terminal=True)
    clock = Clock()
    shown = DestinationProgress(console, delay=2.0, clock=clock)
    shown(0, 5)
    shown(1, 5)
    assert not shown.shown and out.getvalue() == ""
    clock.now += 2.5
    shown(2, 5)
    assert shown.shown
    shown(3, 5)
    shown.close()
    text = out.getvalue()
    assert "checking destinations" in text and "3/5" in text
    assert not shown.shown


def test_a_check_over_before_the_delay_never_shows() -> None:
    console, out = _console(terminal=True)
    clock = Clock()
    shown = DestinationProgress(console, delay=2.0, clock=clock)
    shown(0, 2)
    clock.now += 0.5
    shown(2, 2)
    shown.close()
    assert out.getvalue() == ""


def test_off_a_terminal_nothing_is_shown_however_long() -> None:
    console, out = _console(terminal=False)
    clock = Clock()
    shown = DestinationProgress(console, delay=2.0, clock=clock)
    shown(0, 4)
    clock.now += 60
    shown(1, 4)
    shown(4, 4)
    shown.close()
    assert not shown.shown and out.getvalue() == ""


def test_the_cli_events_remove_the_line_when_the_last_url_answers() -> None:
    console, out = _console(terminal=True)
    clock = Clock()
    events = CliEvents()
    events.destinations = DestinationProgress(console, delay=2.0, clock=clock)
    events.checking(0, 3)
    clock.now += 3
    events.checking(1, 3)
    assert events.destinations.shown
    events.checking(3, 3)
    assert not events.destinations.shown
    assert "3/3" in out.getvalue()
