"""A seat that cheats in the deck set-up or the deal, through the real peer shell.

Each forgery (the copy attack of issue 10 into the cheater's own slots from a
victim or the talon, one copy or twelve; a v3 lock under a wrong key; a
replayed or damaged proof; repeated points; in v4, whose keys are proved
strips, the copy attack moved into the cheater's strips of its colluder's
slots and a strip under a wrong key) is made under the best proof the
cheater can make, and must be refused by both honest peers at the event that
carries it, blamed on the cheater in a signed abort before any honest seat
sends a key built on it, and confirmed by ``gleek verify`` from the log alone.
The shuffle cheats are played against a table pinned to deck v3 and one at
v4 (the current version), the lock's at v3, the strips' at v4.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from adversary.deck_cheats import DECK_CHEATS, copy_in_lock, copy_in_shuffle, copy_in_strips
from adversary.forge import Tamper
from adversary.peer import play_cheater

from gleek_p2p.base.errors import Cheating
from gleek_p2p.log.envelope import Envelope, decode_envelope
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table import events as ev
from gleek_p2p.table.drive import step
from gleek_p2p.table.session import Stage, Table
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import make_seats

CHEATER = 1
CASES = [pytest.param(name, version, id=f"{name}-v{version}")
         for name in sorted(DECK_CHEATS) for version in DECK_CHEATS[name].versions]


def _seed(name: str, label: bytes = b"") -> bytes:
    """The session's seed for a cheat: its name, or for a cheat in the deal keys the
    first of its variants whose cut puts the cheater at the cheat's place in the deal."""
    base = label + name.encode()
    place = DECK_CHEATS[name].place
    if place is None:
        return base
    for i in range(64):
        seed = base + b"/%d" % i
        tables = make_seats(VARIANTS["standard"], 1, seed)
        while tables[0].state is None or tables[0].stage in (Stage.CUT_COMMIT,
                                                             Stage.CUT_REVEAL):
            step(tables)
        if tables[0].order.index(CHEATER) == place:
            return seed
    raise AssertionError(f"no cut puts seat {CHEATER} at place {place} of the deal")


def _pin(monkeypatch: pytest.MonkeyPatch, version: int) -> None:
    """Every table made from now on runs deck protocol ``version``."""
    monkeypatch.setattr("gleek_p2p.deck.protocol.CURRENT_VERSION", version)


@pytest.mark.parametrize(("name", "version"), CASES)
async def test_a_deck_cheat_is_blamed_at_its_pass_before_any_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, version: int
) -> None:
    cheat = DECK_CHEATS[name]
    _pin(monkeypatch, version)
    runners, cheated = await play_cheater(tmp_path, name, cheat.tamper, _seed(name), CHEATER)
    assert cheated
    honest = [r for r in runners if r.table.seat != CHEATER]
    for runner in honest:
        deck = runner.table._m.deck
        assert deck is not None and deck.version == version
        verdict = runner.table.verdict
        assert verdict is not None and verdict.blamed == CHEATER, name
        envelopes = [decode_envelope(record) for record in runner.store.records]
        assert envelopes[-1].kind == ev.ABORT
        # The abort carries the forged event itself, signed by the cheater, at its place.
        abort = ev.Abort.from_body(envelopes[-1].body)
        forged = decode_envelope(abort.evidence[0])
        assert forged.seat == CHEATER and forged.kind == cheat.kind
        assert forged.seq == envelopes[-1].seq
        # The keys of the deal in the log: those of the seats before the cheater in
        # the deal's order (none for a set-up cheat), then nothing built on the forgery.
        order = runner.table.order
        before = order[: order.index(CHEATER)] if cheat.kind == ev.KEYS else ()
        assert cheat.place is None or len(before) == cheat.place
        assert [e.seat for e in envelopes if e.kind == ev.KEYS] == list(before), \
            "a key of the deal was sent on (or before) the cheat"
        report = verify_records(runner.store.records)
        assert report.exit_code == 1
        first = report.violations[0]
        # The first breach verify finds is the forgery, at its place: every event
        # before it (the keys of the deal before the cheater's included) holds.
        assert first.seat == CHEATER and first.proven and first.seq == forged.seq
        assert first.code is cheat.code, first.code
        assert cheat.says in first.reason, first.reason
        assert not any(v.seat not in (CHEATER, None) for v in report.violations)


def _until_cheater(tables: list[Table], kind: str) -> None:
    """Let every seat sign its steps until the cheater's ``kind`` (its deal keys for
    KEYS) is due."""
    def due() -> bool:
        exp = tables[0].expected()
        assert exp is not None, "the hand ended before the cheater's step"
        return exp.seat == CHEATER and exp.kinds == (kind,) and (
            kind != ev.KEYS or tables[0].stage is Stage.DEAL_KEYS)

    while not due():
        step(tables)


def _forged_at_its_step(version: int, kind: str, tamper: Tamper,
                        seed: bytes) -> tuple[list[Table], Table, Envelope, Envelope]:
    tables = make_seats(VARIANTS["standard"], 1, seed)
    _until_cheater(tables, kind)
    assert tables[0]._m.deck is not None and tables[0]._m.deck.version == version
    observer = Table(tables[0].roster)
    for data in tables[0].encoded:
        observer.receive(decode_envelope(data), data)
    cheater = tables[CHEATER]
    honest = cheater.auto_event()
    assert honest is not None and honest.kind == kind
    forged = tamper(cheater, honest, len(cheater.envelopes))
    assert forged is not None
    return tables, observer, honest, forged


@pytest.mark.parametrize(("name", "version"), CASES)
def test_every_honest_seat_and_an_observer_refuse_a_deck_cheat_and_change_nothing(
    monkeypatch: pytest.MonkeyPatch, name: str, version: int
) -> None:
    # Not only the first to see it: each honest seat (and a replaying observer, as
    # ``gleek verify`` is) refuses the forgery on its own, blaming the cheater.
    cheat = DECK_CHEATS[name]
    _pin(monkeypatch, version)
    tables, observer, honest, forged = _forged_at_its_step(
        version, cheat.kind, cheat.tamper, _seed(name, b"each refuses "))
    assert forged.encode() != honest.encode()
    receivers = [t for t in tables if t.seat != CHEATER] + [observer]
    for table in receivers:
        before = (len(table.envelopes), table.head, table.stage, table.expected())
        deck = table._m.deck
        assert deck is not None
        messages = deck.messages()
        with pytest.raises(Cheating) as caught:
            table.receive(forged)
        assert caught.value.seat == CHEATER and caught.value.code is cheat.code
        assert cheat.says in caught.value.reason, caught.value.reason
        assert caught.value.evidence[0] == forged.encode()
        assert (len(table.envelopes), table.head, table.stage, table.expected()) == before
        assert table._m.deck is not None and table._m.deck.messages() == messages
    # The honest event is still taken at that place.
    for table in receivers:
        table.receive(honest)


BEST_PROOF = {
    "shuffle-v3": (3, ev.SHUFFLE, copy_in_shuffle(0, 0)),
    "shuffle-v4": (4, ev.SHUFFLE, copy_in_shuffle(0, 0)),
    "lock-v3": (3, ev.LOCK, copy_in_lock(2, 0)),
    "strips-v4": (4, ev.KEYS, copy_in_strips(0)),
}


@pytest.mark.parametrize("case", sorted(BEST_PROOF))
def test_the_forger_proves_as_an_honest_seat_does(
    monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    # A copy of no slot is the honest event byte for byte: the forger proves with the
    # hand's own proof system, its real key and the right context, so a forgery fails
    # for what it forges, not for the wrong version's proof.
    version, kind, tamper = BEST_PROOF[case]
    _pin(monkeypatch, version)
    tables, _, honest, forged = _forged_at_its_step(version, kind, tamper,
                                                    b"best proof " + case.encode())
    assert forged.encode() == honest.encode()
    for table in tables:
        table.receive(forged)
