"""What watchers cost a table: three real peers on 127.0.0.1 play one session.

* ``quiet``: nobody watches (the baseline of this run).
* ``watched``: every seat feeds its 4 watchers (12 clients reading the whole
  feed), dialling from the start until admitted.
* ``hostile``: every seat holds 4 watchers that never read a byte, and a
  flooder per seat that reconnects and sends forged events, as fast as it can.

The crowd runs in a process of its own (as a watcher on another machine
would). The figures are each session's wall time and the CPU time of the
seats' process (what the seats pay: handshakes, feeding, closing), as ratios
to the quiet session's (medians of ``--rounds``); on a machine whose cores
the crowd shares, the wall time also counts the crowd's own CPU. The
readers' logs are checked against the players'.
(Watchers verifying live cost their own CPU, not the seats': on a machine
shared with the players they compete for the cores, which this leaves out.)

    .venv/bin/python bench/watchers.py [--rounds 2] [--hands 1]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from gleek_p2p.base.errors import GleekError
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.keys import Identity
from gleek_p2p.log.store import LogStore
from gleek_p2p.net.connection import Connection, ConnectionClosed, Limits, connect
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import Event
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby import LobbyConfig
from gleek_p2p.session.peer import BotPlayer
from gleek_p2p.session.play import SessionResult, play_session

STANDARD = VARIANTS["standard"]
Crowd = Callable[[str, list[int], Path], list[Awaitable[object]]]


def _offer(table: str, name: str) -> Offer:
    return Offer(WIRE_VERSION, table, tuple(STANDARD.to_wire()), 3, name, 0, watcher=True)


async def _admitted(port: int, table: str, name: str) -> Connection:
    while True:
        with contextlib.suppress(GleekError):
            return await connect("127.0.0.1", port, identity=Identity.generate(os.urandom(32)),
                                 offer=_offer(table, name), nonce_commit=os.urandom(32),
                                 limits=Limits(handshake_timeout=5.0))
        await asyncio.sleep(0.05)


async def _deaf(port: int, table: str) -> None:
    conn = await _admitted(port, table, "deaf")
    await asyncio.Event().wait()  # holds its connection, reads nothing
    del conn


async def _flood(port: int, table: str) -> None:
    junk = Event(b"\x93\x00" + os.urandom(300))
    while True:
        conn = await _admitted(port, table, "flood")
        with contextlib.suppress(ConnectionClosed):
            while True:
                conn.send(junk)
                await asyncio.sleep(0)


def quiet(table: str, ports: list[int], tmp: Path) -> list[Awaitable[object]]:
    return []


async def _read(port: int, table: str, out: Path) -> None:
    conn = await _admitted(port, table, "reader")
    got = []
    with contextlib.suppress(ConnectionClosed):
        while True:
            message = await conn.recv()
            if isinstance(message, Event):
                got.append(message.data)
                out.write_bytes(b"".join(got))


def watched(table: str, ports: list[int], tmp: Path) -> list[Awaitable[object]]:
    return [_read(p, table, tmp / f"read-{p}-{k}") for p in ports for k in range(4)]


def hostile(table: str, ports: list[int], tmp: Path) -> list[Awaitable[object]]:
    return [_deaf(p, table) for p in ports for _k in range(4)] + [_flood(p, table)
                                                                   for p in ports]


async def session(crowd: Crowd, hands: int, tmp: Path) -> tuple[float, float, int]:
    """(seconds the session took, CPU seconds the three seats spent, readers' logs
    equal to the players')."""
    table = f"bench-{os.urandom(4).hex()}/{hands}"
    ports: list[int] = []
    tasks = []
    mp = multiprocessing.get_context("spawn")
    given, ready = mp.Queue(), mp.Event()
    child = mp.Process(target=_crowd, args=(crowd.__name__, table, given, ready, tmp),
                       daemon=True)
    if crowd is not quiet:
        child.start()  # its start-up (imports) is over before the clock starts
        await asyncio.to_thread(ready.wait, 60)
    started, cpu = time.perf_counter(), time.process_time()
    for i in range(3):
        up: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        config = LobbyConfig(name=f"p{i}", table=table, variant=STANDARD,
                             listen=("127.0.0.1", 0), dial_interval=0.1,
                             peers=tuple(("127.0.0.1", p) for p in ports))
        tasks.append(asyncio.create_task(play_session(
            identity=Identity.generate(os.urandom(32)), config=config, hands=hands,
            data_dir=tmp / f"p{i}", player=BotPlayer(RandomStrategy(f"s{i}")), timeout=60,
            random=os.urandom, on_ready=up.set_result, notes=lambda text: None)))
        ports.append(await up)
    given.put(ports)
    results: list[SessionResult] = await asyncio.gather(*tasks)
    took, cpu = time.perf_counter() - started, time.process_time() - cpu
    await asyncio.sleep(1.0)  # the last events on their way to the readers
    if child.pid is not None:
        child.kill()
        child.join()
    records = LogStore.open(results[0].log_path).records
    log = b"".join(records)
    same = sum(1 for f in tmp.glob("read-*") if f.read_bytes() == log)
    return took, cpu, same


def _crowd(name: str, table: str, given: Any, ready: Any, tmp: Path) -> None:
    crowd: Crowd = {"watched": watched, "hostile": hostile}[name]
    ready.set()
    ports = given.get()

    async def run() -> None:
        await asyncio.gather(*crowd(table, ports, tmp))

    asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--hands", type=int, default=1)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"quiet": [], "watched": [], "hostile": []}
    cpus: dict[str, list[float]] = {"quiet": [], "watched": [], "hostile": []}
    kept = []
    for _round in range(args.rounds):
        for crowd in (quiet, watched, hostile):
            with tempfile.TemporaryDirectory() as tmp:
                took, cpu, same = asyncio.run(session(crowd, args.hands, Path(tmp)))
            times[crowd.__name__].append(took)
            cpus[crowd.__name__].append(cpu)
            if crowd is watched:
                kept.append(same)
    base, base_cpu = statistics.median(times["quiet"]), statistics.median(cpus["quiet"])
    print(f"quiet:   {base:.2f} s, seats' CPU {base_cpu:.2f} s (baseline, median of "
          f"{args.rounds})")
    for name in ("watched", "hostile"):
        t, c = statistics.median(times[name]), statistics.median(cpus[name])
        print(f"{name}: {t:.2f} s, x{t / base:.2f} the quiet session; seats' CPU {c:.2f} s, "
              f"x{c / base_cpu:.2f}")
    print(f"readers holding the players' whole log: {kept} of 12 per round")


if __name__ == "__main__":
    main()
