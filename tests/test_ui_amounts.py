"""Typed amounts in the auction: as many digits as the bid bound allows, in every language."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from gleek_p2p.base import i18n
from gleek_p2p.rules import (
    VARIANTS,
    Bid,
    Deal,
    PassBid,
    State,
    Variant,
    apply,
    legal_actions,
    max_bid,
    new_session,
    to_act,
)
from gleek_p2p.rules.simulate import random_cut, random_deal_reveals
from gleek_p2p.ui.choices import Chooser


@pytest.fixture(autouse=True)
def _english_after() -> Iterator[None]:
    yield
    i18n.set_language("en", {})


def _auction(variant: Variant) -> tuple[State, int]:
    rng = random.Random(21)
    s = apply(new_session(variant, 1), random_cut(variant, rng))
    s = apply(s, Deal())
    for r in random_deal_reveals(variant, rng):
        s = apply(s, r)
    seat = to_act(s)
    assert seat is not None and isinstance(legal_actions(s, seat)[0], PassBid)
    return s, seat


def _press(chooser: Chooser, keys: str) -> tuple[object, ...]:
    out: tuple[object, ...] = ()
    for key in keys:
        out = chooser.press(key)
    return out


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_three_digit_bids_are_typed_whole_in_every_language(lang: str) -> None:
    i18n.set_language(lang, {})
    s, seat = _auction(VARIANTS["standard"])
    high = max_bid(s.variant)
    assert high == 448
    chooser = Chooser(legal_actions(s, seat), s, seat)
    assert "13" in chooser.prompt and str(high) in chooser.prompt
    # A third digit extends the amount (it used to start a new one).
    assert _press(chooser, "150") == ()
    assert chooser.typed == "150" and chooser.chosen() == Bid(seat, 150)
    assert chooser.message == ""
    # Far above the lowest: asked once, in the person's language, then made.
    assert chooser.press("enter") == ()
    assert "150" in chooser.message and "137" in chooser.message
    assert chooser.press("enter") == (Bid(seat, 150),)
    # Above the bound: said at once with the numbers, and Enter commits nothing.
    chooser = Chooser(legal_actions(s, seat), s, seat)
    _press(chooser, "450")
    assert chooser.typed == "450"
    for number in ("450", "13", str(high)):
        assert number in chooser.message, (lang, chooser.message)
    assert chooser.press("enter") == ()
    assert chooser.typed == "" and str(high) in chooser.message
    # The bound itself is a bid; a fourth digit starts a new amount.
    chooser = Chooser(legal_actions(s, seat), s, seat)
    _press(chooser, str(high))
    assert chooser.chosen() == Bid(seat, high)
    _press(chooser, "2")
    assert chooser.typed == "2"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_logs_of_issue_12_type_two_digits_to_99(lang: str) -> None:
    i18n.set_language(lang, {})
    s, seat = _auction(VARIANTS["standard"].rulings_of(12))
    chooser = Chooser(legal_actions(s, seat), s, seat)
    assert "99" in chooser.prompt
    _press(chooser, "99")
    assert chooser.chosen() == Bid(seat, 99)
    _press(chooser, "5")
    assert chooser.typed == "5"  # past two digits: a new amount
    chooser = Chooser(legal_actions(s, seat), s, seat)
    _press(chooser, "150")
    assert chooser.typed == "0"
