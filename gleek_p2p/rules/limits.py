"""The table's numeric limits, each stated once.

The engine enforces them, the wire decoder bounds its fields by them, and
the shell's words quote them (``limits()``), so no room repeats "to 99".
"""

from __future__ import annotations

from dataclasses import dataclass

from .scoring import ANTE, TIDDY_PAYMENT
from .state import State

__all__ = [
    "MAX_BID",
    "MAX_RAISE",
    "MAX_STAKE",
    "OPENING_BID",
    "Limits",
    "bid_range",
    "limits",
    "raise_range",
]

OPENING_BID = 13
"""The lowest first bid for the talon, in pence (each later bid at least one more)."""
MAX_BID = 99
"""The highest bid for the talon, in pence."""
MAX_RAISE = 5
"""Largest single raise of the ruff stake, in pence."""
MAX_STAKE = 20
"""Table limit on the ruff stake (pence over the ante), so vying ends."""


@dataclass(frozen=True)
class Limits:
    """Every limit at once, for words and for bots."""

    opening_bid: int
    max_bid: int
    max_raise: int
    max_stake: int
    ante: int
    tiddy_payment: int
    unit: str
    """The unit all stakes and payments are counted in (a penny; halfpence appear
    only in settled means)."""


def limits() -> Limits:
    """The table's limits (the same under every variant)."""
    return Limits(OPENING_BID, MAX_BID, MAX_RAISE, MAX_STAKE, ANTE, TIDDY_PAYMENT, "penny")


def bid_range(state: State) -> tuple[int, int]:
    """The lowest and highest bid allowed now: 13 to open, then one more than the last."""
    return (OPENING_BID if state.high_bid == 0 else state.high_bid + 1), MAX_BID


def raise_range(state: State) -> tuple[int, int]:
    """The smallest and largest raise allowed now on the ruff (empty once at the limit)."""
    return 1, min(MAX_RAISE, MAX_STAKE - state.ruff_stake)
