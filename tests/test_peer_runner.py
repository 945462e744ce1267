"""The asyncio shell over an in-memory mesh: relay, catch-up, timeouts, restarts."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest
from adversary.forge import future_flood

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.store import LogStore, read_log_file
from gleek_p2p.net.messages import Bye, ByeCode
from gleek_p2p.net.messages import Event as Event_
from gleek_p2p.rules import VARIANTS, Event
from gleek_p2p.session.peer import BotPlayer, LinkUp, MemoryMesh, SessionRunner
from gleek_p2p.table.session import Decision, Table
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import make_seats

STANDARD = VARIANTS["standard"]


class Sleeper:
    """A player who never answers (a stalled peer)."""

    async def decide(self, table: Table, decision: Decision) -> Event:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    def update(self, table: Table, applied: Sequence[Event], note: str | None) -> None:
        pass


def runners(
    tmp_path: Path, seed: bytes, *, hands: int = 1, timeout: float = 30.0, players: object = None,
    linger_grace: float = 5.0,
) -> tuple[list[SessionRunner], list[LogStore], list[MemoryMesh]]:
    tables = make_seats(STANDARD, hands, seed)
    meshes = MemoryMesh.create(3)
    stores = [LogStore.open(tmp_path / f"seat{s}.gleeklog") for s in range(3)]
    chosen = players or [BotPlayer(RandomStrategy(s)) for s in range(3)]
    out = [
        SessionRunner(t, st, m, p, timeout=timeout, linger_grace=linger_grace)
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
    # At the end seats 0 and 1 each wait linger_grace for the other, which they
    # cannot reach; what they hold reaches it through seat 2 meanwhile.
    run, stores, meshes = runners(tmp_path, b"relay", linger_grace=0.5)
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
    # The abort's code says what ended it, so every screen words it in its language.
    assert run[0].table.verdict.cause == "timeout" and run[0].table.verdict.fits
    assert all("bot-1 did not send their next event in time" in o.reason for o in done)
    report = verify_records(stores[0].records)
    # A timeout is the signer's claim: the session stopped, nobody is proven guilty.
    assert report.exit_code == 3 and report.violations == []
    assert report.claims[-1].seat == 1 and report.claims[-1].signer in (0, 2)


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


async def test_a_leave_without_its_event_ends_the_session_blaming_nobody(
        tmp_path: Path) -> None:
    players = [BotPlayer(RandomStrategy(0)), Sleeper(), BotPlayer(RandomStrategy(2))]
    run, stores, meshes = runners(tmp_path, b"leave", timeout=3600, players=players)
    for r in run:
        r.leave_grace = 0.3
    tasks = [asyncio.create_task(r.run()) for r in run]
    while len(run[0].table.envelopes) < 15:
        await asyncio.sleep(0.001)
    # Seat 1's signed Leave arrives (the lobby turns it into this Bye) but its
    # leave event never does (an older peer, a lost link): a claim, no blame.
    left = Bye(f"{run[1].table.roster.names[1]} left the table", ByeCode.LEFT_THE_TABLE)
    for seat in (0, 2):
        meshes[seat]._queue.put_nowait((1, left))
    done = await asyncio.wait_for(asyncio.gather(tasks[0], tasks[2]), 10)  # not the timeout
    tasks[1].cancel()
    assert all(o.aborted and "left the table" in o.reason for o in done)
    assert run[0].table.verdict is not None and run[0].table.verdict.blamed is None
    assert run[0].table.verdict.cause == "leave-unlogged" and run[0].table.verdict.about == 1
    report = verify_records(stores[0].records)
    assert report.exit_code == 3 and report.violations == [] and report.claims[0].seat is None


class Faulty(BotPlayer):
    """A bot whose update hook has a bug: a KeyError once the log is long enough."""

    def update(self, table: Table, applied: Sequence[Event], note: str | None) -> None:
        if applied and len(table.envelopes) >= 25:
            raise KeyError("a bug in the player")
        super().update(table, applied, note)


async def test_an_internal_error_ends_the_session_blaming_nobody(tmp_path: Path) -> None:
    players = [BotPlayer(RandomStrategy(0)), Faulty(RandomStrategy(1)),
               BotPlayer(RandomStrategy(2))]
    # A timeout the test would never outlive: the others must end because of
    # the abort, not because seat 1 went silent.
    run, stores, _ = runners(tmp_path, b"bug", timeout=3600, players=players)
    run[1].failure_log = tmp_path / "gleek.log"
    outcomes = await asyncio.wait_for(asyncio.gather(*(r.run() for r in run)), 30)
    assert isinstance(run[1].failure, KeyError)
    assert "KeyError" in (tmp_path / "gleek.log").read_text()
    assert "failed" in outcomes[1].reason and "Traceback" not in outcomes[1].reason
    for runner, outcome in zip(run, outcomes, strict=True):
        verdict = runner.table.verdict
        assert outcome.aborted and verdict is not None
        assert verdict.blamed is None
        # Its own failure, or (a seat that had gone on) the code of a failure elsewhere.
        assert verdict.cause in ("local-failure", "peer-failed") and verdict.fits
    assert run[1].table.verdict is not None
    assert run[1].table.verdict.cause == "local-failure"
    report = verify_records(stores[0].records)
    # The failing seat's own signed word: fair up to there, nobody blamed.
    assert report.exit_code == 0 and report.violations == [] and report.claims == []
    assert report.ending is not None and report.ending.seat == 1
    assert report.ending.cause == "local-failure"


async def test_an_error_in_an_automatic_event_becomes_a_local_failure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run, _, _ = runners(tmp_path, b"auto", timeout=3600)
    broken = run[2].table
    original = broken.auto_event
    def auto_event() -> object:
        if len(broken.envelopes) >= 12:
            raise ProtocolError("the deck cannot make that step now")
        return original()
    monkeypatch.setattr(broken, "auto_event", auto_event)
    await asyncio.wait_for(asyncio.gather(*(r.run() for r in run)), 30)
    for runner in run:
        verdict = runner.table.verdict
        assert verdict is not None and verdict.blamed is None
    assert run[2].table.verdict is not None and run[2].table.verdict.signer == 2


async def test_a_flood_of_future_events_stays_bounded(tmp_path: Path) -> None:
    from gleek_p2p.session.peer import PARK_BYTES_PER_SEAT, PARK_WINDOW

    run, stores, meshes = runners(tmp_path, b"flood", timeout=30)
    tasks = [asyncio.create_task(r.run()) for r in run]
    victim = run[0]
    peak_entries = 0
    for mark in (10, 40, 80):
        while len(victim.table.envelopes) < mark and not victim.table.finished:
            await asyncio.sleep(0.001)
        for data in future_flood(victim.table, run[1].table, 2000):
            meshes[0]._queue.put_nowait((1, Event_(data)))
        while not meshes[0]._queue.empty():
            peak_entries = max(peak_entries, len(victim._pending))
            await asyncio.sleep(0)
    outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 120)
    # Memory: bounded by count and bytes, whatever was sent.
    assert peak_entries <= 3 * (PARK_WINDOW + 1)
    assert victim.peak_parked <= 3 * PARK_BYTES_PER_SEAT
    assert victim.dropped["too-far-ahead"] >= 1500
    assert victim.dropped["bad-signature"] > 0
    assert victim.dropped["already-held"] + victim.dropped["held-back-full"] > 0
    # The flood was not signed misbehaviour the log can hold: the session goes on.
    verdicts = [r.table.verdict for r in run]
    if all(o.finished for o in outcomes):
        assert stores[0].records == stores[1].records == stores[2].records
        assert verify_records(stores[0].records).fair
    else:  # or, if anyone was blamed, only the flooder
        assert all(v is None or v.blamed == 1 for v in verdicts)


async def test_runners_checking_in_a_worker_and_syncing_by_batch_agree(tmp_path: Path) -> None:
    run, stores, _ = runners(tmp_path, b"worker")
    for r in run:
        r.check_in_worker = True
    outcomes = await asyncio.wait_for(asyncio.gather(*(r.run() for r in run)), 120)
    assert all(o.finished and not o.aborted for o in outcomes)
    assert stores[0].records == stores[1].records == stores[2].records
    assert verify_records(stores[0].records).fair
    # Group commit: fewer fsyncs than records; closing makes the rest durable.
    for store in stores:
        assert 0 < store.fsyncs < len(store.records)
        records = store.records
        store.close()
        assert store.unsynced == 0
        assert read_log_file(store.path)[0] == records
