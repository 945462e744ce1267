"""Which slots a player's decision shows to everyone.

A decision that shows cards (a ruff, a combination, the Tiddy, a card
played) must come with the player's own keys for those slots, so every
copy of the table can open them before the engine sees the move.
"""

from __future__ import annotations

from gleek_p2p.rules import ClaimTiddy, Declare, Event, Play, ShowRuff


def shown_slots_of(action: Event) -> tuple[int, ...]:
    """The slots ``action`` shows face up, in the order it names them."""
    if isinstance(action, Play | ClaimTiddy):
        return (action.slot,)
    if isinstance(action, ShowRuff | Declare):
        return tuple(action.slots)
    return ()
