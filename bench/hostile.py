"""A hostile stranger against one peer: its memory under each flood, and the wait of an honest peer.

The victim is a real ``Lobby`` in its own process on 127.0.0.1 (so its
resident memory, read from /proc, is its own); this process attacks it.
Floods, each for ``--seconds``:

* ``forming-events``: a stranger admitted while the table forms sends 200 kB
  Events and Syncs as fast as the socket takes them (it used to be queued for
  ever: 35 MB to 833 MB in 14 s);
* ``seated-forged``: a seat sends Events that are not validly signed for the
  session (dropped after the signature check);
* ``seated-valid``: a seat sends validly signed Events with nobody reading
  them (its inbox budget fills, then TCP pushes back);
* ``hellos``: connections that send a Hello and never a Proof;
* ``idle``: 100 idle sockets, renewed every second.

For each: the victim's RSS before (baseline, same run), at its peak during the
flood, and 2 s after. Then the time an honest peer takes to connect with 100
idle sockets holding the listener, against an unloaded connect (medians).

    .venv/bin/python bench/hostile.py [--seconds 5] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from gleek_p2p.log.envelope import PROTOCOL_VERSION, sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, Limits, connect
from gleek_p2p.net.formation import nonce_commitment
from gleek_p2p.net.framing import encode_frame
from gleek_p2p.net.handshake import Offer
from gleek_p2p.net.messages import Event, Message, Sync, encode_message
from gleek_p2p.rules import VARIANTS

STANDARD = VARIANTS["standard"]
VICTIM, MALLORY, THIRD = (bytes([n]) * 32 for n in (1, 2, 3))
LIMITS = Limits(ping_interval=None, read_timeout=None)


def _roster() -> Any:
    from gleek_p2p.table.roster import Roster

    keys = [Identity.generate(seed).public for seed in (VICTIM, MALLORY, THIRD)]
    return Roster(STANDARD, 1, tuple(keys), ("victim", "mallory", "third"), b"n" * 32)


def _offer(table: str, name: str) -> Offer:
    return Offer(PROTOCOL_VERSION, table, tuple(STANDARD.to_wire()), 3, name, 0)


# -- the victim ---------------------------------------------------------------------


async def _victim(table: str, seated: bool) -> None:
    from gleek_p2p.session.lobby import Lobby, LobbyConfig

    lobby = Lobby(Identity.generate(VICTIM),
                  LobbyConfig(name="victim", table=table, variant=STANDARD,
                              listen=("127.0.0.1", 0), dial_interval=3600),
                  roster=_roster() if seated else None)
    await lobby.start()
    print(lobby.port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await lobby.close()


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


# -- the floods ---------------------------------------------------------------------


async def _seat(port: int, table: str, seed: bytes) -> Connection:
    return await connect("127.0.0.1", port, identity=Identity.generate(seed),
                         offer=_offer(table, "mallory"), nonce_commit=nonce_commitment(seed),
                         limits=LIMITS)


async def _pour(conn: Connection, messages: list[Message], stop: asyncio.Event) -> None:
    """Write as fast as the victim takes it (through the channel, as a peer would)."""
    assert conn.channel is not None
    with contextlib.suppress(OSError, ConnectionError):
        while not stop.is_set() and not conn.closed:
            for message in messages:
                body = conn.channel.seal(encode_message(message))
                conn.writer.write(encode_frame(body, LIMITS.max_frame))
            await conn.writer.drain()


async def _hang_up(conn: Connection) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(conn.close("done"), 2)


async def flood_forming(port: int, table: str, stop: asyncio.Event) -> None:
    conn = await _seat(port, table, os.urandom(32))
    await _pour(conn, [Event(os.urandom(200_000)), Sync(1)], stop)
    await _hang_up(conn)


async def flood_seated(port: int, table: str, stop: asyncio.Event, valid: bool) -> None:
    conn = await _seat(port, table, MALLORY)
    me = Identity.generate(MALLORY)
    session = _roster().session_id if valid else os.urandom(32)
    envelope = sign_envelope(me, session, 5, bytes(32), 1, "act", [os.urandom(100_000)])
    await _pour(conn, [Event(envelope.encode())], stop)
    await _hang_up(conn)


async def flood_hellos(port: int, table: str, stop: asyncio.Event) -> None:
    writers: list[asyncio.StreamWriter] = []
    while not stop.is_set():
        with contextlib.suppress(OSError):
            _reader, writer = await asyncio.open_connection("127.0.0.1", port)
            hello = _offer(table, "knock").hello(
                Identity.generate(os.urandom(32)).public, os.urandom(32), os.urandom(32))
            writer.write(encode_frame(encode_message(hello)))
            writers.append(writer)
        if len(writers) > 200:
            writers.pop(0).close()
        await asyncio.sleep(0.002)
    for writer in writers:
        writer.close()


async def _idle_sockets(port: int, count: int) -> list[asyncio.StreamWriter]:
    out = []
    for _ in range(count):
        with contextlib.suppress(OSError):
            out.append((await asyncio.open_connection("127.0.0.1", port))[1])
    return out


async def flood_idle(port: int, table: str, stop: asyncio.Event) -> None:
    del table
    writers = await _idle_sockets(port, 100)
    while not stop.is_set():
        await asyncio.sleep(1.0)
        for writer in writers:
            writer.close()
        writers = await _idle_sockets(port, 100)
    for writer in writers:
        writer.close()


Flood = Callable[[int, str, asyncio.Event], Awaitable[None]]
FLOODS: dict[str, tuple[bool, Flood]] = {
    "forming-events": (False, flood_forming),
    "seated-forged": (True, lambda p, t, s: flood_seated(p, t, s, valid=False)),
    "seated-valid": (True, lambda p, t, s: flood_seated(p, t, s, valid=True)),
    "hellos": (False, flood_hellos),
    "idle": (False, flood_idle),
}


class Victim:
    def __init__(self, table: str, seated: bool) -> None:
        args = [sys.executable, __file__, "--victim", table] + (["--seated"] if seated else [])
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())

    def rss(self) -> float:
        return _rss_mib(self.proc.pid)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


async def measure_flood(name: str, seconds: float) -> dict[str, Any]:
    seated, flood = FLOODS[name]
    table = f"hostile-{name}"
    victim = Victim(table, seated)
    try:
        await asyncio.sleep(0.5)
        baseline = victim.rss()
        stop = asyncio.Event()
        task = asyncio.create_task(flood(victim.port, table, stop))
        peak = baseline
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not task.done():
            peak = max(peak, victim.rss())
            await asyncio.sleep(0.05)
        stop.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 10)
        await asyncio.sleep(2.0)
        after = victim.rss()
    finally:
        victim.close()
    return {"flood": name, "baseline_mib": round(baseline, 1), "peak_mib": round(peak, 1),
            "after_mib": round(after, 1), "peak_over_baseline": round(peak / baseline, 2)}


async def _connect_time(port: int, table: str) -> float:
    start = time.perf_counter()
    conn = await connect("127.0.0.1", port, identity=Identity.generate(THIRD),
                         offer=_offer(table, "third"), nonce_commit=nonce_commitment(b"h" * 32),
                         limits=LIMITS)
    took = time.perf_counter() - start
    await conn.close()
    return took


async def measure_connect(rounds: int) -> dict[str, Any]:
    table = "hostile-connect"
    victim = Victim(table, seated=True)  # the honest peer holds a seat: never "table full"
    try:
        await asyncio.sleep(0.5)
        quiet = [await _connect_time(victim.port, table) for _ in range(rounds)]
        loaded = []
        for _ in range(rounds):
            idle = await _idle_sockets(victim.port, 100)
            await asyncio.sleep(0.05)
            loaded.append(await _connect_time(victim.port, table))
            for writer in idle:
                writer.close()
    finally:
        victim.close()
    q, lo = statistics.median(quiet), statistics.median(loaded)
    return {"unloaded_connect_ms": round(q * 1000, 1),
            "connect_with_100_idle_ms": round(lo * 1000, 1),
            "ratio": round(lo / q, 2), "worst_with_100_idle_ms": round(max(loaded) * 1000, 1)}


async def main_async(seconds: float) -> dict[str, Any]:
    floods = [await measure_flood(name, seconds) for name in FLOODS]
    return {"floods": floods, "connect": await measure_connect(10)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--victim", help=argparse.SUPPRESS)
    parser.add_argument("--seated", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.victim:
        asyncio.run(_victim(args.victim, args.seated))
        return 0
    result = asyncio.run(main_async(args.seconds))
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{'flood':16} {'baseline':>9} {'peak':>9} {'after':>9} {'peak/base':>10}")
    for f in result["floods"]:
        print(f"{f['flood']:16} {f['baseline_mib']:8.1f}M {f['peak_mib']:8.1f}M "
              f"{f['after_mib']:8.1f}M {f['peak_over_baseline']:9.2f}x")
    c = result["connect"]
    print(f"honest connect: {c['unloaded_connect_ms']} ms unloaded, "
          f"{c['connect_with_100_idle_ms']} ms with 100 idle sockets "
          f"({c['ratio']}x; worst {c['worst_with_100_idle_ms']} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
