"""The strong bot's search off the peer's loop, and its budget on a loaded machine."""

from __future__ import annotations

import asyncio
import time

import pytest

from gleek_p2p.bots.heuristic import HeuristicStrategy
from gleek_p2p.bots.search import Budget, SearchStrategy, budget_for
from gleek_p2p.bots.strategy import Work
from gleek_p2p.rules import VARIANTS, Event, SeatView
from gleek_p2p.session.peer import BotPlayer
from gleek_p2p.table.session import Decision
from gleek_p2p.tools.simulate import Simulation


def searched(count: int, seed: bytes = b"offload") -> list[tuple[int, SeatView, tuple[Event, ...]]]:
    """Up to ``count`` decisions of each phase, in heuristic-played hands, at which the
    strong bot searches."""
    probe = SearchStrategy(seed, Budget(playouts=8, min_samples=1))
    bots = [HeuristicStrategy(seed + bytes([i])) for i in range(3)]
    sim = Simulation(VARIANTS["standard"], 2, seed)
    out = []
    per_phase: dict[str, int] = {}
    while (d := sim.decision()) is not None:
        seat, view, legal = d
        assert view is not None
        if per_phase.get(view.phase, 0) < count and isinstance(probe.offload(view, legal), Work):
            per_phase[view.phase] = per_phase.get(view.phase, 0) + 1
            out.append((seat, view, tuple(legal)))
        sim.act(seat, bots[seat].choose(view, legal))
    return out


def test_offloaded_work_makes_the_move_choose_makes() -> None:
    """The work (run here, as a worker would) and ``choose`` agree, bids included."""
    cases = searched(4)
    assert any(view.phase == "auction" for _s, view, _l in cases)
    assert any(view.phase == "tricks" for _s, view, _l in cases)
    for _seat, view, legal in cases:
        budget = Budget(playouts=40, min_samples=2)
        work = SearchStrategy(b"same", budget).offload(view, legal)
        assert isinstance(work, Work)
        assert work.finish(work.run(*work.args)) == SearchStrategy(b"same", budget).choose(
            view, legal)


@pytest.mark.parametrize("worker", ["process", "thread", "inline"])
def test_the_loop_keeps_ticking_while_the_strong_bot_decides(worker: str) -> None:
    """A ticker beside the bot ticks during a search in a worker, never during one on the loop."""
    seat, view, legal = next(c for c in searched(1) if c[1].phase == "tricks")
    bot = SearchStrategy(b"tick", Budget(playouts=600, min_samples=2))
    expected = SearchStrategy(b"tick", Budget(playouts=600, min_samples=2)).choose(view, legal)

    async def run() -> tuple[Event, int]:
        player = BotPlayer(bot, worker=worker)
        ticks = 0
        decided = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not decided.is_set():
                await asyncio.sleep(0.002)
                ticks += 1

        await asyncio.sleep(0)
        task = asyncio.create_task(ticker())
        await asyncio.sleep(0)  # the ticker is asleep, waiting for its first tick
        ticks = 0
        move = await player.decide(None, Decision(seat, legal, view))  # type: ignore[arg-type]
        during = ticks
        decided.set()
        await task
        return move, during

    move, during = asyncio.run(run())
    assert move == expected
    if worker == "inline":
        assert during == 0  # the search never yields: the loop stood still
    else:
        assert during >= 3


def test_a_slow_clock_slows_the_decision_not_its_strength() -> None:
    """Past the think deadline the search still makes its floor of playouts, up to the cap."""
    _seat, view, legal = next(c for c in searched(1) if c[1].phase == "tricks")
    now = [0.0]

    def clock() -> float:
        now[0] += 0.1  # a very busy machine: every sample takes 100 ms
        return now[0]

    floor = SearchStrategy(b"f", Budget(playouts=10**9, think_ms=1, clock=clock, min_samples=1,
                                        min_playouts=60, cap_ms=None))
    floor.choose(view, legal)
    made = floor.playouts["tricks"]
    assert made and 60 <= made[0] < 60 + len(legal) + 1
    capped = SearchStrategy(b"f", Budget(playouts=10**9, think_ms=1, clock=clock, min_samples=1,
                                         min_playouts=10**6, cap_ms=450))
    capped.choose(view, legal)
    assert capped.playouts["tricks"][0] <= 5 * len(legal)


def test_the_table_budget_has_a_floor_and_a_cap() -> None:
    b = budget_for(300, reproducible=False)
    assert b.clock is time.perf_counter
    assert b.min_playouts == budget_for(300, reproducible=True).playouts
    assert b.cap_ms is not None and b.cap_ms > b.think_ms  # type: ignore[operator]
