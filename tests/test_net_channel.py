"""The encrypted channel: a relay in the middle, forged leaves, what the wire shows.

Every attack runs through real sockets on 127.0.0.1: Alice dials a relay that
forwards to Bob's listener frame by frame, lets the handshake through
untouched and then tampers with what follows.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gleek_p2p.log.keys import Identity
from gleek_p2p.net.channel import (
    MAX_NONCE,
    Channel,
    ChannelError,
    CipherState,
    ephemeral_public,
    hkdf,
)
from gleek_p2p.net.connection import Connection, ConnectionClosed, Limits, Listener, connect
from gleek_p2p.net.formation import nonce_commitment
from gleek_p2p.net.framing import encode_frame, read_frame
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import (
    Bye,
    Event,
    Hello,
    Message,
    Sync,
    decode_message,
    encode_message,
)
from gleek_p2p.rules import VARIANTS

STANDARD = VARIANTS["standard"]
OFFER = Offer(WIRE_VERSION, "relay", tuple(STANDARD.to_wire()), 3, "Alice", 0)
LIMITS = Limits(handshake_timeout=5.0, read_timeout=10.0, ping_interval=None)
HANDSHAKE_FRAMES = 2  # Hello and Proof each way, in the clear
SECRET = b"\x92\x05\xc4\x10SECRET-EVENT-123"

Tamper = Callable[[int, bytes], list[bytes]]
"""(index of the frame after the handshake, its body) -> the bodies to forward."""


class Relay:
    """A man in the middle: forwards frames both ways, tampering Alice -> Bob."""

    def __init__(self, target: int, tamper: Tamper) -> None:
        self.target = target
        self.tamper = tamper
        self.wire: list[bytes] = []  # every body Alice sent after the handshake
        self.server: asyncio.Server | None = None
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def _handle(self, a_reader: asyncio.StreamReader, a_writer: asyncio.StreamWriter) -> None:
        b_reader, b_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self._tasks.append(asyncio.create_task(self._pipe(b_reader, a_writer, None)))
        await self._pipe(a_reader, b_writer, self.tamper)

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, tamper: Tamper | None
    ) -> None:
        index = -HANDSHAKE_FRAMES
        with contextlib.suppress(Exception):
            while (body := await read_frame(reader, 1 << 20, None)) is not None:
                out = [body]
                if index >= 0 and tamper is not None:
                    self.wire.append(body)
                    out = tamper(index, body)
                for b in out:
                    writer.write(encode_frame(b, 1 << 20))
                await writer.drain()
                index += 1
        writer.close()

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self.server is not None:
            self.server.close()


async def _through_relay(tamper: Tamper, sends: list[Message]) -> tuple[list[Message], str, Relay]:
    """Alice sends ``sends`` to Bob through the relay; what Bob got and why he closed."""
    got: list[Message] = []
    closed: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def on_connection(conn: Connection) -> None:
        async for message in conn:
            got.append(message)
        closed.set_result(conn.close_reason or "")

    bob = Listener(identity=Identity.generate(bytes([2]) * 32),
                   offer=replace(OFFER, name="Bob"),
                   nonce_commit=nonce_commitment(b"b" * 32), on_connection=on_connection,
                   limits=LIMITS)
    await bob.start("127.0.0.1", 0)
    relay = Relay(bob.port, tamper)
    port = await relay.start()
    try:
        alice = await connect("127.0.0.1", port, identity=Identity.generate(bytes([1]) * 32),
                              offer=OFFER, nonce_commit=nonce_commitment(b"a" * 32),
                              limits=LIMITS)
        for message in sends:
            alice.send(message)
        reason = await asyncio.wait_for(closed, 10)
        await alice.close()
        return got, reason, relay
    finally:
        await relay.close()
        await bob.close()


SENDS: list[Message] = [Sync(1), Sync(2), Sync(3)]


async def test_an_untouched_relay_changes_nothing() -> None:
    got, reason, _ = await _through_relay(lambda i, b: [b], [*SENDS, Bye("done")])
    assert got == SENDS
    assert "failed authentication" not in reason


@pytest.mark.parametrize(
    ("name", "tamper", "delivered"),
    [
        # A plaintext "I left the table" slipped in after the first frame.
        ("inject", lambda i, b: [b, encode_message(Bye("Alice left the table"))] if i == 0
         else [b], [Sync(1)]),
        ("inject-random", lambda i, b: [b, os.urandom(len(b))] if i == 0 else [b], [Sync(1)]),
        ("change", lambda i, b: [b[:-1] + bytes([b[-1] ^ 1])] if i == 1 else [b], [Sync(1)]),
        ("reorder", lambda i, b: [] if i == 0 else [b, HELD[0]] if i == 1 else [b], []),
        ("replay", lambda i, b: [b, b] if i == 0 else [b], [Sync(1)]),
        ("drop", lambda i, b: [] if i == 0 else [b], []),
    ],
)
async def test_a_tampering_relay_closes_the_link_and_nothing_is_acted_on(
    name: str, tamper: Tamper, delivered: list[Message]
) -> None:
    HELD.clear()

    def holding(i: int, body: bytes) -> list[bytes]:
        if i == 0:
            HELD.append(body)
        return tamper(i, body)

    got, reason, _ = await _through_relay(holding, SENDS)
    assert got == delivered, name
    assert "failed authentication" in reason
    # Nothing after the bad frame reached Bob, and no Bye was ever taken as a
    # leave: Connection never hands a Bye up, so nobody can be blamed for it.
    assert not any(isinstance(m, Bye) for m in got)


HELD: list[bytes] = []


async def test_the_wire_shows_no_plaintext_after_the_handshake() -> None:
    event = Event(SECRET)
    got, _, relay = await _through_relay(lambda i, b: [b], [event, Sync(7), Bye("done")])
    assert got == [event, Sync(7)]
    wire = b"".join(relay.wire)
    assert b"SECRET" not in wire
    assert encode_message(event) not in wire
    assert encode_message(Sync(7)) not in wire


async def test_a_relay_that_swaps_ephemerals_cannot_pass_the_handshake() -> None:
    """Changing a Hello in flight (e.g. its ephemeral key) makes both proofs fail."""

    class HelloSwapper(Relay):
        async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                        tamper: Tamper | None) -> None:
            first = True
            with contextlib.suppress(Exception):
                while (body := await read_frame(reader, 1 << 20, None)) is not None:
                    if first and tamper is not None:
                        hello = decode_message(body)
                        assert isinstance(hello, Hello)
                        swapped = replace(hello, challenge=ephemeral_public(os.urandom(32)))
                        body = encode_message(swapped)
                    first = False
                    writer.write(encode_frame(body, 1 << 20))
                    await writer.drain()
            writer.close()

    errors: list[str] = []
    bob = Listener(identity=Identity.generate(bytes([2]) * 32), offer=OFFER,
                   nonce_commit=nonce_commitment(b"b" * 32),
                   on_connection=lambda c: asyncio.sleep(0), on_error=errors.append,
                   limits=LIMITS)
    await bob.start("127.0.0.1", 0)
    relay = HelloSwapper(bob.port, lambda i, b: [b])
    port = await relay.start()
    try:
        with pytest.raises(Exception, match="does not verify"):
            await connect("127.0.0.1", port, identity=Identity.generate(bytes([1]) * 32),
                          offer=OFFER, nonce_commit=nonce_commitment(b"a" * 32), limits=LIMITS)
    finally:
        await relay.close()
        await bob.close()


# -- the cipher state alone ---------------------------------------------------------


def _pair(key_a: bytes = b"A" * 32, key_b: bytes = b"B" * 32) -> tuple[Channel, Channel]:
    return (Channel(CipherState(key_a), CipherState(key_b)),
            Channel(CipherState(key_b), CipherState(key_a)))


@given(st.lists(st.binary(min_size=1, max_size=200), min_size=1, max_size=20))
def test_frames_round_trip_in_order_and_never_share_a_nonce(bodies: list[bytes]) -> None:
    a, b = _pair()
    sealed = [a.seal(x) for x in bodies]
    assert [b.open(x) for x in sealed] == bodies
    assert a.send.nonce == len(bodies)
    # The same plaintext twice never gives the same ciphertext (fresh nonce).
    assert a.seal(bodies[0]) != sealed[0]


@given(st.binary(min_size=1, max_size=64), st.integers(0, 63), st.integers(1, 255))
def test_any_flipped_bit_fails(body: bytes, where: int, mask: int) -> None:
    a, b = _pair()
    sealed = bytearray(a.seal(body))
    sealed[where % len(sealed)] ^= mask
    with pytest.raises(ChannelError):
        b.open(bytes(sealed))


def test_a_counter_at_its_limit_refuses_to_send() -> None:
    cipher = CipherState(b"k" * 32, nonce=MAX_NONCE - 1)
    cipher.encrypt(b"last")
    with pytest.raises(ChannelError, match="used all its nonces"):
        cipher.encrypt(b"one too many")


async def test_a_connection_whose_counter_is_exhausted_closes() -> None:
    server_conns: asyncio.Queue[Connection] = asyncio.Queue()

    async def on_connection(conn: Connection) -> None:
        await server_conns.put(conn)
        await conn.wait_closed()

    bob = Listener(identity=Identity.generate(bytes([2]) * 32), offer=OFFER,
                   nonce_commit=nonce_commitment(b"b" * 32), on_connection=on_connection,
                   limits=LIMITS)
    await bob.start("127.0.0.1", 0)
    try:
        alice = await connect("127.0.0.1", bob.port, identity=Identity.generate(bytes([1]) * 32),
                              offer=OFFER, nonce_commit=nonce_commitment(b"a" * 32),
                              limits=LIMITS)
        assert alice.channel is not None
        alice.channel.send.nonce = MAX_NONCE
        alice.send(Sync(1))
        await asyncio.wait_for(alice.wait_closed(), 5)
        assert alice.close_reason is not None and "nonces" in alice.close_reason
        peer = await asyncio.wait_for(server_conns.get(), 5)
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(peer.recv(), 5)
    finally:
        await bob.close()


def test_noise_hkdf_matches_its_definition() -> None:
    import hmac

    ck, ikm = b"c" * 32, b"i" * 32
    temp = hmac.digest(ck, ikm, "sha256")
    one = hmac.digest(temp, b"\x01", "sha256")
    assert hkdf(ck, ikm) == (one, hmac.digest(temp, one + b"\x02", "sha256"))


# -- leaving a session is signed -------------------------------------------------------


async def test_only_a_signed_leave_for_this_session_reaches_the_session() -> None:
    from gleek_p2p.net.messages import Leave
    from gleek_p2p.session.lobby import Lobby, LobbyConfig
    from gleek_p2p.table.roster import Roster

    me, bob, carol = (Identity.generate(bytes([n]) * 32) for n in (1, 2, 3))
    roster = Roster(STANDARD, 1, (me.public, bob.public, carol.public),
                    ("me", "bob", "carol"), b"n" * 32)
    lobby = Lobby(me, LobbyConfig(name="me", table="leave", variant=STANDARD,
                                  listen=("127.0.0.1", 0), limits=LIMITS), roster=roster)
    await lobby.start()
    offer = Offer(WIRE_VERSION, "leave", tuple(STANDARD.to_wire()), 3, "bob", 0)

    async def dial() -> Connection:
        return await connect("127.0.0.1", lobby.port, identity=bob, offer=offer,
                             nonce_commit=nonce_commitment(b"b" * 32), limits=LIMITS)

    async def until(kind: type) -> list[object]:
        seen = []
        while True:
            _, message = await asyncio.wait_for(lobby.queue.get(), 5)
            seen.append(message)
            if isinstance(message, kind):
                return seen

    try:
        session = roster.session_id
        conn = await dial()
        conn.send(Leave(session, carol.sign(Leave.signed_bytes(session))))  # carol's key
        conn.send(Leave(b"x" * 32, bob.sign(Leave.signed_bytes(b"x" * 32))))  # other session
        conn.send(Leave(session, bytes(64)))
        conn.send(Sync(0))  # a marker: everything before it has been handled
        assert not any(isinstance(m, Bye) for m in await until(Sync))
        # Bob's own unsigned Bye, however worded, is not a leave either.
        await conn.close("bob left the table")
        await asyncio.wait_for(conn.wait_closed(), 5)
        conn = await dial()
        conn.send(Sync(1))
        assert not any(isinstance(m, Bye) for m in await until(Sync))
        conn.send(Leave(session, bob.sign(Leave.signed_bytes(session))))
        seen = await until(Bye)
        assert isinstance(seen[-1], Bye) and seen[-1].reason == "bob left the table"
        await conn.close()
    finally:
        await lobby.close()


@pytest.mark.parametrize("attack", ["inject-leave", "replay", "flip"])
async def test_a_session_through_a_tampering_relay_finishes_fair_blaming_nobody(
    tmp_path: Path, attack: str
) -> None:
    """Bob first reaches Ann through the relay, which injects a plaintext leave, replays
    a frame or flips a bit: the link closes, heals, and the game is untouched."""
    from gleek_p2p.bots.strategy import RandomStrategy
    from gleek_p2p.cli.commands import verify_file
    from gleek_p2p.session.lobby import LobbyConfig
    from gleek_p2p.session.peer import BotPlayer
    from gleek_p2p.session.play import SessionResult, play_session

    attacks: dict[str, Callable[[bytes], list[bytes]]] = {
        "inject-leave": lambda b: [b, encode_message(Bye("bob left the table"))],
        "replay": lambda b: [b, b],
        "flip": lambda b: [b[:-1] + bytes([b[-1] ^ 1])],
    }
    done: list[int] = []
    notes: list[str] = []

    def tamper(index: int, body: bytes) -> list[bytes]:
        if index == 0 and not done:  # the first frame after the handshake: a Reveal
            done.append(index)
            return attacks[attack](body)
        return [body]

    names = ("ann", "bob", "cat")
    ports: list[int] = []
    tasks: list[asyncio.Task[SessionResult]] = []
    relay: Relay | None = None
    try:
        for i, name in enumerate(names):
            if i == 1:
                relay = Relay(ports[0], tamper)
                peers = (("127.0.0.1", await relay.start()),)
            else:
                peers = tuple(("127.0.0.1", p) for p in ports)
            up: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            config = LobbyConfig(name=name, table="relayed/1", variant=STANDARD,
                                 listen=("127.0.0.1", 0), peers=peers, dial_interval=0.2)
            tasks.append(asyncio.create_task(play_session(
                identity=Identity.generate(bytes([i + 1]) * 32), config=config, hands=1,
                data_dir=tmp_path / name, player=BotPlayer(RandomStrategy(f"relay-{i}")),
                timeout=60, on_ready=up.set_result, notes=notes.append)))
            ports.append(await up)
        results = await asyncio.wait_for(asyncio.gather(*tasks), 120)
    finally:
        if relay is not None:
            await relay.close()
    assert done, "the relay never got to attack"
    # Ann closed the link on a frame that does not open; her goodbye's code tells Bob
    # why in his language (its English reason, "failed authentication", is for logs).
    assert any(n == "ann closed the link: it could not read what this program sent."
               for n in notes), notes
    for result in results:
        assert result.outcome.finished and not result.outcome.aborted, result.outcome.reason
    logs = [r.log_path.read_bytes() for r in results]
    assert logs[0] == logs[1] == logs[2]
    assert verify_file(results[0].log_path).fair
