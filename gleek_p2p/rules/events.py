"""Events: everything that happens at the table, as frozen dataclasses.

Each event kind is declared once, here: its class names its fields, and
each field carries its wire form (:class:`FieldSpec`: type, range, list
length, order) in the dataclass metadata; the class says who may send it
(``SENDER``) and what it is in words (``WORDS``). The wire codec, the bot
codec's field table and ``protocol/events.json`` are derived from these
declarations (:func:`event_declarations`).

System events (``Cut``, ``Deal``, ``Reveal``) are decided by no seat: the
table protocol emits them from the shuffle. Action events carry the ``seat``
that decided them first. On the wire an event is ``[kind, *fields]`` with
ints, strs and lists only: a Kiss (no trump) is the suit ``-1``.
Slot tuples in ``ShowRuff`` and ``Declare`` are strictly ascending so that
each move has exactly one encoding.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from gleek_p2p.base.errors import ProtocolError, ViolationCode

from .limits import FIRST_MAX_BID, MAX_RAISE, MAX_STAKE, OPENING_BID, WIRE_MAX_BID

__all__ = [
    "ACTION_FIELDS",
    "EVENT_TYPES",
    "KISS_WIRE",
    "SYSTEM",
    "ActionEvent",
    "Bid",
    "ClaimTiddy",
    "Cut",
    "Deal",
    "Declare",
    "Discard",
    "EndDeclare",
    "Event",
    "EventDeclaration",
    "FieldSpec",
    "NameTrump",
    "NoTiddy",
    "PassBid",
    "PassRuff",
    "Play",
    "Reveal",
    "See",
    "ShowRuff",
    "Vie",
    "event_declarations",
    "event_from_wire",
    "event_to_wire",
    "shown_slots_of",
]

KISS_WIRE = -1
_MAX_SLOT = 43
_MAX_CARD = 43
_MAX_SEAT = 2
SYSTEM = "the table protocol (no seat)"
"""``SENDER`` of the events no seat decides."""


@dataclass(frozen=True)
class FieldSpec:
    """The wire form of one event field.

    An ``int`` field is one integer from ``lo`` to ``hi``; a ``list`` field is
    ``min_len`` to ``max_len`` such integers (strictly ascending if
    ``ascending``). ``none_wire`` is the integer that stands for ``None``.
    ``ref`` names the shared type of ``protocol/events.json`` it is.
    """

    type: str
    lo: int
    hi: int
    what: str
    ref: str | None = None
    min_len: int = 0
    max_len: int = 0
    ascending: bool = False
    none_wire: int | None = None
    doc: str | None = None
    shows: bool = False
    """The slot(s) of this field are shown face up to everyone by the move."""

    def decode(self, x: Any) -> Any:
        """The field's value from the wire; ``ProtocolError`` if malformed."""
        if self.type == "list":
            if not isinstance(x, list | tuple) or not self.min_len <= len(x) <= self.max_len:
                raise ProtocolError(
                    f"expected a list of {self.min_len} to {self.max_len} {self.what}s",
                    code=ViolationCode.FORM_EVENT)
            out = tuple(self._int(v) for v in x)
            if self.ascending and any(a >= b for a, b in itertools.pairwise(out)):
                raise ProtocolError(f"{self.what}s must be distinct and in ascending order",
                                    code=ViolationCode.FORM_EVENT)
            return out
        value = self._int(x)
        return None if value == self.none_wire else value

    def encode(self, value: Any) -> Any:
        """The field's wire form: ints and lists only."""
        if self.type == "list":
            return list(value)
        return self.none_wire if value is None else value

    def _int(self, x: Any) -> int:
        if type(x) is not int or not self.lo <= x <= self.hi:
            raise ProtocolError(f"{self.what} must be an integer from {self.lo} to {self.hi}",
                                code=ViolationCode.FORM_EVENT)
        return x


def _f(spec: FieldSpec) -> Any:
    return field(metadata={"wire": spec})


SEAT = FieldSpec("int", 0, _MAX_SEAT, "a seat", ref="seat")
SLOT = FieldSpec("int", 0, _MAX_SLOT, "a slot", ref="slot")
SHOWN_SLOT = FieldSpec("int", 0, _MAX_SLOT, "a slot", ref="slot", shows=True)
SUIT = FieldSpec("int", 0, 3, "a suit", ref="suit")


@dataclass(frozen=True, slots=True)
class Cut:
    """The cut for the first deal: one card per seat, in seat order."""

    KIND: ClassVar[str] = "cut"
    SENDER: ClassVar[str] = SYSTEM
    WORDS: ClassVar[str] = "the cut for the first deal"
    cards: tuple[int, ...] = _f(FieldSpec("list", 0, _MAX_CARD, "a card", min_len=2, max_len=3))


@dataclass(frozen=True, slots=True)
class Deal:
    """Start the next hand (the dealer rotates clockwise)."""

    KIND: ClassVar[str] = "deal"
    SENDER: ClassVar[str] = SYSTEM
    WORDS: ClassVar[str] = "a new deal"


@dataclass(frozen=True, slots=True)
class Reveal:
    """The engine learns that ``slot`` of the shuffled deck holds ``card``."""

    KIND: ClassVar[str] = "reveal"
    SENDER: ClassVar[str] = SYSTEM
    WORDS: ClassVar[str] = "a card seen"
    slot: int = _f(SLOT)
    card: int = _f(FieldSpec("int", 0, _MAX_CARD, "a card", ref="card"))


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid ``amount`` pence for the talon (13 to open, then at least +1)."""

    KIND: ClassVar[str] = "bid"
    SENDER: ClassVar[str] = "the seat to speak in the auction"
    WORDS: ClassVar[str] = "bid for the talon"
    seat: int = _f(SEAT)
    # The wire admits any bid up to the maximum: the opening bid and the rise
    # over the last bid are rules of the moment, so a low bid is an illegal
    # move (the engine's verdict, in the abort's words), not a malformed event.
    amount: int = _f(FieldSpec(
        "int", 1, WIRE_MAX_BID, "a bid",
        doc=f"pence; the engine requires {OPENING_BID} or more to open, then more than the "
            f"last bid, and at most the variant's bound ({FIRST_MAX_BID} in logs before "
            "open_auction)"))


@dataclass(frozen=True, slots=True)
class PassBid:
    """Pass in the auction (final)."""

    KIND: ClassVar[str] = "pass_bid"
    SENDER: ClassVar[str] = "the seat to speak in the auction"
    WORDS: ClassVar[str] = "pass in the auction"
    seat: int = _f(SEAT)


@dataclass(frozen=True, slots=True)
class Discard:
    """The auction winner discards one slot face down."""

    KIND: ClassVar[str] = "discard"
    SENDER: ClassVar[str] = "the seat that took the talon"
    WORDS: ClassVar[str] = "discard a card"
    seat: int = _f(SEAT)
    slot: int = _f(SLOT)


@dataclass(frozen=True, slots=True)
class Vie:
    """Raise the ruff stake by ``raise_by`` pence (1..5, stake at most 20)."""

    KIND: ClassVar[str] = "vie"
    SENDER: ClassVar[str] = "the seat to speak on the ruff"
    WORDS: ClassVar[str] = "vie on the ruff"
    seat: int = _f(SEAT)
    # Likewise the wire admits raises up to the stake's table limit; the
    # engine applies the largest single raise and what is left to the limit.
    raise_by: int = _f(FieldSpec(
        "int", 1, MAX_STAKE, "a raise",
        doc=f"pence; the engine allows 1 to {MAX_RAISE}, and no more than the stake's limit "
            f"of {MAX_STAKE} leaves"))


@dataclass(frozen=True, slots=True)
class See:
    """Match the ruff stake."""

    KIND: ClassVar[str] = "see"
    SENDER: ClassVar[str] = "the seat to speak on the ruff"
    WORDS: ClassVar[str] = "see the ruff stake"
    seat: int = _f(SEAT)


@dataclass(frozen=True, slots=True)
class PassRuff:
    """Drop out of the ruff (final; what was put in is lost)."""

    KIND: ClassVar[str] = "pass_ruff"
    SENDER: ClassVar[str] = "the seat to speak on the ruff"
    WORDS: ClassVar[str] = "pass on the ruff"
    seat: int = _f(SEAT)


@dataclass(frozen=True, slots=True)
class ShowRuff:
    """Show all of one's cards of ``suit`` at the ruff showdown."""

    KIND: ClassVar[str] = "show_ruff"
    SENDER: ClassVar[str] = "the seat to show at the ruff showdown"
    WORDS: ClassVar[str] = "show a ruff"
    seat: int = _f(SEAT)
    suit: int = _f(SUIT)
    slots: tuple[int, ...] = _f(
        FieldSpec("list", 0, _MAX_SLOT, "a slot", ref="slot", min_len=1, max_len=13,
                  ascending=True, shows=True))


@dataclass(frozen=True, slots=True)
class Declare:
    """Declare a gleek (3 slots) or a mournival (4 slots) of one rank."""

    KIND: ClassVar[str] = "declare"
    SENDER: ClassVar[str] = "the seat to declare"
    WORDS: ClassVar[str] = "declare a gleek or a mournival"
    seat: int = _f(SEAT)
    slots: tuple[int, ...] = _f(
        FieldSpec("list", 0, _MAX_SLOT, "a slot", ref="slot", min_len=3, max_len=4,
                  ascending=True, shows=True))


@dataclass(frozen=True, slots=True)
class EndDeclare:
    """Done declaring combinations."""

    KIND: ClassVar[str] = "end_declare"
    SENDER: ClassVar[str] = "the seat to declare"
    WORDS: ClassVar[str] = "end declaring"
    seat: int = _f(SEAT)


@dataclass(frozen=True, slots=True)
class NameTrump:
    """Name the trump ``suit``, or ``None`` for Kiss (no trump)."""

    KIND: ClassVar[str] = "name_trump"
    SENDER: ClassVar[str] = "the seat that names the trump"
    WORDS: ClassVar[str] = "name the trump"
    seat: int = _f(SEAT)
    suit: int | None = _f(
        FieldSpec("int", KISS_WIRE, 3, "a suit", none_wire=KISS_WIRE,
                  doc="-1 = Kiss (no trump)"))


@dataclass(frozen=True, slots=True)
class ClaimTiddy:
    """Show the Four of trump in ``slot`` and collect 2 pence from each opponent."""

    KIND: ClassVar[str] = "claim_tiddy"
    SENDER: ClassVar[str] = "the seat to claim the Tiddy"
    WORDS: ClassVar[str] = "claim the Tiddy"
    seat: int = _f(SEAT)
    slot: int = _f(SHOWN_SLOT)


@dataclass(frozen=True, slots=True)
class NoTiddy:
    """Make no Tiddy claim."""

    KIND: ClassVar[str] = "no_tiddy"
    SENDER: ClassVar[str] = "the seat to claim the Tiddy"
    WORDS: ClassVar[str] = "claim no Tiddy"
    seat: int = _f(SEAT)


@dataclass(frozen=True, slots=True)
class Play:
    """Play the card in ``slot`` to the current trick."""

    KIND: ClassVar[str] = "play"
    SENDER: ClassVar[str] = "the seat to play to the trick"
    WORDS: ClassVar[str] = "play a card"
    seat: int = _f(SEAT)
    slot: int = _f(SHOWN_SLOT)


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


@dataclass(frozen=True)
class EventDeclaration:
    """One event kind as declared: its fields in wire order, its sender and its words."""

    kind: str
    cls: type[Any]
    fields: tuple[tuple[str, FieldSpec], ...]
    sender: str
    words: str
    doc: str

    @property
    def is_action(self) -> bool:
        """Decided by a seat (its first field is the seat), not by the table protocol."""
        return self.sender != SYSTEM


def _declare(cls: type[Any]) -> EventDeclaration:
    specs = tuple((f.name, f.metadata["wire"]) for f in fields(cls))
    doc = " ".join((cls.__doc__ or "").split())
    return EventDeclaration(cls.KIND, cls, specs, cls.SENDER, cls.WORDS, doc)


_DECLARATIONS = {kind: _declare(cls) for kind, cls in EVENT_TYPES.items()}


def event_declarations() -> tuple[EventDeclaration, ...]:
    """Every event kind, system events first, in the order of ``EVENT_TYPES``."""
    return tuple(_DECLARATIONS.values())


ACTION_FIELDS: dict[str, tuple[str, ...]] = {
    d.kind: tuple(name for name, _ in d.fields) for d in _DECLARATIONS.values() if d.is_action
}
"""Every action kind and its fields, in wire order."""

# (class, [(field name, encode, decode)]) per kind: the hot paths skip the lookups.
_CODECS: dict[str, tuple[type[Any], tuple[tuple[str, Callable[[Any], Any],
                                                Callable[[Any], Any]], ...]]] = {
    d.kind: (d.cls, tuple((name, spec.encode, spec.decode) for name, spec in d.fields))
    for d in _DECLARATIONS.values()
}


_SHOWN: dict[str, tuple[tuple[str, bool], ...]] = {
    d.kind: tuple((name, spec.type == "list") for name, spec in d.fields if spec.shows)
    for d in _DECLARATIONS.values()
}


def shown_slots_of(e: Event) -> tuple[int, ...]:
    """The slots ``e`` shows face up to everyone, in the order it names them."""
    out: tuple[int, ...] = ()
    for name, many in _SHOWN[e.KIND]:
        value = getattr(e, name)
        out += tuple(value) if many else (value,)
    return out


def event_to_wire(e: Event) -> list[Any]:
    """``[kind, *fields]``: ints, strs and lists only."""
    return [e.KIND, *[enc(getattr(e, name)) for name, enc, _ in _CODECS[e.KIND][1]]]


def event_from_wire(data: Any) -> Event:
    """Decode ``[kind, *fields]``; ``ProtocolError`` on anything malformed.

    Only structure and ranges are checked here (each field's declared
    :class:`FieldSpec`); whether the move is allowed now is :func:`apply`'s job.
    """
    if not isinstance(data, list | tuple) or not data or not isinstance(data[0], str):
        raise ProtocolError("an event is a list starting with its kind",
                            code=ViolationCode.FORM_EVENT)
    kind, args = data[0], data[1:]
    codec = _CODECS.get(kind)
    if codec is None:
        raise ProtocolError(f"unknown event kind {kind!r}", code=ViolationCode.FORM_EVENT)
    cls, specs = codec
    if len(args) != len(specs):
        raise ProtocolError(f"a {kind} event has {len(specs)} fields",
                            code=ViolationCode.FORM_EVENT)
    return cls(*[dec(a) for (_, _, dec), a in zip(specs, args, strict=True)])  # type: ignore[no-any-return]
