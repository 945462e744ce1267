"""A seat that cheats in the deck set-up, through the real peer shell (deck protocol v2).

Each forgery (the copy attack of issue 10 into the cheater's own slots from a
victim or the talon, one copy or twelve; a lock under a wrong key; a replayed
or damaged proof; repeated points) must be refused by both honest peers at
the pass that carries it, blamed on the cheater in a signed abort before any
key of the deal is sent, and confirmed by ``gleek verify`` from the log alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from adversary.deck_cheats import DECK_CHEATS
from adversary.peer import play_cheater

from gleek_p2p.log.envelope import decode_envelope
from gleek_p2p.table import events as ev
from gleek_p2p.table.verify import verify_records

CHEATER = 1


@pytest.mark.parametrize("name", sorted(DECK_CHEATS))
async def test_a_deck_cheat_is_blamed_at_its_pass_before_any_key(tmp_path: Path, name: str) -> None:
    tamper, says = DECK_CHEATS[name]
    runners, cheated = await play_cheater(tmp_path, name, tamper, name.encode(), CHEATER)
    assert cheated
    honest = [r for r in runners if r.table.seat != CHEATER]
    for runner in honest:
        verdict = runner.table.verdict
        assert verdict is not None and verdict.blamed == CHEATER, name
        kinds = [decode_envelope(record).kind for record in runner.store.records]
        assert ev.KEYS not in kinds, "a key of the deal was sent before the cheat was caught"
        assert kinds[-1] == ev.ABORT
        # The abort carries the forged pass itself, signed by the cheater.
        abort = ev.Abort.from_body(decode_envelope(runner.store.records[-1]).body)
        forged = decode_envelope(abort.evidence[0])
        assert forged.seat == CHEATER and forged.kind in (ev.SHUFFLE, ev.LOCK)
        report = verify_records(runner.store.records)
        assert report.exit_code == 1
        first = report.violations[0]
        assert first.seat == CHEATER and first.proven
        assert says in first.reason, first.reason
