"""The peer wire messages as they were hand-written, one codec per message: a frozen oracle.

``gleek_p2p/net/messages.py`` now declares each message's fields with wire
specs and derives the checks, the encoder and the decoder from them (issue
25). This copy of the hand-written code it replaced is kept, unchanged but
for this docstring, only so that ``tests/test_net_messages_declared.py`` can
check that the declared messages write the very same bytes and accept and
refuse the very same frames. Do not import it from the package.
"""

from __future__ import annotations

import enum
import ipaddress
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
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


# -- field checks ---------------------------------------------------------------


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


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


# -- messages -------------------------------------------------------------------


@dataclass(frozen=True)
class Hello:
    """The first message each side sends: who it is and which table it wants.

    ``nonce_commit`` is sha256 of the peer's formation nonce (the same on all
    its connections for one formation); ``challenge`` is the sender's fresh
    X25519 ephemeral public key for this one connection (channel.py), so a
    proof recorded on one connection is useless on any other.
    ``listen_port`` is where the sender accepts connections (0: it does not
    listen).
    """

    TAG: ClassVar[int] = 1
    version: int
    table: str
    variant: tuple[int, ...]
    seats: int
    public: bytes
    name: str
    nonce_commit: bytes
    listen_port: int
    challenge: bytes
    attempt: int = 0
    """The formation attempt ``nonce_commit`` belongs to (formation.py)."""
    watcher: bool = False
    """The sender comes to watch, not to sit (SPEC 5.x): it never counts in a
    formation. On the wire a trailing ``1``, absent for a player, so a
    player's Hello (and every handshake hash) is what it always was."""

    def __post_init__(self) -> None:
        _int(self.version, "the protocol version", 0, 0xFFFF)
        _text(self.table, "the table name", MAX_TABLE_BYTES, allow_empty=False)
        variant = _seq(self.variant, "the variant", MAX_VARIANT_ITEMS)
        _set(
            self,
            "variant",
            tuple(_int(v, "a variant option", 0, MAX_VARIANT_VALUE) for v in variant),
        )
        _int(self.seats, "the seat count", MIN_SEATS, MAX_SEATS)
        _bytes(self.public, "the public key", KEY_SIZE)
        _text(self.name, "the player name", MAX_NAME_BYTES, allow_empty=False)
        _bytes(self.nonce_commit, "the nonce commitment", DIGEST_SIZE)
        _int(self.listen_port, "the listen port", 0, 0xFFFF)
        _bytes(self.challenge, "the connection challenge", CHALLENGE_SIZE)
        _int(self.attempt, "the formation attempt", 0, MAX_ATTEMPT)
        if type(self.watcher) is not bool:
            raise ProtocolError("the watcher flag must be a boolean")

    def to_wire(self) -> list[Any]:
        """The canonical list for this message (tag first)."""
        return [
            self.TAG,
            self.version,
            self.table,
            list(self.variant),
            self.seats,
            self.public,
            self.name,
            self.nonce_commit,
            self.listen_port,
            self.challenge,
            self.attempt,
        ] + ([1] if self.watcher else [])

    @classmethod
    def from_wire(cls, fields: Sequence[Any]) -> Hello:
        """Build from the list after the tag; ProtocolError if malformed."""
        watcher = False
        if len(fields) == 11:
            # Only ``1`` is a watcher's mark: one Hello has one encoding (its
            # bytes go into the handshake hash), so a ``0`` there is malformed.
            if type(fields[10]) is not int or fields[10] != 1:
                raise ProtocolError("a Hello's watcher mark must be 1")
            fields, watcher = fields[:10], True
        _arity(cls, fields, 10)
        (version, table, variant, seats, public, name, commit, port, challenge, attempt) = fields
        return cls(
            version,
            table,
            tuple(_seq(variant, "the variant", MAX_VARIANT_ITEMS)),
            seats,
            public,
            name,
            commit,
            port,
            challenge,
            attempt,
            watcher,
        )


@dataclass(frozen=True)
class Proof:
    """A signature over the handshake transcript (see handshake.py)."""

    TAG: ClassVar[int] = 2
    signature: bytes

    def __post_init__(self) -> None:
        _bytes(self.signature, "the proof signature", SIGNATURE_SIZE)

    def to_wire(self) -> list[Any]:
        """The canonical list for this message (tag first)."""
        return [self.TAG, self.signature]

    @classmethod
    def from_wire(cls, fields: Sequence[Any]) -> Proof:
        """Build from the list after the tag; ProtocolError if malformed."""
        _arity(cls, fields, 1)
        return cls(fields[0])


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


MAX_CODE = 0xFFFF

_Code = TypeVar("_Code", RefuseCode, ByeCode)


def _check_code(msg: Refuse | Bye) -> None:
    if isinstance(msg.code, enum.IntEnum):
        _set(msg, "code", int(msg.code))  # equal and hashed as the plain int
    _int(msg.code, f"the {type(msg).__name__} code", 0, MAX_CODE)


def _coded_wire(msg: Refuse | Bye) -> list[Any]:
    # Code 0 is left off the wire: an uncoded message keeps its one-field form.
    return [msg.TAG, msg.reason] if msg.code == 0 else [msg.TAG, msg.reason, msg.code]


def _coded_fields(cls: type[Message], fields: Sequence[Any]) -> tuple[Any, int]:
    if len(fields) == 2:
        if type(fields[1]) is int and fields[1] == 0:
            raise ProtocolError(f"a {cls.__name__} message carries code 0 only by leaving it out")
        return fields[0], _int(fields[1], f"the {cls.__name__} code", 1, MAX_CODE)
    _arity(cls, fields, 1)
    return fields[0], 0


def _meaning(code: int, kind: type[_Code]) -> _Code:
    try:
        return kind(code)
    except ValueError:
        return kind(0)


REFUSE_DOMAIN = b"gleek-p2p/refuse/v1\x00"


@dataclass(frozen=True)
class Refuse:
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
    reason: str
    code: int = RefuseCode.NONE
    seated: tuple[bytes, ...] = ()
    hosts: tuple[str, ...] = ()
    ports: tuple[int, ...] = ()
    signature: bytes = b""

    def __post_init__(self) -> None:
        _text(self.reason, "the refusal reason", MAX_REASON_BYTES, allow_empty=False)
        _check_code(self)
        seated = tuple(_bytes(k, "a seated key", KEY_SIZE)
                       for k in _seq(self.seated, "the seated keys", MAX_SEATS))
        if list(seated) != sorted(set(seated)):
            raise ProtocolError("the seated keys must be distinct and sorted")
        hosts = _seq(self.hosts, "the seated hosts", MAX_SEATS)
        ports = _seq(self.ports, "the seated ports", MAX_SEATS)
        if not len(seated) == len(hosts) == len(ports):
            raise ProtocolError("a refusal needs as many seated keys, hosts and ports")
        hosts = tuple("" if h == "" else _host(h) for h in hosts)
        ports = tuple(_int(p, "a seated port", 0, 0xFFFF) for p in ports)
        if any((h == "") != (p == 0) for h, p in zip(hosts, ports, strict=True)):
            raise ProtocolError("a seated address is a host and a port, or neither")
        if self.signature != b"":
            _bytes(self.signature, "the refusal signature", SIGNATURE_SIZE)
        _set(self, "seated", seated)
        _set(self, "hosts", hosts)
        _set(self, "ports", ports)

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

    def to_wire(self) -> list[Any]:
        """The canonical list for this message (tag first)."""
        if not self.signed:
            return _coded_wire(self)
        return [self.TAG, self.reason, self.code, list(self.seated), list(self.hosts),
                list(self.ports), self.signature]

    @classmethod
    def from_wire(cls, fields: Sequence[Any]) -> Refuse:
        """Build from the list after the tag; ProtocolError if malformed."""
        if len(fields) == 6:
            reason, code, seated, hosts, ports, signature = fields
            if type(signature) is not bytes or len(signature) != SIGNATURE_SIZE:
                raise ProtocolError("the refusal signature must be 64 bytes")
            return cls(reason, _int(code, "the Refuse code", 0, MAX_CODE),
                       tuple(_seq(seated, "the seated keys", MAX_SEATS)),
                       tuple(_seq(hosts, "the seated hosts", MAX_SEATS)),
                       tuple(_seq(ports, "the seated ports", MAX_SEATS)), signature)
        return cls(*_coded_fields(cls, fields))

    @property
    def meaning(self) -> RefuseCode:
        """The code as a ``RefuseCode`` (``NONE`` for a code this version does not know)."""
        return _meaning(self.code, RefuseCode)


REVEAL_DOMAIN = b"gleek-p2p/reveal/v1\x00"
MAX_HELLO_BYTES = 1024
"""Room for one encoded Hello inside a Reveal (the largest is under 400 bytes)."""


@dataclass(frozen=True)
class Reveal:
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
    sender: bytes
    nonce: bytes
    attempt: int
    peers: tuple[bytes, ...]
    hellos: tuple[bytes, ...]
    mine: tuple[bytes, ...]
    proofs: tuple[bytes, ...]
    signature: bytes

    def __post_init__(self) -> None:
        _bytes(self.sender, "the revealing key", KEY_SIZE)
        _bytes(self.nonce, "the formation nonce", NONCE_SIZE)
        _int(self.attempt, "the formation attempt", 0, MAX_ATTEMPT)
        peers = _seq(self.peers, "the peer list", MAX_SEATS)
        _set(self, "peers", tuple(_bytes(p, "a peer key", KEY_SIZE) for p in peers))
        for name, what, size in (("hellos", "a seen Hello", MAX_HELLO_BYTES),
                                 ("mine", "a sent Hello", MAX_HELLO_BYTES),
                                 ("proofs", "a handshake proof", SIGNATURE_SIZE)):
            items = _seq(getattr(self, name), f"the {name} list", MAX_SEATS)
            if len(items) != len(peers):
                raise ProtocolError(f"a Reveal needs as many {name} as peers")
            _set(self, name, tuple(_bytes(i, what, max_size=size) for i in items))
        _bytes(self.signature, "the reveal signature", SIGNATURE_SIZE)

    def signed_bytes(self) -> bytes:
        """What the sender signs: the domain, then every other field, canonically."""
        return REVEAL_DOMAIN + canonical.encode(self.to_wire()[1:-1])

    def to_wire(self) -> list[Any]:
        """The canonical list for this message (tag first)."""
        return [self.TAG, self.sender, self.nonce, self.attempt, list(self.peers),
                list(self.hellos), list(self.mine), list(self.proofs), self.signature]

    @classmethod
    def from_wire(cls, fields: Sequence[Any]) -> Reveal:
        """Build from the list after the tag; ProtocolError if malformed."""
        _arity(cls, fields, 8)
        sender, nonce, attempt, peers, hellos, mine, proofs, signature = fields
        def listed(items: Any) -> tuple[Any, ...]:
            return tuple(_seq(items, "a Reveal list", MAX_SEATS))

        return cls(sender, nonce, attempt, listed(peers), listed(hellos), listed(mine),
                   listed(proofs), signature)


@dataclass(frozen=True)
class Event:
    """One encoded, signed log envelope; the network layer never looks inside."""

    TAG: ClassVar[int] = 5
    data: bytes

    def __post_init__(self) -> None:
        _bytes(self.data, "the event", max_size=MAX_EVENT_SIZE)
        if not self.data:
            raise ProtocolError("the event must not be empty")

    def to_wire(self) -> list[Any]:
        """The canonical list for this message (tag first)."""
        return [self.TAG, self.data]

    @classmethod
    def from_wire(cls, fields: Sequence[Any]) -> Event:
        """Build from the list after the tag; ProtocolError if malformed."""
        _arity(cls, fields, 1)
        return cls(fields[0])


@dataclass(frozen=True)
class Sync:
    """Ask the peer to send every event from sequence number ``from_seq`` on."""

    TAG: ClassVar[int] = 6
    from_seq: int

    def __post_init__(self) -> None:
        _int(self.from_seq, "the sync start", 0, MAX_U63)

    def to_wire(self) -> list[Any]:
        """The canonical list for this message (tag first)."""
        return [self.TAG, self.from_seq]

    @classmethod
    def from_wire(cls, fields: Sequence[Any]) -> Sync:
        """Build from the list after the tag; ProtocolError if malformed."""
        _arity(cls, fields, 1)
        return cls(fields[0])


@dataclass(frozen=True)
class Bye:
    """The sender is closing the connection; ``reason`` is for the user.

    ``code`` (a ``ByeCode`` value) is what the program acts on.
    """

    TAG: ClassVar[int] = 7
    reason: str
    code: int = ByeCode.NONE

    def __post_init__(self) -> None:
        _text(self.reason, "the goodbye reason", MAX_REASON_BYTES, allow_empty=True)
        _check_code(self)

    def to_wire(self) -> list[Any]:
        """The canonical list for this message (tag first)."""
        return _coded_wire(self)

    @classmethod
    def from_wire(cls, fields: Sequence[Any]) -> Bye:
        """Build from the list after the tag; ProtocolError if malformed."""
        return cls(*_coded_fields(cls, fields))

    @property
    def meaning(self) -> ByeCode:
        """The code as a ``ByeCode`` (``NONE`` for a code this version does not know)."""
        return _meaning(self.code, ByeCode)


@dataclass(frozen=True)
class Ping:
    """Keepalive; the receiver answers ``Pong`` with the same token."""

    TAG: ClassVar[int] = 8
    token: int

    def __post_init__(self) -> None:
        _int(self.token, "the ping token", 0, MAX_U63)

    def to_wire(self) -> list[Any]:
        """The canonical list for this message (tag first)."""
        return [self.TAG, self.token]

    @classmethod
    def from_wire(cls, fields: Sequence[Any]) -> Ping:
        """Build from the list after the tag; ProtocolError if malformed."""
        _arity(cls, fields, 1)
        return cls(fields[0])


@dataclass(frozen=True)
class Pong:
    """The answer to ``Ping``."""

    TAG: ClassVar[int] = 9
    token: int

    def __post_init__(self) -> None:
        _int(self.token, "the pong token", 0, MAX_U63)

    def to_wire(self) -> list[Any]:
        """The canonical list for this message (tag first)."""
        return [self.TAG, self.token]

    @classmethod
    def from_wire(cls, fields: Sequence[Any]) -> Pong:
        """Build from the list after the tag; ProtocolError if malformed."""
        _arity(cls, fields, 1)
        return cls(fields[0])


def _host(value: Any) -> str:
    host = _text(value, "a host address", MAX_HOST_BYTES, allow_empty=False)
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise ProtocolError(f"{host!r} is not an IP address") from None
    return host


@dataclass(frozen=True)
class Addresses:
    """Formation: where the sender's other peers listen, so one address per person is enough.

    Entry ``i`` says the peer with key ``publics[i]`` accepts connections at
    ``hosts[i]:ports[i]``. It comes over an authenticated connection, yet it
    is only a hint: the handshake proves who answers there.
    """

    TAG: ClassVar[int] = 10
    publics: tuple[bytes, ...]
    hosts: tuple[str, ...]
    ports: tuple[int, ...]

    def __post_init__(self) -> None:
        publics = _seq(self.publics, "the address keys", MAX_SEATS)
        hosts = _seq(self.hosts, "the address hosts", MAX_SEATS)
        ports = _seq(self.ports, "the address ports", MAX_SEATS)
        if not len(publics) == len(hosts) == len(ports):
            raise ProtocolError("an Addresses message needs as many keys, hosts and ports")
        _set(self, "publics", tuple(_bytes(p, "a peer key", KEY_SIZE) for p in publics))
        _set(self, "hosts", tuple(_host(h) for h in hosts))
        _set(self, "ports", tuple(_int(p, "a listen port", 1, 0xFFFF) for p in ports))

    def entries(self) -> list[tuple[bytes, tuple[str, int]]]:
        """(key, (host, port)) for each peer listed."""
        return [(k, (h, p)) for k, h, p in zip(self.publics, self.hosts, self.ports, strict=True)]

    def to_wire(self) -> list[Any]:
        """The canonical list for this message (tag first)."""
        return [self.TAG, list(self.publics), list(self.hosts), list(self.ports)]

    @classmethod
    def from_wire(cls, fields: Sequence[Any]) -> Addresses:
        """Build from the list after the tag; ProtocolError if malformed."""
        _arity(cls, fields, 3)
        return cls(*(tuple(_seq(f, "an address list", MAX_SEATS)) for f in fields))


LEAVE_DOMAIN = b"gleek-p2p/leave/v1\x00"


@dataclass(frozen=True)
class Leave:
    """"I leave this session on purpose", signed by the leaver's identity key.

    ``signature`` is Ed25519 over ``LEAVE_DOMAIN || session``; the receiver
    checks it with the key the link authenticated and that ``session`` is the
    session it plays, so neither a relay nor a recording from another session
    can make a seat leave.
    """

    TAG: ClassVar[int] = 11
    session: bytes
    signature: bytes

    def __post_init__(self) -> None:
        _bytes(self.session, "the session id", DIGEST_SIZE)
        _bytes(self.signature, "the leave signature", SIGNATURE_SIZE)

    @staticmethod
    def signed_bytes(session: bytes) -> bytes:
        """What the leaver signs."""
        return LEAVE_DOMAIN + session

    def to_wire(self) -> list[Any]:
        """The canonical list for this message (tag first)."""
        return [self.TAG, self.session, self.signature]

    @classmethod
    def from_wire(cls, fields: Sequence[Any]) -> Leave:
        """Build from the list after the tag; ProtocolError if malformed."""
        _arity(cls, fields, 2)
        return cls(fields[0], fields[1])


Message: TypeAlias = (
    Hello | Proof | Refuse | Reveal | Event | Sync | Bye | Ping | Pong | Addresses | Leave
)

_BY_TAG: dict[int, type[Message]] = {
    cls.TAG: cls
    for cls in (Hello, Proof, Refuse, Reveal, Event, Sync, Bye, Ping, Pong, Addresses, Leave)
}


def _arity(cls: type[Message], fields: Sequence[Any], n: int) -> None:
    if len(fields) != n:
        raise ProtocolError(f"a {cls.__name__} message has {n} fields, got {len(fields)}")


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
    return _BY_TAG[tag].from_wire(value[1:])
