"""One test (at least) per numbered rule and per ruling of SPEC.md section 1."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pytest

from gleek_p2p.base.errors import IllegalMove, ProtocolError
from gleek_p2p.rules import (
    TALON,
    VARIANTS,
    Bid,
    ClaimTiddy,
    Cut,
    Deal,
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
    Reveal,
    See,
    ShowRuff,
    State,
    Variant,
    Vie,
    apply,
    card_label,
    cut_winner,
    deal_layout,
    legal_actions,
    max_bid,
    most_paid,
    new_session,
    pack,
    parse_card,
    running_ledger,
    seat_view,
    session_totals,
    session_winner,
    settle_received,
    shown_slots,
    to_act,
    trick_points,
)
from gleek_p2p.rules.simulate import reveals_for

STD = VARIANTS["standard"]
TWO = VARIANTS["two"]
FIRST = STD.first_rulings()
"""The standard game under the rulings of the first logs (SPEC 1.5)."""
ISSUE12 = STD.rulings_of(12)
"""The standard game under the rulings of issue 12 (trick scores against their mean)."""


def c(name: str) -> int:
    return parse_card(name)


def cs(names: str) -> list[int]:
    return [c(x) for x in names.split()]


def start(
    variant: Variant = STD,
    hands: Mapping[int, Sequence[int]] | None = None,
    talon: Sequence[int] = (),
    session_hands: int = 1,
) -> State:
    """A hand dealt by the last seat, so seat 0 is eldest; every card revealed."""
    s = new_session(variant, session_hands)
    n = variant.players
    cut = (c("5S"), c("6S"), c("AS")) if n == 3 else (c("6S"), c("AS"))
    s = apply(s, Cut(cut))
    s = apply(s, Deal())
    assert s.dealer == n - 1
    for r in reveals_for(variant, s.dealer, hands or {}, talon):
        s = apply(s, r)
    return s


def act(s: State, *events: Event) -> State:
    for e in events:
        s = apply(s, e)
    return s


def slot(s: State, name: str) -> int:
    x = s.where[c(name)]
    assert x >= 0
    return x


def ledger(s: State) -> dict[str, tuple[int, ...]]:
    led = running_ledger(s)
    assert led is not None
    return led.phases


def all_pass_auction(s: State) -> State:
    return act(s, PassBid(0), PassBid(1), PassBid(2))


def ruff_to_seat2(s: State) -> State:
    """Seats 0 and 1 pass on the ruff: seat 2 takes the pot without showing."""
    return act(s, PassRuff(0), PassRuff(1))


def no_declares(s: State) -> State:
    """End the combination phase, declaring only what the rules compel."""
    while s.phase is Phase.DECLARE:
        s = apply(s, legal_actions(s, s.turn)[0])
    return s


def to_tricks(s: State, trump: int | None = 1) -> State:
    """From the auction to the first trick: all pass, ruff to seat 2, eldest names trump."""
    s = no_declares(ruff_to_seat2(all_pass_auction(s)))
    s = act(s, NameTrump(0, trump))
    while s.phase is Phase.TIDDY:
        s = apply(s, NoTiddy(s.turn))
    assert s.phase is Phase.TRICKS
    return s


def finish(s: State) -> State:
    """Play every remaining move with the first legal action."""
    while (seat := to_act(s)) is not None:
        s = apply(s, legal_actions(s, seat)[0])
    return s


def illegal(s: State, e: Event, seat: int | None = None) -> IllegalMove:
    with pytest.raises(IllegalMove) as info:
        apply(s, e)
    if seat is not None:
        assert info.value.seat == seat
    assert str(info.value)
    return info.value


# ------------------------------------------------------------------ cut and deal


def test_cut_highest_card_deals() -> None:
    s = apply(new_session(STD), Cut((c("KH"), c("AD"), c("QS"))))
    assert s.phase is Phase.DEAL and s.dealer == 1


def test_cut_tie_broken_by_suit_spades_first() -> None:
    assert cut_winner([c("AD"), c("AH"), c("AC")]) == 1
    assert cut_winner([c("4C"), c("4S"), c("4H")]) == 1


def test_cut_rejects_duplicate_and_foreign_cards() -> None:
    s = new_session(STD)
    with pytest.raises(ProtocolError):
        apply(s, Cut((c("KH"), c("KH"), c("QS"))))
    with pytest.raises(ProtocolError):
        apply(s, Cut((c("KH"), c("QS"))))
    with pytest.raises(ProtocolError):
        apply(new_session(TWO), Cut((c("4S"), c("AS"))))  # no 4s in the two-player pack


def test_deal_layout_four_at_a_time_from_eldest() -> None:
    lay = deal_layout(STD, 2)
    assert lay[:12] == (0,) * 4 + (1,) * 4 + (2,) * 4
    assert lay[12:24] == lay[:12] and lay[24:36] == lay[:12]
    assert lay[36:] == (TALON,) * 8
    lay0 = deal_layout(STD, 0)
    assert lay0[:4] == (1,) * 4 and lay0[8:12] == (0,) * 4


def test_deal_twelve_each_talon_eight() -> None:
    s = start()
    assert [len(h) for h in s.holding] == [12, 12, 12]
    assert len(s.talon) == 8 and len(s.cards) == 44
    assert s.phase is Phase.AUCTION and to_act(s) == 0


def test_deal_passes_clockwise() -> None:
    s = start(session_hands=3)
    s = finish(s)
    assert s.phase is Phase.HAND_OVER and s.dealer == 2
    s = apply(s, Deal())
    assert s.dealer == 0 and s.hand_no == 1 and to_act(s) == 1


def test_pack_44_cards_no_twos_or_threes() -> None:
    p = pack(STD)
    assert len(p) == 44 == len(set(p))
    assert sorted(p) == list(range(44))


# ------------------------------------------------------------------ auction


def test_auction_at_14_pays_7_to_each_opponent() -> None:
    # "ainsi, à 14 pence, chaque adversaire reçoit 7 pence".
    s = act(start(), Bid(0, 13), Bid(1, 14), PassBid(2), PassBid(0))
    assert s.talon_taker == 1 and s.phase is Phase.DISCARD
    assert ledger(s)["auction"] == (14, -28, 14)  # halfpence: 7 pence each


def test_odd_bid_13_splits_six_and_a_half() -> None:
    s = act(start(), Bid(0, 13), PassBid(1), PassBid(2))
    assert ledger(s)["auction"] == (-26, 13, 13)


def test_auction_opening_at_least_13_and_raise_at_least_1() -> None:
    s = start()
    illegal(s, Bid(0, 12), seat=0)
    s = apply(s, Bid(0, 15))
    illegal(s, Bid(1, 15), seat=1)
    assert apply(s, Bid(1, 16)).high_bid == 16


def test_auction_max_bid_99() -> None:
    # The first logs' ceiling, and the rulings of issue 12 (before open_auction).
    for v in (FIRST, STD.rulings_of(12)):
        s = start(v)
        illegal(s, Bid(0, 100), seat=0)
        s = act(s, Bid(0, 99))
        assert [e for e in legal_actions(s, 1)] == [PassBid(1)]


def test_open_auction_bids_rise_to_the_bound_of_what_a_hand_can_pay() -> None:
    s = start()
    assert max_bid(STD) == 448 == sum(most_paid(STD).values())
    s = act(s, Bid(0, 100), Bid(1, 250))
    legal = legal_actions(s, 2)
    assert legal[0] == PassBid(2)
    assert [e.amount for e in legal[1:] if isinstance(e, Bid)] == list(range(251, 449))
    illegal(s, Bid(2, 449), seat=2)
    s = act(s, Bid(2, 448))
    assert legal_actions(s, 0) == [PassBid(0)]


def test_auction_passing_is_final() -> None:
    s = act(start(), PassBid(0), Bid(1, 13), Bid(2, 14))
    assert to_act(s) == 1  # seat 0 passed and is skipped
    illegal(s, Bid(0, 20), seat=0)


def test_auction_out_of_turn_is_illegal() -> None:
    e = illegal(start(), Bid(1, 13), seat=1)
    assert "turn" in str(e)


def test_auction_all_pass_talon_dead_eldest_names_trump() -> None:
    s = all_pass_auction(start())
    assert s.talon_taker == -1 and s.phase is Phase.RUFF
    assert ledger(s)["auction"] == (0, 0, 0)
    s = no_declares(ruff_to_seat2(s))
    assert s.phase is Phase.TRUMP and to_act(s) == 0
    assert all(x not in h for h in s.holding for x in s.talon)


def test_auction_last_seat_may_bid_after_two_passes() -> None:
    s = act(start(), PassBid(0), PassBid(1))
    assert to_act(s) == 2
    s = apply(s, Bid(2, 13))
    assert s.talon_taker == 2


def test_winner_takes_talon_discards_7_keeps_13() -> None:
    s = act(start(), Bid(0, 13), PassBid(1), PassBid(2))
    assert len(s.holding[0]) == 20
    for x in s.holding[0][:7]:
        s = apply(s, Discard(0, x))
    assert len(s.holding[0]) == 13 and len(s.discards) == 7
    assert s.phase is Phase.RUFF


def test_historical_winner_discards_8_keeps_12() -> None:
    s = act(start(VARIANTS["historical"]), Bid(0, 13), PassBid(1), PassBid(2))
    for x in s.holding[0][:8]:
        assert s.phase is Phase.DISCARD
        s = apply(s, Discard(0, x))
    assert len(s.holding[0]) == 12 and s.phase is Phase.RUFF


def test_discard_must_be_own_slot() -> None:
    s = act(start(), Bid(0, 13), PassBid(1), PassBid(2))
    illegal(s, Discard(0, s.holding[1][0]), seat=0)
    illegal(s, Discard(1, s.holding[1][0]), seat=1)


def test_winner_thirteenth_card_stays_unplayed() -> None:
    s = act(start(), Bid(0, 13), PassBid(1), PassBid(2))
    s = finish(s)
    assert s.phase is Phase.SESSION_OVER
    assert len(s.tricks) == 12
    assert [len(h) for h in s.holding] == [1, 0, 0]


# ------------------------------------------------------------------ ruff


def test_ruff_single_survivor_takes_pot_without_show() -> None:
    s = ruff_to_seat2(all_pass_auction(start()))
    assert s.phase is Phase.DECLARE and s.ruff_winner == 2 and s.ruff_shows == ()
    assert ledger(s)["ruff"] == (-4, -4, 8)  # 2 pence ante each


def test_ruff_pass_loses_what_was_put_in() -> None:
    s = all_pass_auction(start())
    s = act(s, Vie(0, 3), Vie(1, 2), PassRuff(2), PassRuff(0))
    assert s.ruff_winner == 1
    assert ledger(s)["ruff"] == (-10, 14, -4)


def test_ruff_showdown_highest_ruff_wins() -> None:
    hands = {
        0: cs("AH KH 5H 4S 5S 6S 4C 5C 6C 7C 4D 5D"),
        1: cs("AS KS QS JS 10H 9H 8H 7H 8C 9C 10C JC"),
        2: cs("AD KD QD JD 10D 9D 8D 7D 6D QC KC AC"),
    }
    s = all_pass_auction(start(hands=hands))
    s = act(s, Vie(0, 1), See(1), See(2))
    assert s.phase is Phase.RUFF_SHOW and to_act(s) == 0
    s = act(s, ShowRuff(0, 1, _slots(s, "AH KH 5H")))  # 19
    s = act(s, ShowRuff(1, 0, _slots(s, "AS KS QS JS")))  # 20
    s = act(s, ShowRuff(2, 3, _slots(s, "AC KC QC")))  # 17
    assert s.ruff_winner == 1 and s.phase is Phase.DECLARE
    assert ledger(s)["ruff"] == (-6, 12, -6)


def test_ruff_tie_exact_goes_to_seat_nearest_eldest() -> None:
    hands = {
        0: cs("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S KC"),
        1: cs("AH QC JC 10C 9C 8C 7C 6C 5C 4C 4H 4D"),
        2: cs("AD KH QH JH 10H 9H 8H 7H 6H 5H AC KD"),
    }
    s = all_pass_auction(start(hands=hands))
    s = act(s, PassRuff(0), Vie(1, 1), See(2))
    s = act(s, ShowRuff(1, 1, (slot(s, "AH"), slot(s, "4H"))))
    s = act(s, ShowRuff(2, 2, tuple(sorted((slot(s, "AD"), slot(s, "KD"))))))
    # 11 + 0 (a Four counts 0 in the ruff) against 11 + 3: seat 2 wins outright
    assert s.ruff_winner == 2
    s = all_pass_auction(start(hands=hands))
    s = act(s, PassRuff(0), Vie(1, 1), See(2))
    s = act(s, ShowRuff(1, 1, (slot(s, "AH"), slot(s, "4H"))))
    # Seat 2 shows clubs: AC alone = 11, a tie with seat 1's 11: eldest-nearest (1) wins
    s = act(s, ShowRuff(2, 3, (slot(s, "AC"),)))
    assert s.ruff_winner == 1


def test_ruff_fours_count_zero() -> None:
    from gleek_p2p.rules import ruff_value

    assert ruff_value(cs("4S 4H")) == 0
    assert ruff_value(cs("AS KS QS JS 10S 5S")) == 11 + 9 + 10 + 5


def test_ruff_partial_show_is_illegal() -> None:
    hands = {0: cs("AH KH 5H"), 1: cs("AS"), 2: cs("AD")}
    s = all_pass_auction(start(hands=hands))
    s = act(s, Vie(0, 1), See(1), PassRuff(2))
    assert to_act(s) == 0
    e = illegal(s, ShowRuff(0, 1, (slot(s, "AH"),)), seat=0)
    assert "all" in str(e)
    illegal(s, ShowRuff(0, 0, (slot(s, "AH"),)), seat=0)  # not a spade


def test_ruff_raise_limits_and_see() -> None:
    s = all_pass_auction(start())
    assert See(0) not in legal_actions(s, 0)  # nothing to see at stake 0
    illegal(s, See(0), seat=0)
    illegal(s, Vie(0, 6), seat=0)
    s = act(s, Vie(0, 5), Vie(1, 5), Vie(2, 5), Vie(0, 5))
    assert s.ruff_stake == 20
    illegal(s, Vie(1, 1), seat=1)  # table limit
    s = act(s, See(1), See(2))
    assert s.phase is Phase.RUFF_SHOW
    assert ledger(s)["ruff"] == (0, 0, 0)  # nobody has won yet


def test_ruff_has_no_side_stakes() -> None:
    # "the Ruff pot and any side stakes": no side stake exists. The winner takes
    # exactly the antes and what was put in by vying, and every other seat
    # loses exactly its own ante and put; no move other than vie/see/pass exists.
    s = all_pass_auction(start())
    kinds = {type(m).__name__ for seat in range(3) for m in legal_actions(s, seat)}
    assert kinds <= {"Vie", "PassRuff", "See"}
    s = act(s, Vie(0, 3), See(1), PassRuff(2))
    s = act(s, legal_actions(s, 0)[0])  # seat 0 shows a suit
    s = act(s, legal_actions(s, 1)[0])  # seat 1 shows a suit
    pot = 3 * 2 + 3 + 3
    ruff = ledger(s)["ruff"]
    winner = s.ruff_winner
    assert ruff[winner] == 2 * (pot - 2 - 3)  # halfpence
    assert ruff[2] == -2 * 2
    assert sum(ruff) == 0


def test_ruff_ends_when_all_matched_after_last_raise() -> None:
    s = all_pass_auction(start())
    s = act(s, Vie(0, 1), See(1), Vie(2, 2))
    assert s.phase is Phase.RUFF and to_act(s) == 0
    s = act(s, See(0), See(1))
    assert s.phase is Phase.RUFF_SHOW


# ------------------------------------------------------------------ combinations


def _declare_phase(hands: Mapping[int, Sequence[int]], variant: Variant = STD) -> State:
    s = ruff_to_seat2(all_pass_auction(start(variant, hands=hands)))
    assert s.phase is Phase.DECLARE and to_act(s) == 0
    return s


def _slots(s: State, names: str) -> tuple[int, ...]:
    return tuple(sorted(slot(s, x) for x in names.split()))


def test_gleek_of_aces_takes_8_from_each() -> None:
    # "un gleek d'As à 8 pence rapporte 16 pence au total : 8 de chaque adversaire".
    s = _declare_phase({0: cs("AS AH AD")})
    s = act(s, Declare(0, _slots(s, "AS AH AD")))
    assert ledger(s)["combinations"] == (32, -16, -16)


def test_mournival_of_aces_takes_16_from_each() -> None:
    s = _declare_phase({1: cs("AS AH AD AC")})
    while s.turn == 0:  # seat 0 declares what it must, then ends
        s = apply(s, legal_actions(s, 0)[0])
    before = ledger(s)["combinations"]
    s = act(s, Declare(1, _slots(s, "AS AH AD AC")))
    after = ledger(s)["combinations"]
    assert tuple(a - b for a, b in zip(after, before, strict=True)) == (-32, 64, -32)


def test_gleek_courts_4_numerals_face_value() -> None:
    s = _declare_phase({0: cs("KS KH KD 10S 10H 10D 4S 4H 4D")})
    s = act(s, Declare(0, _slots(s, "KS KH KD")))
    assert ledger(s)["combinations"] == (16, -8, -8)
    s = act(s, Declare(0, _slots(s, "10S 10H 10D")))
    assert ledger(s)["combinations"] == (56, -28, -28)
    s = act(s, Declare(0, _slots(s, "4S 4H 4D")))
    assert ledger(s)["combinations"] == (72, -36, -36)


def test_mournival_numerals_twice_face_value() -> None:
    s = _declare_phase({0: cs("9S 9H 9D 9C JS JH JD JC")})
    s = act(s, Declare(0, _slots(s, "9S 9H 9D 9C")))
    assert ledger(s)["combinations"] == (72, -36, -36)
    s = act(s, Declare(0, _slots(s, "JS JH JD JC")))
    assert ledger(s)["combinations"] == (72 + 32, -52, -52)


def test_mournival_is_not_also_a_gleek() -> None:
    # First rulings: declaring is compulsory, so three of four hides a card.
    s = _declare_phase({0: cs("QS QH QD QC")}, FIRST)
    illegal(s, Declare(0, _slots(s, "QS QH QD")), seat=0)
    assert Declare(0, _slots(s, "QS QH QD QC")) in legal_actions(s, 0)
    assert EndDeclare(0) not in legal_actions(s, 0)  # declaring is compulsory
    s = act(s, Declare(0, _slots(s, "QS QH QD QC")))
    illegal(s, Declare(0, _slots(s, "QS QH QD QC")), seat=0)  # each rank once


def test_three_of_four_declared_are_paid_as_a_gleek() -> None:
    # Optional declaring: the fourth Queen is simply not declared, not paid.
    s = _declare_phase({0: cs("QS QH QD QC")})
    legal = legal_actions(s, 0)
    assert legal[0] == Declare(0, _slots(s, "QS QH QD QC"))
    assert Declare(0, _slots(s, "QS QH QD")) in legal and EndDeclare(0) in legal
    s = act(s, Declare(0, _slots(s, "QS QH QD")))
    assert ledger(s)["combinations"] == (16, -8, -8)  # a gleek of Queens, 4 from each
    illegal(s, Declare(0, _slots(s, "QS QH QD QC")), seat=0)  # each rank once


def test_declare_must_be_one_rank_from_own_hand() -> None:
    s = _declare_phase({0: cs("QS QH KD"), 1: cs("QD")})
    illegal(s, Declare(0, _slots(s, "QS QH KD")), seat=0)
    illegal(s, Declare(0, _slots(s, "QS QH QD")), seat=0)


def test_declaring_is_compulsory() -> None:
    # First rulings: "les joueurs doivent déclarer" read as "must declare".
    s = _declare_phase({0: cs("AS AH AD")}, FIRST)
    assert EndDeclare(0) not in legal_actions(s, 0)
    with pytest.raises(IllegalMove, match="must declare") as caught:
        apply(s, EndDeclare(0))
    assert caught.value.seat == 0
    s = act(s, Declare(0, _slots(s, "AS AH AD")))
    assert EndDeclare(0) in legal_actions(s, 0)


def test_hidden_combination_caught_with_full_information() -> None:
    # First rulings: a seat whose hand the engine does not know may end
    # declaring (a peer cannot see it); the full-information replay of the
    # audit refuses it.
    full = _declare_phase({0: cs("AS AH AD")}, FIRST)
    with pytest.raises(IllegalMove):
        apply(full, EndDeclare(0))
    blind = full._replace(cards=tuple(-1 if x in full.holding[0] else c
                                      for x, c in enumerate(full.cards)))
    assert apply(blind, EndDeclare(0)).turn != 0


def test_undeclared_gleek_is_not_paid() -> None:
    # "les joueurs doivent déclarer dans l'ordre": the order is compulsory,
    # declaring is not ("Déclarez vos combinaisons même si elles semblent modestes").
    s = _declare_phase({0: cs("AS AH AD"), 1: cs("KS KH KD")})
    assert EndDeclare(0) in legal_actions(s, 0)
    illegal(s, EndDeclare(1), seat=1)  # the order stays compulsory: eldest first
    illegal(s, Declare(1, _slots(s, "KS KH KD")), seat=1)
    s = act(s, EndDeclare(0))  # even with full information: nothing is hidden
    s = act(s, Declare(1, _slots(s, "KS KH KD")), EndDeclare(1), EndDeclare(2))
    assert s.phase is Phase.TRUMP
    assert ledger(s)["combinations"] == (-8, 16, -8)  # the Aces pay nothing


def test_order_of_declaring_eldest_first() -> None:
    s = _declare_phase({0: cs("AS AH AD"), 2: cs("KS KH KD")})
    assert legal_actions(s, 2) == []
    s = act(s, EndDeclare(0))
    illegal(s, Declare(2, _slots(s, "KS KH KD")), seat=2)
    s = act(s, EndDeclare(1), Declare(2, _slots(s, "KS KH KD")))
    assert s.declarations == ((2, _slots(s, "KS KH KD")),)


def test_declared_cards_go_back_to_hand() -> None:
    s = _declare_phase({0: cs("AS AH AD")})
    s = act(s, Declare(0, _slots(s, "AS AH AD")))
    assert set(_slots(s, "AS AH AD")) <= set(s.holding[0])
    assert set(_slots(s, "AS AH AD")) <= shown_slots(s)


def test_modern_combinations_value_split_between_opponents() -> None:
    # First rulings of the modern scoring: the value in total, split.
    s = _declare_phase({0: cs("AS AH AD")}, VARIANTS["modern"].first_rulings())
    s = act(s, Declare(0, _slots(s, "AS AH AD")))
    assert ledger(s)["combinations"] == (16, -8, -8)  # 8 pence in all


def test_modern_combinations_on_the_score_sheet() -> None:
    # "en points plutôt qu'en pence": a gleek of Aces is 8 points on the sheet,
    # settled against the mean like the trick points: 8 - 8/3 = 5 1/3 pence.
    s = _declare_phase({0: cs("AS AH AD"), 1: cs("KS KH KD")}, VARIANTS["modern"].rulings_of(12))
    s = act(s, Declare(0, _slots(s, "AS AH AD")))
    assert ledger(s)["combinations"] == (11, -5, -6)  # 10 2/3, -5 1/3, -5 1/3 halfpence
    s = act(s, EndDeclare(0), Declare(1, _slots(s, "KS KH KD")))
    assert ledger(s)["combinations"] == (8, 0, -8)  # sheet 8, 4, 0: mean 4


def test_modern_combinations_received_half_from_each_opponent() -> None:
    # received_scores: the declarer receives its whole value, half from each.
    s = _declare_phase({0: cs("AS AH AD"), 1: cs("KS KH KD")}, VARIANTS["modern"])
    s = act(s, Declare(0, _slots(s, "AS AH AD")))
    assert ledger(s)["combinations"] == (16, -8, -8)  # 8 pence, 4 from each
    s = act(s, EndDeclare(0), Declare(1, _slots(s, "KS KH KD")))
    # Seat 0: +8 - 4/2, seat 1: +4 - 8/2, seat 2: -8/2 - 4/2 pence.
    assert ledger(s)["combinations"] == (12, 0, -12)


# ------------------------------------------------------------------ trump and Tiddy


def test_trump_named_by_auction_winner() -> None:
    s = act(start(), PassBid(0), Bid(1, 13), PassBid(2))
    for x in s.holding[1][:7]:
        s = apply(s, Discard(1, x))
    s = no_declares(ruff_to_seat2(s))
    assert s.phase is Phase.TRUMP and to_act(s) == 1
    illegal(s, NameTrump(0, 1), seat=0)
    s = apply(s, NameTrump(1, 2))
    assert s.trump == 2 and s.phase is Phase.TIDDY


def test_kiss_means_no_trump_and_no_tiddy() -> None:
    s = no_declares(ruff_to_seat2(all_pass_auction(start())))
    s = apply(s, NameTrump(0, None))
    assert s.trump is None and s.trump_named and s.phase is Phase.TRICKS


def test_no_kiss_variant_forbids_kiss() -> None:
    s = no_declares(ruff_to_seat2(all_pass_auction(start(VARIANTS["no-kiss"]))))
    illegal(s, NameTrump(0, None), seat=0)
    assert NameTrump(0, None) not in legal_actions(s, 0)


def test_tiddy_claim_takes_2_from_each() -> None:
    s = no_declares(ruff_to_seat2(all_pass_auction(start(hands={1: cs("4H")}))))
    s = act(s, NameTrump(0, 1), NoTiddy(0))
    assert legal_actions(s, 1) == [NoTiddy(1), ClaimTiddy(1, slot(s, "4H"))]
    s = apply(s, ClaimTiddy(1, slot(s, "4H")))
    assert s.phase is Phase.TRICKS
    assert ledger(s)["tiddy"] == (-4, 8, -4)


def test_tiddy_claim_wrong_card_is_illegal() -> None:
    s = no_declares(ruff_to_seat2(all_pass_auction(start(hands={0: cs("4S 4H")}))))
    s = apply(s, NameTrump(0, 1))
    illegal(s, ClaimTiddy(0, slot(s, "4S")), seat=0)


def test_tiddy_may_be_hidden() -> None:
    s = no_declares(ruff_to_seat2(all_pass_auction(start(hands={0: cs("4H")}))))
    s = act(s, NameTrump(0, 1), NoTiddy(0), NoTiddy(1), NoTiddy(2))
    assert s.phase is Phase.TRICKS and ledger(s)["tiddy"] == (0, 0, 0)


# ------------------------------------------------------------------ tricks


def test_eldest_leads_first_trick() -> None:
    s = to_tricks(start())
    assert to_act(s) == 0 and s.trick_leader == 0


def test_follow_suit_is_enforced() -> None:
    s = to_tricks(start(hands={0: cs("KS"), 1: cs("5S AH")}))
    s = apply(s, Play(0, slot(s, "KS")))
    e = illegal(s, Play(1, slot(s, "AH")), seat=1)
    assert "follow suit" in str(e)
    assert all(s.cards[p.slot] // 11 == 0 for p in legal_actions(s, 1))  # type: ignore[union-attr]


def test_void_may_play_any_card_and_trump_wins() -> None:
    spades = [x for x in pack(STD) if x // 11 == 0]  # AS KS ... 4S
    hands = {0: [*spades[1:7], c("KH")], 1: cs("5H"), 2: [spades[0], *spades[7:]]}
    s = to_tricks(start(hands=hands), trump=1)
    s = apply(s, Play(0, slot(s, "KS")))
    s = apply(s, Play(1, slot(s, "5H")))  # void in spades: trumps
    s = apply(s, Play(2, slot(s, "AS")))
    assert s.tricks[0][2] == 1 and to_act(s) == 1


def test_highest_card_of_suit_led_wins_without_trump() -> None:
    s = to_tricks(start(hands={0: cs("QS"), 1: cs("KS"), 2: cs("5S")}), trump=None)
    s = act(s, Play(0, slot(s, "QS")), Play(1, slot(s, "KS")), Play(2, slot(s, "5S")))
    assert s.tricks[0][2] == 1


def test_play_out_of_turn_and_foreign_slot_illegal() -> None:
    s = to_tricks(start())
    illegal(s, Play(1, s.holding[1][0]), seat=1)
    illegal(s, Play(0, s.holding[1][0]), seat=0)


def test_tib_15_and_tom_9_to_captor() -> None:
    s = to_tricks(start(hands={0: cs("AH"), 1: cs("JH"), 2: cs("5H")}), trump=1)
    s = act(s, Play(0, slot(s, "AH")), Play(1, slot(s, "JH")), Play(2, slot(s, "5H")))
    assert trick_points(s) == (11 + 3 + 5 + 15 + 9, 0, 0)


def test_whist_ranking_has_no_tib() -> None:
    s = to_tricks(start(VARIANTS["whist"], hands={0: cs("AH"), 1: cs("JH"), 2: cs("5H")}), trump=1)
    s = act(s, Play(0, slot(s, "AH")), Play(1, slot(s, "JH")), Play(2, slot(s, "5H")))
    assert trick_points(s) == (11 + 3 + 5 + 9, 0, 0)


def test_four_of_trump_scores_4_other_fours_0() -> None:
    s = to_tricks(start(hands={0: cs("KH 4S"), 1: cs("4H"), 2: cs("5H AS")}), trump=1)
    s = act(s, Play(0, slot(s, "KH")), Play(1, slot(s, "4H")), Play(2, slot(s, "5H")))
    assert trick_points(s) == (3 + 4 + 5, 0, 0)
    s = act(s, Play(0, slot(s, "4S")))
    s = act(s, *(legal_actions(s, 1)[:1]))
    s = apply(s, Play(2, slot(s, "AS")))
    assert trick_points(s)[2] == 11 + sum(
        [11, 3, 3, 3, 10, 9, 8, 7, 6, 5, 0][s.cards[x] % 11] for x in s.tricks[1][1][1:2]
    )


def test_last_trick_scores_4() -> None:
    s = to_tricks(start())
    while len(s.tricks) < 11:
        s = apply(s, legal_actions(s, to_act(s))[0])  # type: ignore[arg-type]
    s = apply(s, legal_actions(s, to_act(s))[0])  # type: ignore[arg-type]
    s = apply(s, legal_actions(s, to_act(s))[0])  # type: ignore[arg-type]
    before = trick_points(s)
    seat = to_act(s)
    assert seat is not None
    s = apply(s, legal_actions(s, seat)[0])
    assert s.phase is Phase.SESSION_OVER
    after = s.ledgers[-1].trick_points
    w = s.tricks[-1][2]
    gained = sum([11, 3, 3, 3, 10, 9, 8, 7, 6, 5, 0][s.cards[x] % 11] for x in s.tricks[-1][1]) + (
        4 if c("4H") in [s.cards[x] for x in s.tricks[-1][1]] else 0
    )
    honours = sum(
        15 if s.cards[x] == c("AH") else 9 if s.cards[x] == c("JH") else 0 for x in s.tricks[-1][1]
    )
    assert after[w] - before[w] == gained + honours + 4


def test_tricks_settled_pairwise_difference() -> None:
    # First rulings: every pair settles the difference of its trick scores.
    s = finish(to_tricks(start(FIRST)))
    led = s.ledgers[-1]
    t = led.trick_points
    assert led.phases["tricks"] == tuple(
        2 * sum(t[i] - t[j] for j in range(3) if j != i) for i in range(3)
    )
    assert (
        sum(t)
        == sum(
            [11, 3, 3, 3, 10, 9, 8, 7, 6, 5, 4 if x // 11 == 1 else 0][x % 11] for x in range(44)
        )
        - sum(
            [11, 3, 3, 3, 10, 9, 8, 7, 6, 5, 4 if s.cards[x] // 11 == 1 else 0][s.cards[x] % 11]
            for x in s.talon
        )
        + 15 * (s.where[c("AH")] not in s.talon)
        + 9 * (s.where[c("JH")] not in s.talon)
        + 4
    )


def test_tricks_on_the_score_sheet_settled_against_the_mean() -> None:
    # "les combinaisons et les points de plis sont comptabilisés sur une
    # feuille de scores": seat i gets T_i - mean(T), exact to the halfpenny.
    s = finish(to_tricks(start(ISSUE12)))
    led = s.ledgers[-1]
    t = led.trick_points
    exact = [2 * (3 * x - sum(t)) / 3 for x in t]
    assert sum(led.phases["tricks"]) == 0
    assert all(abs(a - e) < 1 for a, e in zip(led.phases["tricks"], exact, strict=True))
    first = finish(to_tricks(start(FIRST))).ledgers[-1]
    assert first.trick_points == t  # the same play, a third of the money
    assert [3 * e for e in exact] == list(first.phases["tricks"])


def test_tib_captured_by_an_opponent() -> None:
    # "le joueur qui a CAPTURÉ Tib (As d'atout) dans un pli marque 15 pence":
    # seat 1 captures Tib on seat 0's lead; on the score sheet it has 5+11+6+15
    # = 37 against 0 and 0, so each opponent pays 37/3 pence (not 37 each).
    s = to_tricks(start(ISSUE12, hands={0: cs("5H"), 1: cs("AH"), 2: cs("6H")}), trump=1)
    s = act(s, Play(0, slot(s, "5H")), Play(1, slot(s, "AH")), Play(2, slot(s, "6H")))
    assert trick_points(s) == (0, 37, 0)
    # Exactly -24 2/3, +49 1/3, -24 2/3 halfpence: rounded down, the odd
    # halfpenny to the eldest (seat 0).
    assert ledger(s)["tricks"] == (-24, 49, -25)
    first = to_tricks(start(FIRST, hands={0: cs("5H"), 1: cs("AH"), 2: cs("6H")}), trump=1)
    first = act(first, Play(0, slot(first, "5H")), Play(1, slot(first, "AH")),
                Play(2, slot(first, "6H")))
    assert ledger(first)["tricks"] == (-74, 148, -74)  # first rulings: 37 from each


def test_last_trick_4_on_the_score_sheet() -> None:
    # "le gagnant du 12e et dernier pli perçoit 4 pence supplémentaires": 4 on
    # its sheet, worth 4 - 4/3 pence against the others (rulings of issue 12).
    s = to_tricks(start(ISSUE12))
    while len(s.tricks) < 11:
        s = apply(s, legal_actions(s, to_act(s))[0])  # type: ignore[arg-type]
    while len(s.trick_plays) < 2:
        s = apply(s, legal_actions(s, to_act(s))[0])  # type: ignore[arg-type]
    seat = to_act(s)
    assert seat is not None
    last = apply(s, legal_actions(s, seat)[0])
    w = last.tricks[-1][2]
    sheet = list(last.ledgers[-1].trick_points)
    without = list(sheet)
    without[w] -= 4
    assert sum(sheet) - sum(without) == 4
    exact = [(6 * x - 2 * sum(sheet)) / 3 for x in sheet]
    assert all(abs(a - e) < 1 for a, e in zip(last.ledgers[-1].phases["tricks"], exact,
                                               strict=True))


def test_tib_received_whole_half_from_each_opponent() -> None:
    # received_scores: Tib "marque 15 pence", "valant 15 pence à celui qui le
    # capture": the captor receives its whole trick score 37, 18 1/2 from each.
    s = to_tricks(start(hands={0: cs("5H"), 1: cs("AH"), 2: cs("6H")}), trump=1)
    s = act(s, Play(0, slot(s, "5H")), Play(1, slot(s, "AH")), Play(2, slot(s, "6H")))
    assert trick_points(s) == (0, 37, 0)
    assert ledger(s)["tricks"] == (-37, 74, -37)


def test_tricks_received_whole_exactly_in_halfpence() -> None:
    # Seat i gets T_i - (T_j + T_k)/2 pence: 2T_i - T_j - T_k halfpence, no rounding.
    s = finish(to_tricks(start()))
    led = s.ledgers[-1]
    t = led.trick_points
    assert led.phases["tricks"] == tuple(2 * t[i] - sum(t[j] for j in range(3) if j != i)
                                         for i in range(3))
    # The same play under the rulings of issue 12: the mean gives two thirds of it.
    mean = finish(to_tricks(start(ISSUE12))).ledgers[-1]
    assert mean.trick_points == t
    assert all(abs(2 * a - 3 * b) <= 3 for a, b in zip(led.phases["tricks"],
                                                        mean.phases["tricks"], strict=True))


def test_last_trick_received_whole() -> None:
    # "le gagnant du 12e et dernier pli perçoit 4 pence supplémentaires": the
    # last trick moves the winner's net by 4 pence more (8 halfpence) than
    # its cards alone, 2 from each opponent.
    s = to_tricks(start())
    while len(s.tricks) < 11:
        s = apply(s, legal_actions(s, to_act(s))[0])  # type: ignore[arg-type]
    while len(s.trick_plays) < 2:
        s = apply(s, legal_actions(s, to_act(s))[0])  # type: ignore[arg-type]
    seat = to_act(s)
    assert seat is not None
    last = apply(s, legal_actions(s, seat)[0])
    w = last.tricks[-1][2]
    sheet = last.ledgers[-1].trick_points
    without = tuple(x - (4 if i == w else 0) for i, x in enumerate(sheet))
    paid = last.ledgers[-1].phases["tricks"]
    assert paid == settle_received(sheet)
    assert [a - b for a, b in zip(paid, settle_received(without), strict=True)] == [
        8 if i == w else -4 for i in range(3)]


def test_twelve_tricks_per_hand() -> None:
    s = finish(to_tricks(start()))
    assert len(s.tricks) == 12 and s.phase is Phase.SESSION_OVER


# ------------------------------------------------------------------ reveals


def test_play_of_unrevealed_slot_is_protocol_error() -> None:
    s = apply(apply(new_session(STD), Cut((c("5S"), c("6S"), c("AS")))), Deal())
    s = to_tricks(s)
    with pytest.raises(ProtocolError, match="reveal before play"):
        apply(s, Play(0, s.holding[0][0]))


def test_reveal_same_card_twice_is_protocol_error() -> None:
    s = apply(apply(new_session(STD), Cut((c("5S"), c("6S"), c("AS")))), Deal())
    s = apply(s, Reveal(0, c("AS")))
    with pytest.raises(ProtocolError):
        apply(s, Reveal(1, c("AS")))
    with pytest.raises(ProtocolError):
        apply(s, Reveal(0, c("KS")))
    assert apply(s, Reveal(0, c("AS"))) == s  # repeating a reveal is harmless


def test_reveal_before_deal_and_bad_values_are_protocol_errors() -> None:
    with pytest.raises(ProtocolError):
        apply(new_session(STD), Reveal(0, 0))
    s = apply(apply(new_session(TWO), Cut((c("6S"), c("AS")))), Deal())
    with pytest.raises(ProtocolError):
        apply(s, Reveal(36, c("AS")))  # only 36 slots for two
    with pytest.raises(ProtocolError):
        apply(s, Reveal(0, c("4S")))  # no 4s in this pack


def test_partial_information_run_cannot_check_hidden_cards() -> None:
    # A seat's own run: it knows its hand, and every played card is revealed.
    full = to_tricks(start(hands={0: cs("KS"), 1: cs("5S AH")}))
    s = apply(apply(new_session(STD), Cut((c("5S"), c("6S"), c("AS")))), Deal())
    for x in full.holding[1]:
        s = apply(s, Reveal(x, full.cards[x]))
    s = to_tricks(s)
    s = act(s, Reveal(slot(full, "KS"), c("KS")), Play(0, slot(full, "KS")))
    with pytest.raises(IllegalMove):  # seat 1 knows its own spade
        apply(s, Play(1, slot(full, "AH")))


# ------------------------------------------------------------------ variants


def test_post_and_pair_ruff_then_combinations_only() -> None:
    s = start(VARIANTS["post-and-pair"], hands={0: cs("AS AH AD")})
    assert s.phase is Phase.RUFF
    s = ruff_to_seat2(s)
    s = act(s, Declare(0, _slots(s, "AS AH AD")))
    s = no_declares(s)
    assert s.phase is Phase.SESSION_OVER and s.tricks == ()
    led = s.ledgers[-1]
    assert led.phases["auction"] == led.phases["tricks"] == led.phases["tiddy"] == (0, 0, 0)
    assert led.phases["combinations"] == (32, -16, -16)
    assert led.net == (28, -20, -8)


def test_simplified_trump_by_hand_number_tiddy_first() -> None:
    s = start(VARIANTS["simplified"], hands={1: cs("4S")}, session_hands=2)
    assert s.trump == 0 and s.phase is Phase.TIDDY
    s = act(s, NoTiddy(0), ClaimTiddy(1, slot(s, "4S")))
    assert s.phase is Phase.DECLARE
    s = no_declares(s)
    assert s.phase is Phase.TRICKS
    s = finish(s)
    assert s.phase is Phase.HAND_OVER and len(s.tricks) == 12
    assert all(h == () for h in s.holding)
    assert s.ledgers[0].phases["ruff"] == s.ledgers[0].phases["auction"] == (0, 0, 0)
    assert s.ledgers[0].phases["tiddy"] == (-4, 8, -4)
    s = apply(s, Deal())
    assert s.trump == 1


def test_two_player_pack_36_hands_12_talon_12() -> None:
    s = start(TWO)
    assert len(s.cards) == 36 and len(s.talon) == 12
    assert [len(h) for h in s.holding] == [12, 12]
    assert sorted(pack(TWO)) == [x for x in range(44) if x % 11 <= 8]


def test_two_player_auction_each_speaks_once_winner_pays_whole_bid() -> None:
    s = act(start(TWO), Bid(0, 13))
    assert to_act(s) == 1
    illegal(s, Bid(1, 13), seat=1)
    s = apply(s, Bid(1, 14))
    assert s.talon_taker == 1 and s.phase is Phase.DISCARD
    assert ledger(s)["auction"] == (28, -28)
    for x in s.holding[1][:11]:
        s = apply(s, Discard(1, x))
    assert s.phase is Phase.RUFF and len(s.holding[1]) == 13


def test_two_player_no_tiddy_full_hand() -> None:
    s = act(start(TWO), PassBid(0), PassBid(1))
    s = no_declares(act(s, PassRuff(0)))
    s = act(s, NameTrump(0, 1))
    assert s.phase is Phase.TRICKS
    s = finish(s)
    assert len(s.tricks) == 12 and s.phase is Phase.SESSION_OVER
    assert all(sum(v) == 0 for v in s.ledgers[0].phases.values())


# ------------------------------------------------------------------ session


def test_session_totals_and_winner() -> None:
    s = start(session_hands=2)
    s = finish(act(s, Bid(0, 13), PassBid(1), PassBid(2)))
    first = s.ledgers[0].net
    assert session_totals(s) == first and sum(first) == 0
    s = apply(s, Deal())
    for r in reveals_for(STD, s.dealer, {}):
        s = apply(s, r)
    s = finish(s)
    assert s.phase is Phase.SESSION_OVER
    with pytest.raises(ProtocolError):
        apply(s, Deal())
    tot = session_totals(s)
    assert tot == tuple(a + b for a, b in zip(first, s.ledgers[1].net, strict=True))
    best = max(tot)
    assert session_winner(s) == (tot.index(best) if tot.count(best) == 1 else None)


def test_session_winner_none_on_tie() -> None:
    s = new_session(STD)
    assert session_winner(s) is None
    assert session_winner(s._replace(totals=(5, 5, -10))) is None
    assert session_winner(s._replace(totals=(5, 6, -11))) == 1


def test_seat_view_hides_other_hands_and_dead_talon() -> None:
    s = act(start(), Bid(0, 13), PassBid(1), PassBid(2))
    v1 = seat_view(s, 1)
    assert all(c is not None for _x, c in v1.hand)
    assert all(c is None for _x, c in v1.talon)
    v0 = seat_view(s, 0)
    assert all(c is not None for _x, c in v0.talon)
    assert v1.shown == {}
    j = v1.to_json()
    assert j["seat"] == 1 and j["phase"] == "discard" and j["legal"] == []
    import json

    json.dumps(j)


def _names(s: State, slots: Iterable[int]) -> list[str]:
    return [card_label(s.cards[x]) for x in slots]


# ------------------------------------------------------------------ the audit of issue 30


def test_eldest_speaks_vies_declares_and_leads_first_whoever_deals() -> None:
    # "le joueur à la gauche du donneur ouvre les enchères" and "le joueur à la
    # gauche du donneur entame le premier pli": seat 0 deals, so seat 1 is
    # eldest in every phase, and the ruff shows start left of the dealer.
    s = new_session(STD, 1)
    s = act(s, Cut((c("AS"), c("5S"), c("6S"))), Deal())
    assert s.dealer == 0
    for r in reveals_for(STD, 0, {1: cs("AH AC AD 4H"), 2: cs("KH KC KD")}):
        s = apply(s, r)
    assert s.phase is Phase.AUCTION and to_act(s) == 1
    s = act(s, PassBid(1), Bid(2, 13))
    illegal(s, Bid(0, 13), seat=0)  # "relancer d'au moins 1 pence"
    s = act(s, Bid(0, 14), PassBid(2))
    assert s.talon_taker == 0 and len(s.holding[0]) == 20
    assert ledger(s)["auction"] == (-28, 14, 14)  # "à 14 pence, chaque adversaire reçoit 7"
    for x in [x for x in s.holding[0] if x in s.talon][:7]:
        s = apply(s, Discard(0, x))
    assert [len(h) for h in s.holding] == [13, 12, 12]
    assert s.phase is Phase.RUFF and to_act(s) == 1
    s = act(s, Vie(1, 2), See(2), Vie(0, 1), See(1), PassRuff(2))
    assert s.phase is Phase.RUFF_SHOW and to_act(s) == 1
    for seat, suit in ((1, 1), (0, 0)):  # each shows all its hearts, resp. spades
        s = apply(s, ShowRuff(seat, suit, tuple(x for x in s.holding[seat]
                                                if s.cards[x] // 11 == suit)))
    # Seat 2 lost its ante and the 2 it saw, seat 0 or 1 took the pot of 6 + 2 + 3 + 3.
    assert ledger(s)["ruff"][2] == -8 and sum(ledger(s)["ruff"]) == 0
    assert s.phase is Phase.DECLARE and to_act(s) == 1
    s = act(s, Declare(1, _slots(s, "AH AC AD")), EndDeclare(1))
    s = act(s, Declare(2, _slots(s, "KH KC KD")), EndDeclare(2), EndDeclare(0))
    # Aces 8 and Kings 4 "payés immédiatement par chaque adversaire au déclarant".
    assert ledger(s)["combinations"] == (-24, 24, 0)
    assert s.phase is Phase.TRUMP and to_act(s) == 0  # the taker names the trump
    s = act(s, NameTrump(0, 1))
    assert s.phase is Phase.TIDDY and to_act(s) == 1
    s = act(s, ClaimTiddy(1, slot(s, "4H")))
    assert ledger(s)["tiddy"] == (-4, 8, -4)
    assert s.phase is Phase.TRICKS and to_act(s) == 1 and s.trick_leader == 1


def test_kiss_every_point_card_scores_not_only_aces_and_kings() -> None:
    # The tip "les As et les Rois deviennent les seules cartes captatrices de
    # points" against the table "A = 11, figures = 3 chacune, cartes numériques =
    # valeur nominale": the table holds under Kiss too (SPEC 1.5); only the
    # honours, which need a trump, are gone.
    s = to_tricks(start(hands={0: cs("QS"), 1: cs("JS"), 2: cs("10S")}), trump=None)
    s = act(s, Play(0, slot(s, "QS")), Play(1, slot(s, "JS")), Play(2, slot(s, "10S")))
    assert trick_points(s) == (3 + 3 + 10, 0, 0)
    s = to_tricks(start(hands={0: cs("AH"), 1: cs("JH"), 2: cs("4H")}), trump=None)
    s = act(s, Play(0, slot(s, "AH")), Play(1, slot(s, "JH")), Play(2, slot(s, "4H")))
    assert trick_points(s) == (11 + 3 + 0, 0, 0)  # no Tib, no Tom, no Tiddy


def test_auction_all_pass_the_eldest_may_name_kiss() -> None:
    # Kiss is "l'option sans atout disponible pour le gagnant des enchères"; with
    # no winner the eldest names the trump, Kiss included (SPEC 1.5).
    s = no_declares(ruff_to_seat2(all_pass_auction(start())))
    assert s.phase is Phase.TRUMP and to_act(s) == 0
    assert NameTrump(0, None) in legal_actions(s, 0)
    s = apply(s, NameTrump(0, None))
    assert s.phase is Phase.TRICKS and s.trump is None
