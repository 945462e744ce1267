"""Point values and the per-hand ledger. All money is in halfpence (ints)."""

from __future__ import annotations

from collections.abc import Iterable

from .cards import RANKS_PER_SUIT, Rank
from .state import PHASE_NAMES, HandLedger, State

__all__ = [
    "ANTE",
    "LAST_TRICK",
    "TIB",
    "TIDDY_PAYMENT",
    "TOM",
    "card_points",
    "combination_value",
    "hand_ledger",
    "ruff_points",
    "ruff_value",
    "trick_points",
]

ANTE = 2
"""Ruff ante, pence per seat."""
TIB = 15
TOM = 9
LAST_TRICK = 4
TIDDY_PAYMENT = 2
"""Pence the Tiddy claimant gets from each opponent."""

# A 11, K Q J 3, 10..5 face value, 4 nothing (it counts only as Tiddy).
_POINTS = (11, 3, 3, 3, 10, 9, 8, 7, 6, 5, 0)
_GLEEK = (8, 4, 4, 4, 10, 9, 8, 7, 6, 5, 4)


def ruff_points(c: int) -> int:
    """A card's value in the ruff: A 11, K Q J 3, numerals face value, 4s 0."""
    return _POINTS[c % RANKS_PER_SUIT]


def ruff_value(cards: Iterable[int]) -> int:
    """Value of a ruff show: the sum of :func:`ruff_points`."""
    return sum(_POINTS[c % RANKS_PER_SUIT] for c in cards)


def card_points(c: int, trump: int | None) -> int:
    """A captured card's trick points: as in the ruff, plus 4 for the Four of trump."""
    r = c % RANKS_PER_SUIT
    if r == Rank.FOUR:
        return 4 if trump is not None and c // RANKS_PER_SUIT == trump else 0
    return _POINTS[r]


def combination_value(rank: int, count: int) -> int:
    """Pence of a gleek (count 3) or mournival (count 4) of ``rank``.

    Gleek: A 8, K Q J 4, numerals face value; mournival: twice that.
    """
    if count not in (3, 4):
        raise ValueError("a combination has 3 or 4 cards")
    return _GLEEK[rank] * (2 if count == 4 else 1)


def trick_points(state: State) -> tuple[int, ...]:
    """Each seat's trick score T_i (pence) from the finished tricks so far."""
    v = state.variant
    n = v.players
    trump = state.trump
    cards = state.cards
    pts = [0] * n
    tib = -1 if trump is None or v.whist_ranking else trump * RANKS_PER_SUIT + Rank.ACE
    tom = -1 if trump is None else trump * RANKS_PER_SUIT + Rank.JACK
    for _leader, slots, winner in state.tricks:
        for s in slots:
            c = cards[s]
            pts[winner] += card_points(c, trump)
            if c == tib:
                pts[winner] += TIB
            elif c == tom:
                pts[winner] += TOM
    if state.tricks and len(state.tricks) == v.tricks:
        pts[state.tricks[-1][2]] += LAST_TRICK
    return tuple(pts)


def hand_ledger(state: State) -> HandLedger:
    """The current hand's ledger from public information (final once the hand is over).

    Settlement, in halfpence: auction winner pays 2*bid split between the
    others; ruff: each loses ante + put, the winner takes the pot; a
    combination of value v gets v pence from each opponent (modern: v in
    total, split); Tiddy: 2 pence from each opponent; tricks: every pair
    settles the difference, so seat i gets n*T_i - sum(T) pence.
    """
    v = state.variant
    n = v.players
    others = n - 1
    zero = [0] * n

    tiddy = list(zero)
    if state.tiddy_claimant >= 0:
        for i in range(n):
            tiddy[i] = -2 * TIDDY_PAYMENT
        tiddy[state.tiddy_claimant] = 2 * TIDDY_PAYMENT * others

    auction = list(zero)
    if state.talon_taker >= 0:
        bid = state.high_bid
        for i in range(n):
            auction[i] = 2 * bid // others
        auction[state.talon_taker] = -2 * bid

    ruff = list(zero)
    if state.ruff_played and state.ruff_winner >= 0:
        pot = 0
        for i in range(n):
            put = 2 * (ANTE + state.ruff_put[i])
            ruff[i] = -put
            pot += put
        ruff[state.ruff_winner] += pot

    comb = list(zero)
    for seat, slots in state.declarations:
        value = 2 * combination_value(state.cards[slots[0]] % RANKS_PER_SUIT, len(slots))
        each = value // others if v.modern_combinations else value
        for i in range(n):
            if i != seat:
                comb[i] -= each
                comb[seat] += each

    tp = trick_points(state)
    total = sum(tp)
    tricks = [2 * (n * t - total) for t in tp]

    amounts = (tiddy, auction, ruff, comb, tricks)
    return HandLedger(
        hand=state.hand_no,
        dealer=state.dealer,
        phases={name: tuple(a) for name, a in zip(PHASE_NAMES, amounts, strict=True)},
        trick_points=tp,
    )
