"""The immutable game state, its phases and the per-hand ledger.

``State`` is a ``NamedTuple`` rather than a dataclass: ``_replace`` on a
tuple is several times faster than ``dataclasses.replace``, and the engine
makes one per event (the simulator needs thousands of hands per second).
Seat-indexed fields are tuples of length ``players``; "no seat" is ``-1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from .variant import Variant

__all__ = ["NO_SEAT", "PHASE_NAMES", "SESSION_HANDS", "HandLedger", "Phase", "State", "new_session"]

NO_SEAT = -1
PHASE_NAMES = ("tiddy", "auction", "ruff", "combinations", "tricks")
"""Ledger phase names, in the order the ledger lists them."""


class Phase(Enum):
    """Where the session stands; ``to_act`` is None in CUT, DEAL, HAND_OVER, SESSION_OVER."""

    CUT = "cut"
    DEAL = "deal"
    AUCTION = "auction"
    DISCARD = "discard"
    RUFF = "ruff"
    RUFF_SHOW = "ruff_show"
    DECLARE = "declare"
    TRUMP = "trump"
    TIDDY = "tiddy"
    TRICKS = "tricks"
    HAND_OVER = "hand_over"
    SESSION_OVER = "session_over"


@dataclass(frozen=True, slots=True)
class HandLedger:
    """What one hand paid, in halfpence, per phase and per seat.

    ``phases`` maps each of :data:`PHASE_NAMES` to one amount per seat; each
    phase sums to zero. ``trick_points`` is each seat's trick score T_i in
    pence (captured card points + Tib + Tom + last trick), before settling.
    """

    hand: int
    dealer: int
    phases: dict[str, tuple[int, ...]]
    trick_points: tuple[int, ...]

    @property
    def net(self) -> tuple[int, ...]:
        """Each seat's result for the hand, in halfpence."""
        # Search reads it after every playout: column sums in C, not a generator per seat.
        if not self.phases:
            return (0,) * len(self.trick_points)
        return tuple(map(sum, zip(*self.phases.values(), strict=True)))


class State(NamedTuple):
    """A session's full state. Treat as opaque; read it through the query functions.

    Field notes: ``cards[slot]`` is the card id the engine knows for a slot
    (-1 unknown) and ``where[card]`` the inverse. ``holding[seat]`` is the
    seat's hand as ascending slots. ``bids`` is the auction history as
    ``(seat, amount)`` with amount 0 for a pass. ``ruff_log`` is
    ``(seat, kind, stake_after)``. ``tricks`` holds finished tricks as
    ``(leader, slots in play order, winner)``.
    """

    variant: Variant
    session_hands: int
    phase: Phase
    hand_no: int
    dealer: int
    turn: int
    cards: tuple[int, ...]
    where: tuple[int, ...]
    holding: tuple[tuple[int, ...], ...]
    talon: tuple[int, ...]
    talon_taker: int
    discards: tuple[int, ...]
    bids: tuple[tuple[int, int], ...]
    high_bid: int
    high_bidder: int
    passed: tuple[bool, ...]
    ruff_played: bool
    ruff_stake: int
    ruff_put: tuple[int, ...]
    ruff_in: tuple[bool, ...]
    ruff_acted: tuple[bool, ...]
    ruff_log: tuple[tuple[int, str, int], ...]
    ruff_shows: tuple[tuple[int, int, tuple[int, ...]], ...]
    ruff_winner: int
    declarations: tuple[tuple[int, tuple[int, ...]], ...]
    trump: int | None
    trump_named: bool
    tiddy_claimant: int
    tiddy_slot: int
    tiddy_asked: int
    trick_leader: int
    trick_plays: tuple[int, ...]
    tricks: tuple[tuple[int, tuple[int, ...], int], ...]
    ledgers: tuple[HandLedger, ...]
    totals: tuple[int, ...]


SESSION_HANDS = 12
"""Hands in a session unless the players agree otherwise."""


def new_session(variant: Variant | None = None, hands: int = SESSION_HANDS) -> State:
    """A session of ``hands`` hands waiting for the ``Cut``."""
    v = variant if variant is not None else Variant()
    if type(hands) is not int or not 1 <= hands <= 1_000_000:
        raise ValueError("a session has 1 to 1000000 hands")
    n = v.players
    return State(
        variant=v,
        session_hands=hands,
        phase=Phase.CUT,
        hand_no=-1,
        dealer=NO_SEAT,
        turn=NO_SEAT,
        cards=(),
        where=(-1,) * 44,
        holding=((),) * n,
        talon=(),
        talon_taker=NO_SEAT,
        discards=(),
        bids=(),
        high_bid=0,
        high_bidder=NO_SEAT,
        passed=(False,) * n,
        ruff_played=False,
        ruff_stake=0,
        ruff_put=(0,) * n,
        ruff_in=(False,) * n,
        ruff_acted=(False,) * n,
        ruff_log=(),
        ruff_shows=(),
        ruff_winner=NO_SEAT,
        declarations=(),
        trump=None,
        trump_named=False,
        tiddy_claimant=NO_SEAT,
        tiddy_slot=-1,
        tiddy_asked=0,
        trick_leader=NO_SEAT,
        trick_plays=(),
        tricks=(),
        ledgers=(),
        totals=(0,) * n,
    )
