"""What a move kind is to the engine: one registration per kind.

A :class:`MoveKind` ties an action event class (declared in ``events.py``)
to the phases it is legal in, the engine's handler that applies it and the
generator that lists its legal moves. The engine builds ``apply`` and
``legal_actions`` from these registrations alone (``engine.MOVE_KINDS``),
and a phase's legal list is its kinds' lists in registration order, so one
decision may offer several kinds (a pass and the bids).

The shell's parts of a kind (its narration, its choice label, the bots'
policy of its phase) live in the shell's rooms, keyed by the event class;
``tests/test_move_kinds.py`` enumerates ``MOVE_KINDS`` and fails when a kind
lacks any of them.

Adding a kind: declare its class in ``events.py`` (and in ``ActionEvent`` and
``EVENT_TYPES``; the wire codec, the bot codec and ``protocol/events.json``
derive from it); write its handler and generator in ``engine.py`` and
register them in ``MOVE_KINDS``; give it its words in ``ui/narrate.py`` and
its option in ``ui/choices.py``; let the playout hand (``playout.py``) list
and apply it. The bots' policies are per phase: a bot only needs changing to
prefer the new move.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .state import Phase, State

__all__ = ["MoveKind"]


@dataclass(frozen=True)
class MoveKind:
    """One action event kind as the engine knows it."""

    cls: type[Any]
    """The event class (``KIND``, fields and wire form: ``events.py``)."""
    phases: tuple[Phase, ...]
    """The phases in which a seat may make such a move."""
    apply: Callable[[State, Any], State]
    """The engine's handler: the state after the move, or ``IllegalMove``/``ProtocolError``."""
    legal: Callable[[State, int], list[Any]]
    """The legal moves of this kind for the seat to act (the phase is one of ``phases``)."""

    @property
    def kind(self) -> str:
        """The wire name of the kind (``cls.KIND``)."""
        return str(self.cls.KIND)
