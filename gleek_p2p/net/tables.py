"""The tables on the LAN, read from the peers' discovery records (SPEC 5).

Every peer announces its table's public facts in its TXT record (see
``discovery.Announcement``): the table's name and hands, the variant, the
seats, whether it forms or plays, who sits there and whether watchers are
welcome. This module reads such records back and groups them into tables.

A record is anyone's word: a reader takes it as a claim, never a fact. So
every field is checked and bounded here (lengths, counts, the form of a
fingerprint), a record that does not parse is dropped (never an error), and
names are kept as sent: whoever shows them makes them inert with
``base.text.printable`` (the JSON output escapes them too). Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.net.discovery import MAX_RECORD_NAME, MAX_SEATED
from gleek_p2p.net.handshake import WIRE_VERSION
from gleek_p2p.net.messages import MAX_TABLE_BYTES, Text
from gleek_p2p.rules import Variant
from gleek_p2p.rules.variant import variant_name
from gleek_p2p.table.roster import MAX_HANDS

__all__ = [
    "MAX_RECORDS",
    "MAX_TABLES",
    "SeatClaim",
    "TableClaim",
    "TableListing",
    "group_tables",
    "parse_record",
]

MAX_RECORDS = 256
"""Most records (one per announcing peer) a listing reads."""
MAX_TABLES = 64
"""Most tables a listing shows (a flood of forged records cannot fill a screen)."""
MAX_TABLE_NAME = 64
"""Characters of a table's name read from a record."""
_FINGERPRINT = re.compile(r"[0-9a-f]{4}(-[0-9a-f]{4}){3}")
_HANDS = re.compile(r"[1-9][0-9]{0,3}")


@dataclass(frozen=True)
class SeatClaim:
    """One player a record says is at the table: key fingerprint and name (both unverified)."""

    fingerprint: str
    name: str


@dataclass(frozen=True)
class TableClaim:
    """What one announcing peer says of its table."""

    table: str
    """The table's name (as ``--table`` takes it)."""
    hands: int | None
    """Hands in the session, when the record's ``t`` ends with ``/HANDS``."""
    variant: str
    """The variant's name (``variant_name``), or ``""`` if this version cannot read it."""
    variant_wire: tuple[int, ...]
    seats: int
    playing: bool
    watchers: bool | None
    """None when the record does not say."""
    seated: tuple[SeatClaim, ...]
    announcer: str
    """The announcer's fingerprint."""
    address: tuple[str, int]
    version: int | None = WIRE_VERSION
    """The wire version the record's ``v`` says (None if it says none readable)."""
    sittable: bool = True
    """False when no peer can sit at it: a Hello cannot carry its ``t`` (over
    ``MAX_TABLE_BYTES``, a control character) or a roster its hands."""

    @property
    def key(self) -> tuple[str, int | None, tuple[int, ...], int, int | None]:
        """What peers must share to sit together: name, hands, variant, seats, version."""
        return (self.table, self.hands, self.variant_wire, self.seats, self.version)


@dataclass(frozen=True)
class TableListing:
    """One table as the records tell it, merged from every peer announcing it."""

    table: str
    hands: int | None
    variant: str
    seats: int
    playing: bool
    watchers: bool | None
    """True only if every announcing peer says yes; None if none says."""
    seated: tuple[SeatClaim, ...]
    addresses: tuple[tuple[str, int], ...]
    version: int | None = WIRE_VERSION
    """The wire version its players announce (None: not said, or unreadable)."""
    sittable: bool = True
    """False when no peer can sit at it (``TableClaim.sittable``)."""

    @property
    def same_version(self) -> bool:
        """Whether its players speak this program's wire version (only then can it sit)."""
        return self.version == WIRE_VERSION

    @property
    def free(self) -> int:
        """Seats no record claims taken (0 once playing)."""
        return 0 if self.playing else max(0, self.seats - len(self.seated))

    @property
    def joinable(self) -> bool:
        """Whether ``--variant`` can name it, it is forming with a seat free, and its
        players speak our wire version (its peers would refuse us otherwise).

        Every name ``variant_name`` gives is one ``--variant`` reads; ``""`` is a
        variant of a later version."""
        return not self.playing and self.free > 0 and self.variant != "" \
            and self.hands is not None and self.same_version and self.sittable


def _int(text: str | None, low: int, high: int) -> int:
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 4:
        raise ProtocolError("not a small whole number")
    value = int(text)
    if not low <= value <= high:
        raise ProtocolError("out of range")
    return value


def _variant(text: str | None) -> tuple[tuple[int, ...], str]:
    if text is None or len(text) > 64:
        raise ProtocolError("no variant")
    try:
        wire = tuple(_int(part, 0, 9) for part in text.split(","))
    except ProtocolError:
        raise ProtocolError("a malformed variant") from None
    try:
        name = variant_name(Variant.from_wire(list(wire)))
    except ProtocolError:
        name = ""  # a variant of a later version: listed, not joinable
    return wire, name


def _fits_hello(wire: str) -> bool:
    try:
        Text("the table name", MAX_TABLE_BYTES).check(wire)
    except ProtocolError:
        return False
    return True


def _seat(text: str | None) -> SeatClaim | None:
    if text is None:
        return None
    fp, _space, name = text.partition(" ")
    if not _FINGERPRINT.fullmatch(fp) or not name:
        return None
    return SeatClaim(fp, name[:MAX_RECORD_NAME])


def parse_record(txt: Mapping[str, str], address: tuple[str, int]) -> TableClaim | None:
    """The claim a TXT record makes, or None if it is not a well-formed table record."""
    try:
        full = txt.get("t")
        if not isinstance(full, str) or not full or len(full) > MAX_TABLE_NAME + 5:
            return None
        table, slash, hands_text = full.rpartition("/")
        hands = int(hands_text) if slash and _HANDS.fullmatch(hands_text) else None
        if hands is None:
            table = full
        # Listed as it is, never joined nor watched: a Hello cannot carry its name,
        # or a roster its hands (picked, every dial would fail, or the table would
        # form and then fail every seat making its roster).
        sittable = hands is not None and hands <= MAX_HANDS and _fits_hello(full)
        table = table[:MAX_TABLE_NAME]
        seats = _int(txt.get("n"), 1, MAX_SEATED)
        wire, variant = _variant(txt.get("var"))
        announcer = txt.get("fp", "")
        if not isinstance(announcer, str) or not _FINGERPRINT.fullmatch(announcer):
            return None
        state = txt.get("st", "forming")
        if state not in ("forming", "playing"):
            return None
        watchers = {"yes": True, "no": False}.get(txt.get("w", ""))
        seated: dict[str, SeatClaim] = {}
        for i in range(MAX_SEATED):
            seat = _seat(txt.get(f"s{i}"))
            if seat is not None and seat.fingerprint not in seated:
                seated[seat.fingerprint] = seat
        try:
            # Another release's record is listed (the person learns the table is there
            # and why it cannot be joined), never merged with ours.
            version: int | None = _int(txt.get("v"), 0, 9999)
        except ProtocolError:
            version = None
        return TableClaim(table, hands, variant, wire, seats, state == "playing", watchers,
                          tuple(seated.values())[:seats], announcer, address, version,
                          sittable)
    except (ProtocolError, ValueError, TypeError, AttributeError):
        return None


def group_tables(claims: Iterable[TableClaim]) -> list[TableListing]:
    """The tables the claims describe, forming ones first, then by name.

    Claims of one table (same name, hands, variant and seats) are merged:
    while it forms, every peer there announces it with whom it has met, so
    the seated are their union, capped at the seats. A playing table's
    records name its roster; two rosters under one name are two tables.
    At most ``MAX_TABLES``.
    """
    forming: dict[tuple[object, ...], list[TableClaim]] = {}
    playing: dict[tuple[object, ...], list[TableClaim]] = {}
    for claim in claims:
        if claim.playing:
            roster = tuple(sorted(s.fingerprint for s in claim.seated))
            playing.setdefault((*claim.key, roster), []).append(claim)
        else:
            forming.setdefault(claim.key, []).append(claim)
    out = [_merge(group) for group in (*forming.values(), *playing.values())]
    out.sort(key=lambda t: (t.playing, t.table, t.hands or 0, t.variant, t.seats,
                            tuple(s.fingerprint for s in t.seated)))
    return out[:MAX_TABLES]


def _merge(group: list[TableClaim]) -> TableListing:
    first = group[0]
    seated: dict[str, SeatClaim] = {}
    for claim in sorted(group, key=lambda c: c.announcer):
        for seat in claim.seated:
            seated.setdefault(seat.fingerprint, seat)
    says = [c.watchers for c in group if c.watchers is not None]
    watchers = all(says) if says else None
    # Every address, those of announcers claiming a seated key first: a few were
    # kept (the lowest), so a stranger announcing the same table from lower
    # addresses pushed the table's own out of the list and `gleek watch` dialled
    # only the stranger. A stranger can claim a seated key as announcer too:
    # the order only helps, the watcher leaves a seat that feeds another table.
    keys = {s.fingerprint for s in seated.values()}
    seated_at = {c.address for c in group if c.announcer in keys}
    addresses = tuple(sorted({c.address for c in group},
                             key=lambda a: (a not in seated_at, a)))[:MAX_RECORDS]
    return TableListing(first.table, first.hands, first.variant, first.seats, first.playing,
                        watchers, tuple(seated.values())[:first.seats], addresses,
                        first.version, first.sittable)
