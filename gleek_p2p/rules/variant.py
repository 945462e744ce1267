"""Game variants: a frozen set of switches plus the sizes they imply."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from ..errors import ProtocolError
from .cards import Rank

__all__ = ["VARIANTS", "Variant", "variant_name"]


@dataclass(frozen=True, slots=True)
class Variant:
    """The switches of a game; the default is the standard three-player game.

    ``players``: 3, or 2 for Gleek for two (36-card pack, talon 12).
    ``discard_all``: historical rule, the auction winner discards the whole
    talon size (8) and keeps 12 instead of 13.
    ``kiss``: the trump maker may name no trump ("Kiss").
    ``modern_combinations``: a combination's value is the total paid to the
    declarer, split between the opponents, instead of the value from each.
    ``post_and_pair``: no auction, no trump, no tricks: ruff and combinations.
    ``simplified``: no auction and no ruff; trump fixed by the hand number.
    ``whist_ranking``: the Ace of trump is top trump but not Tib (no 15).
    """

    players: int = 3
    discard_all: bool = False
    kiss: bool = True
    modern_combinations: bool = False
    post_and_pair: bool = False
    simplified: bool = False
    whist_ranking: bool = False

    def __post_init__(self) -> None:
        if self.players not in (2, 3):
            raise ValueError("Gleek is played by 3 players (or 2 in Gleek for two)")
        if self.post_and_pair and self.simplified:
            raise ValueError("post-and-pair and simplified cannot be combined")

    @property
    def lowest_rank(self) -> int:
        """Rank number of the lowest card in the pack (Four, or Six for two)."""
        return int(Rank.FOUR) if self.players == 3 else int(Rank.SIX)

    @property
    def pack_size(self) -> int:
        """44 cards (2s and 3s removed), or 36 for Gleek for two (A..6)."""
        return 4 * (self.lowest_rank + 1)

    @property
    def hand_size(self) -> int:
        """Cards dealt to each seat: 12."""
        return 12

    @property
    def talon_size(self) -> int:
        """Cards left after the deal: 8 (12 for Gleek for two)."""
        return self.pack_size - self.players * self.hand_size

    @property
    def discard_count(self) -> int:
        """Cards the auction winner discards: talon size - 1, or all of it."""
        return self.talon_size if self.discard_all else self.talon_size - 1

    @property
    def tricks(self) -> int:
        """Tricks per hand (0 in post-and-pair)."""
        return 0 if self.post_and_pair else self.hand_size

    @property
    def has_auction(self) -> bool:
        """Whether hands start with the auction for the talon."""
        return not (self.post_and_pair or self.simplified)

    @property
    def has_ruff(self) -> bool:
        """Whether hands have the vying on the ruff."""
        return not self.simplified

    @property
    def has_tricks(self) -> bool:
        """Whether hands have a trump and tricks."""
        return not self.post_and_pair

    @property
    def has_fours(self) -> bool:
        """Whether the pack holds 4s, hence a Tiddy."""
        return self.lowest_rank == Rank.FOUR

    def to_wire(self) -> list[int]:
        """``[players, discard_all, kiss, modern, post_and_pair, simplified, whist]``."""
        return [int(getattr(self, f.name)) for f in fields(self)]

    @classmethod
    def from_wire(cls, data: Any) -> Variant:
        """Inverse of :meth:`to_wire`; ``ProtocolError`` on malformed input."""
        names = [f.name for f in fields(cls)]
        if not isinstance(data, list | tuple) or len(data) != len(names):
            raise ProtocolError(f"a variant is a list of {len(names)} integers")
        for x in data:
            if type(x) is not int:
                raise ProtocolError("a variant is a list of integers")
        if any(x not in (0, 1) for x in data[1:]):
            raise ProtocolError("variant switches are 0 or 1")
        try:
            return cls(data[0], *(bool(x) for x in data[1:]))
        except ValueError as exc:
            raise ProtocolError(str(exc)) from None


VARIANTS: dict[str, Variant] = {
    "standard": Variant(),
    "historical": Variant(discard_all=True),
    "no-kiss": Variant(kiss=False),
    "modern": Variant(modern_combinations=True),
    "post-and-pair": Variant(post_and_pair=True),
    "simplified": Variant(simplified=True),
    "whist": Variant(whist_ranking=True),
    "two": Variant(players=2),
}


def variant_name(v: Variant) -> str:
    """The preset name of ``v``, or its switches joined by ``+`` (e.g. ``two+historical``)."""
    for name, preset in VARIANTS.items():
        if preset == v:
            return name
    parts = ["two"] if v.players == 2 else []
    for flag, name in (
        (v.discard_all, "historical"),
        (not v.kiss, "no-kiss"),
        (v.modern_combinations, "modern"),
        (v.post_and_pair, "post-and-pair"),
        (v.simplified, "simplified"),
        (v.whist_ranking, "whist"),
    ):
        if flag:
            parts.append(name)
    return "+".join(parts)
