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

Then (issue 20): ``--hellos`` Hellos (30 000) with a fresh key each, refused
by a seated victim: its RSS against its baseline and the lines its notes
printed; and the CPU a seat's "decode bomb" (a signed 199 KB ``act`` whose
body is 199 000 zeros) costs a victim, by the path it took before (decoded by
the lobby, verified, decoded again by the session) against the path it takes
now (refused from its first bytes), with an honest event of the largest kind
through the new path for scale.

    .venv/bin/python bench/hostile.py [--seconds 5] [--hellos 30000] [--only noise] [--json]
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
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from gleek_p2p.log.envelope import sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, Limits, connect
from gleek_p2p.net.formation import nonce_commitment
from gleek_p2p.net.framing import encode_frame
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
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
    return Offer(WIRE_VERSION, table, tuple(STANDARD.to_wire()), 3, name, 0)


# -- the victim ---------------------------------------------------------------------


async def _victim(table: str, seated: bool) -> None:
    from gleek_p2p.session.lobby import Lobby, LobbyConfig
    from gleek_p2p.session.play import say

    lobby = Lobby(Identity.generate(VICTIM),
                  LobbyConfig(name="victim", table=table, variant=STANDARD,
                              listen=("127.0.0.1", 0), dial_interval=3600),
                  roster=_roster() if seated else None, notes=say)
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
                                     stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())
        self.lines: list[str] = []
        """What the victim printed for its person (its notes), read as it comes."""
        self._reader = threading.Thread(target=self._read_notes, daemon=True)
        self._reader.start()

    def _read_notes(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    def rss(self) -> float:
        return _rss_mib(self.proc.pid)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._reader.join(5)


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


# -- issue 20: refused Hellos and decode bombs ---------------------------------------


async def _refused_hello(port: int, table: str, source: str) -> None:
    """A Hello from a fresh key (refused by a seated victim: "table full"), then hang up."""
    with contextlib.suppress(OSError, TimeoutError):
        reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                       local_addr=(source, 0))
        hello = _offer(table, "knock").hello(
            Identity.generate(os.urandom(32)).public, os.urandom(32), os.urandom(32))
        writer.write(encode_frame(encode_message(hello)))
        while await asyncio.wait_for(reader.read(1 << 16), 10):
            pass
        writer.close()


async def measure_refused_hellos(count: int) -> dict[str, Any]:
    table = "hostile-hellos"
    victim = Victim(table, seated=True)
    try:
        await asyncio.sleep(0.5)
        baseline = victim.rss()
        lines_before = len(victim.lines)
        peak = baseline
        start = time.monotonic()
        # Five loopback addresses, three Hellos in flight each: within the listener's
        # handshake slots, so every Hello is refused (none is pushed out).
        sources = [f"127.0.0.{n}" for n in range(2, 7)]
        done = 0
        while done < count:
            batch = min(3 * len(sources), count - done)
            await asyncio.gather(*(_refused_hello(victim.port, table, sources[i % len(sources)])
                                   for i in range(batch)))
            done += batch
            if done % 1500 < batch:
                peak = max(peak, victim.rss())
        took = time.monotonic() - start
        await asyncio.sleep(0.5)
        peak = max(peak, victim.rss())
        during = len(victim.lines) - lines_before
    finally:
        victim.close()
    after_close = len(victim.lines) - lines_before
    return {"hellos": count, "seconds": round(took, 1), "baseline_mib": round(baseline, 1),
            "peak_mib": round(peak, 1), "peak_over_baseline": round(peak / baseline, 3),
            "lines_during": during, "lines_with_close": after_close,
            "last_line": victim.lines[-1].strip() if victim.lines else ""}


def _bomb(identity: Identity, session: bytes, seq: int, zeros: int) -> bytes:
    """A validly signed ``act`` whose body is ``zeros`` zeros (made at C speed)."""
    import msgpack

    from gleek_p2p.log.envelope import SIGNED_DOMAIN

    unsigned = msgpack.packb([1, session, seq, bytes(32), 1, "act", [0] * zeros],
                             use_bin_type=True)
    signature = identity.sign(SIGNED_DOMAIN + unsigned)
    return b"\x98" + unsigned[1:] + msgpack.packb(signature, use_bin_type=True)


def _cpu_per_call(call: Callable[[], object], rounds: int) -> float:
    start = time.process_time()
    for _ in range(rounds):
        with contextlib.suppress(Exception):
            call()
    return (time.process_time() - start) / rounds


def measure_bomb(old_rounds: int = 3) -> dict[str, Any]:
    from gleek_p2p.log.envelope import decode_envelope, verify_envelope
    from gleek_p2p.table import events as ev
    from gleek_p2p.table.schema import KIND_BOUNDS

    seat = Identity.generate(MALLORY)
    session = _roster().session_id
    bomb = _bomb(seat, session, 5, 199_000)

    def before() -> None:
        # What a victim did with each copy until issue 20: the lobby decoded and
        # verified it, the session decoded it again (and refused it there).
        verify_envelope(decode_envelope(bomb), seat.public)
        decode_envelope(bomb)

    def now() -> None:
        decode_envelope(bomb, KIND_BOUNDS)  # refused from its first bytes

    # For scale: an honest event as large as any but an abort may be, accepted now.
    size = KIND_BOUNDS.of(ev.SHUFFLE).max_bytes - 200
    honest = sign_envelope(seat, session, 5, bytes(32), 1, ev.SHUFFLE,
                           [os.urandom(size)]).encode()

    def honest_now() -> None:
        verify_envelope(decode_envelope(honest, KIND_BOUNDS), seat.public)

    old = _cpu_per_call(before, old_rounds)
    new = _cpu_per_call(now, 2000)
    ref = _cpu_per_call(honest_now, 500)
    return {"bomb_bytes": len(bomb), "before_ms": round(old * 1000, 1),
            "now_ms": round(new * 1000, 4), "before_over_now": round(old / new),
            "honest_event_bytes": len(honest), "honest_event_now_ms": round(ref * 1000, 3)}


async def main_async(seconds: float, hellos: int, only: str | None) -> dict[str, Any]:
    if only == "noise":
        return {"refused_hellos": await measure_refused_hellos(hellos), "bomb": measure_bomb()}
    floods = [await measure_flood(name, seconds) for name in FLOODS]
    return {"floods": floods, "connect": await measure_connect(10),
            "refused_hellos": await measure_refused_hellos(hellos), "bomb": measure_bomb()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--hellos", type=int, default=30_000)
    parser.add_argument("--only", choices=["noise"],
                        help="only the issue-20 figures (refused Hellos, decode bomb)")
    parser.add_argument("--victim", help=argparse.SUPPRESS)
    parser.add_argument("--seated", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.victim:
        asyncio.run(_victim(args.victim, args.seated))
        return 0
    result = asyncio.run(main_async(args.seconds, args.hellos, args.only))
    if args.json:
        print(json.dumps(result))
        return 0
    if "floods" in result:
        print(f"{'flood':16} {'baseline':>9} {'peak':>9} {'after':>9} {'peak/base':>10}")
        for f in result["floods"]:
            print(f"{f['flood']:16} {f['baseline_mib']:8.1f}M {f['peak_mib']:8.1f}M "
                  f"{f['after_mib']:8.1f}M {f['peak_over_baseline']:9.2f}x")
        c = result["connect"]
        print(f"honest connect: {c['unloaded_connect_ms']} ms unloaded, "
              f"{c['connect_with_100_idle_ms']} ms with 100 idle sockets "
              f"({c['ratio']}x; worst {c['worst_with_100_idle_ms']} ms)")
    h = result["refused_hellos"]
    print(f"{h['hellos']} refused Hellos (fresh keys) in {h['seconds']} s: RSS "
          f"{h['baseline_mib']}M -> {h['peak_mib']}M ({h['peak_over_baseline']}x); "
          f"{h['lines_during']} lines printed ({h['lines_with_close']} with the count at "
          f"close: {h['last_line']!r})")
    b = result["bomb"]
    print(f"decode bomb ({b['bomb_bytes']} bytes): {b['before_ms']} ms CPU a copy before, "
          f"{b['now_ms']} ms now ({b['before_over_now']}x less); an honest "
          f"{b['honest_event_bytes']}-byte shuffle: {b['honest_event_now_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
