"""Decision time of the strong bot per phase, at its default budget (``--think``).

Plays ``--hands`` hands of strong bots against each other in one process
(no crypto) and prints, per phase, the number of decisions and the median
and 95th percentile of the time each took. Decisions with one legal move
are counted too (they cost nothing).

    .venv/bin/python bench/bots.py [--hands 4] [--think 300] [--json]
"""

from __future__ import annotations

import argparse
import json

from gleek_p2p.bots.registry import make_strategy
from gleek_p2p.bots.search import SearchStrategy
from gleek_p2p.rules import VARIANTS
from gleek_p2p.tools.simulate import simulate


def percentile(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(q * len(ys)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--think", type=float, default=None)
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    bots = [make_strategy("strong", args.seed.encode(), i, args.think) for i in range(3)]
    simulate(VARIANTS["standard"], args.hands, args.seed.encode(), bots)
    times: dict[str, list[float]] = {}
    for bot in bots:
        assert isinstance(bot, SearchStrategy)
        for phase, ts in bot.times.items():
            times.setdefault(phase, []).extend(ts)
    out = {
        phase: {
            "decisions": len(ts),
            "median_ms": round(percentile(ts, 0.5) * 1000, 2),
            "p95_ms": round(percentile(ts, 0.95) * 1000, 2),
        }
        for phase, ts in times.items()
    }
    if args.json:
        print(json.dumps(out))
        return
    print(f"{'phase':<10} {'decisions':>9} {'median ms':>10} {'p95 ms':>9}")
    for phase, r in out.items():
        print(f"{phase:<10} {r['decisions']:>9} {r['median_ms']:>10.1f} {r['p95_ms']:>9.1f}")


if __name__ == "__main__":
    main()
