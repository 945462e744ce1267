"""Events: everything that happens at the table, as frozen dataclasses.

System events (``Cut``, ``Deal``, ``Reveal``) are decided by no seat: the
table protocol emits them from the shuffle. Action events carry the ``seat``
that decided them first. On the wire an event is ``[kind, *fields]`` with
ints, strs and lists only: a Kiss (no trump) is the suit ``-1``.
Slot tuples in ``ShowRuff`` and ``Declare`` are strictly ascending so that
each move has exactly one encoding.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import ProtocolError

__all__ = [
    "EVENT_TYPES",
    "KISS_WIRE",
    "MAX_BID",
    "ActionEvent",
    "Bid",
    "ClaimTiddy",
    "Cut",
    "Deal",
    "Declare",
    "Discard",
    "EndDeclare",
    "Event",
    "NameTrump",
    "NoTiddy",
    "PassBid",
    "PassRuff",
    "Play",
    "Reveal",
    "See",
    "ShowRuff",
    "Vie",
    "event_from_wire",
    "event_to_wire",
]

KISS_WIRE = -1
MAX_BID = 99
_MAX_SLOT = 43
_MAX_SEAT = 2


@dataclass(frozen=True, slots=True)
class Cut:
    """The cut for the first deal: one card per seat, in seat order."""

    KIND: ClassVar[str] = "cut"
    cards: tuple[int, ...]

    def to_wire(self) -> list[Any]:
        return [list(self.cards)]


@dataclass(frozen=True, slots=True)
class Deal:
    """Start the next hand (the dealer rotates clockwise)."""

    KIND: ClassVar[str] = "deal"

    def to_wire(self) -> list[Any]:
        return []


@dataclass(frozen=True, slots=True)
class Reveal:
    """The engine learns that ``slot`` of the shuffled deck holds ``card``."""

    KIND: ClassVar[str] = "reveal"
    slot: int
    card: int

    def to_wire(self) -> list[Any]:
        return [self.slot, self.card]


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid ``amount`` pence for the talon (13 to open, then at least +1)."""

    KIND: ClassVar[str] = "bid"
    seat: int
    amount: int

    def to_wire(self) -> list[Any]:
        return [self.seat, self.amount]


@dataclass(frozen=True, slots=True)
class PassBid:
    """Pass in the auction (final)."""

    KIND: ClassVar[str] = "pass_bid"
    seat: int

    def to_wire(self) -> list[Any]:
        return [self.seat]


@dataclass(frozen=True, slots=True)
class Discard:
    """The auction winner discards one slot face down."""

    KIND: ClassVar[str] = "discard"
    seat: int
    slot: int

    def to_wire(self) -> list[Any]:
        return [self.seat, self.slot]


@dataclass(frozen=True, slots=True)
class Vie:
    """Raise the ruff stake by ``raise_by`` pence (1..5, stake at most 20)."""

    KIND: ClassVar[str] = "vie"
    seat: int
    raise_by: int

    def to_wire(self) -> list[Any]:
        return [self.seat, self.raise_by]


@dataclass(frozen=True, slots=True)
class See:
    """Match the ruff stake."""

    KIND: ClassVar[str] = "see"
    seat: int

    def to_wire(self) -> list[Any]:
        return [self.seat]


@dataclass(frozen=True, slots=True)
class PassRuff:
    """Drop out of the ruff (final; what was put in is lost)."""

    KIND: ClassVar[str] = "pass_ruff"
    seat: int

    def to_wire(self) -> list[Any]:
        return [self.seat]


@dataclass(frozen=True, slots=True)
class ShowRuff:
    """Show all of one's cards of ``suit`` at the ruff showdown."""

    KIND: ClassVar[str] = "show_ruff"
    seat: int
    suit: int
    slots: tuple[int, ...]

    def to_wire(self) -> list[Any]:
        return [self.seat, self.suit, list(self.slots)]


@dataclass(frozen=True, slots=True)
class Declare:
    """Declare a gleek (3 slots) or a mournival (4 slots) of one rank."""

    KIND: ClassVar[str] = "declare"
    seat: int
    slots: tuple[int, ...]

    def to_wire(self) -> list[Any]:
        return [self.seat, list(self.slots)]


@dataclass(frozen=True, slots=True)
class EndDeclare:
    """Done declaring combinations."""

    KIND: ClassVar[str] = "end_declare"
    seat: int

    def to_wire(self) -> list[Any]:
        return [self.seat]


@dataclass(frozen=True, slots=True)
class NameTrump:
    """Name the trump ``suit``, or ``None`` for Kiss (no trump)."""

    KIND: ClassVar[str] = "name_trump"
    seat: int
    suit: int | None

    def to_wire(self) -> list[Any]:
        return [self.seat, KISS_WIRE if self.suit is None else self.suit]


@dataclass(frozen=True, slots=True)
class ClaimTiddy:
    """Show the Four of trump in ``slot`` and collect 2 pence from each opponent."""

    KIND: ClassVar[str] = "claim_tiddy"
    seat: int
    slot: int

    def to_wire(self) -> list[Any]:
        return [self.seat, self.slot]


@dataclass(frozen=True, slots=True)
class NoTiddy:
    """Make no Tiddy claim."""

    KIND: ClassVar[str] = "no_tiddy"
    seat: int

    def to_wire(self) -> list[Any]:
        return [self.seat]


@dataclass(frozen=True, slots=True)
class Play:
    """Play the card in ``slot`` to the current trick."""

    KIND: ClassVar[str] = "play"
    seat: int
    slot: int

    def to_wire(self) -> list[Any]:
        return [self.seat, self.slot]


ActionEvent = (
    Bid
    | PassBid
    | Discard
    | Vie
    | See
    | PassRuff
    | ShowRuff
    | Declare
    | EndDeclare
    | NameTrump
    | ClaimTiddy
    | NoTiddy
    | Play
)
Event = Cut | Deal | Reveal | ActionEvent

EVENT_TYPES: dict[str, type[Any]] = {
    t.KIND: t
    for t in (
        Cut,
        Deal,
        Reveal,
        Bid,
        PassBid,
        Discard,
        Vie,
        See,
        PassRuff,
        ShowRuff,
        Declare,
        EndDeclare,
        NameTrump,
        ClaimTiddy,
        NoTiddy,
        Play,
    )
}


def event_to_wire(e: Event) -> list[Any]:
    """``[kind, *fields]``: ints, strs and lists only."""
    return [e.KIND, *e.to_wire()]


def _int(x: Any, lo: int, hi: int, what: str) -> int:
    if type(x) is not int or not lo <= x <= hi:
        raise ProtocolError(f"{what} must be an integer from {lo} to {hi}")
    return x


def _slots(x: Any, lo_len: int, hi_len: int, ascending: bool) -> tuple[int, ...]:
    if not isinstance(x, list | tuple) or not lo_len <= len(x) <= hi_len:
        raise ProtocolError(f"expected a list of {lo_len} to {hi_len} slots")
    out = tuple(_int(s, 0, _MAX_SLOT, "a slot") for s in x)
    if ascending and any(a >= b for a, b in itertools.pairwise(out)):
        raise ProtocolError("slots must be distinct and in ascending order")
    return out


def event_from_wire(data: Any) -> Event:
    """Decode ``[kind, *fields]``; ``ProtocolError`` on anything malformed.

    Only structure and ranges are checked here (seat 0..2, slot 0..43,
    card 0..43...); whether the move is allowed now is :func:`apply`'s job.
    """
    if not isinstance(data, list | tuple) or not data or not isinstance(data[0], str):
        raise ProtocolError("an event is a list starting with its kind")
    kind, args = data[0], data[1:]
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        raise ProtocolError(f"unknown event kind {kind!r}")
    arity = {"cut": 1, "deal": 0, "reveal": 2, "show_ruff": 3}.get(
        kind,
        2
        if kind in ("bid", "discard", "vie", "declare", "name_trump", "claim_tiddy", "play")
        else 1,
    )
    if len(args) != arity:
        raise ProtocolError(f"a {kind} event has {arity} fields")
    if cls is Cut:
        return Cut(_slots(args[0], 2, 3, ascending=False))  # card ids share the slot range
    if cls is Deal:
        return Deal()
    if cls is Reveal:
        return Reveal(_int(args[0], 0, _MAX_SLOT, "a slot"), _int(args[1], 0, 43, "a card"))
    seat = _int(args[0], 0, _MAX_SEAT, "a seat")
    if cls is Bid:
        return Bid(seat, _int(args[1], 1, MAX_BID, "a bid"))
    if cls is Vie:
        return Vie(seat, _int(args[1], 1, 20, "a raise"))
    if cls is ShowRuff:
        return ShowRuff(seat, _int(args[1], 0, 3, "a suit"), _slots(args[2], 1, 13, True))
    if cls is Declare:
        return Declare(seat, _slots(args[1], 3, 4, True))
    if cls is NameTrump:
        suit = _int(args[1], KISS_WIRE, 3, "a suit")
        return NameTrump(seat, None if suit == KISS_WIRE else suit)
    if cls in (Discard, ClaimTiddy, Play):
        return cls(seat, _int(args[1], 0, _MAX_SLOT, "a slot"))  # type: ignore[no-any-return]
    return cls(seat)  # type: ignore[no-any-return]
