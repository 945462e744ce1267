"""Full-information random play: for tests, benchmarks and ``gleek simulate``.

Randomness comes in as data (a ``random.Random``); nothing here reads a
clock or a global generator.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from .cards import TALON, deal_layout, pack
from .engine import apply, legal_actions, to_act
from .events import Cut, Deal, Event, Reveal
from .state import Phase, State, new_session
from .variant import Variant

__all__ = ["random_cut", "random_deal_reveals", "random_session", "reveals_for"]


def random_cut(variant: Variant, rng: random.Random) -> Cut:
    """A cut of distinct random cards, one per seat."""
    return Cut(tuple(rng.sample(pack(variant), variant.players)))


def random_deal_reveals(variant: Variant, rng: random.Random) -> list[Reveal]:
    """Reveals of a random shuffle: every slot, in slot order."""
    cards = list(pack(variant))
    rng.shuffle(cards)
    return [Reveal(slot, c) for slot, c in enumerate(cards)]


def random_session(variant: Variant, hands: int, rng: random.Random) -> tuple[State, list[Event]]:
    """Play a whole session with uniformly random legal moves, all cards revealed.

    Returns the final state and the events applied, in order.
    """
    s = new_session(variant, hands)
    log: list[Event] = []
    e: Event = random_cut(variant, rng)
    s = apply(s, e)
    log.append(e)
    while s.phase is not Phase.SESSION_OVER:
        e = Deal()
        s = apply(s, e)
        log.append(e)
        for r in random_deal_reveals(variant, rng):
            s = apply(s, r)
            log.append(r)
        while True:
            seat = to_act(s)
            if seat is None:
                break
            e = rng.choice(legal_actions(s, seat))
            s = apply(s, e)
            log.append(e)
    return s, log


def reveals_for(
    variant: Variant,
    dealer: int,
    hands: Mapping[int, Sequence[int]],
    talon: Sequence[int] = (),
) -> list[Reveal]:
    """Reveals of a deal in which each listed seat holds (at least) the given cards.

    ``hands`` maps seats to cards they must hold, ``talon`` lists cards that
    must be in the talon; every other slot gets the remaining cards in pack
    order. For scripted tests and examples.
    """
    layout = deal_layout(variant, dealer)
    wanted = {seat: list(cs) for seat, cs in hands.items()}
    wanted[TALON] = list(talon)
    used = {c for cs in wanted.values() for c in cs}
    if len(used) != sum(len(cs) for cs in wanted.values()):
        raise ValueError("a card is listed twice")
    rest = [c for c in pack(variant) if c not in used]
    out: list[Reveal] = []
    for slot, owner in enumerate(layout):
        mine = wanted.get(owner)
        c = mine.pop(0) if mine else rest.pop(0)
        out.append(Reveal(slot, c))
    if any(wanted.values()):
        raise ValueError("more cards listed than a seat (or the talon) holds")
    return out
