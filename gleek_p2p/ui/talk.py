"""``gleek bot``'s words on stderr: one line per hand, every move, or nothing.

A ``TalkingBot`` is a ``BotPlayer`` that also tells the person running it
what happens at the table: a line per hand by default, every move with
``--verbose``, nothing with ``--quiet``. It lives with the screens, not the
bots, because what it says is the narration a person reads.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gleek_p2p.base.errors import GleekError
from gleek_p2p.rules import Deal, Discard, State, apply, new_session
from gleek_p2p.rules import Event as Move
from gleek_p2p.session.peer import BotPlayer
from gleek_p2p.table.session import Table

from .narrate import hand_line, narrate

__all__ = ["Talk", "TalkingBot"]


class Talk(enum.Enum):
    """How much a bot says about the game."""

    QUIET = "quiet"
    HANDS = "hands"
    """One line per finished hand (the default)."""
    VERBOSE = "verbose"
    """Every move, then the hand's line."""


def _nothing(text: str) -> None:
    return None


@dataclass
class TalkingBot(BotPlayer):
    """A bot that tells what happens: ``say`` hears each line."""

    say: Callable[[str], None] = _nothing
    talk: Talk = Talk.HANDS
    _told: int = 0
    _state: State | None = field(default=None, repr=False)

    def update(self, table: Table, applied: Sequence[Move], note: str | None) -> None:
        super().update(table, applied, note)
        if self.talk is Talk.QUIET or table.seat is None:
            return
        names = table.roster.names
        if self.talk is Talk.VERBOSE:
            self._moves(table, applied)
        while self._told < len(table.hands):
            state = table.hands[self._told].state
            self._told += 1
            if state is not None and state.ledgers:
                self.say(hand_line(state, names))

    def _moves(self, table: Table, applied: Sequence[Move]) -> None:
        """Every move in words, from this seat's states before and after it."""
        target = table.state
        if target is None:
            return
        s = self._state or new_session(table.roster.variant, table.roster.hands)
        names = table.roster.names
        for event in applied:
            try:
                after = apply(s, event)
            except GleekError:
                break  # out of step: resynchronised below
            text = narrate(event, s, after, names, None)
            if isinstance(event, Discard) and len(after.discards) < after.variant.discard_count:
                text = None  # the last discard's sentence tells them all, in one line
            if text:
                self.say(text)
            s = after
        if s.hand_no != target.hand_no and target.hand_no >= 0:
            text = narrate(Deal(), s, target, names, None)
            if text:
                self.say(text)
        self._state = target
