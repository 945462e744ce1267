"""The honours of a hand: which cards are Tib, Tom and Tiddy, and who took them.

Tib is the Ace of trump, Tom the Knave of trump, Tiddy the Four of trump.
Under the whist ranking the Ace is top trump but no Tib (no 15 pence), and a
pack without Fours has no Tiddy; a Kiss (no trump) has no honours at all.
The scoring, the report and the screen all ask here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import RANKS_PER_SUIT, Rank
from .state import State
from .variant import Variant

__all__ = [
    "HONOURS",
    "HonourTaken",
    "honour_cards",
    "honour_names",
    "honours",
    "honours_taken",
    "tib_card",
    "tiddy_card",
    "tom_card",
]

HONOURS = ("Tib", "Tom", "Tiddy")
"""The honours' names, in order of worth."""


def honour_cards(trump: int | None, variant: Variant) -> dict[str, int | None]:
    """Each honour's card under ``trump`` (None: that honour does not exist)."""
    if trump is None:
        return dict.fromkeys(HONOURS)
    base = trump * RANKS_PER_SUIT
    return {
        "Tib": None if variant.whist_ranking else base + Rank.ACE,
        "Tom": base + Rank.JACK,
        "Tiddy": base + Rank.FOUR if variant.has_fours else None,
    }


def honour_names(variant: Variant) -> tuple[str, ...]:
    """The honours a hand of ``variant`` can have once a suit is trump (no Tib under
    the whist ranking, no Tiddy without Fours), in order of worth."""
    return tuple(name for name, c in honour_cards(0, variant).items() if c is not None)


def _named(state: State) -> dict[str, int | None]:
    if not state.trump_named:
        return dict.fromkeys(HONOURS)
    return honour_cards(state.trump, state.variant)


def tib_card(state: State) -> int | None:
    """The Ace of trump when it is Tib (not before the trump, under Kiss or whist ranking)."""
    return _named(state)["Tib"]


def tom_card(state: State) -> int | None:
    """The Knave of trump, once a trump is named."""
    return _named(state)["Tom"]


def tiddy_card(state: State) -> int | None:
    """The Four of trump, once a trump is named and when the pack has Fours."""
    return _named(state)["Tiddy"]


@dataclass(frozen=True)
class HonourTaken:
    """An honour captured in a trick: its name, its card and the seat that took it."""

    name: str
    card: int
    seat: int


def honours_taken(state: State) -> tuple[HonourTaken, ...]:
    """The honours captured in the finished tricks so far, in the order they fell."""
    cards = {c: name for name, c in _named(state).items() if c is not None}
    if not cards:
        return ()
    return tuple(
        HonourTaken(cards[state.cards[slot]], state.cards[slot], winner)
        for _leader, slots, winner in state.tricks
        for slot in slots
        if state.cards[slot] in cards
    )


def honours(state: State) -> dict[str, int | None]:
    """Who has Tib, Tom and Tiddy this hand (Tiddy: claimed, else captured); None: nobody."""
    out: dict[str, int | None] = dict.fromkeys(HONOURS)
    for taken in honours_taken(state):
        out[taken.name] = taken.seat
    if state.tiddy_claimant >= 0:
        out["Tiddy"] = state.tiddy_claimant
    return out
