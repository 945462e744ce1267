"""Cards, packs, variants: the small pieces everyone else builds on."""

from __future__ import annotations

import pytest

from gleek_p2p.rules import (
    VARIANTS,
    Rank,
    Suit,
    Variant,
    card,
    card_label,
    card_name,
    card_points,
    card_rank,
    card_suit,
    combination_value,
    pack,
    parse_card,
    variant_name,
)


def test_card_ids_names_and_labels() -> None:
    assert card(Suit.SPADES, Rank.ACE) == 0
    assert card(Suit.CLUBS, Rank.FOUR) == 43
    assert card_name(0) == "AS" and card_label(0) == "A♠"
    assert card_name(card(Suit.HEARTS, Rank.TEN)) == "TH"
    assert card_label(card(Suit.HEARTS, Rank.TEN)) == "10♥"
    for c in range(44):
        assert parse_card(card_name(c)) == c
        assert parse_card(card_label(c)) == c
        assert card(card_suit(c), card_rank(c)) == c
    assert parse_card("10d") == parse_card("TD")
    for bad in ("", "1S", "AX", "ZZ", "2S"):
        with pytest.raises(ValueError):
            parse_card(bad)


def test_variant_sizes() -> None:
    std = VARIANTS["standard"]
    assert (std.pack_size, std.hand_size, std.talon_size, std.discard_count) == (44, 12, 8, 7)
    assert VARIANTS["historical"].discard_count == 8
    two = VARIANTS["two"]
    assert (two.pack_size, two.talon_size, two.discard_count) == (36, 12, 11)
    assert Variant(players=2, discard_all=True).discard_count == 12
    assert len(pack(two)) == 36 and all(card_rank(c) <= Rank.SIX for c in pack(two))
    with pytest.raises(ValueError):
        Variant(players=4)
    with pytest.raises(ValueError):
        Variant(post_and_pair=True, simplified=True)


def test_variant_names() -> None:
    for name, v in VARIANTS.items():
        assert variant_name(v) == name
    assert variant_name(Variant(players=2, discard_all=True)) == "two+historical"


def test_point_tables() -> None:
    assert [card_points(card(0, r), None) for r in range(11)] == [
        11, 3, 3, 3, 10, 9, 8, 7, 6, 5, 0,
    ]  # fmt: skip
    assert card_points(card(1, Rank.FOUR), 1) == 4
    assert card_points(card(1, Rank.FOUR), 0) == 0
    assert [combination_value(r, 3) for r in range(11)] == [8, 4, 4, 4, 10, 9, 8, 7, 6, 5, 4]
    assert [combination_value(r, 4) for r in range(11)] == [
        16, 8, 8, 8, 20, 18, 16, 14, 12, 10, 8,
    ]  # fmt: skip
