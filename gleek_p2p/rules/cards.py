"""Cards, the pack of each variant and the deal layout.

A card is a plain ``int``: ``suit * 11 + rank`` (0..43). Plain ints keep the
engine fast and the wire format trivial; the helpers here give them names.
Rank 0 is the highest (Ace) and 10 the lowest (Four), so "higher card" is
"smaller rank number" everywhere in the engine.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Protocol

from gleek_p2p.base.errors import ProtocolError, ViolationCode

__all__ = [
    "RANKS_PER_SUIT",
    "RANK_LABELS",
    "RANK_LETTERS",
    "RANK_PLURALS",
    "SUIT_LETTERS",
    "SUIT_NAMES",
    "SUIT_SYMBOLS",
    "TALON",
    "Rank",
    "Suit",
    "card",
    "card_label",
    "card_name",
    "card_rank",
    "card_suit",
    "deal_layout",
    "pack",
    "parse_card",
]

RANKS_PER_SUIT = 11
TALON = -1
"""Owner of a talon slot in :func:`deal_layout`."""


class PackShape(Protocol):
    """What :func:`pack` and :func:`deal_layout` read of a ``Variant``: named here
    as a shape, because ``variant`` imports this module and no cycle may close."""

    @property
    def players(self) -> int: ...

    @property
    def lowest_rank(self) -> int: ...

    @property
    def hand_size(self) -> int: ...

    @property
    def pack_size(self) -> int: ...


class Suit(IntEnum):
    """The four suits; the order is also the cut tie-break order (S > H > D > C)."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3


class Rank(IntEnum):
    """Ranks from the highest (ACE = 0) to the lowest (FOUR = 10)."""

    ACE = 0
    KING = 1
    QUEEN = 2
    JACK = 3
    TEN = 4
    NINE = 5
    EIGHT = 6
    SEVEN = 7
    SIX = 8
    FIVE = 9
    FOUR = 10


# Every name of a suit or a rank, here and nowhere else (the engine's
# messages, the report, the simulator and the UI all read these).
RANK_LETTERS = ("A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4")
"""ASCII rank letters (wire-neutral card names, bots)."""
RANK_LABELS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4")
"""Rank as printed on a card."""
RANK_PLURALS = ("Aces", "Kings", "Queens", "Jacks", "Tens", "Nines", "Eights", "Sevens",
                "Sixes", "Fives", "Fours")
"""Rank in words, plural (a gleek of Kings)."""
SUIT_LETTERS = ("S", "H", "D", "C")
"""ASCII suit letters."""
SUIT_SYMBOLS = ("♠", "♥", "♦", "♣")
"""Suit symbols for the screen."""
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
"""Suit in words."""
ALL_CARDS = range(4 * RANKS_PER_SUIT)


def card(suit: int, rank: int) -> int:
    """The card id of ``rank`` of ``suit``."""
    return suit * RANKS_PER_SUIT + rank


def card_suit(c: int) -> int:
    """The suit (0..3, see :class:`Suit`) of card ``c``."""
    return c // RANKS_PER_SUIT


def card_rank(c: int) -> int:
    """The rank (0 = Ace .. 10 = Four, see :class:`Rank`) of card ``c``."""
    return c % RANKS_PER_SUIT


def card_name(c: int) -> str:
    """ASCII name: rank letter then suit letter, e.g. ``"AS"``, ``"TH"``, ``"4C"``."""
    return RANK_LETTERS[c % RANKS_PER_SUIT] + SUIT_LETTERS[c // RANKS_PER_SUIT]


def card_label(c: int) -> str:
    """Display label with the suit symbol, e.g. ``"A♠"``, ``"10♥"``."""
    return RANK_LABELS[c % RANKS_PER_SUIT] + SUIT_SYMBOLS[c // RANKS_PER_SUIT]


def parse_card(text: str) -> int:
    """Parse ``"AS"``, ``"10h"``, ``"T♥"`` or ``"q♦"`` into a card id.

    Raises ``ValueError`` on anything else.
    """
    t = text.strip().upper()
    if len(t) < 2:
        raise ValueError(f"not a card: {text!r}")
    rank_text, suit_text = t[:-1], t[-1]
    if rank_text == "10":
        rank_text = "T"
    suits = {"S": 0, "H": 1, "D": 2, "C": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3}
    if rank_text not in RANK_LETTERS or suit_text not in suits:
        raise ValueError(f"not a card: {text!r}")
    return card(suits[suit_text], RANK_LETTERS.index(rank_text))


def pack(variant: PackShape) -> tuple[int, ...]:
    """The cards of the variant's pack in canonical order (suit by suit, Ace first)."""
    return _PACKS[variant.lowest_rank]


_PACKS = {low: tuple(card(s, r) for s in range(4) for r in range(low + 1)) for low in range(11)}


def deal_layout(variant: PackShape, dealer: int) -> tuple[int, ...]:
    """Owner of every slot after the shuffle: a seat, or :data:`TALON`.

    Four cards at a time clockwise from the eldest hand (the dealer's left)
    until each seat holds its hand size; the rest is the talon.
    """
    return _layout(variant.players, variant.hand_size, variant.pack_size, dealer)


_LAYOUTS: dict[tuple[int, int, int, int], tuple[int, ...]] = {}


def _layout(n: int, hand: int, size: int, dealer: int) -> tuple[int, ...]:
    key = (n, hand, size, dealer)
    got = _LAYOUTS.get(key)
    if got is None:
        if not 0 <= dealer < n:
            raise ProtocolError(f"no seat {dealer} at a table of {n}",
                                code=ViolationCode.FORM_EVENT)
        owners: list[int] = []
        while len(owners) < n * hand:
            for i in range(n):
                owners.extend([(dealer + 1 + i) % n] * 4)
        got = tuple(owners[: n * hand]) + (TALON,) * (size - n * hand)
        _LAYOUTS[key] = got
    return got
