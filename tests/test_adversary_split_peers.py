"""Real peers against a seat that leaves toward one of them and plays on toward the other.

Anne (0) and Cat (2) are real ``SessionRunner``s on a memory mesh; Ben (1) is a
script with its own table. At a position where Anne is to sign and Ben is due
right after her, Ben signs a ``leave`` for Anne's position, plays its next move
toward Anne only, and only then sends the leave to Cat. Whatever order the
relays take, every log's verdict is true: fair (Ben left) only in a log that
holds no event of Ben's from the leave's position on, otherwise Ben proven,
and Anne or Cat never named; the peer commands' exit code agrees with verify.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from gleek_p2p.base.errors import GleekError
from gleek_p2p.bots.strategy import RandomStrategy, choose_now
from gleek_p2p.log.envelope import Envelope, decode_envelope
from gleek_p2p.log.store import LogStore
from gleek_p2p.net.messages import Event, Sync
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.peer import BotPlayer, MemoryMesh, SessionRunner
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Table
from gleek_p2p.table.verify import Judgement, early_end, verify_records
from gleek_p2p.tools.selfplay import make_seats

ANNE, BEN, CAT = 0, 1, 2


class LyingBen:
    """Ben's side of the mesh: plays honestly until the split, then lies."""

    def __init__(self, table: Table, mesh: MemoryMesh, seed: bytes, after: int) -> None:
        self.table, self.mesh, self.after = table, mesh, after
        self.bot = RandomStrategy(seed + bytes([BEN]))
        self.leave: Envelope | None = None
        self.lied_at: int | None = None
        self.cut_off: set[int] = set()
        """Seats Ben sends nothing more to (Cat, once the leave is on its way)."""

    def _send(self, envelope: Envelope, seats: tuple[int, ...] = (ANNE, CAT)) -> None:
        for seat in seats:
            if seat not in self.cut_off:
                self.mesh.send(seat, Event(envelope.encode()))

    def _send_sync(self) -> None:
        for seat in (ANNE, CAT):
            self.mesh.send(seat, Sync(len(self.table.envelopes)))

    def _sign_due(self) -> None:
        while (exp := self.table.expected()) is not None and exp.seat == BEN:
            envelope = self.table.auto_event()
            if envelope is None:
                decision = self.table.decision()
                assert decision is not None
                envelope = self.table.act(choose_now(self.bot, decision.view, decision.legal))
            self.table.receive(envelope)
            if self.leave is not None and self.lied_at is None:
                # The move goes to Anne alone, then the leave to Cat alone.
                self._send(envelope, (ANNE,))
                self.mesh.send(CAT, Event(self.leave.encode()))
                self.cut_off.add(CAT)
                self.lied_at = self.leave.seq
            else:
                self._send(envelope)

    async def run(self) -> None:
        # As a real peer does on starting (``SessionRunner._play``): without it
        # Anne, after the abort, lingers the whole timeout waiting to hear from Ben.
        self._send_sync()
        self._sign_due()
        while True:
            sender, message = await self.mesh.receive()
            if isinstance(message, Sync):
                if sender not in self.cut_off:
                    for record in self.table.encoded[message.from_seq:]:
                        self.mesh.send(sender, Event(record))
                continue
            if not isinstance(message, Event):
                continue
            envelope = decode_envelope(message.data)
            head = len(self.table.envelopes)
            exp = self.table.expected()
            if (self.lied_at is None and self.leave is None and exp is not None
                    and exp.seat == ANNE and head >= self.after and envelope.seq == head):
                self.leave = self.table.leave_event()  # signed for Anne's position
            with contextlib.suppress(GleekError):
                self.table.receive(envelope)
            if self.leave is not None and self.lied_at is None and len(
                    self.table.envelopes) > self.leave.seq:
                exp = self.table.expected()
                if exp is None or exp.seat != BEN:
                    self.leave = None  # Ben is not next after Anne: try again later
            self._sign_due()


@pytest.mark.parametrize("seed", [b"split-peers-1", b"split-peers-2"])
async def test_real_peers_never_name_an_honest_seat(tmp_path: Path, seed: bytes) -> None:
    tables = make_seats(VARIANTS["standard"], 2, seed, ("Anne", "Ben", "Cat"))
    meshes = MemoryMesh.create(3)
    stores = {s: LogStore.open(tmp_path / f"seat{s}.gleeklog") for s in (ANNE, CAT)}
    runners = {s: SessionRunner(tables[s], stores[s], meshes[s],
                                BotPlayer(RandomStrategy(seed + bytes([s]))), timeout=20)
               for s in (ANNE, CAT)}
    ben = LyingBen(tables[BEN], meshes[BEN], seed, after=40)
    liar = asyncio.create_task(ben.run())
    try:
        await asyncio.wait_for(asyncio.gather(*(r.run() for r in runners.values())), 120)
    finally:
        liar.cancel()
        await asyncio.gather(liar, return_exceptions=True)
    assert ben.lied_at is not None
    proven = 0
    for seat, store in stores.items():
        records = store.records
        report = verify_records(records)
        assert all(v.seat == BEN for v in report.violations), (seat, report.violations)
        assert all(not c.proven for c in report.claims)
        bens_after = [decode_envelope(r).seq for r in records[ben.lied_at:]
                      if decode_envelope(r).seat == BEN]
        if bens_after:
            # This log holds Ben's play after its leave and the leave: proven.
            assert report.judgement is Judgement.UNFAIR, (seat, report.claims)
            proven += 1
        else:
            assert report.judgement in (Judgement.FAIR, Judgement.STOPPED)
            if report.judgement is Judgement.FAIR:
                assert report.ending is not None and report.ending.seat == BEN
        # gleek play/bot's exit code reads the same: 0 only on a fair end.
        ending = early_end(runners[seat].table)
        assert (ending is not None and ending.cause == ev.LEFT) == report.fair
    assert proven >= 1
