"""Benchmark the rules engine through ``gleek simulate``, against baselines from the same run.

Measures hands per second of the full simulation with random bots (every
decision builds the seat's ``SeatView``), then, on the same deals:
the bare engine (``legal_actions`` + ``apply`` only, no views), and the
cost of one ``seat_view`` and one ``legal_actions`` call. Prints the
ratios, so the numbers compare across machines. ``--profile`` adds the top
functions by own time under cProfile.

    .venv/bin/python bench/engine.py [--hands 300] [--json] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import time
from collections.abc import Callable
from typing import Any

from gleek_p2p.bots.registry import make_strategies
from gleek_p2p.rules import VARIANTS, legal_actions, seat_view
from gleek_p2p.simulate import Simulation, simulate

SEED = b"bench"
STANDARD = VARIANTS["standard"]


def best_of(runs: int, fn: Callable[[], Any]) -> float:
    """Fastest wall time of ``runs`` calls (the least disturbed by the machine)."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def full(hands: int, bots: str) -> None:
    simulate(STANDARD, hands, SEED, make_strategies(bots, 3, SEED))


def bare(hands: int) -> None:
    """The same session loop with no views: legal_actions, a random pick, apply."""
    rng = random.Random(SEED)
    sim = Simulation(STANDARD, hands, SEED, with_views=False)
    while (d := sim.decision()) is not None:
        seat, _view, legal = d
        sim.act(seat, legal[rng.randrange(len(legal))])


def sample_states(hands: int) -> list[tuple[Any, int]]:
    """Every decision point of a random session, to time single calls on."""
    rng = random.Random(SEED)
    sim = Simulation(STANDARD, hands, SEED, with_views=False)
    out = []
    while (d := sim.decision()) is not None:
        seat, _view, legal = d
        out.append((sim.state, seat))
        sim.act(seat, legal[rng.randrange(len(legal))])
    return out


def measure(hands: int) -> dict[str, float]:
    random_s = best_of(3, lambda: full(hands, "random"))
    heuristic_s = best_of(3, lambda: full(hands, "heuristic"))
    bare_s = best_of(3, lambda: bare(hands))
    states = sample_states(max(20, hands // 10))
    view_s = best_of(3, lambda: [seat_view(s, seat) for s, seat in states]) / len(states)
    legal_s = best_of(3, lambda: [legal_actions(s, seat) for s, seat in states]) / len(states)
    return {
        "hands_per_s": hands / random_s,
        "heuristic_hands_per_s": hands / heuristic_s,
        "baseline_bare_engine_hands_per_s": hands / bare_s,
        "ratio_vs_bare_engine": bare_s / random_s,
        "seat_view_us": view_s * 1e6,
        "legal_actions_us": legal_s * 1e6,
        "ratio_seat_view_vs_legal_actions": view_s / legal_s,
    }


def profile(hands: int) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    full(hands, "random")
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    r = measure(args.hands)
    if args.json:
        print(json.dumps({k: round(v, 3) for k, v in r.items()}))
    else:
        print(f"simulate, random bots      {r['hands_per_s']:9.0f} hands/s")
        print(f"simulate, heuristic bots   {r['heuristic_hands_per_s']:9.0f} hands/s")
        print(
            f"baseline: bare engine      {r['baseline_bare_engine_hands_per_s']:9.0f} hands/s"
            "  (legal_actions + apply, no views)"
        )
        print(f"ratio bare / simulate      {r['ratio_vs_bare_engine']:9.2f}")
        print(f"one seat_view              {r['seat_view_us']:9.1f} us")
        print(f"one legal_actions          {r['legal_actions_us']:9.1f} us")
        print(f"ratio seat_view / legal    {r['ratio_seat_view_vs_legal_actions']:9.1f}")
    if args.profile:
        print(profile(args.hands))


if __name__ == "__main__":
    main()
