"""How long a peer's loop stalls while the strong bot decides: on the loop, in a thread or process.

Plays a few strong-bot hands in-process to collect decisions that need a
search (auction, ruff, card play), then makes each one again through the
peer's ``BotPlayer`` at the table budget (``--think`` ms on the clock, with
its floor of playouts and its hard cap) while a ticker beside it wakes
every 5 ms and records how late it is. ``before``: the search on the loop
with the old budget (the deadline only); then the new budget (a floor of
playouts, a hard cap) ``inline`` (on the loop), ``thread`` (``asyncio.to_thread``: the
search holds the GIL between switches), ``process`` (a spawned worker
process, the peer's default). Prints, per worker, the longest stall, the
mean decision time and the playouts per decision (goal: no stall over
50 ms), with the load average of the machine, same run.

    .venv/bin/python bench/loop_stall_bot.py [--decisions 8] [--think 300] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from dataclasses import replace
from typing import Any

from gleek_p2p.bots.heuristic import HeuristicStrategy
from gleek_p2p.bots.search import SearchStrategy, budget_for
from gleek_p2p.rules import VARIANTS, Event, SeatView
from gleek_p2p.session.peer import BotPlayer, _search_pool
from gleek_p2p.table.session import Decision
from gleek_p2p.tools.simulate import Simulation

SEED = b"loop stall bot"
TICK = 0.005


def decisions(count: int) -> list[tuple[int, SeatView, tuple[Event, ...]]]:
    """Decision points of heuristic-played hands at which the strong bot would search."""
    probe = SearchStrategy(SEED, budget_for(None, reproducible=True))
    players = [HeuristicStrategy(SEED + bytes([i])) for i in range(3)]
    sim = Simulation(VARIANTS["standard"], 6, SEED)
    out = []
    while (d := sim.decision()) is not None and len(out) < count:
        seat, view, legal = d
        assert view is not None
        if isinstance(probe._prepare(view, legal), list) and len(out) < count:
            out.append((seat, view, tuple(legal)))
        sim.act(seat, players[seat].choose(view, legal))  # type: ignore[arg-type]
    return out


async def run(worker: str, cases: list[tuple[int, SeatView, tuple[Event, ...]]],
              think: float) -> dict[str, float]:
    budget = budget_for(think, reproducible=False)
    if worker == "before":
        # The search on the loop with the budget it had: the deadline only.
        budget = replace(budget, min_playouts=0, cap_ms=None)
    bot = SearchStrategy(SEED, budget)
    player = BotPlayer(bot, worker="inline" if worker == "before" else worker)
    stalls: list[float] = []
    running = True

    async def ticker() -> None:
        while running:
            start = time.perf_counter()
            await asyncio.sleep(TICK)
            stalls.append((time.perf_counter() - start - TICK) * 1000)

    task = asyncio.create_task(ticker())
    took = []
    for seat, view, legal in cases:
        start = time.perf_counter()
        await player.decide(None, Decision(seat, legal, view))  # type: ignore[arg-type]
        took.append(time.perf_counter() - start)
        await asyncio.sleep(0.02)
    running = False
    await task
    playouts = [p for ps in bot.playouts.values() for p in ps]
    return {
        "stall_ms_max": max(stalls),
        "stall_ms_p95": sorted(stalls)[int(0.95 * (len(stalls) - 1))],
        "decision_ms_mean": statistics.mean(took) * 1000,
        "playouts_min": min(playouts),
        "playouts_median": statistics.median(playouts),
        "playouts_max": max(playouts),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=8)
    parser.add_argument("--think", type=float, default=300.0)
    parser.add_argument("--workers", default="before,inline,thread,process")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cases = decisions(args.decisions)
    # Start the worker process before measuring: a spawn costs an import of
    # the package once per peer, off the loop but not a decision's cost.
    _search_pool().submit(int).result()
    load = os.getloadavg()
    result: dict[str, Any] = {"decisions": len(cases), "think_ms": args.think,
                              "load_avg_1m": round(load[0], 2)}
    for worker in args.workers.split(","):
        got = asyncio.run(run(worker, cases, args.think))
        result.update({f"{worker}_{k}": round(v, 1) for k, v in got.items()})
    if "before_stall_ms_max" in result:
        for worker in ("inline", "thread", "process"):
            if f"{worker}_stall_ms_max" in result:
                result[f"ratio_stall_{worker}_vs_before"] = round(
                    result[f"{worker}_stall_ms_max"] / max(result["before_stall_ms_max"], 1e-9), 3)
    result["load_avg_1m_after"] = round(os.getloadavg()[0], 2)
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return
    print(f"strong bot, {len(cases)} searched decisions at --think {args.think:g} ms, "
          f"{TICK * 1000:g} ms ticker; load average {result['load_avg_1m']} -> "
          f"{result['load_avg_1m_after']}")
    for worker in args.workers.split(","):
        r = {k[len(worker) + 1:]: v for k, v in result.items() if k.startswith(worker + "_")}
        print(f"  {worker:8} longest stall {r['stall_ms_max']:7.1f} ms"
              f"  p95 {r['stall_ms_p95']:6.1f}"
              f"  decision {r['decision_ms_mean']:6.0f} ms  playouts min/median/max "
              f"{r['playouts_min']:.0f}/{r['playouts_median']:.0f}/{r['playouts_max']:.0f}")
    for worker in ("inline", "thread", "process"):
        if f"ratio_stall_{worker}_vs_before" in result:
            print(f"  ratio longest stall {worker} / before: "
                  f"{result[f'ratio_stall_{worker}_vs_before']}")


if __name__ == "__main__":
    main()
