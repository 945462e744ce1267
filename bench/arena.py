"""Arena throughput: hands per second on 2 local processes against 1, in the same run.

    .venv/bin/python bench/arena.py [--hands 120] [--think 5] [--json]

Wall time, since the point of processes is wall time; on a machine shared
with other work the ratio says how much of a second core was free.
"""

from __future__ import annotations

import argparse
import json
import time

from gleek_p2p.tools.arena import run_games

BOTS = ["strong", "heuristic", "random"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=120)
    parser.add_argument("--think", type=float, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    took = {}
    results = {}
    for procs in (1, 2):
        start = time.perf_counter()
        results[procs] = run_games(BOTS, "standard", args.hands, "bench", args.think, procs)
        took[procs] = time.perf_counter() - start
    if results[1] != results[2]:
        raise SystemExit("2 processes gave another result than 1")
    hands = len(results[1].games)
    out = {
        "baseline_1_proc_hands_per_s": round(hands / took[1], 2),
        "procs_2_hands_per_s": round(hands / took[2], 2),
        "ratio_2_vs_1": round(took[1] / took[2], 2),
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"baseline: 1 process  {out['baseline_1_proc_hands_per_s']:8.2f} hands/s")
        print(f"2 processes          {out['procs_2_hands_per_s']:8.2f} hands/s")
        print(f"ratio 2 / 1          {out['ratio_2_vs_1']:8.2f}")


if __name__ == "__main__":
    main()
