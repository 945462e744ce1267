"""Benchmark ``gleek verify``: events per second, and verifying against playing.

Plays a 12-hand session with ``selfplay`` (three real tables: signatures,
deck protocol and audits, all in one process), then verifies its log with
``verify_records`` (an observer table replaying and auditing every hand).
The baseline is the selfplay of the same session measured in the same run,
so the ratio says what an audit costs next to playing the game. ``gleek
replay``'s ``Replay.load`` (verify, then build every step) is measured against
``verify_records`` in the same run: the replay checks the log once, so its
ratio stays near 1.

    .venv/bin/python bench/verify.py [--hands 12] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import selfplay
from gleek_p2p.ui.replay import Replay


def measure(hands: int, repeat: int, seed: bytes = b"bench-verify") -> dict[str, Any]:
    """Best of ``repeat`` runs for both selfplay and verify of one session."""
    play_s = verify_s = replay_s = float("inf")
    records: list[bytes] = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = selfplay(VARIANTS["standard"], hands, seed,
                          [RandomStrategy(f"{seed!r}-{s}") for s in range(3)])
        play_s = min(play_s, time.perf_counter() - start)
        records = result.records
        start = time.perf_counter()
        report = verify_records(records)
        verify_s = min(verify_s, time.perf_counter() - start)
        start = time.perf_counter()
        Replay.load(records)
        replay_s = min(replay_s, time.perf_counter() - start)
        if not (report.fair and report.complete):  # fair alone may be a session cut by a leave
            raise SystemExit(f"the benchmark session does not verify: {report.judgement.value}, "
                             f"{report.violations}")
    return {
        "hands": hands,
        "events": len(records),
        "events_per_s": round(len(records) / verify_s, 1),
        f"verify_s_{hands}_hands": round(verify_s, 4),
        f"selfplay_s_{hands}_hands": round(play_s, 4),
        "ratio_verify_vs_selfplay": round(verify_s / play_s, 3),
        f"replay_load_s_{hands}_hands": round(replay_s, 4),
        "ratio_replay_load_vs_verify": round(replay_s / verify_s, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.hands, args.repeat)
    if args.json:
        print(json.dumps(result))
        return 0
    hands = args.hands
    print(f"session: {hands} hands, {result['events']} events (best of {args.repeat})")
    print(f"verify:   {result[f'verify_s_{hands}_hands']:.3f} s "
          f"({result['events_per_s']:.0f} events/s)")
    print(f"selfplay: {result[f'selfplay_s_{hands}_hands']:.3f} s (baseline, same run)")
    print(f"ratio verify/selfplay: {result['ratio_verify_vs_selfplay']:.3f}")
    print(f"replay load: {result[f'replay_load_s_{hands}_hands']:.3f} s; "
          f"ratio replay load/verify: {result['ratio_replay_load_vs_verify']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
