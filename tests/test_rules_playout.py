"""The playout hand against the engine: the same random games, every state compared."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gleek_p2p.rules import (
    VARIANTS,
    Deal,
    Event,
    Phase,
    State,
    apply,
    legal_actions,
    new_session,
    to_act,
)
from gleek_p2p.rules.engine import apply_reveals
from gleek_p2p.rules.playout import FastHand, random_playout
from gleek_p2p.rules.simulate import random_cut, random_deal_reveals

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def dealt(variant_name: str, seed: int, hands: int = 2) -> tuple[State, random.Random]:
    v = VARIANTS[variant_name]
    rng = random.Random(seed)
    s = apply(new_session(v, hands), random_cut(v, rng))
    s = apply_reveals(apply(s, Deal()), random_deal_reveals(v, rng))
    return s, rng


def pick(s: State, legal: list[Event], rng: random.Random, bidder: bool) -> Event:
    """A random move; a bidder bids the least (random bids jump to 99 and end the auction)."""
    if bidder and s.phase is Phase.AUCTION:
        return legal[min(1, len(legal) - 1)]
    return rng.choice(legal)


@SETTINGS
@given(
    variant=st.sampled_from(sorted(VARIANTS)),
    seed=st.integers(0, 2**32),
    start=st.integers(0, 60),
    bidder=st.booleans(),
)
def test_same_game_same_states(variant: str, seed: int, start: int, bidder: bool) -> None:
    """From any decision of a random hand, both play the same moves to the same states."""
    s, rng = dealt(variant, seed)
    for _ in range(start):
        seat = to_act(s)
        if seat is None:
            break
        legal = legal_actions(s, seat)
        s = apply(s, pick(s, legal, rng, bidder))
    if to_act(s) is None:
        return
    fast = FastHand.from_state(s)
    assert fast.to_state() == s
    while True:
        seat = to_act(s)
        if seat is None:
            break
        assert fast.turn == seat
        legal = legal_actions(s, seat)
        assert fast.legal() == legal
        move = pick(s, legal, rng, bidder)
        s = apply(s, move)
        fast.play(move)
        assert fast.to_state() == s
    assert fast.over
    assert fast.result == s.ledgers[-1]
    assert fast.to_state().totals == s.totals


def test_copy_is_independent() -> None:
    s, rng = dealt("standard", 7)
    a = FastHand.from_state(s)
    b = a.copy()
    random_playout(a, rng.random)
    assert b.to_state() == s
    assert a.over and not b.over


def test_refuses_hidden_cards_and_no_decision() -> None:
    v = VARIANTS["standard"]
    s = apply(apply(new_session(v, 1), random_cut(v, random.Random(1))), Deal())
    with pytest.raises(ValueError, match="every card"):
        FastHand.from_state(s)
    with pytest.raises(ValueError, match="no decision"):
        FastHand.from_state(new_session(v, 1))


@SETTINGS
@given(variant=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 2**32))
def test_random_playout_is_the_engines_game(variant: str, seed: int) -> None:
    """The inlined random playout plays the game the engine plays with the same picks."""
    s, _rng = dealt(variant, seed, hands=1)
    hand = FastHand.from_state(s)
    got = random_playout(hand, random.Random(seed).random)
    pick = random.Random(seed).random
    while (seat := to_act(s)) is not None:
        legal = legal_actions(s, seat)
        s = apply(s, legal[int(pick() * len(legal))])
    assert got == s.ledgers[-1]
    assert hand.to_state() == s  # every field, not only the money
    assert s.phase is Phase.SESSION_OVER


@SETTINGS
@given(variant=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 2**32),
       start=st.integers(0, 80))
def test_random_playout_from_any_decision_is_the_engines_game(
        variant: str, seed: int, start: int) -> None:
    """Started anywhere (mid-auction, mid-ruff, mid-trick), the random playout plays the
    engine's game with the same picks: the inlined phases pick up from where the hand is."""
    s, rng = dealt(variant, seed, hands=1)
    for _ in range(start):
        seat = to_act(s)
        if seat is None:
            break
        s = apply(s, rng.choice(legal_actions(s, seat)))
    if to_act(s) is None:
        return
    hand = FastHand.from_state(s)
    got = random_playout(hand, random.Random(seed).random)
    pick = random.Random(seed).random
    while (seat := to_act(s)) is not None:
        legal = legal_actions(s, seat)
        s = apply(s, legal[int(pick() * len(legal))])
    assert got == s.ledgers[-1]
    assert hand.to_state() == s  # every field, not only the money
