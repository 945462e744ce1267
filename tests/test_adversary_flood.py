"""A flood of connections: silent ones and garbage ones, against a listener and a table.

The listener must drop what it cannot handshake at once (bounded work and
memory), recover as soon as the flood's handshakes time out, and a session
being played must finish untouched.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import struct
from pathlib import Path

from test_faults_inprocess import _assert_identical_and_fair, _three

from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, Limits, Listener, connect
from gleek_p2p.net.formation import nonce_commitment
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.rules import VARIANTS

STANDARD = VARIANTS["standard"]
OFFER = Offer(WIRE_VERSION, "flood", tuple(STANDARD.to_wire()), 3, "host", 0)


async def _flood(port: int, count: int, garbage: bool) -> list[asyncio.StreamWriter]:
    writers = []
    for _ in range(count):
        with contextlib.suppress(OSError):
            _reader, writer = await asyncio.open_connection("127.0.0.1", port)
            if garbage:
                writer.write(struct.pack(">I", 0xFFFFFFF0) + b"x" * 64)
            writers.append(writer)
    return writers


async def test_a_listener_sheds_a_flood_and_recovers() -> None:
    errors: list[str] = []
    accepted: list[Connection] = []

    async def on_connection(conn: Connection) -> None:
        accepted.append(conn)

    limits = Limits(handshake_timeout=0.5, max_pending_handshakes=4)
    listener = Listener(identity=Identity.generate(os.urandom(32)), offer=OFFER,
                        nonce_commit=nonce_commitment(os.urandom(32)),
                        on_connection=on_connection, on_error=errors.append, limits=limits)
    await listener.start("127.0.0.1", 0)
    try:
        silent = await _flood(listener.port, 40, garbage=False)
        noisy = await _flood(listener.port, 20, garbage=True)
        await asyncio.sleep(0.1)
        assert any("too many connections" in e for e in errors)
        assert len(listener._tasks) <= limits.max_pending_handshakes + 1
        await asyncio.sleep(0.8)  # the flood's handshakes time out
        assert any("did not finish" in e or "closed" in e for e in errors)
        guest = Offer(WIRE_VERSION, "flood", tuple(STANDARD.to_wire()), 3, "guest", 0)
        conn = await connect("127.0.0.1", listener.port,
                             identity=Identity.generate(os.urandom(32)), offer=guest,
                             nonce_commit=nonce_commitment(os.urandom(32)), limits=limits)
        assert conn.peer.name == "host"
        await conn.close("done")
        assert not accepted or accepted[-1].peer.name == "guest"
        for writer in silent + noisy:
            writer.close()
    finally:
        await listener.close()


async def test_a_session_finishes_under_a_flood(tmp_path: Path) -> None:
    ports: asyncio.Queue[int] = asyncio.Queue()
    game = asyncio.create_task(_three(tmp_path, "flooded/1", hands=1, ready=ports))
    first = await ports.get()
    writers: list[asyncio.StreamWriter] = []
    for wave in range(10):
        writers += await _flood(first, 10, garbage=wave % 2 == 1)
        await asyncio.sleep(0.05)
    results = await game
    _assert_identical_and_fair(results, hands=1)
    for writer in writers:
        writer.close()
