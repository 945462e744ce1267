"""Item 6: the ruff shows each suit's value, a lone choice needs no key, the 13th card is told."""

from __future__ import annotations

import asyncio
import random

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from gleek_p2p.rules import (
    EndDeclare,
    NoTiddy,
    Phase,
    State,
    Variant,
    apply,
    legal_actions,
    new_session,
    ruff_value,
)
from gleek_p2p.rules.simulate import random_session
from gleek_p2p.rules.summary import suit_ruff_values
from gleek_p2p.table.session import Decision, Table
from gleek_p2p.tools.selfplay import make_seats
from gleek_p2p.ui.app import HumanPlayer
from gleek_p2p.ui.render import Scene, hand_pane, plain


def _states(seed: int) -> list[State]:
    _final, events = random_session(Variant(), 1, random.Random(seed))
    s = new_session(Variant(), 1)
    out = []
    for e in events:
        s = apply(s, e)
        out.append(s)
    return out


def test_the_ruff_line_shows_each_suits_value_for_this_hand() -> None:
    for seed in range(10):
        for s in _states(seed):
            if s.phase is Phase.RUFF and s.turn >= 0:
                seat = s.turn
                scene = Scene(s, ("you", "Bob", "Carol"), seat)
                text = plain(hand_pane(scene, 80))
                cards = [s.cards[x] for x in s.holding[seat]]
                values = suit_ruff_values(cards)
                for suit, symbol in enumerate("♠♥♦♣"):
                    assert f"{symbol} {values[suit]}" in text
                    assert values[suit] == ruff_value(c for c in cards if c // 11 == suit)
                assert f"your best show is {max(values)}" in text
                assert all(len(line) <= 80 for line in text.split("\n"))
                return
    pytest.fail("no ruff in ten random hands")


def test_the_takers_thirteenth_card_is_explained() -> None:
    for seed in range(20):
        for s in _states(seed):
            if s.phase is Phase.TRICKS and s.talon_taker >= 0 and not s.tricks:
                taker = s.talon_taker
                assert len(s.holding[taker]) == Variant().tricks + 1
                mine = plain(hand_pane(Scene(s, ("you", "Bob", "Carol"), taker), 80))
                assert "one card more than the tricks: never played" in mine
                other = (taker + 1) % 3
                names = ("Anne", "Bob", "Carol")
                theirs = plain(hand_pane(Scene(s, names, other), 80))
                assert f"{names[taker]} discarded 7 face down; one card more than the" \
                    " tricks: never played" in theirs
                assert all(len(line) <= 80 for line in (mine + "\n" + theirs).split("\n"))
                return
    pytest.skip("nobody took the talon in twenty random hands")


def seated(seed: bytes, names: list[str]) -> list[Table]:
    """Three tables that have all taken the roster (the session formed, nothing dealt)."""
    tables = make_seats(Variant(), 1, seed, names)
    roster_event = tables[0].roster_event()
    for table in tables:
        table.receive(roster_event)
    return tables


@pytest.mark.parametrize("only", [NoTiddy(0), EndDeclare(0)])
async def test_a_single_choice_is_made_without_a_key(only: NoTiddy | EndDeclare) -> None:
    tables = seated(b"ui-single", ["you", "Bob", "Carol"])
    with create_pipe_input() as inp:
        human = HumanPlayer(input=inp, output=DummyOutput())
        chosen = await asyncio.wait_for(
            human.decide(tables[0], Decision(0, (only,), None)), 2)  # type: ignore[arg-type]
        assert chosen == only and human.chooser is None


def test_legal_moves_can_be_a_lone_choice() -> None:
    # The situation the test above stands for does occur in play.
    lone = set()
    for seed in range(10):
        for s in _states(seed):
            if s.turn >= 0 and s.phase in (Phase.TIDDY, Phase.DECLARE):
                legal = legal_actions(s, s.turn)
                if len(legal) == 1:
                    lone.add(type(legal[0]))
    assert lone & {NoTiddy, EndDeclare}
