"""The running-totals chart and the standings of ``gleek results`` line up for any width.

Two-digit marks (more than ten players, or initials alike), wide letters, wide
and negative totals: every column of the chart starts where its tick is, and
every number of the standings ends in its column, in every language.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gleek_p2p.base import i18n
from gleek_p2p.base.text import display_width
from gleek_p2p.log.keys import fingerprint
from gleek_p2p.tools.report import chart
from gleek_p2p.tools.results import SessionResult, evening, text_results


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


def columns(line: str) -> list[str]:
    """``line`` as the terminal draws it: one entry per column (a wide letter fills
    its first column, and its second holds "")."""
    out: list[str] = []
    for char in line:
        width = display_width(char)
        if width:
            out.append(char)
            out.extend([""] * (width - 1))
        elif out:
            out[-1] += char
    return out


def read_chart(lines: Sequence[str], hands: int) -> tuple[int, list[list[str]], list[str]]:
    """The chart's column width, each grid row's cells, and the ticks, read by terminal
    column from where the axis stands; fails if anything stands between two cells."""
    axis = next(i for i, line in enumerate(lines) if "+-" in line)
    origin = columns(lines[axis]).index("+")
    rows = lines[:axis]
    assert all(columns(row)[origin] == "|" for row in rows), rows
    dashes = len(columns(lines[axis])) - origin - 1
    col = (dashes + 1) // hands - 2
    assert dashes == hands * (col + 2) - 1
    start = origin + 1

    def cells(line: str) -> list[str]:
        drawn = columns(line)[start:]
        drawn += [" "] * (hands * (col + 2) - len(drawn))
        out = []
        for x in range(hands):
            at = x * (col + 2)
            assert all(c in (" ", "") for c in drawn[at + col:at + col + 2]), line
            out.append("".join(drawn[at:at + col]).strip())
        assert all(c in (" ", "") for c in drawn[hands * (col + 2):]), line
        return out

    return col, [cells(row) for row in rows], cells(lines[axis + 1])


def check(series: Sequence[Sequence[int]], names: Sequence[str]) -> list[str]:
    lines = chart(series, names)
    col, grid, ticks = read_chart(lines, len(series))
    key = lines[-1]
    marks = [part.split(" = ")[0].strip() for part in key.split("; ")[1].split(", ")]
    assert len(marks) == len(names) and col == max(display_width(m) for m in [*marks, "*"])
    assert ticks == [str((x + 1) % 10 ** col) for x in range(len(series))]
    for x, totals in enumerate(series):
        shown = [row[x] for row in grid if row[x]]
        # Every player's point is in its column: its mark, or a star where two meet.
        assert all(m in shown or "*" in shown for m in marks), (x, shown, marks)
        assert set(shown) <= {*marks, "*"}
        assert len(set(totals)) < len(totals) or "*" in shown or len(shown) == len(totals)
    return lines


TWELVE = [f"player{n}" for n in range(12)]


def test_two_digit_marks_keep_every_column() -> None:
    series = [tuple((seat * 37 + hand * 91) % 500 - 250 for seat in range(12))
              for hand in range(4)]
    lines = check(series, TWELVE)
    assert "10 = player10, 11 = player11" in lines[-1]


def test_wide_letters_wide_and_negative_totals() -> None:
    names = ["安娜", "Ben", "ßigrid", "Émile"]
    lines = check([(123456, -98765, 0, 5), (-3, 4, 1, -2), (99999, -99999, 7, -7)], names)
    assert lines[0].split("|")[0].strip() == "61728"
    assert lines[9].split("|")[0].strip() == "-49999½"
    assert "SS = ßigrid" in lines[-1]  # an initial of two letters


@given(st.lists(st.lists(st.integers(-10**7, 10**7), min_size=3, max_size=3),
                min_size=1, max_size=25),
       st.lists(st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"),
                                      blacklist_characters=";,="), max_size=4),
                min_size=3, max_size=3))
def test_any_totals_and_names_line_up(series: list[list[int]], names: list[str]) -> None:
    check(series, names)


def standings(text: str, players: int) -> list[str]:
    lines = text.splitlines()
    return lines[2:3 + players]


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_evening_lines_up_in_every_language(lang: str) -> None:
    publics = [bytes([n]) * 32 for n in range(12)]
    names = ["安娜", "Ben", "Bea", "Cy", "Dora", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kim"]
    sessions = [
        SessionResult(Path(f"{n}.gleeklog"), True, "", bytes([n]) * 16,
                      tuple(publics[(n * 3 + s) % 12] for s in range(3)),
                      tuple(names[(n * 3 + s) % 12] for s in range(3)), 2,
                      (123457 - 2 * n, -123457, 2 * n), 0)
        for n in range(5)
    ]
    i18n.set_language(lang, {})
    text = text_results(evening(sessions))
    lines = text.splitlines()
    head = lines.index(i18n._("Running totals after each session (pence):"))
    chart_lines = lines[head + 1:]
    col, grid, ticks = read_chart(chart_lines, 5)
    assert col == 2 and ticks == ["1", "2", "3", "4", "5"]
    for x in range(5):  # initials alike (Ben, Bea): every player by its number, 0 to 11
        shown = [row[x] for row in grid if row[x]]
        assert set(shown) <= {*map(str, range(12)), "*"}
        assert "11" in shown or "*" in shown
    assert chart_lines[-1].strip().startswith(i18n._("sessions; {legend}; * = several")[:4])
    # The standings: every row ends in the same column (the numbers are right-aligned),
    # and every key starts in the same column, whatever the names' letters.
    rows = standings(text, 12)
    assert len({display_width(row.rstrip()) for row in rows}) == 1, rows
    starts = {display_width(row[:row.index(fingerprint(p))])
              for row in rows[1:] for p in publics if fingerprint(p) in row}
    assert len(starts) == 1, rows
