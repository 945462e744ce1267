"""Positions a card player saw the strong bot get wrong (issue 21), each a fixed view.

Each test builds the hand with the engine, gives the strong bot the view of
its seat at its default budget (``budget_for(None)``: the playout count of
``--think 300``, reproducible) and checks it does not make the move the
card player rejected.
"""

from __future__ import annotations

from gleek_p2p.bots.search import SearchStrategy, budget_for
from gleek_p2p.rules import (
    VARIANTS,
    Cut,
    Deal,
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
    Vie,
    apply,
    legal_actions,
    new_session,
    parse_card,
    seat_view,
    to_act,
)
from gleek_p2p.rules.simulate import reveals_for

STD = VARIANTS["standard"]


def _cards(names: str) -> list[int]:
    return [parse_card(x) for x in names.split()]


def _deal(hands: dict[int, str], talon: str) -> State:
    """Seat 2 deals, seat 0 is eldest; every card where the position puts it."""
    s = apply(new_session(STD, 1), Cut(tuple(_cards("5S 6S AS"))))
    s = apply(s, Deal())
    for r in reveals_for(STD, s.dealer, {k: _cards(v) for k, v in hands.items()},
                         _cards(talon)):
        s = apply(s, r)
    return s


def _act(s: State, *events: Event) -> State:
    for e in events:
        s = apply(s, e)
    return s


def _to_trump(s: State, trump: int) -> State:
    while s.phase is Phase.DECLARE:
        s = apply(s, legal_actions(s, s.turn)[0])
    s = apply(s, NameTrump(0, trump))
    while s.phase is Phase.TIDDY:
        s = apply(s, NoTiddy(s.turn))
    return s


def _slot(s: State, name: str) -> int:
    return s.where[parse_card(name)]


def _strong_move(s: State) -> Event:
    seat = to_act(s)
    assert seat is not None
    bot = SearchStrategy(b"positions", budget_for(None, reproducible=True))
    return bot.choose(seat_view(s, seat), legal_actions(s, seat))


# Twelve cards each and the talon: every card of the pack placed.
_A = {
    0: "KS QS 8S AH KH QH JH AD KD QD AC KC",
    1: "AS JS 6S 4S TH 8H 7H 5H 4H JD TD 9D",
    2: "TS 9S 7S 5S 5D 6D 7D 8C 6C 4C 9H 6H",
}
_A_TALON = "8D 4D QC JC TC 9C 7C 5C"


def test_no_ten_thrown_onto_a_trick_an_opponent_wins() -> None:
    # Seat 0 leads K♠, seat 1 takes it with A♠; seat 2 must follow with
    # 10♠ 9♠ 7♠ 5♠ and cannot win: a card player throws the 5♠, never the
    # 10♠ or the 9♠ (points handed to the opponent for nothing).
    s = _act(_deal(_A, _A_TALON), PassBid(0), PassBid(1), PassBid(2), PassRuff(0), PassRuff(1))
    s = _to_trump(s, 1)  # hearts
    s = _act(s, Play(0, _slot(s, "KS")), Play(1, _slot(s, "AS")))
    move = _strong_move(s)
    assert isinstance(move, Play)
    assert s.cards[move.slot] not in _cards("TS 9S"), s.cards[move.slot]


_B = {
    0: "KC 5C AS KS QS AH KH AD KD QD JD TD",
    1: "AC JC 9C 8C 7C JS TS QH JH 9D 8D 7D",
    2: "QC 6C 4C 9S 8S 7S TH 9H 8H 6D 5D 4D",
}
_B_TALON = "TC 6S 5S 4S 7H 6H 5H 4H"


def test_no_king_led_into_a_shown_tib() -> None:
    # At the ruff seat 1 showed its clubs, A♣ (Tib once clubs are trump) and
    # J♣ among them; clubs are trump. Leading the K♣ into the Ace a player
    # has shown only gives it the King: a card player leads something else.
    s = _act(_deal(_B, _B_TALON), PassBid(0), PassBid(1), PassBid(2),
             Vie(0, 1), See(1), PassRuff(2))
    assert s.phase is Phase.RUFF_SHOW
    diamonds = tuple(sorted(_slot(s, x) for x in ["AD", "KD", "QD", "JD", "TD"]))
    clubs = tuple(sorted(_slot(s, x) for x in ["AC", "JC", "9C", "8C", "7C"]))
    s = _act(s, ShowRuff(0, 2, diamonds), ShowRuff(1, 3, clubs))
    s = _to_trump(s, 3)  # clubs
    assert to_act(s) == 0 and s.phase is Phase.TRICKS
    move = _strong_move(s)
    assert isinstance(move, Play)
    assert s.cards[move.slot] != parse_card("KC")


def test_no_raise_on_a_weak_ruff_when_both_opponents_vie() -> None:
    # Both opponents have raised the ruff to 15; seat 0's best suit is worth
    # 20 (A♥ K♥ Q♥ J♥). A card player does not raise again (all three vying
    # to the cap in one hand is what the card player saw).
    s = _act(_deal(_A, _A_TALON), PassBid(0), PassBid(1), PassBid(2),
             Vie(0, 5), Vie(1, 5), Vie(2, 5))
    assert to_act(s) == 0 and s.ruff_stake == 15
    move = _strong_move(s)
    assert not isinstance(move, Vie), move


def test_the_strong_bot_bids_to_the_mean_of_its_estimates_and_stops() -> None:
    # The search prices the lowest bid against passing (the margin, in
    # halfpence); the worth it implies, raised by the playouts' measured
    # shortfall, is averaged over the hand's turns, so one noisy estimate
    # does not carry the bid on. An estimate made while nobody held a bid
    # (passing then leaves the talon to nobody) is not averaged with those
    # made against a bidder.
    from gleek_p2p.bots.search import TALON_UNDERVALUED
    from gleek_p2p.rules import Bid

    bot = SearchStrategy(b"bids", budget_for(None, reproducible=True))
    s = _deal(_A, _A_TALON)

    def turn(s: State, worth: float) -> Event:
        """The bot's move when its corrected estimate of the talon is ``worth``."""
        view = seat_view(s, 0)
        legal = legal_actions(s, 0)
        lowest = legal[1]
        assert isinstance(lowest, Bid)
        margin = 2 * (worth - TALON_UNDERVALUED - lowest.amount - view.high_bid / 2)
        return bot._bid(view, legal, lowest, margin)

    # Worth 100 at the opening: a third of the way from 13 to 100.
    assert turn(s, 100) == Bid(0, 42)
    s = _act(s, Bid(0, 42), Bid(1, 60), PassBid(2))
    # Against a bidder, 160, less the 30 passing would bring: a third of the way
    # from 61 to 130 (averaged with the opening's 100, it would have stopped at 74).
    assert turn(s, 160) == Bid(0, 84)
    s = _act(s, Bid(0, 84), Bid(1, 120))
    # Worth 100 again: the mean, 130, less 60 from passing is below 121: pass.
    assert turn(s, 100) == PassBid(0)
    # Another deal starts a new mean.
    other = _deal({0: _A[1], 1: _A[0], 2: _A[2]}, _A_TALON)
    assert turn(other, 100) == Bid(0, 42)


def test_the_strong_bot_passes_a_price_near_the_bound() -> None:
    from gleek_p2p.rules import Bid

    s = _act(_deal(_A, _A_TALON), Bid(0, 13), Bid(1, 400), PassBid(2))
    assert to_act(s) == 0
    assert _strong_move(s) == PassBid(0)
