"""A hostile stranger on the LAN: idle sockets, and floods into a lobby (127.0.0.1 only).

Memory figures live in ``bench/hostile.py``; these tests check the outcomes:
an honest peer still gets in, and nothing a stranger sends is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import os

import pytest

from gleek_p2p.log.envelope import decode_envelope, sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, Limits, Listener, connect
from gleek_p2p.net.formation import nonce_commitment
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import Event, Sync
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.inbox import Inbox, InboxLimits
from gleek_p2p.session.lobby import Lobby, LobbyConfig
from gleek_p2p.session.peer import CheckedEvent, LinkUp
from gleek_p2p.table.roster import Roster

STANDARD = VARIANTS["standard"]


def _offer(table: str, name: str) -> Offer:
    return Offer(WIRE_VERSION, table, tuple(STANDARD.to_wire()), 3, name, 0)


async def _idle(port: int, count: int) -> list[asyncio.StreamWriter]:
    writers = []
    for _ in range(count):
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writers.append(writer)
    return writers


async def _listener(limits: Limits, errors: list[str]) -> tuple[Listener, list[Connection]]:
    accepted: list[Connection] = []

    async def on_connection(conn: Connection) -> None:
        accepted.append(conn)

    listener = Listener(identity=Identity.generate(os.urandom(32)), offer=_offer("idle", "host"),
                        nonce_commit=nonce_commitment(os.urandom(32)),
                        on_connection=on_connection, on_error=errors.append, limits=limits)
    await listener.start("127.0.0.1", 0)
    return listener, accepted


async def test_an_honest_peer_gets_past_a_hundred_idle_sockets() -> None:
    errors: list[str] = []
    # The first-Hello deadline is long here: the honest peer must get in
    # because it pushes an idle socket out, not because they timed out.
    limits = Limits(handshake_timeout=60.0, hello_timeout=60.0)
    listener, accepted = await _listener(limits, errors)
    try:
        idle = await _idle(listener.port, 100)
        await asyncio.sleep(0.1)
        assert len(listener._handshaking) <= limits.max_pending_handshakes
        conn = await asyncio.wait_for(
            connect("127.0.0.1", listener.port, identity=Identity.generate(os.urandom(32)),
                    offer=_offer("idle", "guest"), nonce_commit=nonce_commitment(b"g" * 32),
                    limits=limits), 10)
        assert conn.peer.name == "host"
        async with asyncio.timeout(5):
            while not accepted:
                await asyncio.sleep(0.01)
        assert accepted[0].peer.name == "guest"
        await conn.close()
        assert any("too many connections" in e for e in errors)
        for writer in idle:
            writer.close()
    finally:
        await listener.close()


async def test_a_socket_that_never_says_hello_is_dropped_soon() -> None:
    errors: list[str] = []
    listener, _ = await _listener(Limits(handshake_timeout=60.0, hello_timeout=0.3), errors)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", listener.port)
        # The listener's Hello, then it hangs up on us long before 60 s.
        await asyncio.wait_for(reader.read(1 << 16), 5)
        assert await asyncio.wait_for(reader.read(1 << 16), 5) == b""
        assert any("no Hello within 0.3 s" in e for e in errors)
        writer.close()
    finally:
        await listener.close()


async def test_one_address_holds_at_most_its_share_of_handshakes() -> None:
    errors: list[str] = []
    limits = Limits(handshake_timeout=60.0, hello_timeout=60.0, max_handshakes_per_address=3)
    listener, _ = await _listener(limits, errors)
    try:
        idle = await _idle(listener.port, 10)
        async with asyncio.timeout(5):
            while len(listener._handshaking) != 3 or len(errors) < 7:
                await asyncio.sleep(0.01)
        assert all("from 127.0.0.1" in e for e in errors)
        for writer in idle:
            writer.close()
    finally:
        await listener.close()


# -- the lobby keeps nothing a stranger may not send -------------------------------


async def _forming_lobby(table: str) -> Lobby:
    lobby = Lobby(Identity.generate(os.urandom(32)),
                  LobbyConfig(name="host", table=table, variant=STANDARD,
                              listen=("127.0.0.1", 0)))
    await lobby.start()
    return lobby


async def test_while_a_table_forms_a_stranger_fills_nothing() -> None:
    lobby = await _forming_lobby("forming")
    try:
        stranger = await connect("127.0.0.1", lobby.port, identity=Identity.generate(b"s" * 32),
                                 offer=_offer("forming", "stranger"),
                                 nonce_commit=nonce_commitment(b"s" * 32))
        big = Event(os.urandom(200_000))
        for _ in range(200):  # 40 MB that used to wait in the lobby for ever
            stranger.send(big)
            stranger.send(Sync(1))
            await asyncio.sleep(0)
        stranger.send(Sync(99))
        await stranger.close()
        async with asyncio.timeout(10):
            while any(not c.closed for c in lobby.conns.values()):
                await asyncio.sleep(0.02)
        assert lobby.queue.qsize() == 0
    finally:
        await lobby.close()


async def test_a_seat_may_queue_only_validly_signed_events_of_this_session() -> None:
    me, bob, carol = (Identity.generate(bytes([n]) * 32) for n in (4, 5, 6))
    roster = Roster(STANDARD, 1, (me.public, bob.public, carol.public),
                    ("me", "bob", "carol"), b"n" * 32)
    lobby = Lobby(me, LobbyConfig(name="me", table="signed", variant=STANDARD,
                                  listen=("127.0.0.1", 0)), roster=roster)
    await lobby.start()
    try:
        conn = await connect("127.0.0.1", lobby.port, identity=bob, offer=_offer("signed", "bob"),
                             nonce_commit=nonce_commitment(b"b" * 32))
        sid = roster.session_id
        good = sign_envelope(bob, sid, 3, b"p" * 32, 1, "act", [1]).encode()
        forged = bytearray(good)
        forged[-1] ^= 1
        conn.send(Event(sign_envelope(bob, b"x" * 32, 3, b"p" * 32, 1, "act", [1]).encode()))
        conn.send(Event(sign_envelope(bob, sid, 3, b"p" * 32, 2, "act", [1]).encode()))  # carol's
        conn.send(Event(bytes(forged)))
        conn.send(Event(b"not an envelope"))
        conn.send(Event(good))
        got = []
        async with asyncio.timeout(5):
            while len(got) < 2:
                got.append((await lobby.queue.get())[1])
        # It waits decoded (the session does not decode it again).
        assert isinstance(got[0], LinkUp) and isinstance(got[1], CheckedEvent)
        assert got[1].data == good and got[1].envelope == decode_envelope(good)
        assert lobby.queue.qsize() == 0
        await conn.close()
    finally:
        await lobby.close()


async def test_a_peer_over_its_inbox_budget_waits_and_loses_nothing() -> None:
    inbox = Inbox(InboxLimits(max_messages=3, max_bytes=1 << 20))
    me = b"a" * 32
    for i in range(3):
        await inbox.put(me, Sync(i))
    blocked = asyncio.create_task(inbox.put(me, Sync(3)))
    await asyncio.sleep(0.05)
    assert not blocked.done() and inbox.held(me) == (3, 192)
    # Another peer is not held up by the first one's backlog.
    await asyncio.wait_for(inbox.put(b"b" * 32, Sync(9)), 1)
    assert (await inbox.get())[1] == Sync(0)
    await asyncio.wait_for(blocked, 1)
    got = [(await inbox.get())[1] for _ in range(4)]
    assert got == [Sync(1), Sync(2), Sync(9), Sync(3)]
    assert inbox.held(me) == (0, 0)


@pytest.mark.parametrize("size", [10, 100_000])
async def test_inbox_bytes_bound(size: int) -> None:
    inbox = Inbox(InboxLimits(max_messages=1000, max_bytes=250_000))
    me = b"a" * 32
    puts = 0
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(0.2):
            while True:
                await inbox.put(me, Event(b"x" * size))
                puts += 1
    assert inbox.held(me)[1] <= 250_000 or puts == 1
    assert puts == (1000 if size == 10 else 2)
