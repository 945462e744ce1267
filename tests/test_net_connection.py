"""Connection: timeouts, the bounded queue, closing on bad input (127.0.0.1 only)."""

from __future__ import annotations

import asyncio
import struct
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from gleek_p2p.log import canonical
from gleek_p2p.net.connection import Connection, ConnectionClosed, Limits
from gleek_p2p.net.framing import encode_frame, read_frame
from gleek_p2p.net.handshake import Offer
from gleek_p2p.net.messages import (
    Bye,
    Event,
    Ping,
    Pong,
    Refuse,
    Sync,
    decode_message,
    encode_message,
)

LIMITS = Limits(read_timeout=2.0, write_timeout=2.0, ping_interval=None)
HELLO = Offer(1, "oak", (), 3, "Peer").hello(b"k" * 32, b"c" * 32, b"r" * 32)

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


@pytest.fixture
async def streams() -> AsyncIterator[tuple[Streams, Streams]]:
    """Two ends of a real TCP connection on 127.0.0.1."""
    accepted: asyncio.Queue[Streams] = asyncio.Queue()

    async def on_accept(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await accepted.put((r, w))

    server = await asyncio.start_server(on_accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = await asyncio.open_connection("127.0.0.1", port)
    other = await accepted.get()
    yield client, other
    for _, w in (client, other):
        w.close()
    server.close()
    await server.wait_closed()


def conn(end: Streams, limits: Limits = LIMITS) -> Connection:
    return Connection(end[0], end[1], HELLO, dialled=True, limits=limits, channel=None)


async def test_messages_flow_and_close_flushes_queue(streams: tuple[Streams, Streams]) -> None:
    a, b = conn(streams[0]), conn(streams[1])
    for i in range(3):
        a.send(Sync(i))
    await a.close("good night")
    assert [await b.recv() for _ in range(3)] == [Sync(0), Sync(1), Sync(2)]
    with pytest.raises(ConnectionClosed, match="the peer left: good night"):
        await b.recv()
    with pytest.raises(ConnectionClosed):
        a.send(Sync(9))
    assert a.close_reason == "good night"


async def test_async_iteration_ends_on_close(streams: tuple[Streams, Streams]) -> None:
    a, b = conn(streams[0]), conn(streams[1])
    a.send(Event(b"e1"))
    a.send(Event(b"e2"))
    await a.close()
    assert [m async for m in b] == [Event(b"e1"), Event(b"e2")]


async def test_refuse_reaches_the_peer(streams: tuple[Streams, Streams]) -> None:
    a, b = conn(streams[0]), conn(streams[1])
    await a.refuse("table full")
    with pytest.raises(ConnectionClosed, match="refused the connection: table full"):
        await b.recv()
    assert a.close_reason == "refused the peer: table full"


async def test_read_timeout_closes(streams: tuple[Streams, Streams]) -> None:
    a = conn(streams[0], replace(LIMITS, read_timeout=0.1))
    with pytest.raises(ConnectionClosed, match=r"nothing heard from the peer for 0\.1 s"):
        await a.recv()
    assert a.closed


async def test_pings_keep_a_quiet_connection_alive(streams: tuple[Streams, Streams]) -> None:
    a = conn(streams[0], replace(LIMITS, ping_interval=0.05))
    b = conn(streams[1], replace(LIMITS, read_timeout=0.3))
    received = asyncio.create_task(b.recv())
    await asyncio.sleep(0.8)  # far beyond b's read timeout; a's pings keep b alive
    assert not received.done()
    a.send(Sync(5))
    assert await asyncio.wait_for(received, 2) == Sync(5)
    await a.close()


async def test_ping_is_answered(streams: tuple[Streams, Streams]) -> None:
    raw_r, raw_w = streams[0]
    b = conn(streams[1])
    raw_w.write(encode_frame(encode_message(Ping(42))) + encode_frame(encode_message(Sync(1))))
    assert await b.recv() == Sync(1)
    payload = await read_frame(raw_r, 1 << 20, 2)
    assert payload is not None and decode_message(payload) == Pong(42)


async def test_queue_overflow_closes_instead_of_growing(
    streams: tuple[Streams, Streams],
) -> None:
    a = conn(streams[0], replace(LIMITS, queue_size=4))
    for i in range(4):
        a.send(Sync(i))  # the writer task has not run yet: all four wait
    with pytest.raises(ConnectionClosed, match="more than 4 messages waiting"):
        a.send(Sync(4))
    assert a.closed
    with pytest.raises(ConnectionClosed):
        a.send(Sync(5))


async def test_peer_that_does_not_read_trips_write_timeout(
    streams: tuple[Streams, Streams],
) -> None:
    a = conn(streams[0], replace(LIMITS, write_timeout=0.3, queue_size=1000))
    big = Event(b"x" * 200_000)
    for _ in range(150):  # 30 MB: more than any loopback socket buffer holds
        a.send(big)
    await asyncio.wait_for(a.wait_closed(), 20)
    assert a.close_reason == "the peer took nothing for 0.3 s"


async def test_a_task_cancelled_while_closing_is_cancelled(
    streams: tuple[Streams, Streams],
) -> None:
    """close() never swallows the cancellation of the task that calls it.

    A lobby that closes cancels its tasks and waits for them before it closes
    their connections; a task that swallowed the cancel inside close() and went
    on reading another connection hung the lobby for ever.
    """
    a = conn(streams[0], replace(LIMITS, write_timeout=30.0, queue_size=1000))
    big = Event(b"x" * 200_000)
    for _ in range(150):  # more than the socket buffers hold: close() must wait
        a.send(big)
    went_on = asyncio.Event()

    async def closing_then_more() -> None:
        await a.close("bye")
        went_on.set()  # only a swallowed cancel gets here
        await asyncio.Event().wait()

    task = asyncio.create_task(closing_then_more())
    await asyncio.sleep(0.2)  # the writer is stuck on the unread socket
    assert not task.done()
    task.cancel()
    await asyncio.wait_for(asyncio.wait({task}), 10)
    assert task.cancelled()
    assert not went_on.is_set()
    assert a.closed


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (struct.pack(">I", 10_000_000), "broke the protocol: the peer announced a"),
        (b"\0\0\0\0", "empty frame"),
        (encode_frame(b"\xc1"), "broke the protocol"),
        (encode_frame(canonical.encode([99])), "unknown message tag"),
        (encode_frame(encode_message(HELLO)), "Hello after handshake"),
        (encode_frame(encode_message(Refuse("go away"))), "refused the connection: go away"),
        (encode_frame(encode_message(Bye(""))), "the peer left"),
        (b"\0\0\0\x09abc", "the stream ended inside a frame"),
        (b"", "the peer closed the connection"),
    ],
)
async def test_bad_input_closes_with_reason(
    streams: tuple[Streams, Streams], raw: bytes, words: str
) -> None:
    raw_r, raw_w = streams[0]
    b = conn(streams[1])
    raw_w.write(encode_frame(encode_message(Sync(1))) + raw)
    if raw.startswith(b"\0\0\0\x09") or not raw:
        raw_w.write_eof()
    assert await b.recv() == Sync(1)  # what came before the fault is delivered
    with pytest.raises(ConnectionClosed, match=words):
        await b.recv()
    assert b.closed
    # The connection says goodbye and hangs up.
    frames = []
    while (payload := await read_frame(raw_r, 1 << 20, 2)) is not None:
        frames.append(decode_message(payload))
    assert all(isinstance(m, Bye) for m in frames)
