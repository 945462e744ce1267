"""Built-in bots only ever return legal moves, in every variant."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.base.errors import IllegalMove
from gleek_p2p.bots import heuristic
from gleek_p2p.bots.heuristic import HeuristicStrategy, ruff_strength, suit_strength
from gleek_p2p.bots.registry import make_strategies
from gleek_p2p.bots.strategy import RandomStrategy, Strategy
from gleek_p2p.rules import (
    VARIANTS,
    Bid,
    Event,
    NameTrump,
    PassBid,
    Play,
    SeatView,
    card,
    parse_card,
)
from gleek_p2p.tools.simulate import Simulation, simulate

variant_names = st.sampled_from(sorted(VARIANTS))
seeds = st.binary(min_size=0, max_size=8)


class Checking(Strategy):
    """Wraps a strategy and asserts what it is given and what it returns."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.moves = 0

    def choose(self, view: SeatView, legal: Sequence[Event]) -> Event:
        assert view.to_act == view.seat and legal
        move = self.inner.choose(view, legal)
        assert move in legal
        self.moves += 1
        return move  # type: ignore[return-value]


@settings(max_examples=25, deadline=None)
@given(variant_names, seeds, st.sampled_from(["heuristic", "random"]))
def test_bots_play_only_legal_moves(name: str, seed: bytes, spec: str) -> None:
    variant = VARIANTS[name]
    bots = [Checking(b) for b in make_strategies(spec, variant.players, seed)]
    result = simulate(variant, 2, seed, bots)
    assert len(result.hands) == 2
    assert sum(b.moves for b in bots) == result.moves > 0
    assert sum(result.totals) == 0


@settings(max_examples=10, deadline=None)
@given(seeds)
def test_mixed_table_plays_a_session(seed: bytes) -> None:
    bots = [HeuristicStrategy(seed), RandomStrategy(seed), HeuristicStrategy(seed + b"x")]
    result = simulate(VARIANTS["standard"], 3, seed, [Checking(b) for b in bots])
    assert [h.ledger.hand for h in result.hands] == [0, 1, 2]


def test_an_illegal_move_is_refused_and_changes_nothing() -> None:
    sim = Simulation(VARIANTS["standard"], 1, b"refuse")
    d = sim.decision()
    assert d is not None
    seat, _view, legal = d
    before = sim.state
    with pytest.raises(IllegalMove, match="not a legal move"):
        sim.act(seat, Play(seat, 0))
    with pytest.raises(IllegalMove):
        sim.act((seat + 1) % 3, PassBid((seat + 1) % 3))
    assert sim.state is before and sim.moves == 0
    sim.act(seat, legal[0])
    assert sim.moves == 1


def test_a_bot_returning_nonsense_stops_the_simulation_with_its_name() -> None:
    class Cheat(Strategy):
        name = "cheat"

        def choose(self, view: SeatView, legal: Sequence[Event]) -> Event:
            return Bid(view.seat, 99) if view.phase != "auction" else Play(view.seat, 0)

    with pytest.raises(IllegalMove, match="cheat at seat"):
        simulate(VARIANTS["standard"], 1, b"x", [Cheat(), Cheat(), Cheat()])


def cards(*names: str) -> list[int]:
    return [parse_card(n) for n in names]


def test_strength_helpers() -> None:
    hand = cards("AS", "TS", "9S", "KH", "4D")
    assert ruff_strength(hand) == 30
    assert suit_strength(hand, 0) > suit_strength(hand, 1) > suit_strength(hand, 3)
    assert ruff_strength([card(3, 10)]) == 0


def test_heuristic_names_its_long_suit_and_kisses_when_weak() -> None:
    legal = [NameTrump(0, s) for s in range(4)] + [NameTrump(0, None)]
    strong = cards("AH", "KH", "QH", "9H", "8H", "5S", "6D")
    weak = cards("9S", "8S", "9H", "8H", "9D", "8D", "7C", "6C")
    assert heuristic._name_trump(strong, legal) == NameTrump(0, 1)
    assert heuristic._name_trump(weak, legal) == NameTrump(0, None)
    assert heuristic._name_trump(weak, legal[:4]).suit is not None  # no Kiss allowed


def test_heuristic_beats_random() -> None:
    """Over 3 seeds x 30 hands: it profits at the auction and in the tricks, and overall."""
    phases = {"auction": 0, "tricks": 0}
    margin = 0
    for seed in (b"1", b"2", b"3"):
        bots = [HeuristicStrategy(seed), RandomStrategy(seed), RandomStrategy(seed + b"r")]
        result = simulate(VARIANTS["standard"], 30, seed, bots)
        for phase in phases:
            phases[phase] += sum(h.ledger.phases[phase][0] for h in result.hands)
        margin += result.totals[0] - max(result.totals[1:])
    assert phases["auction"] > 0 and phases["tricks"] > 0
    assert margin > 0


def test_heuristic_bids_up_to_what_the_talon_is_worth_to_its_cards() -> None:
    from types import SimpleNamespace

    from gleek_p2p.bots.heuristic import bid_limit, talon_worth

    long_suit = cards("AC", "KC", "QC", "JC", "TC", "9C", "8C", "5S", "6D", "7D", "5H", "6H")
    scattered = cards("AS", "5S", "6S", "KH", "5H", "6H", "QD", "5D", "6D", "JC", "6C", "5C")
    assert talon_worth(long_suit) > talon_worth(scattered) + 40
    worth = talon_worth(long_suit)
    limit = bid_limit(worth, 0)
    assert limit == int(worth)
    legal: list[Event] = [PassBid(0), *(Bid(0, a) for a in range(13, 449))]
    opening = SimpleNamespace(high_bid=0, players=3)
    # A third of the way from the lowest bid to the limit.
    assert heuristic._bid(opening, long_suit, legal) == Bid(0, 13 + (limit - 13) // 3)  # type: ignore[arg-type]
    # Against a high bid h, passing brings h/2: the limit falls by as much.
    high = limit - 20
    dear: list[Event] = [PassBid(0), *(Bid(0, a) for a in range(high + 1, 449))]
    facing = SimpleNamespace(high_bid=high, players=3)
    assert heuristic._bid(facing, long_suit, dear) == PassBid(0)  # type: ignore[arg-type]
    cheap = SimpleNamespace(high_bid=40, players=3)
    after: list[Event] = [PassBid(0), *(Bid(0, a) for a in range(41, 449))]
    move = heuristic._bid(cheap, long_suit, after)  # type: ignore[arg-type]
    assert isinstance(move, Bid) and 41 <= move.amount <= bid_limit(worth, 40)
