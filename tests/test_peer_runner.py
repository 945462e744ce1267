"""The asyncio shell over an in-memory mesh: relay, catch-up, timeouts, restarts."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.store import LogStore
from gleek_p2p.net.messages import Bye, ByeCode
from gleek_p2p.peer import BotPlayer, LinkUp, MemoryMesh, SessionRunner
from gleek_p2p.rules import VARIANTS, Event
from gleek_p2p.selfplay import make_seats
from gleek_p2p.table.session import Decision, Table
from gleek_p2p.table.verify import verify_records

STANDARD = VARIANTS["standard"]


class Sleeper:
    """A player who never answers (a stalled peer)."""

    async def decide(self, table: Table, decision: Decision) -> Event:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    def update(self, table: Table, applied: Sequence[Event], note: str | None) -> None:
        pass


def runners(
    tmp_path: Path, seed: bytes, *, hands: int = 1, timeout: float = 30.0, players: object = None
) -> tuple[list[SessionRunner], list[LogStore], list[MemoryMesh]]:
    tables = make_seats(STANDARD, hands, seed)
    meshes = MemoryMesh.create(3)
    stores = [LogStore.open(tmp_path / f"seat{s}.gleeklog") for s in range(3)]
    chosen = players or [BotPlayer(RandomStrategy(s)) for s in range(3)]
    out = [
        SessionRunner(t, st, m, p, timeout=timeout)
        for t, st, m, p in zip(tables, stores, meshes, chosen, strict=True)  # type: ignore[call-overload]
    ]
    return out, stores, meshes


async def test_three_runners_play_and_agree(tmp_path: Path) -> None:
    run, stores, _ = runners(tmp_path, b"mesh")
    outcomes = await asyncio.wait_for(asyncio.gather(*(r.run() for r in run)), 60)
    assert all(o.finished and not o.aborted for o in outcomes)
    assert stores[0].records == stores[1].records == stores[2].records
    assert verify_records(stores[0].records).fair


async def test_a_broken_link_heals_through_the_third_seat(tmp_path: Path) -> None:
    run, stores, meshes = runners(tmp_path, b"relay")
    meshes[0].down.add(1)
    meshes[1].down.add(0)
    outcomes = await asyncio.wait_for(asyncio.gather(*(r.run() for r in run)), 60)
    assert all(o.finished for o in outcomes)
    assert stores[0].records == stores[1].records == stores[2].records


async def test_a_stalled_seat_is_blamed_in_a_signed_abort(tmp_path: Path) -> None:
    players = [BotPlayer(RandomStrategy(0)), Sleeper(), BotPlayer(RandomStrategy(2))]
    run, stores, _ = runners(tmp_path, b"stall", timeout=0.5, players=players)
    tasks = [asyncio.create_task(r.run()) for r in run]
    done = await asyncio.wait_for(asyncio.gather(tasks[0], tasks[2]), 60)
    tasks[1].cancel()
    assert all(o.aborted for o in done)
    assert run[0].table.verdict is not None and run[0].table.verdict.blamed == 1
    report = verify_records(stores[0].records)
    assert report.exit_code == 1
    assert report.violations[-1].seat == 1 and not report.violations[-1].proven


async def test_a_restarted_seat_reloads_its_log_and_catches_up(tmp_path: Path) -> None:
    run, stores, meshes = runners(tmp_path, b"restart", hands=2)
    tasks = [asyncio.create_task(r.run()) for r in run]
    # Let the session get going, then kill seat 2 mid-hand.
    while len(run[2].table.envelopes) < 60:
        await asyncio.sleep(0.001)
    meshes[2].down.update({0, 1})
    while not tasks[2].done():  # asyncio.wait_for in 3.11 can swallow one cancel
        tasks[2].cancel()
        await asyncio.sleep(0.01)
    stores[2].close()
    await asyncio.sleep(0.05)
    # Restart: a new table from the same secret, reloaded from the same file.
    old = run[2].table
    table = Table(old.roster, old.seat, old._identity, old._secret)
    store = LogStore.open(tmp_path / "seat2.gleeklog")
    kept = len(store.records)
    assert kept >= 60
    SessionRunner.resume_records(table, store.records)
    meshes[2].down.clear()
    restarted = SessionRunner(table, store, meshes[2], BotPlayer(RandomStrategy(22)),
                              timeout=30)
    for seat in (0, 1):  # the others see the link come back, as a real mesh reports it
        meshes[seat]._queue.put_nowait((2, LinkUp()))
    outcomes = await asyncio.wait_for(
        asyncio.gather(tasks[0], tasks[1], restarted.run()), 60)
    assert all(o.finished for o in outcomes)
    assert store.records == stores[0].records == stores[1].records
    assert verify_records(store.records).fair


async def test_a_player_who_leaves_is_blamed_at_once(tmp_path: Path) -> None:
    players = [BotPlayer(RandomStrategy(0)), Sleeper(), BotPlayer(RandomStrategy(2))]
    run, _, meshes = runners(tmp_path, b"leave", timeout=3600, players=players)
    tasks = [asyncio.create_task(r.run()) for r in run]
    while len(run[0].table.envelopes) < 15:
        await asyncio.sleep(0.001)
    # Seat 1 quits on purpose: its lobby sends a Bye coded LEFT_THE_TABLE.
    left = Bye(f"{run[1].table.roster.names[1]} left the table", ByeCode.LEFT_THE_TABLE)
    for seat in (0, 2):
        meshes[seat]._queue.put_nowait((1, left))
    done = await asyncio.wait_for(asyncio.gather(tasks[0], tasks[2]), 10)  # not the timeout
    tasks[1].cancel()
    assert all(o.aborted and "left the table" in o.reason for o in done)
    assert run[0].table.verdict is not None and run[0].table.verdict.blamed == 1
