"""Item 1: the hand-end summary stays until a key, and past hands stay reachable.

A scripted human plays two hands headless (pipe input, ``DummyOutput``);
the summary's numbers are checked against the rules' own ledger.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_ui_app import ENTER, RIGHT, Table3, _keys_for

from gleek_p2p.rules import Phase, State, Variant, apply, new_session
from gleek_p2p.rules.simulate import random_session
from gleek_p2p.rules.summary import hand_summary, running_totals, suit_ruff_values
from gleek_p2p.ui.app import HumanPlayer, run_with_ui
from gleek_p2p.ui.render import plain
from gleek_p2p.ui.summary import history_lines, summary_lines
from gleek_p2p.ui.words import pence


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp:
        yield inp


def _hand_ends(seed: int, hands: int = 3) -> list[State]:
    _final, events = random_session(Variant(), hands, random.Random(seed))
    s = new_session(Variant(), hands)
    ends = []
    over = (Phase.HAND_OVER, Phase.SESSION_OVER)
    for e in events:
        after = apply(s, e)
        if after.phase in over and s.phase not in over:
            ends.append(after)
        s = after
    return ends


@pytest.mark.parametrize("seed", range(6))
def test_summary_numbers_are_the_rules_ledger(seed: int) -> None:
    ends = _hand_ends(seed)
    for i, state in enumerate(ends):
        summary = hand_summary(state)
        ledger = state.ledgers[-1]
        assert summary.net == ledger.net and sum(summary.net) == 0
        assert summary.totals == state.totals == running_totals(state)[-1]
        assert summary.trick_points == ledger.trick_points
        assert sum(summary.tricks_won) == Variant().tricks
        assert summary.last_trick == state.tricks[-1]
        text = plain(summary_lines(state, ("Anne", "Thomas", "Mary"), None, 74))
        assert f"Hand {i + 1} of 3" in text
        assert "Trick 12:" in text and "took it" in text
        for row in (ledger.net, state.totals):
            for v in row:
                assert pence(v, True) in text
        assert all(len(line) <= 74 for line in text.split("\n"))


def test_the_ruff_value_of_each_suit() -> None:
    # Ace and King of spades, Ten of hearts, a Four of clubs (worth nothing).
    assert suit_ruff_values([0, 1, 15, 43]) == (14, 10, 0, 0)
    assert suit_ruff_values([-1, -1]) == (0, 0, 0, 0)


def test_history_lists_each_hand_and_charts_the_totals() -> None:
    ends = _hand_ends(3)
    text = plain(history_lines(ends, ("Anne", "Thomas", "Mary"), 0, 74, 1))
    assert "you" in text and "Thomas" in text
    for state in ends:
        for v in state.totals:
            assert pence(v, True) in text
    assert "█" in text or all(v == 0 for v in ends[-1].totals)


async def test_the_summary_stays_until_a_key_and_v_opens_past_hands(
    tmp_path: Path, pipe: PipeInput
) -> None:
    t = Table3(tmp_path, pipe, b"ui-summary", hands=2)
    human = t.human
    bots = [asyncio.ensure_future(r.run()) for r in t.runners[1:]]
    seen: dict[str, str] = {}

    async def drive() -> None:
        while True:
            await asyncio.sleep(0.002)
            if human.screen.overlay == "panel" and "summary" not in seen:
                seen["summary"] = human.screen.dump()
                # It stays while the next hand is dealt and the bots play on.
                hand = len(human.past_hands)
                while human.chooser is None and not human.finished:
                    await asyncio.sleep(0.01)
                assert human.screen.overlay == "panel" and len(human.past_hands) == hand
                assert "Hand 1 is over" in human.screen.dump()
                if human.chooser is not None:
                    chooser = human.chooser
                    pipe.send_text(ENTER)  # closes the summary, plays nothing
                    await asyncio.sleep(0.05)
                    assert human.chooser is chooser and human.screen.overlay is None
                    pipe.send_text("v")
                    await asyncio.sleep(0.05)
                    seen["history"] = human.screen.dump()
                    pipe.send_text(ENTER)
                    await asyncio.sleep(0.05)
                    seen["again"] = human.screen.dump()
                    pipe.send_text("x")
                    await asyncio.sleep(0.05)
                continue
            if human.screen.overlay == "panel":
                pipe.send_text("x")
                await asyncio.sleep(0.02)
                continue
            if human.finished:
                seen["end"] = human.screen.dump()
                pipe.send_text("x")
                return
            chooser = human.chooser
            if chooser is not None:
                pipe.send_text(_keys_for(chooser, "p") if not chooser.cards else RIGHT + ENTER)
                while human.chooser is chooser:
                    await asyncio.sleep(0.002)

    driver = asyncio.ensure_future(drive())
    try:
        outcome = await asyncio.wait_for(run_with_ui(t.runners[0], human), 90)
        await asyncio.wait_for(asyncio.gather(*bots, driver), 20)
        assert outcome.finished
        first = t.tables[0].hands[0].state
        summary = seen["summary"]
        assert "Hand 1 is over" in summary and "Trick 12:" in summary
        for v in first.ledgers[0].net:
            assert pence(v, True) in summary
        assert "Past hands" in seen["history"] and "the session" in seen["history"]
        assert "Hand 1 is over" in seen["again"]
        assert "The session is over." in seen["end"] and "Totals after 2 hands" in seen["end"]
        assert len(human.past_hands) == 2
    finally:
        t.close()


def test_the_end_box_waits_behind_an_open_summary(pipe: PipeInput) -> None:
    human = HumanPlayer(input=pipe, output=DummyOutput())
    human.names, human.seat = ("you", "Bob", "Carol"), 0
    human.past_hands = _hand_ends(4, 1)
    human.show_summary(0)
    human.show_end([("", "The session is over.")])
    assert human.screen.overlay == "panel"
    human.screen.press("x")
    assert human.screen.overlay == "end"
