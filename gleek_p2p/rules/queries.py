"""Read-only questions about a ``State`` for the table, the UI and bots.

Seats, slots and cards are ints; "none" is ``None`` here (the state itself
uses -1 internally). Money is in halfpence.
"""

from __future__ import annotations

from itertools import chain

from .scoring import ANTE, hand_ledger
from .state import HandLedger, Phase, State

__all__ = [
    "auction_history",
    "card_of",
    "current_trick",
    "dealer",
    "declarations",
    "discarded_slots",
    "eldest",
    "hand_number",
    "hand_slots",
    "high_bid",
    "ledgers",
    "ruff_pot",
    "ruff_seats_in",
    "ruff_shows",
    "ruff_stake",
    "ruff_winner",
    "running_ledger",
    "session_totals",
    "session_winner",
    "shown_slots",
    "talon_slots",
    "talon_taker",
    "tiddy_claim",
    "trick_history",
    "tricks_won",
    "trump",
    "trump_named",
]


def dealer(state: State) -> int | None:
    """The dealer of the current hand (after the cut: of the first hand)."""
    return state.dealer if state.dealer >= 0 else None


def eldest(state: State) -> int | None:
    """The seat left of the dealer: it speaks, vies, declares and leads first."""
    return (state.dealer + 1) % state.variant.players if state.dealer >= 0 else None


def hand_number(state: State) -> int:
    """0-based number of the current hand; -1 before the first deal."""
    return state.hand_no


def hand_slots(state: State, seat: int) -> tuple[int, ...]:
    """The slots ``seat`` holds now (ascending), including the talon if it took it."""
    return state.holding[seat]


def card_of(state: State, slot: int) -> int | None:
    """The card in ``slot`` if this engine was shown it, else None."""
    if 0 <= slot < len(state.cards):
        c = state.cards[slot]
        return c if c >= 0 else None
    return None


def talon_slots(state: State) -> tuple[int, ...]:
    """The slots dealt to the talon this hand."""
    return state.talon


def talon_taker(state: State) -> int | None:
    """The auction winner who took the talon, or None (no winner yet or dead talon)."""
    return state.talon_taker if state.talon_taker >= 0 else None


def discarded_slots(state: State) -> tuple[int, ...]:
    """The slots the talon taker discarded, in order."""
    return state.discards


def auction_history(state: State) -> tuple[tuple[int, int], ...]:
    """``(seat, amount)`` per auction call in order; amount 0 is a pass."""
    return state.bids


def high_bid(state: State) -> tuple[int, int] | None:
    """``(seat, amount)`` of the highest bid so far, or None."""
    return (state.high_bidder, state.high_bid) if state.high_bidder >= 0 else None


def ruff_stake(state: State) -> int:
    """The ruff stake over the ante, in pence."""
    return state.ruff_stake


def ruff_pot(state: State) -> int:
    """Pence in the ruff pot: antes plus every seat's put."""
    if not state.ruff_played:
        return 0
    return ANTE * state.variant.players + sum(state.ruff_put)


def ruff_seats_in(state: State) -> tuple[int, ...]:
    """Seats still in the ruff."""
    return tuple(i for i, x in enumerate(state.ruff_in) if x)


def ruff_shows(state: State) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
    """``(seat, suit, slots)`` per ruff show, in order."""
    return state.ruff_shows


def ruff_winner(state: State) -> int | None:
    """Who took the ruff pot, once decided."""
    return state.ruff_winner if state.ruff_winner >= 0 else None


def declarations(state: State) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """``(seat, slots)`` per declared combination, in order."""
    return state.declarations


def trump_named(state: State) -> bool:
    """Whether the trump (or Kiss) is settled for this hand."""
    return state.trump_named


def trump(state: State) -> int | None:
    """The trump suit; None for Kiss or while not named (see :func:`trump_named`)."""
    return state.trump if state.trump_named else None


def tiddy_claim(state: State) -> tuple[int, int] | None:
    """``(seat, slot)`` of the Tiddy claim this hand, or None."""
    return (state.tiddy_claimant, state.tiddy_slot) if state.tiddy_claimant >= 0 else None


def current_trick(state: State) -> tuple[int, tuple[tuple[int, int], ...]] | None:
    """``(leader, ((seat, slot), ...))`` of the trick being played, or None."""
    if state.phase is not Phase.TRICKS:
        return None
    n = state.variant.players
    lead = state.trick_leader
    return lead, tuple(((lead + i) % n, x) for i, x in enumerate(state.trick_plays))


def trick_history(state: State) -> tuple[tuple[int, tuple[int, ...], int], ...]:
    """Finished tricks this hand: ``(leader, slots in play order, winner)``."""
    return state.tricks


def tricks_won(state: State) -> tuple[int, ...]:
    """Tricks won this hand per seat."""
    won = [0] * state.variant.players
    for _l, _p, w in state.tricks:
        won[w] += 1
    return tuple(won)


def shown_slots(state: State) -> frozenset[int]:
    """Slots every seat has been shown this hand: played, ruff shows, declared, Tiddy."""
    parts = [t[1] for t in state.tricks]
    parts.append(state.trick_plays)
    parts.extend(t[2] for t in state.ruff_shows)
    parts.extend(t[1] for t in state.declarations)
    if state.tiddy_slot >= 0:
        parts.append((state.tiddy_slot,))
    return frozenset(chain.from_iterable(parts))


def ledgers(state: State) -> tuple[HandLedger, ...]:
    """The ledgers of the finished hands."""
    return state.ledgers


def running_ledger(state: State) -> HandLedger | None:
    """The current hand's ledger so far (tricks count only finished tricks)."""
    if state.hand_no < 0:
        return None
    if state.phase in (Phase.HAND_OVER, Phase.SESSION_OVER):
        return state.ledgers[-1]
    return hand_ledger(state)


def session_totals(state: State) -> tuple[int, ...]:
    """Each seat's total over the finished hands, in halfpence."""
    return state.totals


def session_winner(state: State) -> int | None:
    """The seat with the highest total (so far); None on a tie for first."""
    best = max(state.totals)
    top = [i for i, t in enumerate(state.totals) if t == best]
    return top[0] if len(top) == 1 else None
