"""Game variants: a frozen set of switches plus the sizes they imply."""

from __future__ import annotations

from dataclasses import Field, dataclass, field, fields, replace
from typing import Any

from gleek_p2p.base.errors import ProtocolError, ViolationCode

from .cards import Rank

__all__ = [
    "HAND_ORDER",
    "LEGACY_SWITCHES",
    "RULINGS",
    "STANDARD",
    "SWITCHES",
    "VARIANTS",
    "VARIANT_EXAMPLE",
    "VARIANT_WORDS",
    "ClashingSwitches",
    "Ruling",
    "UnknownSwitch",
    "Variant",
    "parse_variant",
    "ruling_switches",
    "switch",
    "variant_name",
]

LEGACY_SWITCHES = 7
"""Positions every variant's wire form writes (the form of the first logs)."""

HAND_ORDER = ("auction", "ruff", "declare", "trump", "tiddy", "tricks")
"""The stages of a hand in the standard game, by their ``Phase`` values (SPEC 1.4).

The auction stage holds the discard and the ruff stage its showdown. A
switch that plays another order says so in its ``phases`` (see :func:`switch`)."""


def switch(name: str, on: Any, default: Any = False, phases: tuple[str, ...] | None = None) -> Any:
    """A game switch of :class:`Variant`: a field whose metadata names it.

    ``name`` is what the variant's name and ``--variant`` say when the field
    holds ``on`` (``two`` for ``players=2``); every switch alone is a preset.
    ``phases``: the stages its hands play, in order, if not :data:`HAND_ORDER`.
    Everything else (``variant_name``, the presets, the parser, the wire form)
    reads these fields, so a new switch is one field here, declared last (the
    wire form is by position; SPEC 1.4).
    """
    meta: dict[str, Any] = {"switch": name, "on": on}
    if phases is not None:
        meta["phases"] = phases
    return field(default=default, metadata=meta)


class UnknownSwitch(ValueError):
    """A variant name holds a word that names no switch (``known``: the names that do)."""

    def __init__(self, word: str, known: tuple[str, ...]) -> None:
        super().__init__(f"no variant switch {word!r}; known: {', '.join(known)}")
        self.word = word
        self.known = known


class ClashingSwitches(ValueError):
    """Two switches that cannot be played together (each sets the order of the hand)."""

    def __init__(self, first: str, second: str) -> None:
        super().__init__(f"{first} and {second} cannot be combined")
        self.first = first
        self.second = second


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

    The rulings (SPEC 1.5) are switches too, recorded in the log like the
    rest, so a log is replayed under the rulings it was played with. A log
    that does not name a switch has it off; the rulings of issue 12 are on
    for new sessions and off in logs written before them (see :data:`RULINGS`).
    ``score_sheet_tricks``: trick scores go on the score sheet, settled
    against the mean of the scores (off: every pair settles the difference).
    ``optional_declaring``: declaring combinations is optional, an
    undeclared one is not paid (off: compulsory, checked by the hand audit).
    ``score_sheet_combinations``: with ``modern_combinations``, combination
    values go on the score sheet like trick scores (off: the value in total,
    split between the opponents).

    The rulings of issue 21 (on in new sessions, off in logs written before):
    ``open_auction``: bids for the talon have no table ceiling, only the bound
    of :func:`~gleek_p2p.rules.limits.max_bid` (off: 99).
    ``received_scores``: each seat receives its whole trick score (and, with
    ``modern_combinations``, its combination values), half from each
    opponent; it supersedes the two score-sheet switches (off: they decide).
    """

    players: int = switch("two", 2, default=3)
    discard_all: bool = switch("historical", True)
    kiss: bool = switch("no-kiss", False, default=True)
    modern_combinations: bool = switch("modern", True)
    post_and_pair: bool = switch("post-and-pair", True, phases=("ruff", "declare"))
    simplified: bool = switch("simplified", True, phases=("tiddy", "declare", "tricks"))
    whist_ranking: bool = switch("whist", True)
    score_sheet_tricks: bool = True
    optional_declaring: bool = True
    score_sheet_combinations: bool = True
    open_auction: bool = True
    received_scores: bool = True

    def __post_init__(self) -> None:
        if self.players not in (2, 3):
            raise ValueError("Gleek is played by 3 players (or 2 in Gleek for two)")
        ordering = [name for name, field_name, on, _order in _ORDERS
                    if getattr(self, field_name) == on]
        if len(ordering) > 1:
            raise ClashingSwitches(ordering[0], ordering[1])

    @property
    def hand_order(self) -> tuple[str, ...]:
        """The stages of each hand, in order (``Phase`` values; :data:`HAND_ORDER`)."""
        for _name, field_name, on, order in _ORDERS:
            if getattr(self, field_name) == on:
                return order
        return HAND_ORDER

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
        return self.hand_size if self.has_tricks else 0

    @property
    def has_auction(self) -> bool:
        """Whether hands start with the auction for the talon."""
        return "auction" in self.hand_order

    @property
    def has_ruff(self) -> bool:
        """Whether hands have the vying on the ruff."""
        return "ruff" in self.hand_order

    @property
    def has_tricks(self) -> bool:
        """Whether hands have a trump and tricks."""
        return "tricks" in self.hand_order

    @property
    def has_fours(self) -> bool:
        """Whether the pack holds 4s, hence a Tiddy."""
        return self.lowest_rank == Rank.FOUR

    def first_rulings(self) -> Variant:
        """This variant under the rulings of the first logs (every ruling switch off)."""
        return replace(self, **{r.switch: False for r in RULINGS})

    def rulings_of(self, issue: int) -> Variant:
        """This variant under the rulings made up to ``issue`` (12: the score-sheet ones)."""
        return replace(self, **{r.switch: r.issue <= issue for r in RULINGS})

    def game(self) -> Variant:
        """This variant under the current rulings: what names and presets compare."""
        return replace(self, **{r.switch: True for r in RULINGS})

    def to_wire(self) -> list[int]:
        """The switches as integers by position (SPEC 1.4).

        ``[players, discard_all, kiss, modern, post_and_pair, simplified,
        whist]`` always, then the later switches in the order they were
        added, with trailing zeros left off: a switch added later and off
        leaves the encoding, hence every old session id, unchanged.
        """
        out = [int(getattr(self, f.name)) for f in fields(self)]
        while len(out) > LEGACY_SWITCHES and out[-1] == 0:
            out.pop()
        return out

    @classmethod
    def from_wire(cls, data: Any) -> Variant:
        """Inverse of :meth:`to_wire`; ``ProtocolError`` on malformed input.

        A missing position past the first seven is 0 (a switch the log
        predates is off); a position this code does not know, or a trailing
        0 (two spellings of one variant), is refused.
        """
        names = [f.name for f in fields(cls)]
        if not isinstance(data, list | tuple) or not len(data) >= LEGACY_SWITCHES:
            raise ProtocolError(f"a variant is a list of at least {LEGACY_SWITCHES} integers",
                                code=ViolationCode.FORM_ROSTER)
        for x in data:
            if type(x) is not int:
                raise ProtocolError("a variant is a list of integers",
                                    code=ViolationCode.FORM_ROSTER)
        if len(data) > len(names):
            raise ProtocolError(f"this variant has {len(data) - len(names)} switches "
                                "unknown to this version", code=ViolationCode.FORM_ROSTER)
        if len(data) > LEGACY_SWITCHES and data[-1] == 0:
            raise ProtocolError("a variant does not end with a 0 past its first "
                                f"{LEGACY_SWITCHES} switches", code=ViolationCode.FORM_ROSTER)
        if any(x not in (0, 1) for x in data[1:]):
            raise ProtocolError("variant switches are 0 or 1", code=ViolationCode.FORM_ROSTER)
        values = [data[0], *(bool(x) for x in data[1:])]
        values += [False] * (len(names) - len(values))
        try:
            return cls(**dict(zip(names, values, strict=True)))
        except ValueError as exc:
            raise ProtocolError(str(exc), code=ViolationCode.FORM_ROSTER) from None


@dataclass(frozen=True, slots=True)
class Ruling:
    """A ruling switch (SPEC 1.5): its name, when it came and what it replaces.

    ``issue``: the issue that made the ruling (the switches of one issue came
    in together). ``supersedes``: switches whose reading this one replaces
    while it is on (their sentences are then not said). What each reading
    means is worded by the shell, in the reader's language, from the switch's
    name (``tools/report.py``): this room holds no sentence.
    """

    switch: str
    issue: int = 12
    supersedes: tuple[str, ...] = ()


RULINGS: tuple[Ruling, ...] = (
    Ruling("score_sheet_tricks"),
    Ruling("optional_declaring"),
    Ruling("score_sheet_combinations"),
    Ruling("open_auction", issue=21),
    Ruling("received_scores", issue=21,
           supersedes=("score_sheet_tricks", "score_sheet_combinations")),
)
"""The ruling switches: on in new sessions, off in logs written before them."""


def ruling_switches(v: Variant) -> dict[str, bool]:
    """Each ruling switch of ``v`` by name (for ``--json`` reports and vectors)."""
    return {r.switch: bool(getattr(v, r.switch)) for r in RULINGS}


_SWITCHES: tuple[tuple[str, Field[Any], Any], ...] = tuple(
    (f.metadata["switch"], f, f.metadata["on"]) for f in fields(Variant) if "switch" in f.metadata
)
"""Each game switch: its name, its field and the value that turns it on, in field order."""

_ORDERS: tuple[tuple[str, str, Any, tuple[str, ...]], ...] = tuple(
    (name, f.name, on, f.metadata["phases"]) for name, f, on in _SWITCHES if "phases" in f.metadata
)
"""The switches that play another order of the hand: name, field, value on, the order."""

SWITCHES: dict[str, tuple[str, Any]] = {name: (f.name, on) for name, f, on in _SWITCHES}
"""Each game switch's name (``two``, ``whist``...): its field and the value that turns it on."""

STANDARD = "standard"
"""The standard game's name: the first word a variant's name may have."""

VARIANT_WORDS: tuple[str, ...] = (STANDARD, *SWITCHES)
"""Every word of a variant's name: ``standard`` and the switches (for help and errors)."""

VARIANT_EXAMPLE = f"{STANDARD}+{_SWITCHES[-1][0]}"
"""A name with ``+``, as the help and the errors show it (``standard+whist``)."""

VARIANTS: dict[str, Variant] = {
    STANDARD: Variant(),
    **{name: Variant(**{f: on}) for name, (f, on) in SWITCHES.items()},
}
"""The presets: the standard game, and each switch alone under its name."""


def variant_name(v: Variant) -> str:
    """``standard``, or the switches on joined by ``+`` in field order (e.g. ``two+historical``).

    The rulings are not part of the name (see ``limits.rulings_in_force``);
    :func:`parse_variant` reads every name this gives.
    """
    parts = [name for name, f, on in _SWITCHES if getattr(v, f.name) == on]
    return "+".join(parts) if parts else STANDARD


def parse_variant(text: str) -> Variant:
    """The variant ``--variant`` names, under the current rulings.

    A preset (``standard``, ``whist``...) or switches joined by ``+``, the
    first word optionally ``standard`` (``standard+whist+modern``, ``two+historical``).
    ``UnknownSwitch`` for a word that names no switch, ``ClashingSwitches``
    for two switches that cannot be combined.
    """
    words = text.split("+")
    if words[0] == STANDARD:
        words = words[1:] if len(words) > 1 else []
    changes: dict[str, Any] = {}
    for word in words:
        if word not in SWITCHES:
            raise UnknownSwitch(word, VARIANT_WORDS)
        name, on = SWITCHES[word]
        changes[name] = on
    return Variant(**changes)
