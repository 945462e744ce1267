"""A stranger's forged hints and connection bursts against real lobbies (loopback only).

Forged discovery hints point at "tarpits": listeners that accept and never
say a word. They must not keep players apart: hints are dialled at once,
a dialled socket without a Hello is dropped soon, a failing hint is backed
off. A burst of connections from 32 addresses must not keep an honest peer
out of the handshake slots. Every address here is on 127.0.0.0/8; the mDNS
version of the tarpit attack runs in a private namespace
(test_discovery_hostile.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time

import pytest

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Limits, connect
from gleek_p2p.net.formation import nonce_commitment
from gleek_p2p.net.framing import encode_frame
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.hints import MAX_DIALS
from gleek_p2p.net.messages import encode_message
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby import Address, Lobby, LobbyConfig
from gleek_p2p.table.roster import Roster

STANDARD = VARIANTS["standard"]


def _offer(table: str, name: str) -> Offer:
    return Offer(WIRE_VERSION, table, tuple(STANDARD.to_wire()), 3, name, 0)


class Tarpits:
    """Silent listeners, one per address 127.0.0.2, .3, ...: they accept and say nothing."""

    def __init__(self) -> None:
        self.servers: list[asyncio.Server] = []
        self.writers: list[asyncio.StreamWriter] = []
        self.accepted = 0

    async def _hold(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        self.writers.append(writer)
        with contextlib.suppress(Exception):
            await reader.read()

    async def start(self, count: int) -> list[Address]:
        out = []
        for i in range(count):
            server = await asyncio.start_server(self._hold, f"127.0.0.{2 + i}", 0)
            self.servers.append(server)
            out.append((f"127.0.0.{2 + i}", server.sockets[0].getsockname()[1]))
        return out

    async def close(self) -> None:
        for writer in self.writers:
            writer.close()
        for server in self.servers:
            server.close()
        await asyncio.sleep(0.1)  # the holders see the end and return


async def test_a_dialled_socket_that_never_says_hello_is_dropped_soon() -> None:
    tarpits = Tarpits()
    [(host, port)] = await tarpits.start(1)
    try:
        began = time.monotonic()
        with pytest.raises(ProtocolError, match=r"no Hello within 0\.3 s"):
            await connect(host, port, identity=Identity.generate(os.urandom(32)),
                          offer=_offer("pit", "me"), nonce_commit=nonce_commitment(bytes(32)),
                          limits=Limits(hello_timeout=0.3, handshake_timeout=60.0))
        assert time.monotonic() - began < 30
    finally:
        await tarpits.close()


def _lobby(n: int, table: str, notes: list[str]) -> Lobby:
    return Lobby(Identity.generate(bytes([n + 1]) * 32),
                 LobbyConfig(name=f"p{n}", table=table, variant=STANDARD,
                             listen=("127.0.0.1", 0), dial_interval=0.2,
                             limits=Limits(hello_timeout=1.0)),
                 notes=notes.append)


async def test_forged_hints_at_tarpits_do_not_keep_staggered_players_apart() -> None:
    """100 forged hints heard before any real one, by players arriving one after another.

    The old lobby kept the first 64 hints for good and dialled them one at a
    time, each held by its tarpit for the whole handshake timeout: the real
    hints were never kept, the table never formed.
    """
    tarpits = Tarpits()
    forged = await tarpits.start(100)
    notes: list[str] = []
    lobbies: list[Lobby] = []
    try:
        for n in range(3):
            lobby = _lobby(n, "tarpits", notes)
            await lobby.start()
            for address in forged:
                lobby._heard(address)
            for other in lobbies:  # each hears of those already there, and they of it
                lobby._heard(("127.0.0.1", other.port))
                other._heard(("127.0.0.1", lobby.port))
            lobbies.append(lobby)
            await asyncio.sleep(0.5)
        tables = await asyncio.wait_for(
            asyncio.gather(*(lobby.formed(60) for lobby in lobbies)), 60)
        assert len({t.session_nonce for t in tables}) == 1
        # The tarpits were dialled, not skipped: a peer's every dial slot held at least.
        assert tarpits.accepted >= MAX_DIALS
        # Nothing was said of each forged hint that failed.
        assert not [n for n in notes if "127.0.0." in n and "127.0.0.1:" not in n], notes
    finally:
        for lobby in lobbies:
            await lobby.close()
        await tarpits.close()


async def test_a_failing_hint_is_dialled_less_and_less_often() -> None:
    dials = 0

    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal dials
        dials += 1
        writer.close()

    server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    lobby = _lobby(0, "backoff", [])
    await lobby.start()
    try:
        lobby._heard(("127.0.0.1", server.sockets[0].getsockname()[1]))
        await asyncio.sleep(4.0)
        # Every 0.2 s would be 20 dials; backed off (0.2, 0.4, 0.8, 1.6 s, ...) about 5.
        assert 2 <= dials <= 7, dials
    finally:
        await lobby.close()
        server.close()


async def test_an_honest_peer_gets_in_under_an_unpaced_burst_from_32_addresses() -> None:
    """Every slot taken by connections from 32 addresses, renewed as fast as they go.

    Each flood connection says a Hello and then nothing, so it holds its slot
    until pushed out; the honest seat must still complete its handshakes.
    """
    keys = [Identity.generate(bytes([n]) * 32) for n in (7, 8, 9)]
    roster = Roster(STANDARD, 1, tuple(k.public for k in keys), ("v", "h", "c"), b"n" * 32)
    victim = Lobby(keys[0], LobbyConfig(name="v", table="burst", variant=STANDARD,
                                        listen=("127.0.0.1", 0), dial_interval=3600),
                   roster=roster)
    await victim.start()
    stop = asyncio.Event()
    made = 0

    async def flood(source: str) -> None:
        nonlocal made
        held: list[asyncio.StreamWriter] = []
        while not stop.is_set():
            with contextlib.suppress(OSError):
                _r, writer = await asyncio.open_connection("127.0.0.1", victim.port,
                                                           local_addr=(source, 0))
                hello = _offer("burst", "knock").hello(
                    Identity.generate(os.urandom(32)).public, os.urandom(32), os.urandom(32))
                writer.write(encode_frame(encode_message(hello)))
                held.append(writer)
                made += 1
            if len(held) > 8:
                held.pop(0).close()
            await asyncio.sleep(0)
        for writer in held:
            writer.close()

    floods = [asyncio.create_task(flood(f"127.0.0.{i}")) for i in range(2, 34)]
    try:
        async with asyncio.timeout(30):
            while made < 300:  # the burst is on: every slot taken many times over
                await asyncio.sleep(0.05)
        got_in = 0
        for _ in range(3):
            conn = await asyncio.wait_for(
                connect("127.0.0.1", victim.port, identity=keys[1], offer=_offer("burst", "h"),
                        nonce_commit=nonce_commitment(b"h" * 32),
                        limits=Limits(connect_timeout=20.0, handshake_timeout=30.0)), 60)
            got_in += conn.peer.public == keys[0].public
            await conn.close()
        assert got_in == 3
        assert victim._listener is not None
        assert len(victim._listener.slots) <= Limits().max_pending_handshakes
    finally:
        stop.set()
        await asyncio.gather(*floods, return_exceptions=True)
        await victim.close()
