"""Columns whose header reads as a row's state ("Status", "Action", "Archived"...):
linksync sends every row as declared, whatever such a column says. So a cell whose
value asks for something else ("cancelled", "delete", ``TRUE`` under "Archived") is
a warning on its row naming the column, the value and what to do: remove the row, or
map the column (``--map Status=ignore``, the profile's ``columns:``), which silences
it. A value that agrees with sending the row ("active" under "Status", ``FALSE``
under "Archived": ``aliases.ROW_STATES``) says nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from linksync.sources.columns import STATES, header_key, map_flag

#: (index in the frame, header, value) of a state cell that does not agree.
StateCell = tuple[int, str, str]


def state_cells(headers: Sequence[str], columns: Sequence[np.ndarray]) -> list[StateCell]:
    """The cells of the row-state columns (``headers``, and their cleaned cells in
    frame order: None where empty) that ask for something else than sending the row."""
    found: list[StateCell] = []
    for header, values in zip(headers, columns, strict=True):
        fine = STATES.get(header_key(header), frozenset())
        verdict: dict[str, bool] = {}
        for i, value in enumerate(values.tolist()):
            if value is None:
                continue
            text = str(value)
            odd = verdict.get(text)
            if odd is None:
                odd = verdict[text] = text.strip().casefold() not in fine
            if odd:
                found.append((i, header, text))
    return found


def state_message(header: str, value: str) -> str:
    """What a row says about a state cell that does not agree."""
    shown = value if len(value) <= 60 else value[:59] + "…"
    return (
        f'column "{header}" holds "{shown}": linksync does not read row states; this row '
        f"is sent as declared. Remove the row, or {map_flag(header, 'ignore')} to silence this"
    )
