"""The table's numeric limits, each stated once.

The engine enforces them, the wire decoder bounds its fields by them, and
the shell's words quote them (``limits()``, ``rulings_in_force``), so no
room repeats a number.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .cards import pack
from .scoring import (
    ANTE,
    LAST_TRICK,
    TIB,
    TIDDY_PAYMENT,
    TOM,
    card_points,
    combination_value,
    settle_combinations,
    settle_tricks,
)
from .state import State
from .variant import RULINGS, Variant

__all__ = [
    "BID_STEP",
    "FIRST_MAX_BID",
    "MAX_RAISE",
    "MAX_STAKE",
    "MIN_RAISE",
    "OPENING_BID",
    "WIRE_MAX_BID",
    "Limits",
    "bid_range",
    "limits",
    "lowest_bid",
    "max_bid",
    "most_paid",
    "raise_range",
    "raise_top",
    "rulings_in_force",
]

OPENING_BID = 13
"""The lowest first bid for the talon, in pence (each later bid at least :data:`BID_STEP` more)."""
BID_STEP = 1
"""The least a bid for the talon must add to the last one, in pence."""
FIRST_MAX_BID = 99
"""The table ceiling on bids of the logs written before ``open_auction`` (SPEC 1.5)."""
WIRE_MAX_BID = 999
"""The largest bid the wire admits: three digits, above :func:`max_bid` of every variant."""
MIN_RAISE = 1
"""Smallest raise of the ruff stake, in pence."""
MAX_RAISE = 5
"""Largest single raise of the ruff stake, in pence."""
MAX_STAKE = 20
"""Table limit on the ruff stake (pence over the ante), so vying ends."""


@dataclass(frozen=True)
class Limits:
    """Every limit at once, for words and for bots."""

    opening_bid: int
    bid_step: int
    max_bid: int
    min_raise: int
    max_raise: int
    max_stake: int
    ante: int
    tiddy_payment: int
    unit: str
    """The unit all stakes and payments are counted in (a penny; halfpence appear
    only in settled means)."""


def limits(variant: Variant | None = None) -> Limits:
    """The table's limits under ``variant`` (the standard game of new sessions if None)."""
    v = Variant() if variant is None else variant
    return Limits(OPENING_BID, BID_STEP, max_bid(v), MIN_RAISE, MAX_RAISE, MAX_STAKE, ANTE,
                  TIDDY_PAYMENT, "penny")


def _best_combinations(cards: int, ranks: int) -> int:
    """The most a seat holding ``cards`` cards can declare: gleeks and mournivals of ``ranks``."""
    best = [0] * (cards + 1)  # best[k]: most value from k cards (a knapsack over the ranks)
    for rank in range(ranks):
        for k in range(cards, 2, -1):
            for count in (3, 4):
                if count <= k:
                    best[k] = max(best[k], best[k - count] + combination_value(rank, count))
    return max(best)


@cache
def most_paid(v: Variant) -> dict[str, int]:
    """Per phase after the auction, the most it can pay one seat in one hand, in pence.

    Each is an upper bound, from the variant's own settlement applied to the
    most one seat can score while the others score nothing: ``tiddy`` 2 from
    each opponent; ``ruff`` the whole stake limit and ante from each;
    ``combinations`` the best gleeks and mournivals the seat can hold (13
    cards when it took the talon); ``tricks`` every card of the pack captured,
    the Four of trump, Tib, Tom and the last trick. No deal reaches all of
    them at once (only 36 of the 44 cards are played, and the cards of three
    mournivals are cards another phase needs), so their sum is far above
    what a talon can be worth.
    """
    n = v.players
    alone = (1,) + (0,) * (n - 1)
    tiddy = TIDDY_PAYMENT * (n - 1) if v.has_tricks and v.has_fours else 0
    ruff = (ANTE + MAX_STAKE) * (n - 1) if v.has_ruff else 0
    held = v.hand_size + (v.talon_size - v.discard_count if v.has_auction else 0)
    best = _best_combinations(held, v.lowest_rank + 1)
    comb = settle_combinations(tuple(best * x for x in alone), v, 0)[0]
    tricks = 0
    if v.has_tricks:
        trump = 0
        score = sum(card_points(c, trump) for c in pack(v)) + TOM + LAST_TRICK
        score += 0 if v.whist_ranking else TIB
        tricks = settle_tricks(tuple(score * x for x in alone), v, 0)[0]
    # The settlements are in halfpence; round up to whole pence.
    return {"tiddy": tiddy, "ruff": ruff, "combinations": -(-comb // 2),
            "tricks": -(-tricks // 2)}


def max_bid(v: Variant) -> int:
    """The highest bid for the talon under ``v``, in pence.

    With ``open_auction`` (SPEC 1.5): the most the phases after the auction
    can pay one seat in one hand (:func:`most_paid`), so that a bid above it
    would lose the taker money whatever the cards; 448 in the standard game.
    Without it, the table ceiling of the first logs, 99.
    """
    if not v.open_auction:
        return FIRST_MAX_BID
    return sum(most_paid(v).values())


def lowest_bid(high_bid: int) -> int:
    """The lowest bid allowed over ``high_bid`` (0: no bid yet): 13 to open, then one more."""
    return OPENING_BID if high_bid == 0 else high_bid + BID_STEP


def bid_range(state: State) -> tuple[int, int]:
    """The lowest and highest bid allowed now: 13 to open, then one more than the last."""
    return lowest_bid(state.high_bid), max_bid(state.variant)


def raise_top(stake: int) -> int:
    """The largest raise allowed on the ruff at ``stake`` (0 once at the limit)."""
    return max(0, min(MAX_RAISE, MAX_STAKE - stake))


def raise_range(state: State) -> tuple[int, int]:
    """The smallest and largest raise allowed now on the ruff (empty once at the limit)."""
    return MIN_RAISE, raise_top(state.ruff_stake)


def rulings_in_force(v: Variant) -> list[tuple[str, bool]]:
    """Each ruling in force: its switch and whether ``v`` plays it on, in ``RULINGS`` order.

    The modern-combinations ruling is listed only for variants that score
    combinations the modern way; a ruling superseded by one that is on is
    not listed, nor a superseding ruling that is off (the rulings it would
    replace say what is played). The shell words each pair (with
    :func:`max_bid` and :data:`OPENING_BID` where a reading quotes them).
    """
    superseded = {name for r in RULINGS if getattr(v, r.switch) for name in r.supersedes}
    out = []
    for r in RULINGS:
        on = bool(getattr(v, r.switch))
        if r.switch in superseded or (r.supersedes and not on):
            continue
        if r.switch == "score_sheet_combinations" and not v.modern_combinations:
            continue
        out.append((r.switch, on))
    return out
