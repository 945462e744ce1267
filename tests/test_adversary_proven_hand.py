"""Issue 19, through real peers: no dispute in a proved hand, and a split view proven
by whichever honest seat holds both halves of it.

Every test runs ``SessionRunner`` peers over a ``MemoryMesh``: the honest seats
react as they do at a real table, and their logs are then judged by
``gleek verify``'s own code.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import replace
from pathlib import Path

import pytest
from adversary import scenarios
from adversary.peer import CheatingTable, play_cheater

from gleek_p2p.base.violation_codes import ViolationCode
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.deck import ShufflePass
from gleek_p2p.deck.group import L, scalar_from_wide
from gleek_p2p.log.envelope import Envelope, decode_envelope, sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.log.store import LogStore
from gleek_p2p.net.messages import Event, Message
from gleek_p2p.rules import VARIANTS
from gleek_p2p.rules import Event as Move
from gleek_p2p.session.peer import BotPlayer, MemoryMesh, SessionRunner
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import LocalFault, Stage, Table
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import make_seats

CHEATER = scenarios.CHEATER
HONEST = (0, 2)


# --------------------------------------------------- 19.4: no dispute in a proved hand


@pytest.mark.parametrize("name", ["deal-keys", "play"])
async def test_a_false_dispute_in_a_proved_hand_blames_the_disputer_and_opens_nothing(
        tmp_path: Path, name: str) -> None:
    tamper = {"deal-keys": scenarios._dispute_at_deal_keys,
              "play": scenarios._dispute_in_play}[name]
    for attempt in range(10):
        runners, cheated = await play_cheater(tmp_path, name, tamper,
                                              f"dispute-{name}-{attempt}".encode(), CHEATER)
        if cheated:
            break
    else:
        pytest.fail(f"no chance to dispute ({name})")
    cheater = runners[CHEATER].table
    assert isinstance(cheater, CheatingTable)
    dispute = next(e for e in cheater.envelopes if e.kind == ev.DISPUTE)
    logs = [runners[s].store.records for s in HONEST]
    for seat, records in zip(HONEST, logs, strict=True):
        table = runners[seat].table
        assert table.verdict is not None and table.verdict.blamed == CHEATER
        kinds = [decode_envelope(r).kind for r in records]
        # Refused at its place: the log ends there with the abort. No seed was
        # revealed and no key followed, so nothing was opened by the dispute.
        assert len(records) == dispute.seq + 1 and kinds[-1] == ev.ABORT
        assert ev.SEED not in kinds and ev.DISPUTE not in kinds
        assert table.verdict.evidence[0] == dispute.encode()
        report = verify_records(records)
        assert report.exit_code == 1
        first = report.violations[0]
        assert first.seat == CHEATER and first.proven, seat
        assert first.code is ViolationCode.TURN_DISPUTE_PROVEN_HAND
    assert logs[0][:-1] == logs[1][:-1]


# -------------------------------------------- 19.5: a split view, proven on both sides


class SplitMesh(MemoryMesh):
    """Seat 1's links: its own shuffle reaches ``victim`` forged, the other seat as signed."""

    victim: int | None = None
    identity: Identity | None = None
    forged: Envelope | None = None

    def send(self, seat: int, message: Message) -> None:
        if seat == self.victim and isinstance(message, Event) and self.forged is None:
            envelope = decode_envelope(message.data)
            if envelope.seat == self.seat and envelope.kind == ev.SHUFFLE:
                self.forged = _forge(self, envelope)
                message = Event(self.forged.encode())
        super().send(seat, message)


def _forge(mesh: SplitMesh, envelope: Envelope) -> Envelope:
    """The same shuffle, its proof's last response changed: a pass whose proof fails."""
    shuffle = ev.deck_from_body(ev.SHUFFLE, envelope.seat, envelope.body)
    assert isinstance(shuffle, ShufflePass) and shuffle.proof is not None
    k_f = ((int.from_bytes(shuffle.proof.k_f, "little") + 1) % L).to_bytes(32, "little")
    forged = replace(shuffle, proof=replace(shuffle.proof, k_f=k_f))
    identity = mesh.identity
    assert identity is not None
    return sign_envelope(identity, envelope.session_id, envelope.seq, envelope.prev,
                         envelope.seat, envelope.kind, ev.deck_body(forged))


@pytest.mark.parametrize("victim", HONEST)
async def test_a_split_view_is_proven_by_both_honest_seats(tmp_path: Path, victim: int) -> None:
    tables = make_seats(VARIANTS["standard"], 1, b"split-view")
    meshes = SplitMesh.create(3)
    cheat = meshes[CHEATER]
    assert isinstance(cheat, SplitMesh)
    cheat.victim = victim
    cheat.identity = tables[CHEATER]._identity
    runners = [
        SessionRunner(table, LogStore.open(tmp_path / f"{s}.gleeklog"), mesh,
                      BotPlayer(RandomStrategy(s)), timeout=10)
        for s, (table, mesh) in enumerate(zip(tables, meshes, strict=True))
    ]
    tasks = [asyncio.create_task(r.run()) for r in runners]
    await asyncio.wait_for(asyncio.gather(*(tasks[s] for s in HONEST)), 60)
    tasks[CHEATER].cancel()
    await asyncio.gather(tasks[CHEATER], return_exceptions=True)
    assert cheat.forged is not None
    holder = next(s for s in HONEST if s != victim)
    for seat in HONEST:
        verdict = runners[seat].table.verdict
        assert verdict is not None and verdict.signer == seat, seat
        assert verdict.blamed == CHEATER, (seat, verdict.reason)
    # The holder took the honest shuffle, then met the forged one in the victim's
    # abort: its own abort carries both, and the forged one proves the split.
    held = runners[holder].table.verdict
    assert held is not None and cheat.forged.encode() in held.evidence
    codes = {victim: ViolationCode.DECK_BAD_PROOF, holder: ViolationCode.CHAIN_EQUIVOCATION}
    for seat in HONEST:
        report = verify_records(runners[seat].store.records)
        first = report.violations[0]
        assert first.seat == CHEATER and first.proven, (seat, first)
        assert first.code is codes[seat], (seat, first)
        assert not any(v.seat in HONEST for v in report.violations)


# ----------------------- a seat whose own slot does not open in a proved hand blames nobody


class LostSeedTable(Table):
    """Seat 0's copy, as if its store lost its seed while it takes the others' deal
    keys: in v3 its own lock keys are wrong, in v4 its seed (it strips its own layer
    off its slots with the key the seed gives): its own slots cannot open."""

    def receive(self, envelope: Envelope, encoded: bytes | None = None) -> list[Move]:
        deck = self._m.deck
        if deck is None or self.stage is not Stage.DEAL_KEYS or envelope.seat == self.seat:
            return super().receive(envelope, encoded)
        good_keys = deck._own_lock_keys() if deck.version == 3 else None
        good_seed = deck._seed
        if deck.version == 3:
            deck._own_keys = tuple(scalar_from_wide(hashlib.sha512(b"%d" % j).digest())
                                   for j in range(deck.n_slots))
        else:
            deck._seed = hashlib.sha256(b"not seat 0's seed").digest()
        try:
            return super().receive(envelope, encoded)
        finally:
            if self._m.deck is not None:
                self._m.deck._own_keys = good_keys
                self._m.deck._seed = good_seed


@pytest.mark.parametrize("version", [3, 4])
async def test_a_seat_whose_own_slot_does_not_open_fails_alone_and_blames_nobody(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: int) -> None:
    monkeypatch.setattr("gleek_p2p.deck.protocol.CURRENT_VERSION", version)
    tables = make_seats(VARIANTS["standard"], 1, b"lost-seed")
    first = tables[0]
    tables[0] = LostSeedTable(first.roster, 0, first._identity, first._secret)
    meshes = MemoryMesh.create(3)
    runners = [
        SessionRunner(table, LogStore.open(tmp_path / f"{s}.gleeklog"), mesh,
                      BotPlayer(RandomStrategy(s)), timeout=10)
        for s, (table, mesh) in enumerate(zip(tables, meshes, strict=True))
    ]
    await asyncio.wait_for(asyncio.gather(*(r.run() for r in runners)), 60)
    assert isinstance(runners[0].failure, LocalFault)
    deck = runners[0].table._m.deck
    assert deck is not None and deck.version == version
    own = runners[0].table.verdict
    assert own is not None and own.signer == 0 and own.cause == ev.LOCAL_FAILURE
    for runner in runners:
        # The others take that abort, or (already past its position) sign their
        # own: either way nobody is blamed.
        verdict = runner.table.verdict
        assert verdict is not None and verdict.blamed is None, runner.table.seat
        kinds = [decode_envelope(r).kind for r in runner.store.records]
        assert ev.DISPUTE not in kinds and ev.SEED not in kinds
        report = verify_records(runner.store.records)
        assert not any(v.seat is not None for v in report.violations)
