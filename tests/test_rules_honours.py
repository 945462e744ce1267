"""Honours, names and limits come from rules/; the report agrees with them."""

from __future__ import annotations

import random

import pytest

from gleek_p2p.rules import (
    FIRST_MAX_BID,
    HONOURS,
    OPENING_BID,
    RANK_PLURALS,
    SUIT_NAMES,
    VARIANTS,
    Bid,
    Phase,
    Rank,
    State,
    Vie,
    apply,
    bid_range,
    card,
    card_label,
    card_rank,
    card_suit,
    honour_cards,
    honours,
    honours_taken,
    legal_actions,
    limits,
    new_session,
    raise_range,
    tib_card,
    to_act,
)
from gleek_p2p.rules.simulate import random_session
from gleek_p2p.tools.report import describe_hand

NAMES = ("Ann", "Bob", "Cat")


def _random_hands(variant: str, count: int) -> list[State]:
    out = []
    for seed in range(count):
        state, _ = random_session(VARIANTS[variant], 1, random.Random(seed))
        if state.trump_named and state.tricks:
            out.append(state)
    return out


def _honours_line(state: State) -> str:
    lines = [x for x in describe_hand(state, NAMES[: state.variant.players])
             if x.startswith("honours: ")]
    return lines[0].removeprefix("honours: ") if lines else ""


def _by_hand(state: State) -> list[str]:
    """Tib and Tom from first principles: trump Ace (not under whist) and trump Knave."""
    out = []
    if state.trump is None:
        return out
    for _leader, slots, winner in state.tricks:
        for slot in slots:
            c = state.cards[slot]
            if card_suit(c) != state.trump:
                continue
            if card_rank(c) == Rank.ACE and not state.variant.whist_ranking:
                out.append(f"Tib ({card_label(c)}) to {NAMES[winner]}")
            elif card_rank(c) == Rank.JACK:
                out.append(f"Tom ({card_label(c)}) to {NAMES[winner]}")
    return out


def test_whist_hands_have_no_tib_in_the_report_or_the_rules() -> None:
    # The report used to name a "Tib" in about half of the whist hands.
    hands = _random_hands("whist", 20)
    assert len(hands) >= 10
    for state in hands:
        assert tib_card(state) is None
        assert honours(state)["Tib"] is None
        line = _honours_line(state)
        assert "Tib" not in line
        assert line == ", ".join(_by_hand(state))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_report_names_the_honours_the_rules_find(variant: str) -> None:
    for state in _random_hands(variant, 12):
        taken = [h for h in honours_taken(state) if h.name != "Tiddy"]
        assert _honours_line(state) == ", ".join(
            f"{h.name} ({card_label(h.card)}) to {NAMES[h.seat]}" for h in taken)
        assert _honours_line(state) == ", ".join(_by_hand(state))


def test_honour_cards_under_each_variant() -> None:
    for name, v in VARIANTS.items():
        assert honour_cards(None, v) == dict.fromkeys(HONOURS), name
        for trump in range(4):
            got = honour_cards(trump, v)
            assert got["Tom"] == card(trump, Rank.JACK)
            assert got["Tib"] == (None if v.whist_ranking else card(trump, Rank.ACE)), name
            assert got["Tiddy"] == (card(trump, Rank.FOUR) if v.has_fours else None), name
    # Spades' Ace is card 0: it must still count as Tib (a falsy card id).
    assert honour_cards(0, VARIANTS["standard"])["Tib"] == 0


def test_names_and_limits_have_one_owner() -> None:
    assert SUIT_NAMES == ("spades", "hearts", "diamonds", "clubs")
    assert RANK_PLURALS[Rank.JACK] == "Jacks"
    lim = limits()
    assert (lim.opening_bid, lim.max_bid) == (OPENING_BID, 448)
    assert limits(VARIANTS["standard"].rulings_of(12)).max_bid == FIRST_MAX_BID
    assert 1 <= lim.max_raise <= lim.max_stake


def test_bid_and_raise_ranges_are_what_the_engine_allows() -> None:
    seen = set()
    for seed in range(30):
        rng = random.Random(seed)
        _final, events = random_session(VARIANTS["standard"], 1, rng)
        s = new_session(VARIANTS["standard"], 1)
        for e in events:
            seat = to_act(s)
            if seat is not None and s.phase in (Phase.AUCTION, Phase.RUFF):
                legal = legal_actions(s, seat)
                bids = [x.amount for x in legal if isinstance(x, Bid)]
                vies = [x.raise_by for x in legal if isinstance(x, Vie)]
                if s.phase is Phase.AUCTION:
                    low, high = bid_range(s)
                    assert bids == list(range(low, high + 1))
                    seen.add("bid")
                else:
                    low, high = raise_range(s)
                    assert vies == list(range(low, high + 1))
                    seen.add("vie")
            s = apply(s, e)
    assert seen == {"bid", "vie"}
