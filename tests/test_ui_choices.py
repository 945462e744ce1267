"""The keyboard chooser: every decision kind can be picked with the keys the help lists."""

from __future__ import annotations

import random

import pytest

from gleek_p2p.rules import (
    Bid,
    ClaimTiddy,
    Declare,
    Discard,
    EndDeclare,
    Event,
    NameTrump,
    NoTiddy,
    PassBid,
    PassRuff,
    Phase,
    Play,
    See,
    ShowRuff,
    State,
    Variant,
    Vie,
    apply,
    legal_actions,
    max_bid,
    new_session,
    to_act,
)
from gleek_p2p.rules.simulate import random_cut, random_deal_reveals
from gleek_p2p.ui.choices import Chooser


def _walk(variant: Variant, seed: int) -> list[tuple[State, int, list[Event]]]:
    """Every decision point of a random hand with full knowledge."""
    rng = random.Random(seed)
    s = apply(new_session(variant, 1), random_cut(variant, rng))
    from gleek_p2p.rules import Deal

    s = apply(s, Deal())
    for r in random_deal_reveals(variant, rng):
        s = apply(s, r)
    out = []
    while (seat := to_act(s)) is not None:
        legal = legal_actions(s, seat)
        out.append((s, seat, legal))
        s = apply(s, rng.choice(legal))
    return out


def _first(kind: type, seeds: range = range(60)) -> tuple[State, int, list[Event]]:
    for seed in seeds:
        for s, seat, legal in _walk(Variant(), seed):
            if any(isinstance(e, kind) for e in legal):
                return s, seat, legal
    pytest.skip(f"no random hand reached a {kind.__name__}")


def test_every_legal_move_is_reachable_and_enter_plays_the_cursor() -> None:
    for seed in range(8):
        for s, seat, legal in _walk(Variant(), seed):
            chooser = Chooser(legal, s, seat)
            assert sorted(map(repr, (o.event for o in chooser.options))) == sorted(map(repr, legal))
            chooser.home()
            seen = {repr(chooser.chosen())}
            for _ in legal:
                chooser.move(1)
                seen.add(repr(chooser.chosen()))
            assert seen == {repr(e) for e in legal}
            assert chooser.prompt


def test_bid_by_typing_digits() -> None:
    s, seat, legal = _first(PassBid)
    chooser = Chooser(legal, s, seat)
    assert isinstance(chooser.chosen(), PassBid)  # Enter at once passes: it costs nothing
    low = min(e.amount for e in legal if isinstance(e, Bid))
    for d in str(low + 3):
        chooser.digit(d)
    assert chooser.chosen() == Bid(seat, low + 3)
    chooser.letter("p")
    assert chooser.chosen() == PassBid(seat)
    high = max_bid(s.variant)
    for d in str(high):
        chooser.digit(d)
    assert chooser.chosen() == Bid(seat, high)
    chooser.backspace()
    assert chooser.typed == str(high)[:-1]


def test_a_bid_below_the_minimum_does_not_move_the_cursor() -> None:
    s, seat, legal = _first(PassBid)
    chooser = Chooser(legal, s, seat)
    assert not chooser.digit("1")
    assert isinstance(chooser.chosen(), PassBid)


def test_ruff_vie_see_pass() -> None:
    s, seat, legal = _first(Vie)
    chooser = Chooser(legal, s, seat)
    top = max(e.raise_by for e in legal if isinstance(e, Vie))
    assert chooser.digit(str(top))
    assert chooser.chosen() == Vie(seat, top)
    chooser.letter("p")
    assert chooser.chosen() == PassRuff(seat)
    if See(seat) in legal:
        chooser.letter("s")
        assert chooser.chosen() == See(seat)


def test_ruff_show_by_suit_letter_defaults_to_the_best_suit() -> None:
    s, seat, legal = _first(ShowRuff)
    chooser = Chooser(legal, s, seat)
    from gleek_p2p.rules import ruff_value

    best = max(legal, key=lambda e: ruff_value(s.cards[x] for x in e.slots))  # type: ignore[union-attr]
    assert chooser.chosen() == best
    for e in legal:
        assert isinstance(e, ShowRuff)
        chooser.letter("shdc"[e.suit])
        assert chooser.chosen() == e


def test_declare_each_combination_then_done() -> None:
    for seed in range(200):
        for s, seat, legal in _walk(Variant(), seed):
            declares = [e for e in legal if isinstance(e, Declare)]
            if declares:
                chooser = Chooser(legal, s, seat)
                assert chooser.chosen() == declares[0]  # declaring is never a loss
                labels = " ".join(o.label for o in chooser.options)
                assert ("gleek of" in labels) or ("mournival of" in labels)
                if EndDeclare(seat) in legal:
                    assert chooser.letter("n")
                    assert chooser.chosen() == EndDeclare(seat)
                return
    pytest.skip("no random hand had a combination")


def test_trump_by_letter_and_kiss() -> None:
    s, seat, legal = _first(NameTrump)
    chooser = Chooser(legal, s, seat)
    for letter, suit in zip("shdc", range(4), strict=True):
        chooser.letter(letter)
        assert chooser.chosen() == NameTrump(seat, suit)
    chooser.letter("k")
    assert chooser.chosen() == NameTrump(seat, None)


def test_tiddy_claim_or_decline() -> None:
    for seed in range(300):
        for s, seat, legal in _walk(Variant(), seed):
            claims = [e for e in legal if isinstance(e, ClaimTiddy)]
            if claims:
                chooser = Chooser(legal, s, seat)
                assert chooser.chosen() == claims[0]
                chooser.letter("n")
                assert chooser.chosen() == NoTiddy(seat)
                chooser.letter("y")
                assert chooser.chosen() == claims[0]
                return
    pytest.skip("no random hand dealt a Tiddy to the seat to speak")


def test_cards_in_hand_order_only_legal_ones() -> None:
    s, seat, legal = _first(Play)
    chooser = Chooser(legal, s, seat)
    assert chooser.cards
    ids = [s.cards[o.slots[0]] for o in chooser.options]
    assert ids == sorted(ids)
    for x in s.holding[seat]:
        assert chooser.slot_marked(x) == (Play(seat, x) in legal)
    chooser.end()
    assert chooser.chosen() == max(legal, key=lambda e: s.cards[e.slot])  # type: ignore[union-attr]


def test_the_discard_marks_cards_then_commits_them_once() -> None:
    s, seat, legal = _first(Discard)
    assert s.phase is Phase.DISCARD
    chooser = Chooser(legal, s, seat)
    need = Variant().discard_count
    assert chooser.cards and chooser.picks == need and "Mark 7 cards" in chooser.prompt
    assert len(chooser.options) == len(s.holding[seat])
    assert chooser.press("enter") == ()  # Enter marks the card under the cursor ...
    assert chooser.press("enter") == ()  # ... and unmarks it: nothing is lost
    assert chooser.marked == []
    for _ in range(need):
        assert chooser.press(" ") == ()
        chooser.press("right")
    assert "Discard these 7" in chooser.prompt
    assert chooser.press(" ") == () and "marked already" in chooser.message
    events = chooser.press("enter")
    assert len(events) == need and all(isinstance(e, Discard) for e in events)
    assert len({e.slot for e in events if isinstance(e, Discard)}) == need
    assert all(e in legal for e in events)


def test_escape_unmarks_every_discard() -> None:
    s, seat, legal = _first(Discard)
    chooser = Chooser(legal, s, seat)
    chooser.press(" ")
    chooser.press("right")
    chooser.press(" ")
    assert len(chooser.marked) == 2
    chooser.press("escape")
    assert chooser.marked == [] and chooser.press("enter") == ()


def test_a_typed_amount_is_what_enter_commits() -> None:
    s, seat, legal = _first(PassBid)
    low = min(e.amount for e in legal if isinstance(e, Bid))
    chooser = Chooser(legal, s, seat)
    assert isinstance(chooser.chosen(), PassBid)
    # "5" then Enter used to pass: now it says why 5 is no bid, and commits nothing.
    chooser.press("5")
    assert chooser.press("enter") == ()
    assert f"bids go from {low} to {max_bid(s.variant)}" in chooser.message
    for d in str(low + 1):
        chooser.press(d)
    assert chooser.press("enter") == (Bid(seat, low + 1),)


def test_a_bid_far_above_the_lowest_asks_once() -> None:
    s, seat, legal = _first(PassBid)
    chooser = Chooser(legal, s, seat)
    chooser.press("end")
    high = max_bid(s.variant)
    assert chooser.press("enter") == ()
    assert f"Bid {high}" in chooser.message and "Enter: yes" in chooser.message
    assert chooser.press("enter") == (Bid(seat, high),)
    # Any other key in between withdraws the question.
    chooser.press("9")
    chooser.press("9")
    assert chooser.press("enter") == ()
    chooser.press("left")
    chooser.press("right")
    assert chooser.press("enter") == ()


def test_a_raise_out_of_range_says_why() -> None:
    s, seat, legal = _first(Vie)
    chooser = Chooser(legal, s, seat)
    top = max(e.raise_by for e in legal if isinstance(e, Vie))
    chooser.press("9")
    assert f"raise by 1 to {top}" in chooser.message
    assert chooser.press("enter") == ()
    assert "not a raise" in chooser.message
    chooser.press("1")
    assert chooser.press("enter") == (Vie(seat, 1),)


def test_an_unknown_key_says_so() -> None:
    s, seat, legal = _first(NameTrump)
    chooser = Chooser(legal, s, seat)
    assert chooser.press("z") == ()
    assert "does nothing here" in chooser.message
    chooser.press("7")
    assert "no amount" in chooser.message
    chooser.press("right")
    assert chooser.message == ""


def test_cursor_is_clamped_and_no_legal_move_is_refused() -> None:
    s, seat, legal = _first(NameTrump)
    chooser = Chooser(legal, s, seat)
    chooser.move(-100)
    assert chooser.cursor == 0
    chooser.move(100)
    assert chooser.cursor == len(legal) - 1
    assert not chooser.letter("z")
    assert not chooser.digit("7")  # no amounts in this menu
    with pytest.raises(ValueError):
        Chooser([], s, seat)


def test_the_whole_discarding_hand_fits_80_columns_with_the_talon_marked() -> None:
    from gleek_p2p.rules import card_label
    from gleek_p2p.ui.render import Scene, hand_pane, plain

    s, seat, legal = _first(Discard)
    chooser = Chooser(legal, s, seat)
    chooser.press(" ")
    chooser.press("end")  # the cursor on the last card: it must be drawn
    scene = Scene(s, ("you", "Bob", "Carol"), seat, chooser)
    for width in (80, 100, 160):
        text = plain(hand_pane(scene, width))
        assert "…" not in text and all(len(line) <= width for line in text.split("\n"))
        for x in s.holding[seat]:
            assert card_label(s.cards[x]) in text
        marks = "".join(line for line in text.split("\n") if "^" in line or "t:" in line)
        others = [x for x in s.talon if x != chooser.options[0].slots[0]
                  and x != chooser.options[-1].slots[0]]
        assert marks.count(" t") >= len(others) and "X" in text and "^" in text


def test_the_discard_count_comes_from_the_variant() -> None:
    from gleek_p2p.rules import VARIANTS

    variant = VARIANTS["historical"]
    for seed in range(60):
        for s, seat, legal in _walk(variant, seed):
            if any(isinstance(e, Discard) for e in legal):
                chooser = Chooser(legal, s, seat)
                assert chooser.picks == variant.discard_count == 8
                assert f"Mark {variant.discard_count} cards" in chooser.prompt
                return
    pytest.skip("nobody took the talon")
