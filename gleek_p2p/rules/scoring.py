"""Point values and the per-hand ledger. All money is in halfpence (ints).

The public functions are what every engine (this one, a fast playout, a
search bot) should call for money, so that all agree to the halfpenny:
:func:`hand_ledger` for a whole hand, :func:`trick_points` and
:func:`combination_points` for the score sheet, :func:`settle_against_mean`
and :func:`settle_pairwise` to turn a score sheet into money.
"""

from __future__ import annotations

from collections.abc import Iterable

from .cards import RANKS_PER_SUIT, Rank
from .honours import honour_cards
from .state import PHASE_NAMES, HandLedger, State
from .variant import Variant

__all__ = [
    "ANTE",
    "LAST_TRICK",
    "TIB",
    "TIDDY_PAYMENT",
    "TOM",
    "card_points",
    "combination_points",
    "combination_value",
    "hand_ledger",
    "ledger_after_trick",
    "ruff_points",
    "ruff_value",
    "settle_against_mean",
    "settle_combinations",
    "settle_pairwise",
    "settle_received",
    "settle_tricks",
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


_TRICK_TABLES: dict[tuple[int | None, bool], tuple[int, ...]] = {}


def _trick_table(trump: int | None, whist: bool) -> tuple[int, ...]:
    """Per card: its trick points plus Tib or Tom (one lookup per captured card)."""
    key = (trump, whist)
    table = _TRICK_TABLES.get(key)
    if table is None:
        named = honour_cards(trump, Variant(whist_ranking=whist))
        tib, tom = (-1 if c is None else c for c in (named["Tib"], named["Tom"]))
        table = _TRICK_TABLES[key] = tuple(
            card_points(c, trump) + (TIB if c == tib else TOM if c == tom else 0)
            for c in range(4 * RANKS_PER_SUIT)
        )
    return table


def trick_points(state: State) -> tuple[int, ...]:
    """Each seat's trick score T_i (pence) from the finished tricks so far."""
    v = state.variant
    tricks = state.tricks
    pts = [0] * v.players
    if not tricks:
        return tuple(pts)
    table = _trick_table(state.trump, v.whist_ranking)
    cards = state.cards
    # Search scores every playout: a plain loop is 2-3 times faster here
    # than sum(map(...)), whose two map objects per trick cost more than
    # the three additions.
    for _leader, slots, winner in tricks:
        got = 0
        for x in slots:
            got += table[cards[x]]
        pts[winner] += got
    if len(tricks) == v.tricks:
        pts[tricks[-1][2]] += LAST_TRICK
    return tuple(pts)


def combination_points(state: State) -> tuple[int, ...]:
    """Each seat's combination score: the values of the combinations it declared."""
    pts = [0] * state.variant.players
    cards = state.cards
    for seat, slots in state.declarations:
        pts[seat] += combination_value(cards[slots[0]] % RANKS_PER_SUIT, len(slots))
    return tuple(pts)


def settle_pairwise(scores: tuple[int, ...]) -> tuple[int, ...]:
    """Every pair pays the difference of its scores: seat i gets n*s_i - sum(s) pence.

    In halfpence. The first rulings' trick settlement (``score_sheet_tricks`` off).
    """
    n = len(scores)
    total = sum(scores)
    return tuple([2 * (n * t - total) for t in scores])


def settle_against_mean(scores: tuple[int, ...], first: int) -> tuple[int, ...]:
    """A score sheet settled zero-sum: seat i gets s_i - mean(s) pence, in halfpence.

    Exactly ``2*s_i - 2*sum(s)/n`` halfpence. With three seats that can be a
    third of a halfpenny off a whole one; as every seat's amount has the same
    fraction, each is rounded down and the 0, 1 or 2 halfpence left over go
    one each to the seats from ``first`` (the eldest hand) clockwise. Every
    amount is an integer, the amounts sum to zero, and none is more than a
    halfpenny from its exact value. The eldest changes every hand, so over a
    session in which each seat deals equally the remainders even out.
    """
    n = len(scores)
    total = sum(scores)
    got = [(2 * (n * t - total)) // n for t in scores]
    left = -sum(got)
    for k in range(left):
        got[(first + k) % n] += 1
    return tuple(got)


def settle_received(scores: tuple[int, ...]) -> tuple[int, ...]:
    """Each seat receives its whole score, an equal share from each opponent; in halfpence.

    Seat i gets s_i from its opponents (s_i/(n-1) from each) and pays each
    opponent j its share s_j/(n-1): with three seats s_i - (s_j + s_k)/2
    pence, ``2*s_i - s_j - s_k`` halfpence; with two, s_i - s_j pence. Exact
    (no rounding), integer, zero-sum. The trick settlement of ``received_scores``.
    """
    n = len(scores)
    total = sum(scores)
    return tuple([2 * (n * t - total) // (n - 1) for t in scores])


def settle_tricks(scores: tuple[int, ...], v: Variant, eldest: int) -> tuple[int, ...]:
    """The tricks phase in halfpence from the trick scores, under the variant's rulings."""
    if v.received_scores:
        return settle_received(scores)
    if v.score_sheet_tricks:
        return settle_against_mean(scores, eldest)
    return settle_pairwise(scores)


def settle_combinations(scores: tuple[int, ...], v: Variant, eldest: int) -> tuple[int, ...]:
    """The combinations phase in halfpence from each seat's declared values.

    A value from each opponent (the texts' payment); with
    ``modern_combinations`` the value in total: received whole, half from
    each opponent (``received_scores``, and the first rulings, which split it
    the same way), or on the score sheet against the mean.
    """
    n = len(scores)
    total = sum(scores)
    if not v.modern_combinations:
        return tuple([2 * (n * c - total) for c in scores])
    if v.score_sheet_combinations and not v.received_scores:
        return settle_against_mean(scores, eldest)
    return settle_received(scores)


def hand_ledger(state: State) -> HandLedger:
    """The current hand's ledger from public information (final once the hand is over).

    Settlement, in halfpence: auction winner pays 2*bid split between the
    others; ruff: each loses ante + put, the winner takes the pot; a
    combination of value v gets v pence from each opponent, or with
    ``modern_combinations`` see :func:`settle_combinations`; Tiddy: 2 pence
    from each opponent; tricks: :func:`settle_tricks` (each seat receives its
    trick score, half from each opponent; the rulings of issue 12: against
    the mean; first rulings: :func:`settle_pairwise`).
    """
    v = state.variant
    n = v.players
    others = n - 1
    zero = (0,) * n
    eldest = (state.dealer + 1) % n

    tiddy = zero
    claimant = state.tiddy_claimant
    if claimant >= 0:
        paid = [-2 * TIDDY_PAYMENT] * n
        paid[claimant] = 2 * TIDDY_PAYMENT * others
        tiddy = tuple(paid)

    auction = zero
    taker = state.talon_taker
    if taker >= 0:
        bid = state.high_bid
        got = [2 * bid // others] * n
        got[taker] = -2 * bid
        auction = tuple(got)

    ruff = zero
    if state.ruff_played and state.ruff_winner >= 0:
        lost = [-2 * (ANTE + put) for put in state.ruff_put]
        lost[state.ruff_winner] -= sum(lost)
        ruff = tuple(lost)

    comb = zero
    if state.declarations:
        comb = settle_combinations(combination_points(state), v, eldest)

    tp = trick_points(state)
    tricks = settle_tricks(tp, v, eldest)

    return HandLedger(
        hand=state.hand_no,
        dealer=state.dealer,
        phases=dict(zip(PHASE_NAMES, (tiddy, auction, ruff, comb, tricks), strict=True)),
        trick_points=tp,
    )


def ledger_after_trick(before: HandLedger, state: State) -> HandLedger:
    """``hand_ledger(state)``, given ``before``: the ledger of ``state`` without its last trick.

    Only that trick may differ between the two states (the view's memo
    checks this); it then costs one trick instead of the whole hand.
    """
    v = state.variant
    tricks = state.tricks
    _leader, slots, winner = tricks[-1]
    table = _trick_table(state.trump, v.whist_ranking)
    cards = state.cards
    pts = list(before.trick_points)
    pts[winner] += sum([table[cards[x]] for x in slots])
    if len(tricks) == v.tricks:
        pts[winner] += LAST_TRICK
    tp = tuple(pts)
    phases = dict(before.phases)
    phases["tricks"] = settle_tricks(tp, v, (before.dealer + 1) % v.players)
    return HandLedger(hand=before.hand, dealer=before.dealer, phases=phases, trick_points=tp)
