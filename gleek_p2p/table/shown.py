"""Which slots a player's decision shows to everyone.

A decision that shows cards (a ruff, a combination, the Tiddy, a card
played) must come with the player's own keys for those slots, so every
copy of the table can open them before the engine sees the move. Which
fields show their slots is part of each move's declaration in
``rules/events.py``.
"""

from __future__ import annotations

from gleek_p2p.rules.events import shown_slots_of

__all__ = ["shown_slots_of"]
