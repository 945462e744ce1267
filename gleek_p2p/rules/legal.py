"""The legal-move generators, over plain data: one per move kind, and per phase.

The engine's ``legal_actions`` and the playout hand's ``FastHand.legal``
both list their moves with these, so the two cannot drift apart: each
takes the seat and only the fields it reads (any sequences, so the engine
passes its tuples and the playout hand its lists) and returns the moves
in the engine's order. A phase of several kinds (the auction, the ruff,
declaring, the Tiddy) has its kinds' generators and one for the whole
phase, their lists in order, computed once. A slot whose card this engine does not know (-1)
is listed only where the rules need no card (a discard); a move without a
payload beyond seat and a number is a shared instance (events are
immutable, and search asks for the same lists thousands of times).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from .cards import RANKS_PER_SUIT
from .events import (
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
    Play,
    See,
    ShowRuff,
    Vie,
)
from .limits import MAX_RAISE, MIN_RAISE, OPENING_BID, lowest_bid, raise_top

__all__ = [
    "DISCARDS",
    "PLAYS",
    "VIES",
    "auction_moves",
    "bid_events",
    "bid_moves",
    "claim_tiddy_moves",
    "declare_moves",
    "declare_options",
    "declaring_moves",
    "discard_moves",
    "end_declare_moves",
    "no_tiddy_moves",
    "pass_bid_moves",
    "pass_ruff_moves",
    "play_moves",
    "ruff_moves",
    "see_moves",
    "show_moves",
    "tiddy_moves",
    "trump_moves",
    "vie_moves",
]

_R = RANKS_PER_SUIT
PLAYS = tuple(tuple(Play(seat, x) for x in range(44)) for seat in range(3))
"""``PLAYS[seat][slot]``: the shared ``Play`` events."""
DISCARDS = tuple(tuple(Discard(seat, x) for x in range(44)) for seat in range(3))
"""``DISCARDS[seat][slot]``: the shared ``Discard`` events."""
VIES = tuple(tuple(Vie(seat, r) for r in range(MAX_RAISE + 1)) for seat in range(3))
"""``VIES[seat][raise_by]``: the shared ``Vie`` events (under ``MIN_RAISE`` unused)."""
_PASS_BID = tuple(PassBid(seat) for seat in range(3))
_PASS_RUFF = tuple(PassRuff(seat) for seat in range(3))
_SEE = tuple(See(seat) for seat in range(3))
_END_DECLARE = tuple(EndDeclare(seat) for seat in range(3))
_NO_TIDDY = tuple(NoTiddy(seat) for seat in range(3))
_TRUMPS = tuple(tuple(NameTrump(seat, suit) for suit in (0, 1, 2, 3, None)) for seat in range(3))
_BIDS: dict[tuple[int, int], tuple[Event, ...]] = {}
"""Per (seat, highest bid): the pass, then every bid from the opening bid up."""
_RANK_UNIT = (*(1 << 3 * (c % _R) for c in range(4 * _R)), 0)
"""Per card id: one in its rank's field of three bits (``declare_options``); -1 reads 0."""
_ONES = sum(1 << 3 * rank for rank in range(_R))
_TOPS = _ONES << 2


# ---------------------------------------------------------------- the auction


def _bids(seat: int, high: int) -> tuple[Event, ...]:
    """The pass, then every bid from the opening bid to ``high`` (built once per pair)."""
    bids = _BIDS.get((seat, high))
    if bids is None:
        bids = _BIDS[seat, high] = (
            PassBid(seat),
            *(Bid(seat, a) for a in range(OPENING_BID, high + 1)),
        )
    return bids


def bid_events(seat: int, low: int, high: int) -> list[Event]:
    """Pass, then every bid from ``low`` to ``high`` (shared instances: the search asks often)."""
    bids = _bids(seat, high)
    return [bids[0], *bids[low - OPENING_BID + 1:]]


def auction_moves(seat: int, high_bid: int, top: int) -> list[Event]:
    """The auction: pass, then every bid above ``high_bid`` (0: none yet) up to ``top``."""
    return bid_events(seat, lowest_bid(high_bid), top)


def pass_bid_moves(seat: int) -> list[Event]:
    """The auction's pass."""
    return [_PASS_BID[seat]]


def bid_moves(seat: int, high_bid: int, top: int) -> list[Event]:
    """The auction's bids: every one above ``high_bid`` up to ``top``."""
    return list(_bids(seat, top)[lowest_bid(high_bid) - OPENING_BID + 1:])


# ---------------------------------------------------------------- the discard and the ruff


def discard_moves(seat: int, hand: Sequence[int]) -> list[Event]:
    """The discard: any slot of the taker's hand (it need not know the card to name it)."""
    discards = DISCARDS[seat]
    return [discards[x] for x in hand]


def ruff_moves(seat: int, put: int, stake: int) -> list[Event]:
    """The vying: pass, see (when ``put`` is under the ``stake``), then each raise allowed."""
    out: list[Event] = [_PASS_RUFF[seat]]
    if put < stake:
        out.append(_SEE[seat])
    out.extend(VIES[seat][MIN_RAISE : raise_top(stake) + 1])
    return out


def pass_ruff_moves(seat: int) -> list[Event]:
    """The vying's pass."""
    return [_PASS_RUFF[seat]]


def see_moves(seat: int, put: int, stake: int) -> list[Event]:
    """The vying's see, when ``put`` is under the ``stake``."""
    return [_SEE[seat]] if put < stake else []


def vie_moves(seat: int, stake: int) -> list[Event]:
    """The vying's raises allowed at ``stake``."""
    return list(VIES[seat][MIN_RAISE : raise_top(stake) + 1])


def show_moves(seat: int, hand: Sequence[int], cards: Sequence[int]) -> list[Event]:
    """The ruff showdown: one show per suit held, all its (known) cards."""
    split: list[list[int]] = [[], [], [], []]
    for x in hand:
        c = cards[x]
        if c >= 0:
            split[c // _R].append(x)
    return [ShowRuff(seat, suit, tuple(slots)) for suit, slots in enumerate(split) if slots]


# ---------------------------------------------------------------- declaring


def declare_options(seat: int, hand: Sequence[int], cards: Sequence[int],
                    declarations: Sequence[tuple[int, tuple[int, ...]]],
                    optional: bool) -> tuple[list[tuple[int, ...]], bool]:
    """The slots of each declaration open to ``seat`` (in the order of
    :func:`declaring_moves`), and whether it may end declaring now.

    Without the events: the random playout picks one by index, and an
    event costs more to build than the pick.
    """
    # Each rank's count in a field of three bits, summed in one pass; adding
    # one to every field sets its top bit where the count is 3 or 4. An
    # unknown card (-1) reads the table's last entry, 0.
    unit = _RANK_UNIT
    counts = 0
    for x in hand:
        counts += unit[cards[x]]
    thrice = (counts + _ONES) & _TOPS
    out: list[tuple[int, ...]] = []
    if thrice:
        for who, slots in declarations:
            if who == seat:
                thrice &= ~(4 << 3 * (cards[slots[0]] % _R))
        while thrice:
            top = thrice & -thrice  # the lowest rank left
            thrice ^= top
            rank = top.bit_length() // 3 - 1
            group = tuple([x for x in hand if cards[x] >= 0 and cards[x] % _R == rank])
            out.append(group)
            if len(group) == 4 and optional:
                out.extend(itertools.combinations(group, 3))
    return out, optional or not out or any(cards[x] < 0 for x in hand)


def declaring_moves(seat: int, hand: Sequence[int], cards: Sequence[int],
                    declarations: Sequence[tuple[int, tuple[int, ...]]],
                    optional: bool) -> list[Event]:
    """Declaring: each rank of three or four known cards not declared yet, then the end.

    Under optional declaring three of four may be shown too (a gleek), and
    ending is always allowed; under compulsory declaring ending is listed
    only once nothing is left to declare, or while a card of the hand is
    unknown (the full-information replay of the audit asks again).
    """
    groups, may_end = declare_options(seat, hand, cards, declarations, optional)
    out: list[Event] = [Declare(seat, slots) for slots in groups]
    if may_end:
        out.append(_END_DECLARE[seat])
    return out


def declare_moves(seat: int, hand: Sequence[int], cards: Sequence[int],
                  declarations: Sequence[tuple[int, tuple[int, ...]]],
                  optional: bool) -> list[Event]:
    """Declaring's declarations (:func:`declaring_moves` without the end)."""
    return [Declare(seat, slots)
            for slots in declare_options(seat, hand, cards, declarations, optional)[0]]


def end_declare_moves(seat: int, hand: Sequence[int], cards: Sequence[int],
                      declarations: Sequence[tuple[int, tuple[int, ...]]],
                      optional: bool) -> list[Event]:
    """Declaring's end, when the rulings allow it now (:func:`declaring_moves`)."""
    may_end = declare_options(seat, hand, cards, declarations, optional)[1]
    return [_END_DECLARE[seat]] if may_end else []


# ---------------------------------------------------------------- trump, Tiddy, tricks


def trump_moves(seat: int, kiss: bool) -> list[Event]:
    """Naming the trump: each suit, and no trump (Kiss) where it is allowed."""
    names = _TRUMPS[seat]
    return list(names if kiss else names[:4])


def tiddy_moves(seat: int, hand: Sequence[int], four_slot: int) -> list[Event]:
    """The Tiddy: pass, and the claim when ``seat`` holds the Four of trump at ``four_slot``.

    ``four_slot`` is where the Four of trump lies (-1 unknown to this engine).
    """
    if four_slot >= 0 and four_slot in hand:
        return [_NO_TIDDY[seat], ClaimTiddy(seat, four_slot)]
    return [_NO_TIDDY[seat]]


def no_tiddy_moves(seat: int) -> list[Event]:
    """The Tiddy's pass."""
    return [_NO_TIDDY[seat]]


def claim_tiddy_moves(seat: int, hand: Sequence[int], four_slot: int) -> list[Event]:
    """The Tiddy's claim, when ``seat`` holds the Four of trump (:func:`tiddy_moves`)."""
    return tiddy_moves(seat, hand, four_slot)[1:]


def play_moves(seat: int, hand: Sequence[int], cards: Sequence[int],
               trick_plays: Sequence[int]) -> list[Event]:
    """The tricks: the cards of the suit led if ``seat`` holds any, else every known card."""
    plays = PLAYS[seat]
    if trick_plays:
        led = cards[trick_plays[0]] // _R
        # An unknown slot (-1) has suit -1: never listed as following.
        follow: list[Event] = [plays[x] for x in hand if cards[x] // _R == led]
        if follow:
            return follow
    return [plays[x] for x in hand if cards[x] >= 0]
