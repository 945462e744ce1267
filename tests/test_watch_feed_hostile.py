"""A seat that feeds a watcher nothing new cannot hold it.

A seat feeds a watcher its log from the roster on, each event once, in
order, and nothing else (SPEC 5.7). A hostile seat that kept sending
something (an event already sent, over and over, or any other message) used
to push the watcher's deadline back with every message: the watcher stayed
on it for good, never dialling the honest seats, never timing out. Now such
a seat is left at its first repeat or stray message, and a seat that sends
nothing new is left after ``timeout`` seconds whatever it sends.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import pytest

from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, ConnectionClosed, Listener, listen
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import Event, Message, Sync
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.watch import WatchConfig, watch
from gleek_p2p.tools.selfplay import _derive, selfplay

VARIANT = VARIANTS["standard"]
SEED = b"hostile-feed"
TABLE = "feed/1"


@pytest.fixture(scope="module")
def records() -> list[bytes]:
    return list(selfplay(VARIANT, 1, SEED, [RandomStrategy(i) for i in range(3)]).records)


def _seat(s: int) -> Identity:
    return Identity.generate(_derive(SEED, "identity", s))


async def _seat_server(seat: int, feed: Callable[[Connection], Awaitable[None]]) -> Listener:
    """A listener holding seat ``seat``'s key that feeds each watcher with ``feed``."""
    offer = Offer(WIRE_VERSION, TABLE, tuple(VARIANT.to_wire()), VARIANT.players,
                  f"seat{seat}", 0)

    async def serve(conn: Connection) -> None:
        try:
            await feed(conn)
            await conn.recv()  # hold the link until the watcher leaves
        except ConnectionClosed:
            pass

    return await listen("127.0.0.1", 0, identity=_seat(seat), offer=offer,
                        nonce_commit=os.urandom(32), on_connection=serve)


def _repeating(records: Sequence[bytes], stray: Message | None) -> Callable[
        [Connection], Awaitable[None]]:
    async def feed(conn: Connection) -> None:
        conn.send(Event(records[0]))
        conn.send(Event(records[1]))
        for _ in range(10_000):  # far longer than the watcher's whole timeout
            conn.send(Event(records[1]) if stray is None else stray)
            await asyncio.sleep(0.01)
    return feed


def _honest(records: Sequence[bytes]) -> Callable[[Connection], Awaitable[None]]:
    async def feed(conn: Connection) -> None:
        for record in records:
            conn.send(Event(record))
            await asyncio.sleep(0)
    return feed


@pytest.mark.parametrize("stray", [None, Sync(0)], ids=["repeated-event", "stray-message"])
async def test_a_seat_repeating_itself_is_left_for_an_honest_one(
        records: list[bytes], stray: Message | None, tmp_path: Path) -> None:
    hostile = await _seat_server(0, _repeating(records, stray))
    honest = await _seat_server(1, _honest(records))
    notes: list[str] = []
    config = WatchConfig(name="wendy", table=TABLE, variant=VARIANT,
                         peers=(("127.0.0.1", hostile.port), ("127.0.0.1", honest.port)),
                         data_dir=tmp_path, timeout=20.0, retry=0.1)
    try:
        async with asyncio.timeout(60):
            result = await watch(Identity.generate(os.urandom(32)), config, notes.append)
    finally:
        await hostile.close()
        await honest.close()
    assert result.table is not None and result.table.finished, notes
    assert result.report is not None and result.report.fair
    # The hostile seat was left for what it sent, not for a timeout.
    assert any("seat0" in n and "leaving it" in n for n in notes), notes
    assert not result.reason, result.reason


async def test_a_seat_sending_nothing_new_is_given_up_after_the_timeout(
        records: list[bytes], tmp_path: Path) -> None:
    # Only the hostile seat: keep-alive traffic never counts as progress.
    async def trickle(conn: Connection) -> None:
        conn.send(Event(records[0]))
        for _ in range(10_000):
            conn.send(Event(records[0]))
            await asyncio.sleep(0.01)

    hostile = await _seat_server(0, trickle)
    notes: list[str] = []
    config = WatchConfig(name="wendy", table=TABLE, variant=VARIANT,
                         peers=(("127.0.0.1", hostile.port),), data_dir=tmp_path,
                         timeout=2.0, retry=0.1)
    try:
        async with asyncio.timeout(60):
            result = await watch(Identity.generate(os.urandom(32)), config, notes.append)
    finally:
        await hostile.close()
    assert result.reason and "nothing new for 2 s" in result.reason
    assert result.table is not None and not result.table.finished
    assert len(result.table.envelopes) == 1
