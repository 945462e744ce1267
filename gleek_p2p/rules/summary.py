"""What a hand came to, as facts a screen can show: honours, tricks, phases, totals.

Screens and reports read a finished hand through :func:`hand_summary` so
that no rule (which card is Tib, who takes the last trick's bonus, what a
suit is worth in the ruff) is computed outside the rules package. The
honours are :mod:`.honours`'s: this module asks it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .cards import RANKS_PER_SUIT
from .honours import honour_names, honours
from .queries import ruff_pot
from .scoring import LAST_TRICK, ruff_value
from .state import PHASE_NAMES, Phase, State

__all__ = [
    "HandSummary",
    "hand_summary",
    "last_trick_winner",
    "running_totals",
    "suit_ruff_values",
]


def last_trick_winner(state: State) -> int | None:
    """Who took the last trick of the hand (and its bonus), once every trick is played."""
    v = state.variant
    if v.tricks == 0 or len(state.tricks) < v.tricks:
        return None
    return state.tricks[-1][2]


def suit_ruff_values(cards: Iterable[int]) -> tuple[int, ...]:
    """Per suit (♠ ♥ ♦ ♣), what showing all of ``cards`` of that suit is worth in the ruff."""
    by_suit: list[list[int]] = [[], [], [], []]
    for c in cards:
        if c >= 0:
            by_suit[c // RANKS_PER_SUIT].append(c)
    return tuple(ruff_value(suit) for suit in by_suit)


def running_totals(state: State) -> tuple[tuple[int, ...], ...]:
    """The session totals (halfpence) after each finished hand, in order."""
    totals = [0] * state.variant.players
    out = []
    for ledger in state.ledgers:
        totals = [t + x for t, x in zip(totals, ledger.net, strict=True)]
        out.append(tuple(totals))
    return tuple(out)


@dataclass(frozen=True)
class HandSummary:
    """A finished hand: each phase per seat, the tricks and honours, the auction and ruff.

    Money is in halfpence; ``trick_points`` in pence (the trick score before
    settling). ``auction`` is (taker, bid) or None for a dead talon;
    ``ruff`` is (winner, pot, suit shown or None) or None without a ruff.
    ``last_trick`` is (leader, slots in play order, winner).
    """

    hand: int
    hands: int
    dealer: int
    phases: tuple[tuple[str, tuple[int, ...]], ...]
    net: tuple[int, ...]
    totals: tuple[int, ...]
    tricks_won: tuple[int, ...]
    trick_points: tuple[int, ...]
    honours: tuple[tuple[str, int | None], ...]
    last_trick: tuple[int, tuple[int, ...], int] | None
    last_trick_bonus: int
    auction: tuple[int, int] | None
    ruff: tuple[int, int, int | None] | None
    declarations: tuple[tuple[int, tuple[int, ...]], ...]
    trump: int | None
    trump_named: bool


def hand_summary(state: State, hand: int = -1) -> HandSummary:
    """The summary of finished hand ``hand`` (default: the last) of ``state``.

    ``state`` must be the state at the end of that hand (phase HAND_OVER or
    SESSION_OVER): the cards, tricks and bids are read from it.
    """
    if state.phase not in (Phase.HAND_OVER, Phase.SESSION_OVER) or not state.ledgers:
        raise ValueError("a hand summary needs the state at the end of a hand")
    ledger = state.ledgers[hand]
    n = state.variant.players
    won = [0] * n
    for _leader, _plays, winner in state.tricks:
        won[winner] += 1
    took = honours(state)
    ruff = None
    if state.ruff_played and state.ruff_winner >= 0:
        suit = next((s for seat, s, _x in state.ruff_shows if seat == state.ruff_winner), None)
        ruff = (state.ruff_winner, ruff_pot(state), suit)
    return HandSummary(
        hand=ledger.hand,
        hands=state.session_hands,
        dealer=ledger.dealer,
        phases=tuple((p, ledger.phases[p]) for p in PHASE_NAMES),
        net=ledger.net,
        totals=running_totals(state)[hand],
        tricks_won=tuple(won),
        trick_points=ledger.trick_points,
        honours=tuple((name, took[name]) for name in honour_names(state.variant)),
        last_trick=state.tricks[-1] if state.tricks else None,
        last_trick_bonus=LAST_TRICK,
        auction=(state.talon_taker, state.high_bid) if state.talon_taker >= 0 else None,
        ruff=ruff,
        declarations=state.declarations,
        trump=state.trump,
        trump_named=state.trump_named,
    )
