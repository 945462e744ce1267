"""The log's version goes with the deck's: version 1 holds deck v1-v3 hands, 2 deck v4 only.

SPEC 3 ("The log's version"): deck version 4 changed two bodies a reader of
log version 1 refuses (the commit names 4, the ``keys`` carry proved strips),
so its logs are of version 2. One program writes a whole log: an event of the
other readable version is refused and blamed on its signer, and a commit
naming a deck version its log does not hold is a provable downgrade (SPEC 2's
gap: an observer could not tell an older session from a seat downgrading at
the hand's first commit). Every log written before stays version 1 and
verifies as before (tests/test_table_vectors.py checks them byte for byte).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache

import pytest
from test_table_schema import SCHEMA, conforms
from vector_reports import VECTORS

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import Cheating, ProtocolError, ViolationCode
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.deck.messages import VERSIONS, Commit
from gleek_p2p.log import canonical
from gleek_p2p.log.envelope import (
    LOG_VERSIONS,
    PROTOCOL_VERSION,
    Envelope,
    decode_envelope,
    sign_envelope,
)
from gleek_p2p.log.store import read_log_file
from gleek_p2p.net.handshake import WIRE_VERSION
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table import events as ev
from gleek_p2p.table.drive import run, sign_next
from gleek_p2p.table.session import Stage, Table
from gleek_p2p.table.verify import Judgement, VerifyReport, verify_records
from gleek_p2p.table.versions import DECK_VERSIONS_OF_LOG, log_version_for
from gleek_p2p.tools.report import json_report, text_report
from gleek_p2p.tools.selfplay import make_seats, selfplay

STANDARD = VARIANTS["standard"]
#: The deck version a table of each log version runs (the newest that log holds).
DECK_OF_LOG = {1: 3, 2: 4}


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


def _deck(monkeypatch: pytest.MonkeyPatch, version: int) -> None:
    """Tables made from now on run deck ``version`` (read when a table is made)."""
    monkeypatch.setattr("gleek_p2p.deck.protocol.CURRENT_VERSION", version)


def _snapshot(table: Table) -> tuple[object, ...]:
    return (len(table.envelopes), table.head, table.stage, table.state, table.expected())


def _observer(tables: list[Table]) -> Table:
    observer = Table(tables[0].roster)
    for data in tables[0].encoded:
        observer.receive(decode_envelope(data), data)
    return observer


def _commits_in(records: list[bytes]) -> list[int]:
    """The deck version each commit of ``records`` names."""
    found = []
    for record in records:
        try:
            env = decode_envelope(record)
        except ProtocolError:
            continue  # the vectors of damaged records
        if env.kind == ev.COMMIT:
            found.append(env.body[0][3] if len(env.body[0]) > 3 else 1)
    return found


def _refused_everywhere(tables: list[Table], envelope: Envelope, seat: int,
                        code: ViolationCode) -> list[Cheating]:
    """Every seat but the signer, and an observer, refuse it, blame ``seat``, change nothing."""
    caught = []
    for table in [*(t for t in tables if t.seat != seat), _observer(tables)]:
        before = _snapshot(table)
        with pytest.raises(Cheating) as refused:
            table.receive(envelope)
        assert refused.value.seat == seat and refused.value.code is code
        assert _snapshot(table) == before
        caught.append(refused.value)
    return caught


def _proven(report: VerifyReport, seat: int, code: ViolationCode) -> None:
    """``gleek verify``: a proven violation by ``seat`` (exit 1), not a claim."""
    assert report.readable and report.judgement is Judgement.UNFAIR and report.exit_code == 1
    assert [(v.seat, v.code, v.proven) for v in report.violations][:1] == [(seat, code, True)]
    assert report.claims == []
    data = json_report(report)
    assert data["violations"][0]["code"] == code.value and data["violations"][0]["seat"] == seat
    assert data["claims"] == []


# -- the numbers ------------------------------------------------------------------------


def test_each_deck_version_belongs_to_exactly_one_log_version() -> None:
    assert (PROTOCOL_VERSION, LOG_VERSIONS, WIRE_VERSION) == (2, (1, 2), 3)
    assert tuple(sorted(DECK_VERSIONS_OF_LOG)) == LOG_VERSIONS
    assert DECK_VERSIONS_OF_LOG[1] == {1, 2, 3} and DECK_VERSIONS_OF_LOG[2] == {4}
    assert set().union(*DECK_VERSIONS_OF_LOG.values()) == set(VERSIONS)
    assert [log_version_for(d) for d in VERSIONS] == [1, 1, 1, 2]
    for unknown in (0, 5):
        with pytest.raises(ProtocolError) as bad:
            log_version_for(unknown)
        assert bad.value.code is ViolationCode.LOCAL_MISUSE


@pytest.mark.parametrize(("deck", "log"), [(1, 1), (2, 1), (3, 1), (4, 2)])
def test_a_table_writes_the_log_version_of_the_deck_version_it_runs(
        monkeypatch: pytest.MonkeyPatch, deck: int, log: int) -> None:
    _deck(monkeypatch, deck)
    tables = make_seats(STANDARD, 1, b"log-of-deck-%d" % deck)
    _deck(monkeypatch, 4 if deck != 4 else 3)  # too late: each table chose when it was made
    run(tables, until=lambda: tables[0].stage is Stage.DECK
        and len(_commits_in(tables[0].encoded)) == 3)
    assert {decode_envelope(r).version for r in tables[0].encoded} == {log}
    assert all(t.log_version == log for t in tables)
    assert _commits_in(tables[0].encoded) == [deck] * 3


# -- every log: v2 verifies fair, v1 as before ------------------------------------------


@cache
def _v2_log() -> tuple[bytes, ...]:
    result = selfplay(STANDARD, 1, b"log v2", [RandomStrategy(b"v2 %d" % s) for s in range(3)])
    return tuple(result.records)


def test_a_version_2_log_verifies_fair() -> None:
    records = list(_v2_log())
    assert {decode_envelope(r).version for r in records} == {2}
    assert _commits_in(records) == [4, 4, 4]
    report = verify_records(records)
    assert report.fair and report.complete and report.exit_code == 0
    assert report.violations == [] and report.claims == []
    assert [h.deck_version for h in report.table.hands] == [4]  # type: ignore[union-attr]


def test_every_event_of_a_version_2_log_conforms_to_the_schema() -> None:
    for record in _v2_log():
        envelope = decode_envelope(record)
        assert conforms([*envelope.unsigned_fields(), envelope.signature], SCHEMA["envelope"])
        assert conforms(envelope.body, SCHEMA["kinds"][envelope.kind]["body"]), envelope.kind
    # The schema says which versions: a third is no event of this program's.
    fields = [*decode_envelope(_v2_log()[0]).unsigned_fields(), bytes(64)]
    assert not conforms([3, *fields[1:]], SCHEMA["envelope"])
    assert not conforms([0, *fields[1:]], SCHEMA["envelope"])


def test_every_committed_vector_is_a_version_1_log_of_deck_v1_to_v3() -> None:
    # Their verdicts, byte for byte, are tests/test_table_vectors.py's.
    names = sorted(p.name for p in VECTORS.glob("*.gleeklog"))
    assert len(names) >= 40
    for name in names:
        records, _offset, _size = read_log_file(VECTORS / name)
        versions = set()
        for record in records:
            try:
                versions.add(decode_envelope(record).version)
            except ProtocolError:
                continue
        assert versions == {1}, name
        assert set(_commits_in(records)) <= {1, 2, 3}, name


# -- one program writes a whole log ------------------------------------------------------


@pytest.mark.parametrize("log", [1, 2])
@pytest.mark.parametrize("at", [1, 5, 8])
def test_an_event_of_the_other_version_is_blamed_on_its_signer(
        monkeypatch: pytest.MonkeyPatch, log: int, at: int) -> None:
    # At a cut commit, a cut reveal and a deck commit: each validly signed by its seat.
    _deck(monkeypatch, DECK_OF_LOG[log])
    tables = make_seats(STANDARD, 1, b"other-version")
    run(tables, until=lambda: len(tables[0].envelopes) == at)
    exp = tables[0].expected()
    assert exp is not None
    honest = sign_next(tables[exp.seat])
    assert honest.version == log
    other = 3 - log
    identity = tables[exp.seat]._identity
    assert identity is not None
    forged = sign_envelope(identity, honest.session_id, honest.seq, honest.prev, honest.seat,
                           honest.kind, honest.body, version=other)
    caught = _refused_everywhere(tables, forged, exp.seat, ViolationCode.FORM_LOG_VERSION)
    assert caught[0].evidence[0] == forged.encode()
    assert f"as log version {other} in a log of version {log}" in caught[0].reason
    _proven(verify_records([*tables[0].encoded, forged.encode()]), exp.seat,
            ViolationCode.FORM_LOG_VERSION)
    for table in tables:  # the honest event is still taken
        table.receive(honest)


def test_a_seat_refuses_a_roster_of_another_version_blaming_nobody(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Only programs of different releases could meet so (the wire version keeps
    # them apart): the seat cannot sign a hand that log may hold.
    _deck(monkeypatch, 3)
    old = make_seats(STANDARD, 1, b"roster-version")
    _deck(monkeypatch, 4)
    new = make_seats(STANDARD, 1, b"roster-version")
    roster = old[0].roster_event()
    assert roster.version == 1 and new[1].log_version == 2
    with pytest.raises(ProtocolError) as refused:
        new[1].receive(roster)
    assert not isinstance(refused.value, Cheating)
    assert refused.value.code is ViolationCode.LOCAL_MISUSE
    assert "update the older one" in str(refused.value)
    assert new[1].envelopes == [] and new[1].log_version == 2
    new[1].receive(new[0].roster_event())
    # An observer takes either version from the roster.
    for table, version in ((Table(old[0].roster), 1), (Table(new[0].roster), 2)):
        assert table.log_version is None
        table.receive((old if version == 1 else new)[0].roster_event())
        assert table.log_version == version


# -- the deck version is the log's: a downgrade is proven ---------------------------------


def _at_commit(tables: list[Table], done: int) -> Callable[[], bool]:
    def due() -> bool:
        exp = tables[0].expected()
        return (exp is not None and exp.kinds == (ev.COMMIT,)
                and len(_commits_in(tables[0].encoded)) == done)
    return due


@pytest.mark.parametrize(("log", "named"), [(2, 3), (2, 2), (2, 1), (1, 4)])
@pytest.mark.parametrize("done", [0, 1])
def test_a_commit_of_a_deck_version_the_log_does_not_hold_is_a_proven_downgrade(
        monkeypatch: pytest.MonkeyPatch, log: int, named: int, done: int) -> None:
    # The hand's first commit too: there the observer used to take the version named.
    _deck(monkeypatch, DECK_OF_LOG[log])
    tables = make_seats(STANDARD, 1, b"downgrade")
    run(tables, until=_at_commit(tables, done))
    exp = tables[0].expected()
    assert exp is not None
    seat = exp.seat
    commit = tables[seat]._sign(ev.COMMIT, [Commit(seat, bytes(32), named).to_wire()])
    assert commit.version == log
    caught = _refused_everywhere(tables, commit, seat, ViolationCode.DECK_WRONG_VERSION)
    assert all(f"deck protocol version {named} in a log of version {log}" in c.reason
               for c in caught)
    # As signed into the log, and as the evidence of the abort the honest seats sign.
    _proven(verify_records([*tables[0].encoded, commit.encode()]), seat,
            ViolationCode.DECK_WRONG_VERSION)
    witness = tables[(seat + 1) % 3]
    abort = witness.abort_event(seat, caught[0].reason, caught[0].evidence,
                                cause=ViolationCode.DECK_WRONG_VERSION.value)
    for table in tables:
        table.receive(abort)
    report = verify_records(tables[0].encoded)
    assert report.exit_code == 1 and report.claims == []
    assert [(v.seat, v.proven) for v in report.violations] == [(seat, True)]
    assert report.violations[0].code is ViolationCode.DECK_WRONG_VERSION


@pytest.mark.parametrize("log", [1, 2])
def test_a_commit_the_log_holds_is_taken(monkeypatch: pytest.MonkeyPatch, log: int) -> None:
    # The check above refuses only what the log cannot hold: the seat's own commit passes.
    _deck(monkeypatch, DECK_OF_LOG[log])
    tables = make_seats(STANDARD, 1, b"downgrade")
    run(tables, until=_at_commit(tables, 0))
    exp = tables[0].expected()
    assert exp is not None
    commit = sign_next(tables[exp.seat])
    assert commit.body[0][3] == DECK_OF_LOG[log]
    for table in [*tables, _observer(tables)]:
        table.receive(commit)


@pytest.mark.parametrize(("lang", "words"), [
    ("en", "seat 1 (bot-1) - signed an event of another log version than its log's"),
    ("fr", "a signé un événement d'une autre version de journal que celle de son journal"),
    ("it", "ha firmato un evento di una versione del registro diversa da quella del suo "
           "registro"),
    ("pt", "assinou um evento de outra versão de registro que a do seu registro"),
    ("nl", "ondertekende een gebeurtenis van een andere logboekversie dan die van zijn "
           "logboek"),
])
def test_gleek_verify_words_the_other_version_in_every_language(
        lang: str, words: str) -> None:
    tables = make_seats(STANDARD, 1, b"other-version-words")
    run(tables, until=lambda: len(tables[0].envelopes) == 5)
    honest = sign_next(tables[1])
    identity = tables[1]._identity
    assert identity is not None and honest.seat == 1
    forged = sign_envelope(identity, honest.session_id, honest.seq, honest.prev, 1,
                           honest.kind, honest.body, version=1)
    report = verify_records([*tables[0].encoded, forged.encode()])
    i18n.set_language(lang, {})
    text = text_report(report).replace("\u00a0", " ").replace("\u202f", " ")
    assert words in text, text


def test_a_version_3_record_is_a_newer_programs_never_a_seats_fault() -> None:
    # Over a version 2 log: all of it of version 3 is a newer program's log (not
    # judged); one record of version 3 is an altered record, nobody named.
    def as_version(record: bytes, version: int) -> bytes:
        fields = canonical.decode(record, max_len=1 << 20, max_depth=32, max_items=1 << 20)
        assert isinstance(fields, list)
        return canonical.encode([version, *fields[1:]])

    records = list(_v2_log())
    newer = verify_records([as_version(r, 3) for r in records])
    assert newer.judgement is Judgement.UNREADABLE and newer.exit_code == 2
    assert newer.error_code is ViolationCode.LOG_NEWER_VERSION and newer.log_version == 3
    assert newer.violations == [] and newer.claims == []
    altered = verify_records([*records[:-1], as_version(records[-1], 3)])
    assert [(v.seq, v.seat, v.code) for v in altered.violations] == [
        (len(records) - 1, None, ViolationCode.LOG_UNREADABLE_EVENT)]
