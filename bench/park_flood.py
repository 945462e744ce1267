"""Memory a seated peer can make another hold with far- and near-future events.

Three runners play one hand in one process over an in-memory mesh. In the
flood run, seat 1 sends seat 0 ``--flood`` signed (and some forged) events
of 16 KB at three points of the hand. Printed, from the same run: the most
bytes seat 0 ever held back (``SessionRunner.peak_parked``) and its Python
heap peak (tracemalloc), without and with the flood, and the bytes an
unbounded buffer keyed by position (the design before issue 11) would have
kept.

    .venv/bin/python bench/park_flood.py [--flood 20000] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from adversary.forge import future_flood

from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.envelope import decode_envelope, verify_envelope
from gleek_p2p.log.store import LogStore
from gleek_p2p.net.messages import Event
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.peer import BotPlayer, MemoryMesh, SessionRunner
from gleek_p2p.tools.selfplay import make_seats


def unbounded_bytes(records: list[bytes], victim_head: int, roster_key: bytes) -> int:
    """What ``dict[seq, bytes]`` with no bound kept, counting signed events only."""
    held: dict[int, int] = {}
    for data in records:
        envelope = decode_envelope(data)
        try:
            verify_envelope(envelope, roster_key)
        except Exception:  # the old buffer kept forged ones too; count the signed only
            continue
        if envelope.seq > victim_head:
            held[envelope.seq] = len(data)
    return sum(held.values())


async def session(flood: int, tmp: Path) -> dict[str, Any]:
    tables = make_seats(VARIANTS["standard"], 1, b"park-flood")
    meshes = MemoryMesh.create(3)
    runners = [SessionRunner(t, LogStore.open(tmp / f"{flood}-{s}.gleeklog"), m,
                             BotPlayer(RandomStrategy(s)), timeout=60)
               for s, (t, m) in enumerate(zip(tables, meshes, strict=True))]
    victim = runners[0]
    tracemalloc.start()
    tasks = [asyncio.create_task(r.run()) for r in runners]
    would_hold = 0
    for mark in (10, 40, 70):
        while len(victim.table.envelopes) < mark and not victim.table.finished:
            await asyncio.sleep(0.001)
        if flood:
            # Made and sent in batches, so the heap measures the victim, not the flood.
            head = len(victim.table.envelopes)
            for start in range(0, flood // 3, 100):
                if tasks[0].done():
                    break
                records = future_flood(victim.table, tables[1], 100, first=start)
                would_hold += unbounded_bytes(records, head, tables[0].roster.publics[1])
                for data in records:
                    meshes[0]._queue.put_nowait((1, Event(data)))
                del records
                while meshes[0]._queue.qsize() > 50 and not tasks[0].done():
                    await asyncio.sleep(0)
    outcomes = await asyncio.gather(*tasks)
    _, heap_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    for runner in runners:
        runner.store.close()
    return {
        "finished": all(o.finished for o in outcomes),
        "peak_parked_bytes": victim.peak_parked,
        "heap_peak_mb": round(heap_peak / 2**20, 2),
        "unbounded_would_hold_bytes": would_hold,
        "dropped": dict(victim.dropped),
        "outcome": outcomes[0].reason,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flood", type=int, default=20_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = asyncio.run(session(0, Path(tmp)))
        flooded = asyncio.run(session(args.flood, Path(tmp)))
    result = {"baseline": base, "flood": flooded, "flood_events": args.flood,
              "heap_ratio": round(flooded["heap_peak_mb"] / max(base["heap_peak_mb"], 0.01), 2)}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"flood of {args.flood} events of 16 KB from a seated peer, one hand")
    print(f"  held back, peak:   baseline {base['peak_parked_bytes']:>10} B   "
          f"flood {flooded['peak_parked_bytes']:>10} B")
    print(f"  unbounded buffer would have held {flooded['unbounded_would_hold_bytes']} B")
    print(f"  Python heap peak:  baseline {base['heap_peak_mb']} MiB   "
          f"flood {flooded['heap_peak_mb']} MiB   (x{result['heap_ratio']})")
    print(f"  baseline: {base['outcome']}; flood: {flooded['outcome']}")
    print(f"  dropped: {flooded['dropped']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
