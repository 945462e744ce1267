"""Formation time with a stranger on the LAN, against quiet formation in the same run.

Three honest lobbies (default timeouts and dial interval) on 127.0.0.1 in one
event loop, arriving ``--stagger`` seconds apart (ann, then ben, then cat),
each told where the ones before it listen. The time is from ann's start until
all three have formed one table. Scenarios:

* ``quiet``: nobody else;
* ``attempt-bumper``: a stranger sends every peer a plaintext Hello from a
  throw-away key every 0.1 s, naming ever higher attempts up to 2^32-1 (it
  used to restart formation each time, and crash it at the last attempt);
* ``squatter``: a stranger completes signed handshakes with ann and ben as
  soon as they listen and never reveals; cat is refused until the squatter is
  dropped (``reveal_deadline``, 5 s by default, after the others revealed).

For each: the median over ``--rounds``, and the ratio to quiet (goal: <= 2).

    .venv/bin/python bench/formation_hostile.py [--rounds 2] [--stagger 3] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
from collections.abc import Callable
from typing import Any

from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, connect
from gleek_p2p.net.formation import MAX_ATTEMPT, nonce_commitment
from gleek_p2p.net.framing import encode_frame
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import encode_message
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby import Lobby, LobbyConfig

STANDARD = VARIANTS["standard"]
NAMES = ("ann", "ben", "cat")


def _offer(table: str, name: str) -> Offer:
    return Offer(WIRE_VERSION, table, tuple(STANDARD.to_wire()), 3, name, 0)


class Stranger:
    """What a scenario's stranger does while the honest peers arrive."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.stop = asyncio.Event()
        self.conns: list[Connection] = []
        self.tasks: list[asyncio.Task[None]] = []

    async def arrived(self, lobby: Lobby) -> None:
        """Called as each honest lobby starts listening."""

    async def close(self) -> None:
        self.stop.set()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for conn in self.conns:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close("done"), 2)


class AttemptBumper(Stranger):
    async def arrived(self, lobby: Lobby) -> None:
        self.tasks.append(asyncio.create_task(self._knock(lobby.port)))

    async def _knock(self, port: int) -> None:
        attempt, writers = 1, []
        while not self.stop.is_set():
            with contextlib.suppress(OSError):
                _reader, writer = await asyncio.open_connection("127.0.0.1", port)
                hello = _offer(self.table, "bumper").hello(
                    Identity.generate(os.urandom(32)).public, os.urandom(32), os.urandom(32),
                    attempt)
                writer.write(encode_frame(encode_message(hello)))
                writers.append(writer)
            attempt = min(attempt * 3 + 1, MAX_ATTEMPT)
            if len(writers) > 20:
                writers.pop(0).close()
            await asyncio.sleep(0.1)
        for writer in writers:
            writer.close()


class Squatter(Stranger):
    def __init__(self, table: str) -> None:
        super().__init__(table)
        self.me = Identity.generate(os.urandom(32))
        # One commitment for both: it tells no lies, it just never reveals.
        self.commit = nonce_commitment(os.urandom(32))
        self.seats = 0

    async def arrived(self, lobby: Lobby) -> None:
        if self.seats >= 2:
            return  # it sits with the first two, before the intended third
        self.seats += 1
        with contextlib.suppress(Exception):
            self.conns.append(await connect(
                "127.0.0.1", lobby.port, identity=self.me, offer=_offer(self.table, "squatter"),
                nonce_commit=self.commit, attempt=0))


async def form_once(table: str, stagger: float,
                    stranger: Callable[[str], Stranger] | None) -> float:
    loop = asyncio.get_running_loop()
    mallory = stranger(table) if stranger is not None else None
    lobbies: list[Lobby] = []
    start = loop.time()
    try:
        for n, name in enumerate(NAMES):
            if n:
                await asyncio.sleep(stagger)
            before = tuple(("127.0.0.1", lobby.port) for lobby in lobbies)
            lobby = Lobby(Identity.generate(os.urandom(32)),
                          LobbyConfig(name=name, table=table, variant=STANDARD,
                                      listen=("127.0.0.1", 0), peers=before))
            await lobby.start()
            lobbies.append(lobby)
            if mallory is not None:
                await mallory.arrived(lobby)
        formed = await asyncio.gather(*(lobby.formed(120) for lobby in lobbies))
        took = loop.time() - start
        assert len({(f.publics, f.session_nonce) for f in formed}) == 1
        return took
    finally:
        if mallory is not None:
            await mallory.close()
        await asyncio.gather(*(lobby.close() for lobby in lobbies))


SCENARIOS: dict[str, Callable[[str], Stranger] | None] = {
    "quiet": None,
    "attempt-bumper": AttemptBumper,
    "squatter": Squatter,
}


async def main_async(rounds: int, stagger: float) -> dict[str, Any]:
    times: dict[str, list[float]] = {name: [] for name in SCENARIOS}
    for r in range(rounds):
        # Interleaved, so load on the machine falls on every scenario alike.
        for name, stranger in SCENARIOS.items():
            times[name].append(await form_once(f"bench-{name}-{r}", stagger, stranger))
    quiet = statistics.median(times["quiet"])
    return {"stagger_s": stagger, "rounds": rounds, "scenarios": [
        {"scenario": name, "median_s": round(statistics.median(t), 2),
         "worst_s": round(max(t), 2), "vs_quiet": round(statistics.median(t) / quiet, 2)}
        for name, t in times.items()]}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--stagger", type=float, default=3.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(main_async(args.rounds, args.stagger))
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"three peers arriving {args.stagger:g} s apart, {args.rounds} round(s)")
    print(f"{'scenario':16} {'median':>8} {'worst':>8} {'vs quiet':>9}")
    for s in result["scenarios"]:
        print(f"{s['scenario']:16} {s['median_s']:7.2f}s {s['worst_s']:7.2f}s "
              f"{s['vs_quiet']:8.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
