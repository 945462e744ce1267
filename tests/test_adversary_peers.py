"""Cheating peers against honest ones, through the real peer shell.

For each cheat the honest peers must detect it, blame the right seat in a
signed abort, keep their logs intact (identical up to the abort), and
``gleek verify`` must give the same verdict offline.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from adversary import scenarios
from adversary.peer import play_cheater

from gleek_p2p.peer import SessionRunner
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table.session import Table
from gleek_p2p.table.verify import verify_records

CHEATS = {
    "revoke": scenarios._revoke,
    "false-ruff": scenarios._false_ruff,
    "hidden-combination": scenarios._hidden_combination,
    "illegal-bid": scenarios._illegal_bid,
    "bad-unplayed-key": scenarios._bad_unplayed_key,
    "wrong-deal-key": scenarios._wrong_deal_key,
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
    # The logs are intact: identical up to the aborts each honest peer signed.
    a, b = (r.store.records for r in runners if r.table.seat != CHEATER)
    assert a[:-1] == b[:-1] or a == b
    for records in (a, b):
        report = verify_records(records)
        assert report.exit_code == 1
        assert report.violations[0].seat == CHEATER and report.violations[0].proven
