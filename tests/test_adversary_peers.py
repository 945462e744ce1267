"""Cheating peers against honest ones, through the real peer shell.

For each cheat the honest peers must detect it, blame the right seat in a
signed abort, keep their logs intact (identical up to the abort), and
``gleek verify`` must give the same verdict offline.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from adversary import scenarios
from adversary.peer import play_cheater

from gleek_p2p.base.errors import ViolationCode
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.store import LogStore
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.peer import BotPlayer, MemoryMesh, SessionRunner
from gleek_p2p.table.session import Table
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import make_seats

CHEATS = {
    "revoke": scenarios._revoke,
    "false-ruff": scenarios._false_ruff,
    "hidden-combination": scenarios._hidden_combination,
    "illegal-bid": scenarios._illegal_bid,
    "bad-unplayed-key": scenarios._bad_unplayed_key,
    "wrong-deal-key": scenarios._wrong_deal_key,
    "early-dispute": scenarios._early_dispute,
}
CHEATER = scenarios.CHEATER


async def play(tmp_path: Path, name: str, seed: bytes) -> tuple[list[SessionRunner], bool]:
    # A hidden combination is a cheat only under the first rulings (SPEC 1.5).
    variant = (scenarios.FIRST_RULINGS if name == "hidden-combination"
               else VARIANTS["standard"])
    return await play_cheater(tmp_path, name, CHEATS[name], seed, CHEATER, variant)


@pytest.mark.parametrize("name", sorted(CHEATS))
async def test_honest_peers_catch_and_blame_the_cheater(tmp_path: Path, name: str) -> None:
    for attempt in range(30):
        runners, cheated = await play(tmp_path, name, f"{name}-{attempt}".encode())
        if cheated:
            break
    else:
        pytest.fail(f"no chance to cheat ({name}) in 30 deals")
    honest: list[Table] = [r.table for r in runners if r.table.seat != CHEATER]
    for table in honest:
        assert table.verdict is not None, name
        assert table.verdict.blamed == CHEATER
        # The abort carries the breach's code (the screens word it from that).
        assert table.verdict.cause in ViolationCode._value2member_map_, table.verdict.cause
    # The logs are intact: identical up to the aborts each honest peer signed.
    a, b = (r.store.records for r in runners if r.table.seat != CHEATER)
    assert a[:-1] == b[:-1] or a == b
    for records in (a, b):
        report = verify_records(records)
        assert report.exit_code == 1
        assert report.violations[0].seat == CHEATER and report.violations[0].proven
        # The code the abort signed is the one its evidence proves: no second claim.
        assert report.claims == [], (name, report.claims)


async def test_a_dispute_out_of_turn_during_the_shuffle_blames_only_the_disputer(
        tmp_path: Path) -> None:
    """Seat 1 disputes while another seat is due in the deck set-up: the seat due next
    must not crash or be blamed; the disputer is blamed, or its dispute is dropped."""
    from gleek_p2p.net.messages import Event
    from gleek_p2p.table import events as ev
    from gleek_p2p.table.session import Stage

    tables = make_seats(VARIANTS["standard"], 1, b"dispute-out-of-turn")
    meshes = MemoryMesh.create(3)
    runners = [SessionRunner(t, LogStore.open(tmp_path / f"{s}.gleeklog"), m,
                             BotPlayer(RandomStrategy(s)), timeout=20)
               for s, (t, m) in enumerate(zip(tables, meshes, strict=True))]
    tasks = [asyncio.create_task(r.run()) for r in runners]
    disputer = tables[CHEATER]
    while True:
        exp = disputer.expected()
        if disputer.stage is Stage.DECK and exp is not None and exp.seat != CHEATER:
            break
        await asyncio.sleep(0)
    dispute = disputer._sign(ev.DISPUTE, [0])
    for seat in range(3):
        if seat != CHEATER:
            meshes[seat]._queue.put_nowait((CHEATER, Event(dispute.encode())))
    outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 120)
    for runner in runners:
        assert runner.failure is None  # nobody's runner crashed
        verdict = runner.table.verdict
        assert verdict is None or verdict.blamed in (None, CHEATER)
    if not all(o.finished for o in outcomes):
        # Whoever took the dispute at its place blamed the disputer; a seat whose
        # log already held that place ended blaming nobody (nothing to prove there).
        honest = [r for r in runners if r.table.seat != CHEATER]
        assert any(r.table.verdict is not None and r.table.verdict.blamed == CHEATER
                   for r in honest)
        for runner in honest:
            report = verify_records(runner.store.records)
            assert not any(v.seat not in (None, CHEATER) for v in report.violations)
