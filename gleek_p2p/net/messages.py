"""The peer wire messages (protocol/wire.md) as frozen dataclasses.

On the wire every message is one frame holding the canonical encoding of a
list ``[tag, field, ...]``. Every field is checked for type and size when a
message is built, so a decoded message is always a valid one and a malformed
frame is a ProtocolError, never a crash or an unbounded allocation.
"""

from __future__ import annotations

import enum
import ipaddress
import unicodedata
from collections.abc import Sequence
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, ClassVar, TypeAlias, TypeVar

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log import canonical

__all__ = [
    "CHALLENGE_SIZE",
    "KEY_SIZE",
    "LEAVE_DOMAIN",
    "MAX_ATTEMPT",
    "MAX_EVENT_SIZE",
    "MAX_HELLO_BYTES",
    "MAX_HOST_BYTES",
    "MAX_MESSAGE_SIZE",
    "MAX_NAME_BYTES",
    "MAX_REASON_BYTES",
    "MAX_SEATS",
    "MAX_TABLE_BYTES",
    "MAX_VARIANT_ITEMS",
    "MIN_SEATS",
    "NONCE_SIZE",
    "REFUSE_DOMAIN",
    "REVEAL_DOMAIN",
    "SIGNATURE_SIZE",
    "Addresses",
    "Bye",
    "ByeCode",
    "Event",
    "Hello",
    "Leave",
    "Message",
    "Ping",
    "Pong",
    "Proof",
    "Refuse",
    "RefuseCode",
    "Reveal",
    "Sync",
    "decode_message",
    "encode_message",
]

KEY_SIZE = 32
SIGNATURE_SIZE = 64
NONCE_SIZE = 32
CHALLENGE_SIZE = 32
DIGEST_SIZE = 32
MAX_NAME_BYTES = 64
MAX_TABLE_BYTES = 64
MAX_HOST_BYTES = 45
"""The longest IP address literal (an IPv6 address with an embedded IPv4 one)."""
MAX_REASON_BYTES = 512
MAX_VARIANT_ITEMS = 16
MAX_VARIANT_VALUE = 0xFFFF
MIN_SEATS = 2
MAX_SEATS = 8
MAX_EVENT_SIZE = 256 * 1024
MAX_U63 = (1 << 63) - 1
MAX_ATTEMPT = (1 << 32) - 1
MAX_MESSAGE_SIZE = MAX_EVENT_SIZE + 64
"""Largest message payload; the frame limit must be at least this."""


# -- field specs ----------------------------------------------------------------
#
# Each message declares its fields once, as in rules/events.py: a dataclass
# field whose metadata holds its wire spec. The checks on building, the
# encoder and the decoder are derived from the specs (``_Wire``), so no
# message hand-writes its codec.


def _int(value: Any, what: str, low: int, high: int) -> int:
    # bool is an int subclass; a True where a number belongs is malformed.
    if type(value) is not int:
        raise ProtocolError(f"{what} must be an integer")
    if not low <= value <= high:
        raise ProtocolError(f"{what} must be between {low} and {high}, got {value}")
    return value


def _bytes(value: Any, what: str, size: int | None = None, max_size: int | None = None) -> bytes:
    if type(value) is not bytes:
        raise ProtocolError(f"{what} must be bytes")
    if size is not None and len(value) != size:
        raise ProtocolError(f"{what} must be {size} bytes, got {len(value)}")
    if max_size is not None and len(value) > max_size:
        raise ProtocolError(f"{what} must be at most {max_size} bytes, got {len(value)}")
    return value


def _text(value: Any, what: str, max_bytes: int, *, allow_empty: bool) -> str:
    if type(value) is not str:
        raise ProtocolError(f"{what} must be a string")
    if not allow_empty and not value:
        raise ProtocolError(f"{what} must not be empty")
    if len(value.encode("utf-8", "surrogatepass")) > max_bytes:
        raise ProtocolError(f"{what} must be at most {max_bytes} bytes of UTF-8")
    # These strings reach a terminal: control characters could rewrite the screen.
    for ch in value:
        if unicodedata.category(ch) in ("Cc", "Cs"):
            raise ProtocolError(f"{what} must not hold control characters")
    return value


def _seq(value: Any, what: str, max_items: int) -> Sequence[Any]:
    if not isinstance(value, list | tuple):
        raise ProtocolError(f"{what} must be a list")
    if len(value) > max_items:
        raise ProtocolError(f"{what} must have at most {max_items} items, got {len(value)}")
    return value


def _host(value: Any) -> str:
    host = _text(value, "a host address", MAX_HOST_BYTES, allow_empty=False)
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise ProtocolError(f"{host!r} is not an IP address") from None
    return host


class Spec:
    """The wire form of one message field: what it admits, and how it is written.

    ``check`` validates a value given to the constructor and returns it in its
    stored form (a list as a tuple, a code enum as its int); ``encode`` gives
    the wire value; ``decode`` shapes a wire value for the constructor, which
    then checks it. ``what`` names the field in error sentences.
    """

    what: str

    def check(self, value: Any) -> Any:
        """The value as stored; ``ProtocolError`` if the field does not admit it."""
        raise NotImplementedError

    def encode(self, value: Any) -> Any:
        """The wire value (ints, bytes, str and lists only)."""
        return value

    def decode(self, wire: Any) -> Any:
        """The constructor's argument from the wire value (checked by ``check`` after)."""
        return wire


@dataclass(frozen=True)
class Int(Spec):
    """An integer from ``lo`` to ``hi`` (a bool is not one)."""

    what: str
    lo: int
    hi: int

    def check(self, value: Any) -> int:
        return _int(value, self.what, self.lo, self.hi)


@dataclass(frozen=True)
class Code(Spec):
    """A code from 0 to :data:`MAX_CODE`; an ``IntEnum`` member is stored as its int."""

    what: str

    def check(self, value: Any) -> int:
        if isinstance(value, enum.IntEnum):
            value = int(value)  # equal and hashed as the plain int
        return _int(value, self.what, 0, MAX_CODE)


@dataclass(frozen=True)
class Bytes(Spec):
    """Bytes of exactly ``size`` or at most ``max_size``; ``optional``: also ``b""``."""

    what: str
    size: int | None = None
    max_size: int | None = None
    nonempty: bool = False
    optional: bool = False

    def check(self, value: Any) -> bytes:
        if self.optional and value == b"" and type(value) is bytes:
            return value
        out = _bytes(value, self.what, self.size, self.max_size)
        if self.nonempty and not out:
            raise ProtocolError(f"{self.what} must not be empty")
        return out


@dataclass(frozen=True)
class Text(Spec):
    """A string of at most ``max_bytes`` of UTF-8 with no control character."""

    what: str
    max_bytes: int
    allow_empty: bool = False

    def check(self, value: Any) -> str:
        return _text(value, self.what, self.max_bytes, allow_empty=self.allow_empty)


@dataclass(frozen=True)
class Host(Spec):
    """An IP address literal; ``optional``: also ``""`` (no address said)."""

    what: str = "a host address"
    optional: bool = False

    def check(self, value: Any) -> str:
        return "" if self.optional and value == "" else _host(value)


@dataclass(frozen=True)
class ListOf(Spec):
    """A list of at most ``max_items`` values of ``item``, stored as a tuple."""

    item: Spec
    what: str
    max_items: int

    def check(self, value: Any) -> tuple[Any, ...]:
        return tuple(self.item.check(x) for x in _seq(value, self.what, self.max_items))

    def encode(self, value: Any) -> list[Any]:
        return [self.item.encode(x) for x in value]

    def decode(self, wire: Any) -> tuple[Any, ...]:
        return tuple(_seq(wire, self.what, self.max_items))


@dataclass(frozen=True)
class Flag(Spec):
    """A boolean written only when true, as ``1`` (so a ``0`` there is malformed)."""

    what: str
    mark: str
    """The field's name in the sentence about its wire form."""

    def check(self, value: Any) -> bool:
        if type(value) is not bool:
            raise ProtocolError(f"{self.what} must be a boolean")
        return value

    def encode(self, value: Any) -> int:
        return int(value)

    def decode(self, wire: Any) -> bool:
        # Only ``1``: one message has one encoding (a Hello's bytes go into the
        # handshake hash), so a ``0`` or a ``True`` there is malformed.
        if type(wire) is not int or wire != 1:
            raise ProtocolError(f"{self.mark} must be 1")
        return True


def _f(spec: Spec, default: Any = MISSING) -> Any:
    return field(default=default, metadata={"wire": spec})


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


class _Wire:
    """What every message derives from its declared fields: checks, encoder, decoder.

    On the wire a message is ``[TAG, *fields]``. ``FORMS`` lists the field
    counts the message may be written with (all of them if empty): a form
    longer than the shortest is used only when its last field differs from
    its default, and a decoder refuses that field at its default, so each
    message has exactly one encoding.
    """

    TAG: ClassVar[int]
    FORMS: ClassVar[tuple[int, ...]] = ()

    def __post_init__(self) -> None:
        for f in _specs(type(self)):
            value = getattr(self, f.name)
            checked = f.metadata["wire"].check(value)
            if checked is not value:
                _set(self, f.name, checked)
        self._check()

    def _check(self) -> None:
        """Checks across fields (equal lengths, order); each field's own spec came first."""

    def to_wire(self) -> list[Any]:
        """The canonical list for this message (tag first)."""
        specs = _specs(type(self))
        values = [f.metadata["wire"].encode(getattr(self, f.name)) for f in specs]
        forms = type(self).FORMS or (len(specs),)
        n = next((n for n in reversed(forms[1:])
                  if getattr(self, specs[n - 1].name) != specs[n - 1].default), forms[0])
        return [self.TAG, *values[:n]]

    @classmethod
    def from_wire(cls, fields: Sequence[Any]) -> Any:
        """Build from the list after the tag; ProtocolError if malformed."""
        specs = _specs(cls)
        forms = cls.FORMS or (len(specs),)
        if len(fields) not in forms:
            raise ProtocolError(f"a {cls.__name__} message has {forms[0]} fields, "
                                f"got {len(fields)}")
        args = [f.metadata["wire"].decode(x) for f, x in zip(specs, fields, strict=False)]
        if len(fields) > forms[0]:
            last = specs[len(fields) - 1]
            value = args[-1]
            if type(value) is type(last.default) and value == last.default:
                raise ProtocolError(f"a {cls.__name__} message carries {last.name} "
                                    f"{last.default!r} only by leaving it out")
        return cls(*args)


_SPECS: dict[type[Any], tuple[Field[Any], ...]] = {}


def _specs(cls: type[Any]) -> tuple[Field[Any], ...]:
    got = _SPECS.get(cls)
    if got is None:
        got = _SPECS[cls] = tuple(f for f in fields(cls) if "wire" in f.metadata)
    return got


# -- messages -------------------------------------------------------------------


MAX_CODE = 0xFFFF
_PORT = 0xFFFF
_KEY = Bytes("a peer key", KEY_SIZE)


@dataclass(frozen=True)
class Hello(_Wire):
    """The first message each side sends: who it is and which table it wants.

    ``nonce_commit`` is sha256 of the peer's formation nonce (the same on all
    its connections for one formation); ``challenge`` is the sender's fresh
    X25519 ephemeral public key for this one connection (channel.py), so a
    proof recorded on one connection is useless on any other.
    ``listen_port`` is where the sender accepts connections (0: it does not
    listen).
    """

    TAG: ClassVar[int] = 1
    FORMS: ClassVar[tuple[int, ...]] = (10, 11)
    version: int = _f(Int("the protocol version", 0, 0xFFFF))
    table: str = _f(Text("the table name", MAX_TABLE_BYTES))
    variant: tuple[int, ...] = _f(ListOf(Int("a variant option", 0, MAX_VARIANT_VALUE),
                                         "the variant", MAX_VARIANT_ITEMS))
    seats: int = _f(Int("the seat count", MIN_SEATS, MAX_SEATS))
    public: bytes = _f(Bytes("the public key", KEY_SIZE))
    name: str = _f(Text("the player name", MAX_NAME_BYTES))
    nonce_commit: bytes = _f(Bytes("the nonce commitment", DIGEST_SIZE))
    listen_port: int = _f(Int("the listen port", 0, _PORT))
    challenge: bytes = _f(Bytes("the connection challenge", CHALLENGE_SIZE))
    attempt: int = _f(Int("the formation attempt", 0, MAX_ATTEMPT), 0)
    """The formation attempt ``nonce_commit`` belongs to (formation.py)."""
    watcher: bool = _f(Flag("the watcher flag", "a Hello's watcher mark"), False)
    """The sender comes to watch, not to sit (SPEC 5.x): it never counts in a
    formation. On the wire a trailing ``1``, absent for a player, so a
    player's Hello (and every handshake hash) is what it always was."""


@dataclass(frozen=True)
class Proof(_Wire):
    """A signature over the handshake transcript (see handshake.py)."""

    TAG: ClassVar[int] = 2
    signature: bytes = _f(Bytes("the proof signature", SIGNATURE_SIZE))


class RefuseCode(enum.IntEnum):
    """What a refusal means to the program; the reason sentence is for the user.

    A receiver treats a code it does not know as ``NONE``.
    """

    NONE = 0
    """Nothing the program acts on: the reason says it all."""
    TABLE_FULL = 1
    """Every seat is taken by a formed table or a session: dialling again is pointless."""
    NO_WATCHERS = 2
    """To a watcher: the players of this table chose not to be watched (``--watchers no``)."""
    NOT_NOW = 3
    """Not now, maybe later: the refuser's formation has no seat for the dialler yet, it
    keeps the dialler out for a while, or (to a watcher) its table is not playing yet or
    it feeds its most watchers. Only told: nothing ends on it."""


class ByeCode(enum.IntEnum):
    """What a goodbye means to the program; the reason sentence is for the user.

    A receiver treats a code it does not know as ``NONE``.
    """

    NONE = 0
    """Nothing the program acts on (a restart, a duplicate connection, ...)."""
    LEFT_THE_TABLE = 1
    """The player left the session on purpose: waiting for it to come back helps nobody."""
    SESSION_OVER = 2
    """The session is finished (its last hand played): the peer closes, nothing is wrong."""
    STARTING_OVER = 3
    """Formation: the sender left its attempt (its revealed nonce is spent) and will dial
    again with a new commitment; a peer that revealed with it moves on at once too."""
    TABLE_FULL = 4
    """Formation: the sender cannot count the receiver (its seats are taken, or the table
    it revealed has no place for it). Only told to the person: nothing acts on it."""
    CLOSING = 5
    """The sender's program closes its links with nothing more to say: its session stopped
    short of the end (an abort, a hand-over) or it is shutting down. Only told."""
    SILENT = 6
    """The sender heard nothing from the receiver within its read timeout. Only told."""
    NOT_READING = 7
    """The receiver took none of the sender's bytes within its write timeout, or let too
    many messages wait. Only told."""
    MALFORMED = 8
    """The receiver sent a frame or message the sender could not read. Only told."""
    DUPLICATE = 9
    """A second connection between the same two peers: the sender keeps the other one
    (protocol/wire.md, "Duplicate connections"). Only told."""


_Code = TypeVar("_Code", RefuseCode, ByeCode)


def _meaning(code: int, kind: type[_Code]) -> _Code:
    try:
        return kind(code)
    except ValueError:
        return kind(0)


REFUSE_DOMAIN = b"gleek-p2p/refuse/v1\x00"


@dataclass(frozen=True)
class Refuse(_Wire):
    """The sender will not go on with this connection; ``reason`` is for the user.

    ``code`` (a ``RefuseCode`` value) is what the program acts on. A refusal
    made on the peer's Hello is *signed* (``signature``: Ed25519 by the
    refuser's identity over ``signed_bytes(h)``, ``h`` the handshake hash of
    both Hellos): it proves who refused this very connection, as a ``Proof``
    would, so a receiver can tell it from a stranger's. ``seated`` is the
    sorted keys of the table the refuser sits at (for ``TABLE_FULL``), and
    ``hosts[i]:ports[i]`` where ``seated[i]`` listens ("" and 0: not said);
    only the signed form carries them on the wire.
    """

    TAG: ClassVar[int] = 3
    # [reason], [reason, code] (code not 0) or the signed form with every field.
    FORMS: ClassVar[tuple[int, ...]] = (1, 2, 6)
    reason: str = _f(Text("the refusal reason", MAX_REASON_BYTES))
    code: int = _f(Code("the Refuse code"), int(RefuseCode.NONE))
    seated: tuple[bytes, ...] = _f(ListOf(Bytes("a seated key", KEY_SIZE), "the seated keys",
                                          MAX_SEATS), ())
    hosts: tuple[str, ...] = _f(ListOf(Host(optional=True), "the seated hosts", MAX_SEATS), ())
    ports: tuple[int, ...] = _f(ListOf(Int("a seated port", 0, _PORT), "the seated ports",
                                       MAX_SEATS), ())
    signature: bytes = _f(Bytes("the refusal signature", SIGNATURE_SIZE, optional=True), b"")

    def _check(self) -> None:
        if list(self.seated) != sorted(set(self.seated)):
            raise ProtocolError("the seated keys must be distinct and sorted")
        if not len(self.seated) == len(self.hosts) == len(self.ports):
            raise ProtocolError("a refusal needs as many seated keys, hosts and ports")
        if any((h == "") != (p == 0) for h, p in zip(self.hosts, self.ports, strict=True)):
            raise ProtocolError("a seated address is a host and a port, or neither")

    @property
    def signed(self) -> bool:
        """True if the refusal carries a signature (whether it verifies is the receiver's check)."""
        return self.signature != b""

    def signed_bytes(self, h: bytes) -> bytes:
        """What the refuser signs: the domain, the handshake hash ``h`` and every other field."""
        return REFUSE_DOMAIN + h + canonical.encode(
            [self.reason, self.code, list(self.seated), list(self.hosts), list(self.ports)])

    def where(self) -> list[tuple[bytes, tuple[str, int]]]:
        """(key, (host, port)) for each seat whose address the refusal gives."""
        return [(k, (h, p)) for k, h, p in zip(self.seated, self.hosts, self.ports, strict=True)
                if p]

    @property
    def meaning(self) -> RefuseCode:
        """The code as a ``RefuseCode`` (``NONE`` for a code this version does not know)."""
        return _meaning(self.code, RefuseCode)


REVEAL_DOMAIN = b"gleek-p2p/reveal/v1\x00"
MAX_HELLO_BYTES = 1024
"""Room for one encoded Hello inside a Reveal (the largest is under 400 bytes)."""


@dataclass(frozen=True)
class Reveal(_Wire):
    """Formation: the sender's nonce and the whole table as the sender saw it, signed.

    ``peers`` is the sorted list of the table's public keys (the sender's
    included). For each ``peers[i]`` other than the sender, ``hellos[i]`` is
    the encoded Hello that peer sent the sender, ``mine[i]`` the encoded
    Hello the sender sent it on that connection, and ``proofs[i]`` the
    peer's handshake Proof: the peer's own signature over both Hellos
    (handshake.py), so anyone can check what that peer told the sender. At
    the sender's own index the three are empty. ``signature`` is Ed25519 by
    ``sender`` over ``signed_bytes()``. A Reveal may be relayed: it is the
    signature, not the link, that says who revealed.
    """

    TAG: ClassVar[int] = 4
    sender: bytes = _f(Bytes("the revealing key", KEY_SIZE))
    nonce: bytes = _f(Bytes("the formation nonce", NONCE_SIZE))
    attempt: int = _f(Int("the formation attempt", 0, MAX_ATTEMPT))
    peers: tuple[bytes, ...] = _f(ListOf(_KEY, "the peer list", MAX_SEATS))
    hellos: tuple[bytes, ...] = _f(ListOf(Bytes("a seen Hello", max_size=MAX_HELLO_BYTES),
                                          "the hellos list", MAX_SEATS))
    mine: tuple[bytes, ...] = _f(ListOf(Bytes("a sent Hello", max_size=MAX_HELLO_BYTES),
                                        "the mine list", MAX_SEATS))
    proofs: tuple[bytes, ...] = _f(ListOf(Bytes("a handshake proof", max_size=SIGNATURE_SIZE),
                                          "the proofs list", MAX_SEATS))
    signature: bytes = _f(Bytes("the reveal signature", SIGNATURE_SIZE))

    def _check(self) -> None:
        for name in ("hellos", "mine", "proofs"):
            if len(getattr(self, name)) != len(self.peers):
                raise ProtocolError(f"a Reveal needs as many {name} as peers")

    def signed_bytes(self) -> bytes:
        """What the sender signs: the domain, then every other field, canonically."""
        return REVEAL_DOMAIN + canonical.encode(self.to_wire()[1:-1])


@dataclass(frozen=True)
class Event(_Wire):
    """One encoded, signed log envelope; the network layer never looks inside."""

    TAG: ClassVar[int] = 5
    data: bytes = _f(Bytes("the event", max_size=MAX_EVENT_SIZE, nonempty=True))


@dataclass(frozen=True)
class Sync(_Wire):
    """Ask the peer to send every event from sequence number ``from_seq`` on."""

    TAG: ClassVar[int] = 6
    from_seq: int = _f(Int("the sync start", 0, MAX_U63))


@dataclass(frozen=True)
class Bye(_Wire):
    """The sender is closing the connection; ``reason`` is for the user.

    ``code`` (a ``ByeCode`` value) is what the program acts on.
    """

    TAG: ClassVar[int] = 7
    FORMS: ClassVar[tuple[int, ...]] = (1, 2)  # code 0 is left off the wire
    reason: str = _f(Text("the goodbye reason", MAX_REASON_BYTES, allow_empty=True))
    code: int = _f(Code("the Bye code"), int(ByeCode.NONE))

    @property
    def meaning(self) -> ByeCode:
        """The code as a ``ByeCode`` (``NONE`` for a code this version does not know)."""
        return _meaning(self.code, ByeCode)


@dataclass(frozen=True)
class Ping(_Wire):
    """Keepalive; the receiver answers ``Pong`` with the same token."""

    TAG: ClassVar[int] = 8
    token: int = _f(Int("the ping token", 0, MAX_U63))


@dataclass(frozen=True)
class Pong(_Wire):
    """The answer to ``Ping``."""

    TAG: ClassVar[int] = 9
    token: int = _f(Int("the pong token", 0, MAX_U63))


@dataclass(frozen=True)
class Addresses(_Wire):
    """Formation: where the sender's other peers listen, so one address per person is enough.

    Entry ``i`` says the peer with key ``publics[i]`` accepts connections at
    ``hosts[i]:ports[i]``. It comes over an authenticated connection, yet it
    is only a hint: the handshake proves who answers there.
    """

    TAG: ClassVar[int] = 10
    publics: tuple[bytes, ...] = _f(ListOf(_KEY, "the address keys", MAX_SEATS))
    hosts: tuple[str, ...] = _f(ListOf(Host(), "the address hosts", MAX_SEATS))
    ports: tuple[int, ...] = _f(ListOf(Int("a listen port", 1, _PORT), "the address ports",
                                       MAX_SEATS))

    def _check(self) -> None:
        if not len(self.publics) == len(self.hosts) == len(self.ports):
            raise ProtocolError("an Addresses message needs as many keys, hosts and ports")

    def entries(self) -> list[tuple[bytes, tuple[str, int]]]:
        """(key, (host, port)) for each peer listed."""
        return [(k, (h, p)) for k, h, p in zip(self.publics, self.hosts, self.ports, strict=True)]


LEAVE_DOMAIN = b"gleek-p2p/leave/v1\x00"


@dataclass(frozen=True)
class Leave(_Wire):
    """"I leave this session on purpose", signed by the leaver's identity key.

    ``signature`` is Ed25519 over ``LEAVE_DOMAIN || session``; the receiver
    checks it with the key the link authenticated and that ``session`` is the
    session it plays, so neither a relay nor a recording from another session
    can make a seat leave.
    """

    TAG: ClassVar[int] = 11
    session: bytes = _f(Bytes("the session id", DIGEST_SIZE))
    signature: bytes = _f(Bytes("the leave signature", SIGNATURE_SIZE))

    @staticmethod
    def signed_bytes(session: bytes) -> bytes:
        """What the leaver signs."""
        return LEAVE_DOMAIN + session


Message: TypeAlias = (
    Hello | Proof | Refuse | Reveal | Event | Sync | Bye | Ping | Pong | Addresses | Leave
)

_BY_TAG: dict[int, type[Message]] = {
    cls.TAG: cls
    for cls in (Hello, Proof, Refuse, Reveal, Event, Sync, Bye, Ping, Pong, Addresses, Leave)
}


def encode_message(msg: Message) -> bytes:
    """The canonical bytes of ``msg`` (one frame's payload)."""
    return canonical.encode(msg.to_wire())


def decode_message(payload: bytes) -> Message:
    """Parse one frame's payload; ProtocolError on anything malformed.

    The encoding must be canonical (decoding and re-encoding gives the same
    bytes), so every message has exactly one wire form.
    """
    value = canonical.decode(payload, max_len=MAX_MESSAGE_SIZE, max_depth=2, max_items=64)
    if not isinstance(value, list) or not value:
        raise ProtocolError("a message must be a non-empty list")
    tag = value[0]
    if type(tag) is not int or tag not in _BY_TAG:
        raise ProtocolError(f"unknown message tag {tag!r}")
    msg: Message = _BY_TAG[tag].from_wire(value[1:])
    return msg
