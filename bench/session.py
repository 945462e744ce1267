"""Benchmark a 12-hand session of three bot peers over loopback TCP.

Three full peers (``play_session``: lobby, handshake, formation, session
runner, durable log) run in one asyncio loop and talk over 127.0.0.1. The
wall time is split by wrappers installed by this script only: crypto (the
deck's group operations and Ed25519 signing and checking), engine (the rules
calls the table makes), storage (log appends, fsync included), waiting (the
event loop idle in ``select``: every peer waiting on the network or a timer)
and the rest (encoding, framing, table logic, asyncio). It also measures
setting up one hand (the first ``commit`` to every table being ready to
play) against the same session in one process with ``selfplay``, measured
in the same run with the same wrappers.

    .venv/bin/python bench/session.py [--hands 12] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import selectors
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import nacl.bindings as _b

import gleek_p2p.deck.protocol as deck_protocol
import gleek_p2p.log.envelope as envelope_module
import gleek_p2p.log.keys as keys_module
import gleek_p2p.table.session as session_module
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.deck import group_v3
from gleek_p2p.log.keys import Identity
from gleek_p2p.log.store import LogStore
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby import LobbyConfig
from gleek_p2p.session.peer import BotPlayer
from gleek_p2p.session.play import SessionResult, play_session
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Stage, Table
from gleek_p2p.tools.selfplay import selfplay

GROUP_CALLS = [name for name in dir(_b) if name.startswith(("crypto_scalarmult_ed25519",
                                                             "crypto_core_ed25519"))]
LIMIT_S = 300
"""A session that has not ended by then is reported as hung."""
ENGINE_CALLS = ["apply", "legal_actions", "seat_view", "to_act", "talon_taker", "deal_layout",
                "card_of", "new_session"]


class Timers:
    """Seconds spent per category, and a log of what each table took when."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.events: list[tuple[float, int, str, int, Stage, Stage]] = []

    def wrap(self, owner: Any, name: str, category: str) -> Callable[[], None]:
        """Replace ``owner.name`` by a timed version; returns the undo."""
        original = getattr(owner, name)
        spent, calls = self.spent, self.calls

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent[category] += time.perf_counter() - start
                calls[category] += 1

        setattr(owner, name, timed)
        return lambda: setattr(owner, name, original)

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        undo: list[Callable[[], None]] = []
        for name in GROUP_CALLS:
            undo.append(self.wrap(_b, name, "crypto"))
        undo.append(self.wrap(envelope_module, "verify", "crypto"))
        # The handshake looks up keys.verify at call time; the envelope has its own name.
        undo.append(self.wrap(keys_module, "verify", "crypto"))
        undo.append(self.wrap(Identity, "sign", "crypto"))
        for name in ENGINE_CALLS:
            undo.append(self.wrap(session_module, name, "engine"))
        undo.append(self.wrap(LogStore, "append", "storage"))
        undo.append(self.wrap(LogStore, "sync", "storage"))
        # Deck v3's group: every libsecp256k1 call group_v3 makes.
        timed_lib = _TimedLib(group_v3.lib, self)
        group_v3.lib = timed_lib  # type: ignore[assignment]
        undo.append(lambda: setattr(group_v3, "lib", timed_lib.inner))
        receive = Table.receive
        log = self.events

        def receive_logged(table: Table, envelope: Any, encoded: bytes | None = None) -> Any:
            before, hand = table.stage, len(table.hands)
            out = receive(table, envelope, encoded)
            log.append((time.perf_counter(), id(table), envelope.kind, hand, before, table.stage))
            return out

        Table.receive = receive_logged  # type: ignore[method-assign,assignment]
        undo.append(lambda: setattr(Table, "receive", receive))
        try:
            yield
        finally:
            for step in reversed(undo):
                step()

    def setup_ms(self) -> list[float]:
        """Per hand: the first ``commit`` taken anywhere to the last table ready to play."""
        start: dict[int, float] = {}
        ready: dict[int, float] = {}
        for when, _table, kind, hand, before, after in self.events:
            if kind == ev.COMMIT and hand not in start:
                start[hand] = when
            if after is Stage.PLAY and before is not Stage.PLAY:
                ready[hand] = max(ready.get(hand, 0.0), when)
        return [1000 * (ready[h] - start[h]) for h in sorted(start) if h in ready]

    def play_span(self) -> float:
        return self.events[-1][0] - self.events[0][0] if self.events else 0.0


class _TimedLib:
    """Stands in for coincurve's ``lib`` in ``group_v3``: every call timed as crypto."""

    def __init__(self, inner: Any, timers: Timers) -> None:
        self.inner = inner
        self._timers = timers

    def __getattr__(self, name: str) -> Any:
        original = getattr(self.inner, name)
        if not callable(original):
            return original
        spent, calls = self._timers.spent, self._timers.calls

        def timed(*args: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args)
            finally:
                spent["crypto"] += time.perf_counter() - start
                calls["crypto"] += 1

        return timed


class TimedSelector(selectors.DefaultSelector):
    """The loop's selector, counting the seconds it sleeps waiting for I/O or a timer."""

    idle = 0.0

    def select(self, timeout: float | None = None) -> Any:
        start = time.perf_counter()
        try:
            return super().select(timeout)
        finally:
            TimedSelector.idle += time.perf_counter() - start


async def three_peers(hands: int, root: Path, table: str) -> list[SessionResult]:
    variant = VARIANTS["standard"]
    ports: list[int] = []
    tasks: list[asyncio.Task[SessionResult]] = []
    for i, name in enumerate(("anne", "thomas", "mary")):
        up: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        config = LobbyConfig(name=name, table=f"{table}/{hands}", variant=variant,
                             listen=("127.0.0.1", 0),
                             peers=tuple(("127.0.0.1", p) for p in ports), dial_interval=0.2)
        tasks.append(asyncio.create_task(play_session(
            identity=Identity.generate(bytes([i + 1]) * 32), config=config, hands=hands,
            data_dir=root / name, player=BotPlayer(RandomStrategy(f"bench-{i}")),
            timeout=60.0, on_ready=up.set_result,
            # Three peers share this loop: a worker thread would queue for the
            # GIL behind the others' work (bench/loop_stall.py measures it alone).
            check_in_worker=False,
        )))
        ports.append(await up)
    try:
        return list(await asyncio.wait_for(asyncio.gather(*tasks), LIMIT_S))
    except TimeoutError:
        raise SystemExit(f"the session did not end within {LIMIT_S} s (a hang)") from None


def tcp_session(hands: int) -> dict[str, Any]:
    timers = Timers()
    TimedSelector.idle = 0.0
    with tempfile.TemporaryDirectory() as tmp, timers.installed():
        start = time.perf_counter()
        with asyncio.Runner(loop_factory=lambda: asyncio.SelectorEventLoop(TimedSelector())) \
                as runner:
            results = runner.run(three_peers(hands, Path(tmp), f"bench-{os.getpid()}"))
        wall = time.perf_counter() - start
    if not all(r.outcome.finished and not r.outcome.aborted for r in results):
        raise SystemExit(f"the session did not finish: {[r.outcome.reason for r in results]}")
    spent = dict(timers.spent)
    accounted = sum(spent.values()) + TimedSelector.idle
    setup = timers.setup_ms()
    return {
        "wall_s": wall,
        "play_s": timers.play_span(),
        "events": results[0].outcome.events,
        "crypto_s": spent.get("crypto", 0.0),
        "engine_s": spent.get("engine", 0.0),
        "storage_s": spent.get("storage", 0.0),
        "waiting_s": TimedSelector.idle,
        "other_s": max(wall - accounted, 0.0),
        "setup_ms_median": statistics.median(setup),
        "setup_ms_first": setup[0],
    }


def selfplay_session(hands: int) -> dict[str, Any]:
    timers = Timers()
    with timers.installed():
        start = time.perf_counter()
        selfplay(VARIANTS["standard"], hands, b"bench-session",
                 [RandomStrategy(f"bench-{s}") for s in range(3)])
        wall = time.perf_counter() - start
    setup = timers.setup_ms()
    return {
        "wall_s": wall,
        "crypto_s": timers.spent.get("crypto", 0.0),
        "engine_s": timers.spent.get("engine", 0.0),
        "setup_ms_median": statistics.median(setup),
        "setup_ms_first": setup[0],
    }


def measure(hands: int) -> dict[str, Any]:
    tcp = tcp_session(hands)
    local = selfplay_session(hands)
    # Set-up is deck protocol v3: every shuffle and lock proved, every proof
    # checked by the two other peers before the next pass (SPEC.md 2.8).
    out: dict[str, Any] = {"hands": hands, "deck_version": deck_protocol.CURRENT_VERSION}
    out.update({f"tcp_{k}": round(v, 4) if isinstance(v, float) else v for k, v in tcp.items()})
    out.update({f"selfplay_{k}": round(v, 4) for k, v in local.items()})
    out["ratio_wall_tcp_vs_selfplay"] = round(tcp["wall_s"] / local["wall_s"], 3)
    out["ratio_setup_tcp_vs_selfplay"] = round(
        tcp["setup_ms_median"] / local["setup_ms_median"], 3)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=12)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--unproven-baseline", action="store_true",
                        help="also time the set-up of deck v1 (no proofs) over TCP, same run")
    args = parser.parse_args(argv)
    r = measure(args.hands)
    if args.unproven_baseline:
        saved = deck_protocol.CURRENT_VERSION
        deck_protocol.CURRENT_VERSION = 1
        try:
            v1 = tcp_session(args.hands)
        finally:
            deck_protocol.CURRENT_VERSION = saved
        r["tcp_setup_ms_median_unproven"] = round(v1["setup_ms_median"], 4)
        r["ratio_setup_tcp_proofs_vs_unproven"] = round(
            r["tcp_setup_ms_median"] / v1["setup_ms_median"], 3)
    if args.json:
        print(json.dumps(r))
        return 0
    print(f"{args.hands}-hand session, three peers over loopback TCP, one process "
          f"({r['tcp_events']} events)")
    print(f"  wall            {r['tcp_wall_s']:8.3f} s  (first to last event "
          f"{r['tcp_play_s']:.3f} s)")
    for part in ("crypto", "engine", "storage", "waiting", "other"):
        share = r[f"tcp_{part}_s"] / r["tcp_wall_s"]
        print(f"  {part:<15} {r[f'tcp_{part}_s']:8.3f} s  {share:6.1%}")
    print(f"selfplay, same session in one process: {r['selfplay_wall_s']:.3f} s "
          f"(crypto {r['selfplay_crypto_s']:.3f} s, engine {r['selfplay_engine_s']:.3f} s)")
    print(f"  ratio wall tcp/selfplay {r['ratio_wall_tcp_vs_selfplay']:.2f}")
    print(f"hand set-up with every proof (deck v{r['deck_version']}, first commit to playable),"
          " median over hands: "
          f"tcp {r['tcp_setup_ms_median']:.1f} ms, selfplay {r['selfplay_setup_ms_median']:.1f} ms,"
          f" ratio {r['ratio_setup_tcp_vs_selfplay']:.2f}")
    if "tcp_setup_ms_median_unproven" in r:
        print(f"  unproven deck v1 over TCP, same run: {r['tcp_setup_ms_median_unproven']:.1f} ms,"
              f" ratio proofs/unproven {r['ratio_setup_tcp_proofs_vs_unproven']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
