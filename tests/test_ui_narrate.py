"""The log pane's sentences: pure, complete, and never a hidden card."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.rules import (
    Bid,
    Cut,
    Deal,
    Declare,
    Discard,
    Event,
    NameTrump,
    PassBid,
    PassRuff,
    Phase,
    Play,
    Reveal,
    State,
    Variant,
    apply,
    card,
    new_session,
)
from gleek_p2p.rules.simulate import random_session, reveals_for
from gleek_p2p.ui.narrate import narrate
from gleek_p2p.ui.replay import mask_state

NAMES = ("Anne", "Bob", "Carol")


def _states(variant: Variant, seed: int) -> list[tuple[Event, State, State]]:
    _final, events = random_session(variant, 2, random.Random(seed))
    s = new_session(variant, 2)
    out = []
    for e in events:
        after = apply(s, e)
        out.append((e, s, after))
        s = after
    return out


def test_the_cut_and_the_deal() -> None:
    s = new_session(Variant(), 3)
    cut = Cut((card(0, 1), card(1, 0), card(2, 5)))  # K♠, A♥, 9♦: the Ace deals
    after = apply(s, cut)
    assert narrate(cut, s, after, NAMES) == "The cut: Anne K♠, Bob A♥, Carol 9♦. Bob deals first."
    dealt = apply(after, Deal())
    assert narrate(Deal(), after, dealt, NAMES, you=1) == (
        "Hand 1 of 3: You deal; Carol speaks first.")


def test_the_auction_in_words() -> None:
    s = apply(apply(new_session(Variant(), 1), Cut((0, 11, 22))), Deal())  # Anne deals
    b1 = apply(s, Bid(1, 14))
    assert narrate(Bid(1, 14), s, b1, NAMES) == "Bob bids 14."
    assert narrate(Bid(1, 14), s, b1, NAMES, you=1) == "You bid 14."
    b2 = apply(b1, PassBid(2))
    assert narrate(PassBid(2), b1, b2, NAMES) == "Carol passes."
    b3 = apply(b2, PassBid(0))
    text = narrate(PassBid(0), b2, b3, NAMES, you=0)
    assert text == "You pass. Bob takes the talon for 14 pence and discards 7."


def test_reveals_are_silent_and_trump_is_told() -> None:
    for e, before, after in _states(Variant(), 1):
        if isinstance(e, Reveal):
            assert narrate(e, before, after, NAMES) is None
        if isinstance(e, NameTrump):
            text = narrate(e, before, after, NAMES)
            assert text is not None
            assert "trump" in text or "Kiss" in text


def test_a_finished_trick_names_its_taker_and_the_hand_result() -> None:
    found_trick = found_end = False
    for e, before, after in _states(Variant(), 2):
        if isinstance(e, Play) and len(after.tricks) > len(before.tricks):
            text = narrate(e, before, after, NAMES)
            assert text is not None
            winner = NAMES[after.tricks[-1][2]]
            assert f"{winner} takes trick {len(after.tricks)}" in text
            found_trick = True
            if after.phase in (Phase.HAND_OVER, Phase.SESSION_OVER):
                assert f"Hand {after.hand_no + 1} is over" in text
                found_end = True
    assert found_trick and found_end


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), variant=st.sampled_from(
    [Variant(), Variant(players=2), Variant(post_and_pair=True), Variant(simplified=True),
     Variant(modern_combinations=True), Variant(discard_all=True)]))
def test_every_event_of_any_session_narrates_without_error(seed: int, variant: Variant) -> None:
    names = NAMES[: variant.players]
    for e, before, after in _states(variant, seed):
        text = narrate(e, before, after, names, you=0)
        if text is not None:
            assert text.strip() and "??" not in text and "seat -1" not in text
            assert text[0].isupper()


def test_masked_narration_never_names_a_hidden_card() -> None:
    for e, before, after in _states(Variant(), 5):
        if isinstance(e, Discard) and before.hand_no >= 0:
            other = (e.seat + 1) % 3
            mine = narrate(e, before, after, NAMES, you=e.seat)
            theirs = narrate(e, mask_state(before, other), mask_state(after, other), NAMES,
                             you=other)
            assert mine is not None and theirs is not None
            hidden = after.cards[e.slot]
            from gleek_p2p.rules import card_label

            assert card_label(hidden) in mine
            assert card_label(hidden) not in theirs and "face down" in theirs
            return
    raise AssertionError("the random session had no discard")


def test_a_declaration_says_how_it_is_paid_under_the_rulings() -> None:
    said = {}
    for name, variant in (("each", Variant()), ("sheet", Variant(modern_combinations=True)),
                          ("split", Variant(modern_combinations=True).first_rulings())):
        s = apply(apply(new_session(variant, 1), Cut((0, 11, 22))), Deal())  # Anne deals
        for r in reveals_for(variant, 0, {1: [card(0, 0), card(1, 0), card(2, 0)]}):
            s = apply(s, r)
        for seat in (1, 2, 0):
            s = apply(s, PassBid(seat))
        s = apply(apply(s, PassRuff(1)), PassRuff(2))
        aces = tuple(sorted(s.where[card(suit, 0)] for suit in range(3)))
        said[name] = narrate(Declare(1, aces), s, apply(s, Declare(1, aces)), NAMES)
    assert said["each"] == "Bob declares a gleek of Aces (8 pence from each)."
    assert said["sheet"] == "Bob declares a gleek of Aces (8 points on the score sheet)."
    assert said["split"] == "Bob declares a gleek of Aces (8 pence in all)."
