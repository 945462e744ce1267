"""Small pieces of wording shared by the narration, the screen and the replay.

Amounts in the engine are halfpence; on the screen they are pence with a
``½`` (``pence`` from ``rules.money``). Seat names come from the roster;
the seat at the screen is "you".
"""

from __future__ import annotations

from collections.abc import Sequence

from gleek_p2p.base.i18n import N_, _, ngettext
from gleek_p2p.rules import State
from gleek_p2p.rules.cards import SUIT_SYMBOLS
from gleek_p2p.rules.honours import honours as honour_takers
from gleek_p2p.rules.honours import tib_card, tiddy_card, tom_card
from gleek_p2p.rules.money import pence
from gleek_p2p.rules.scoring import TIB, TOM, card_points, ruff_points
from gleek_p2p.tools.card_words import card_label, rank_label

__all__ = [
    "RANK_PLURALS",
    "SUIT_NAMES",
    "SUIT_SYMBOLS",
    "Namer",
    "and_list",
    "card_label",
    "card_text",
    "card_worth",
    "honours",
    "pence",
    "points",
    "rank_label",
    "rank_plural",
    "suit_name",
    "tib_card",
    "tiddy_card",
    "tom_card",
    "tricks",
    "wrap_words",
]

SUIT_NAMES = (N_("spades"), N_("hearts"), N_("diamonds"), N_("clubs"))
"""Marked for the catalog: show them through ``suit_name``."""
RANK_PLURALS = (
    N_("Aces"), N_("Kings"), N_("Queens"), N_("Jacks"), N_("Tens"), N_("Nines"),
    N_("Eights"), N_("Sevens"), N_("Sixes"), N_("Fives"), N_("Fours"),
)
"""Marked for the catalog: show them through ``rank_plural``."""


def suit_name(suit: int) -> str:
    """The suit's name in the chosen language ("spades", "pique", "picche"...)."""
    return _(SUIT_NAMES[suit])


def rank_plural(rank: int) -> str:
    """The rank as a plural noun in the chosen language ("Kings", "Rois"...)."""
    return _(RANK_PLURALS[rank])


def and_list(items: Sequence[str]) -> str:
    """"Tib", "Tib and Tom", "a, b and c" in the chosen language."""
    if len(items) <= 1:
        return "".join(items)
    return _("{items} and {last}").format(items=", ".join(items[:-1]), last=items[-1])


class Namer:
    """Seat names as a sentence wants them: "you" for the seat at the screen."""

    def __init__(self, names: Sequence[str], you: int | None = None) -> None:
        self.names = tuple(names)
        self.you = you

    def __call__(self, seat: int) -> str:
        """The seat's name inside a sentence ("you" for the viewer)."""
        if seat == self.you:
            return _("you")
        if 0 <= seat < len(self.names):
            return self.names[seat]
        return _("seat {seat}").format(seat=seat)

    def subject(self, seat: int) -> str:
        """The seat's name at the start of a sentence."""
        return _("You") if seat == self.you else self(seat)

    def act(self, seat: int, you: str, other: str, **fields: object) -> str:
        """A whole sentence about ``seat``: ``you`` for the viewer, else ``other``.

        Both are catalog messages marked with ``N_`` by the caller; ``other``
        names the seat with ``{name}``. Two messages rather than a verb agreed
        in code, so every language words each one its own way.
        """
        return _(you if seat == self.you else other).format(name=self(seat), **fields)

    def short(self, seat: int, width: int) -> str:
        """The name cut to ``width`` characters, for table columns."""
        name = self(seat)
        return name if len(name) <= width else name[: width - 1] + "…"


def points(count: int) -> str:
    """"1 point", "12 points" in the chosen language."""
    return ngettext("{n} point", "{n} points", count).format(n=count)


def tricks(count: int) -> str:
    """"1 trick", "2 tricks" in the chosen language."""
    return ngettext("{n} trick", "{n} tricks", count).format(n=count)


def card_text(c: int | None) -> str:
    """A card label, or ``??`` for a card this screen may not see."""
    return "??" if c is None or c < 0 else card_label(c)


def card_worth(c: int, state: State) -> int:
    """What a card is worth to its taker in the tricks (ruff points before the trump)."""
    if not state.trump_named:
        return ruff_points(c)
    worth = card_points(c, state.trump)
    if c == tib_card(state):
        worth += TIB
    elif c == tom_card(state):
        worth += TOM
    return worth


def honours(state: State) -> dict[str, int | None]:
    """Who took Tib, Tom and Tiddy this hand (Tiddy: claimed or captured)."""
    return honour_takers(state)


def wrap_words(text: str, width: int, indent: str = "  ") -> list[str]:
    """``text`` broken between words into lines of at most ``width`` characters."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= width or not current:
            current = candidate
        else:
            lines.append(current)
            current = indent + word
    if current:
        lines.append(current)
    return lines
