"""Benchmark the rules engine through ``gleek simulate``, against baselines from the same run.

Measures hands per second of the full simulation with random bots (every
decision builds the seat's ``SeatView``), then, on the same deals:
the bare engine (``legal_actions`` + ``apply`` only, no views), the
playout hand (``rules.playout.FastHand``, what search plays) on the same
deals and the same random moves as the bare engine, and the
cost of one ``seat_view`` and one ``legal_actions`` call. Prints the
ratios, so the numbers compare across machines (the engine and the playout
hand are timed in turn, five times each, least CPU time of each: a shared
machine's load hits both alike). ``--profile`` adds the top functions by own
time under cProfile, ``--profile-playouts`` those of the playout hand.

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
from gleek_p2p.rules import VARIANTS, Deal, Phase, State, apply, legal_actions, seat_view, to_act
from gleek_p2p.rules.engine import apply_reveals
from gleek_p2p.rules.playout import FastHand, random_playout
from gleek_p2p.rules.simulate import random_deal_reveals
from gleek_p2p.tools.simulate import Simulation, simulate

SEED = b"bench"
STANDARD = VARIANTS["standard"]


def best_of(runs: int, fn: Callable[[], Any]) -> float:
    """Least CPU time of ``runs`` calls: on a shared machine, wall time counts the others."""
    times = []
    for _ in range(runs):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def paired(runs: int, a: Callable[[], Any], b: Callable[[], Any]) -> tuple[float, float]:
    """``best_of`` for two functions run in turn: a load that comes and goes hits both alike."""
    ta, tb = [], []
    for _ in range(runs):
        t = time.process_time()
        a()
        ta.append(time.process_time() - t)
        t = time.process_time()
        b()
        tb.append(time.process_time() - t)
    return min(ta), min(tb)


def full(hands: int, bots: str) -> None:
    simulate(STANDARD, hands, SEED, make_strategies(bots, 3, SEED))


def bare(hands: int) -> None:
    """The same session loop with no views: legal_actions, a random pick, apply."""
    rng = random.Random(SEED)
    sim = Simulation(STANDARD, hands, SEED, with_views=False)
    while (d := sim.decision()) is not None:
        seat, _view, legal = d
        sim.act(seat, legal[rng.randrange(len(legal))])


def dealt_hands(hands: int) -> list[State]:
    """Freshly dealt hands (every card known), one per session hand."""
    rng = random.Random(SEED)
    sim = Simulation(STANDARD, 1, SEED, with_views=False)
    s0 = sim.state
    return [
        apply_reveals(apply(s0, Deal()), random_deal_reveals(STANDARD, rng)) for _ in range(hands)
    ]


def engine_hands(deals: list[State]) -> list[tuple[int, ...]]:
    """Each deal played to its end by the engine, random moves; each hand's net."""
    out = []
    pick = random.Random(SEED).random
    for s in deals:
        while (seat := to_act(s)) is not None:
            legal = legal_actions(s, seat)
            s = apply(s, legal[int(pick() * len(legal))])
        out.append(s.ledgers[-1].net)
    return out


def fast_hands(deals: list[State]) -> list[tuple[int, ...]]:
    """The same games on the playout hand."""
    pick = random.Random(SEED).random  # the same picks in the same order: the same games
    return [random_playout(FastHand.from_state(s), pick).net for s in deals]


def at_first_trick(deals: list[State]) -> list[State]:
    """Each deal played by the engine up to its first trick (what card-play search starts from)."""
    out = []
    pick = random.Random(SEED + b"tricks").random
    for s in deals:
        while (seat := to_act(s)) is not None and s.phase is not Phase.TRICKS:
            legal = legal_actions(s, seat)
            s = apply(s, legal[int(pick() * len(legal))])
        if seat is not None:
            out.append(s)
    return out


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
    deals = dealt_hands(hands)
    if engine_hands(deals) != fast_hands(deals):
        raise SystemExit("the playout hand and the engine disagree on the same games")
    engine_s, fast_s = paired(5, lambda: engine_hands(deals), lambda: fast_hands(deals))
    tricks = at_first_trick(deals)
    engine_t, fast_t = paired(5, lambda: engine_hands(tricks), lambda: fast_hands(tricks))
    states = sample_states(max(20, hands // 10))
    view_s = best_of(3, lambda: [seat_view(s, seat) for s, seat in states]) / len(states)
    legal_s = best_of(3, lambda: [legal_actions(s, seat) for s, seat in states]) / len(states)
    return {
        "hands_per_s": hands / random_s,
        "heuristic_hands_per_s": hands / heuristic_s,
        "baseline_bare_engine_hands_per_s": hands / bare_s,
        "ratio_vs_bare_engine": bare_s / random_s,
        "engine_hands_per_s": hands / engine_s,
        "fast_hands_per_s": hands / fast_s,
        "ratio_fast_vs_engine": engine_s / fast_s,
        "engine_trick_phases_per_s": len(tricks) / engine_t,
        "fast_trick_phases_per_s": len(tricks) / fast_t,
        "ratio_fast_vs_engine_tricks": engine_t / fast_t,
        "seat_view_us": view_s * 1e6,
        "legal_actions_us": legal_s * 1e6,
        "ratio_seat_view_vs_legal_actions": view_s / legal_s,
    }


def profile(hands: int, playouts: bool = False) -> str:
    deals = dealt_hands(hands) if playouts else []
    profiler = cProfile.Profile()
    profiler.enable()
    if playouts:
        fast_hands(deals)
    else:
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
    parser.add_argument("--profile-playouts", action="store_true")
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
        print(f"baseline: engine, one hand {r['engine_hands_per_s']:9.0f} hands/s"
              "  (dealt hands played out, random moves)")
        print(f"playout hand, same games   {r['fast_hands_per_s']:9.0f} hands/s")
        print(f"ratio playout / engine     {r['ratio_fast_vs_engine']:9.2f}")
        print(f"baseline: engine, tricks   {r['engine_trick_phases_per_s']:9.0f} trick phases/s"
              "  (from the first trick, random cards)")
        print(f"playout hand, same tricks  {r['fast_trick_phases_per_s']:9.0f} trick phases/s")
        print(f"ratio playout / engine     {r['ratio_fast_vs_engine_tricks']:9.2f}  (tricks only)")
        print(f"one seat_view              {r['seat_view_us']:9.1f} us")
        print(f"one legal_actions          {r['legal_actions_us']:9.1f} us")
        print(f"ratio seat_view / legal    {r['ratio_seat_view_vs_legal_actions']:9.1f}")
    if args.profile:
        print(profile(args.hands))
    if args.profile_playouts:
        print(profile(args.hands, playouts=True))


if __name__ == "__main__":
    main()
