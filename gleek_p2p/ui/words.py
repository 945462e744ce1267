"""Small pieces of wording shared by the narration, the screen and the replay.

Amounts in the engine are halfpence; on the screen they are pence with a
``½`` (``pence`` from the report module). Seat names come from the roster;
the seat at the screen is "you".
"""

from __future__ import annotations

from collections.abc import Sequence

from gleek_p2p.rules import State, card_label
from gleek_p2p.rules.scoring import TIB, TOM, card_points, ruff_points
from gleek_p2p.rules.summary import honour_takers, tib_card, tiddy_card, tom_card

__all__ = [
    "RANK_PLURALS",
    "SUIT_NAMES",
    "SUIT_SYMBOLS",
    "Namer",
    "card_text",
    "card_worth",
    "honours",
    "pence",
    "plural",
    "tib_card",
    "tiddy_card",
    "tom_card",
    "wrap_words",
]

SUIT_SYMBOLS = ("♠", "♥", "♦", "♣")
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_PLURALS = (
    "Aces", "Kings", "Queens", "Jacks", "Tens", "Nines",
    "Eights", "Sevens", "Sixes", "Fives", "Fours",
)


class Namer:
    """Seat names as a sentence wants them: "you" for the seat at the screen."""

    def __init__(self, names: Sequence[str], you: int | None = None) -> None:
        self.names = tuple(names)
        self.you = you

    def __call__(self, seat: int) -> str:
        """The seat's name inside a sentence ("you" for the viewer)."""
        if seat == self.you:
            return "you"
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def subject(self, seat: int) -> str:
        """The seat's name at the start of a sentence."""
        return "You" if seat == self.you else self(seat)

    def verb(self, seat: int, base: str) -> str:
        """``base`` agreed with the seat: "you pass" but "Bob passes"."""
        if seat == self.you:
            return base
        if base == "have":
            return "has"
        if base.endswith(("s", "sh", "ch", "x")):
            return base + "es"
        return base + "s"

    def says(self, seat: int, base: str) -> str:
        """Subject and verb: "You bid", "Bob bids"."""
        return f"{self.subject(seat)} {self.verb(seat, base)}"

    def short(self, seat: int, width: int) -> str:
        """The name cut to ``width`` characters, for table columns."""
        name = self(seat)
        return name if len(name) <= width else name[: width - 1] + "…"


def pence(halfpence: int, signed: bool = False) -> str:
    """13 -> '6½', 1 -> '½' (not '0½'), -4 -> '-2'; with ``signed`` a '+' on gains."""
    sign = "-" if halfpence < 0 else ("+" if signed and halfpence > 0 else "")
    whole, half = divmod(abs(halfpence), 2)
    if whole == 0 and half:
        return f"{sign}½"
    return f"{sign}{whole}{'½' if half else ''}"


def plural(count: int, one: str, many: str | None = None) -> str:
    """"1 trick", "2 tricks": the count with its noun agreed."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


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
