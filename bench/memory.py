"""Benchmark peak memory per peer over a 12-hand session.

Three bot peers run as separate processes over loopback TCP (each a full
``play_session``), so each one's ``ru_maxrss`` is its own. Each traces its
Python allocations with tracemalloc from just before the session starts.
The baseline is a process that imports the same modules and plays nothing,
measured in the same run.

    .venv/bin/python bench/memory.py [--hands 12] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.keys import Identity
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby import LobbyConfig
from gleek_p2p.session.peer import BotPlayer
from gleek_p2p.session.play import play_session

NAMES = ("anne", "thomas", "mary")


def rss_mb() -> float:
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def peer(index: int, ports: list[int], hands: int, table: str, data_dir: Path) -> dict[str, Any]:
    """Run one peer to the end of the session; its memory figures."""
    config = LobbyConfig(name=NAMES[index], table=f"{table}/{hands}",
                         variant=VARIANTS["standard"], listen=("127.0.0.1", ports[index]),
                         peers=tuple(("127.0.0.1", p) for p in ports[:index]),
                         dial_interval=0.2)
    start_rss = rss_mb()
    tracemalloc.start()
    result = asyncio.run(play_session(
        identity=Identity.generate(bytes([index + 1]) * 32), config=config, hands=hands,
        data_dir=data_dir, player=BotPlayer(RandomStrategy(f"mem-{index}")), timeout=120.0,
    ))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "seat": result.table.seat,
        "finished": result.outcome.finished,
        "events": result.outcome.events,
        "tracemalloc_peak_mb": round(peak / 2**20, 2),
        "maxrss_mb": round(rss_mb(), 1),
        "rss_before_session_mb": round(start_rss, 1),
    }


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in socks]
    finally:
        for sock in socks:
            sock.close()


def measure(hands: int) -> dict[str, Any]:
    me = [sys.executable, str(Path(__file__).resolve())]
    baseline = json.loads(subprocess.run([*me, "--baseline"], check=True, capture_output=True,
                                         text=True, timeout=60).stdout)
    ports = free_ports(len(NAMES))
    table = f"mem-{os.getpid()}"
    with tempfile.TemporaryDirectory() as tmp:
        procs = [
            subprocess.Popen([*me, "--peer", str(i), "--ports", ",".join(map(str, ports)),
                              "--hands", str(hands), "--table", table,
                              "--data-dir", str(Path(tmp) / NAMES[i])],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for i in range(len(NAMES))
        ]
        peers = []
        for proc in procs:
            try:
                out, err = proc.communicate(timeout=300)
            except subprocess.TimeoutExpired:
                for other in procs:
                    other.kill()
                raise SystemExit("the session did not end within 300 s (a hang)") from None
            if proc.returncode != 0:
                raise SystemExit(f"a peer failed:\n{err[-2000:]}")
            peers.append(json.loads(out))
    if not all(p["finished"] for p in peers):
        raise SystemExit(f"the session did not finish: {peers}")
    worst_rss = max(p["maxrss_mb"] for p in peers)
    return {
        "hands": hands,
        "peers": peers,
        "peak_tracemalloc_mb": max(p["tracemalloc_peak_mb"] for p in peers),
        "peak_maxrss_mb": worst_rss,
        "baseline_maxrss_mb": baseline["maxrss_mb"],
        "ratio_maxrss_vs_baseline": round(worst_rss / baseline["maxrss_mb"], 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=12)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--baseline", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--peer", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--ports", help=argparse.SUPPRESS)
    parser.add_argument("--table", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.baseline:
        print(json.dumps({"maxrss_mb": round(rss_mb(), 1)}))
        return 0
    if args.peer is not None:
        ports = [int(p) for p in args.ports.split(",")]
        print(json.dumps(peer(args.peer, ports, args.hands, args.table, Path(args.data_dir))))
        return 0
    r = measure(args.hands)
    if args.json:
        print(json.dumps(r))
        return 0
    print(f"peak memory per peer, {args.hands}-hand session over loopback TCP "
          f"(separate processes)")
    for p in r["peers"]:
        print(f"  seat {p['seat']}: tracemalloc peak {p['tracemalloc_peak_mb']:6.2f} MiB, "
              f"ru_maxrss {p['maxrss_mb']:6.1f} MiB ({p['events']} events)")
    print(f"baseline (same imports, no session): ru_maxrss {r['baseline_maxrss_mb']:.1f} MiB; "
          f"worst peer / baseline {r['ratio_maxrss_vs_baseline']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
