"""A player who leaves: a signed ``leave`` in every log, one fair verdict naming who left.

Real runners over memory meshes: the leaver signs its leave at the head of its
log and sends it before its links close; the others take it (or, when it
crossed another seat's event, sign an abort carrying it), and every log then
verifies as fair, ended early, naming the leaver and nobody as a cheater.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from prepared import started, verified
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_peer_runner import Sleeper, runners

from gleek_p2p.base import i18n
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.net.messages import Event as Event_
from gleek_p2p.rules import Event
from gleek_p2p.session.peer import BotPlayer, SessionRunner
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Decision, Table
from gleek_p2p.table.verify import Judgement, VerifyReport, verify_records
from gleek_p2p.tools.report import json_report, text_report
from gleek_p2p.ui.app import HumanPlayer, end_lines


class Gate:
    """A player who decides (its first legal move) only once let through."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.go = asyncio.Event()

    async def decide(self, table: Table, decision: Decision) -> Event:
        self.asked.set()
        await self.go.wait()
        return decision.legal[0]

    def update(self, table: Table, applied: Sequence[Event], note: str | None) -> None:
        pass


def assert_left(report: VerifyReport, seat: int, name: str) -> None:
    assert report.judgement is Judgement.FAIR and report.exit_code == 0
    assert report.violations == [] and report.claims == [] and not report.complete
    assert report.ending is not None and report.ending.seat == seat
    assert report.ending.cause == ev.LEFT
    text = text_report(report)
    assert f"{name} left the table during hand 1 (signed by {name}" in text, text
    assert "NOT FAIR" not in text and "blaming" not in text
    ended = json_report(report)["ended"]
    assert ended["how"] == "left" and ended["seat"] == seat and ended["hand"] == 1


async def stop(task: asyncio.Task[object]) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_polite_leave_gives_one_fair_verdict_in_every_log(tmp_path: Path) -> None:
    # Seat 1 is asked for a move and leaves instead, on its own turn.
    players = [BotPlayer(RandomStrategy(0)), Sleeper(), BotPlayer(RandomStrategy(2))]
    run, stores, _ = runners(tmp_path, b"polite", timeout=3600, players=players)
    tasks = [asyncio.create_task(r.run()) for r in run]
    while run[1].table.decision() is None:
        await asyncio.sleep(0.001)
    await stop(tasks[1])  # the player leaves: its session task is cancelled
    assert run[1].leave()
    done = await asyncio.wait_for(asyncio.gather(tasks[0], tasks[2]), 30)  # not the timeout
    assert all(o.aborted and o.reason == "bot-1 left the table" for o in done)
    assert stores[0].records == stores[1].records == stores[2].records
    for store in stores:
        assert_left(verify_records(store.records), 1, "bot-1")
    # The leaver's own log, reloaded after a restart: the session is over.
    again = Table(run[1].table.roster, 1, run[1].table._identity, run[1].table._secret)
    SessionRunner.resume_records(again, stores[1].records)
    assert again.finished and again.verdict is not None and again.verdict.left == 1
    # The end box of a seat that stayed says who left, and blames nobody.
    box = " ".join(text for _style, text in end_lines(run[0].table, done[0]))
    assert "bot-1 left the table." in box and "blaming" not in box


async def test_a_leave_that_crosses_another_event_gives_the_same_verdict(
        tmp_path: Path) -> None:
    gate = Gate()
    players = [gate, BotPlayer(RandomStrategy(1)), BotPlayer(RandomStrategy(2))]
    run, stores, meshes = runners(tmp_path, b"crossed", timeout=3600, players=players)
    tasks = [asyncio.create_task(r.run()) for r in run]
    await asyncio.wait_for(gate.asked.wait(), 30)
    # Seat 1 leaves out of turn while seat 0 signs its move at the same position;
    # its leave is held up on the way (it reaches the others late).
    meshes[1].down.update({0, 2})
    await stop(tasks[1])
    head = len(run[1].table.envelopes)
    assert run[1].leave()
    leave = stores[1].records[-1]
    gate.go.set()
    while len(run[2].table.envelopes) <= head:
        await asyncio.sleep(0.001)
    for seat in (0, 2):
        meshes[seat]._queue.put_nowait((1, Event_(leave)))
    done = await asyncio.wait_for(asyncio.gather(tasks[0], tasks[2]), 30)
    assert all(o.aborted and o.reason == "bot-1 left the table" for o in done)
    # Three logs, two endings (a leave; an abort carrying it), one verdict.
    assert stores[0].records[-1] != leave and stores[0].records[head] != leave
    for store in stores:
        report = verify_records(store.records)
        assert_left(report, 1, "bot-1")
        assert report.ending is not None and report.ending.seq == head


async def test_a_claim_alone_reads_stopped_and_names_no_cheater(tmp_path: Path) -> None:
    players = [BotPlayer(RandomStrategy(0)), Sleeper(), BotPlayer(RandomStrategy(2))]
    run, stores, _ = runners(tmp_path, b"claim", timeout=0.5, players=players)
    tasks = [asyncio.create_task(r.run()) for r in run]
    done = await asyncio.wait_for(asyncio.gather(tasks[0], tasks[2]), 60)
    await stop(tasks[1])
    assert all("blaming" not in o.reason for o in done)
    for store in (stores[0], stores[2]):
        report = verify_records(store.records)
        assert report.judgement is Judgement.STOPPED and report.exit_code == 3
        assert report.violations == [] and report.claims
        text = text_report(report)
        assert "Verdict: STOPPED" in text and "cannot prove" in text
        assert "NOT FAIR" not in text and "blaming" not in text and "seat 1 (" not in text


@pytest.fixture(scope="module")
def ended_logs() -> dict[str, VerifyReport]:
    return {name: verified(name)
            for name in ("left-the-table", "left-crossed", "claim-only", "torn-last-record")}


WORDS = {
    "en": ("left the table during hand 2", "Verdict: FAIR", "Verdict: STOPPED", "says"),
    "fr": ("a quitté la table pendant la donne 2", "Verdict\u00a0: ÉQUITABLE",
           "Verdict\u00a0: ARRÊTÉE", "affirme"),
    "it": ("ha lasciato il tavolo durante la mano 2", "Verdetto: EQUO",
           "Verdetto: INTERROTTA", "afferma"),
    "pt": ("saiu da mesa durante a mão 2", "Veredito: JUSTO", "Veredito: PARADA", "afirma"),
    "nl": ("heeft de tafel verlaten tijdens spel 2", "Oordeel: EERLIJK", "Oordeel: GESTOPT",
           "zegt"),
}


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_the_three_verdicts_in_every_language(
        lang: str, ended_logs: dict[str, VerifyReport]) -> None:
    left, fair, stopped, says = WORDS[lang]
    i18n.set_language(lang, {})
    try:
        for name in ("left-the-table", "left-crossed"):
            text = text_report(ended_logs[name])
            assert f"Ben {left}" in text and fair in text, (lang, name)
        claim = text_report(ended_logs["claim-only"])
        assert stopped in claim and f"(Anne) {says}" in claim and "(Cat)" not in claim
        assert stopped in text_report(ended_logs["torn-last-record"])
    finally:
        i18n.set_language("en", {})


# ------------------------------------------------------------ the table and verify


_started = started  # built once per run (tests/prepared.py)


def test_a_leave_is_taken_out_of_turn_and_ends_the_session() -> None:
    tables = _started(b"leave-table")
    exp = tables[0].expected()
    assert exp is not None
    leaver = (exp.seat + 1) % 3
    leave = tables[leaver].leave_event()
    for table in tables:
        table.receive(leave)
    assert all(t.finished and t.verdict is not None and t.verdict.left == leaver
               and t.verdict.blamed is None for t in tables)
    from gleek_p2p.base.errors import ProtocolError

    with pytest.raises(ProtocolError):
        tables[leaver].leave_event()  # nothing left to leave
    report = verify_records(tables[0].encoded)
    assert report.fair and report.ending is not None and report.ending.hand == 0


def test_a_leave_with_a_body_is_blamed_on_its_signer() -> None:
    from gleek_p2p.base.errors import Cheating
    from gleek_p2p.base.violation_codes import ViolationCode

    tables = _started(b"leave-body")
    bad = tables[1]._sign(ev.LEAVE, [b"something"])
    with pytest.raises(Cheating) as info:
        tables[0].receive(bad)
    assert info.value.seat == 1 and info.value.code is ViolationCode.FORM_EVENT
    assert not tables[0].finished and len(tables[0].envelopes) == 12


def _left_abort(tables: list[Table], signer: int, evidence: bytes) -> VerifyReport:
    abort = tables[signer].abort_event(None, "Ben left the table", (evidence,), cause=ev.LEFT)
    return verify_records([*tables[signer].encoded, abort.encode()])


def test_an_abort_of_cause_left_proves_only_a_leave_on_this_chain() -> None:
    from gleek_p2p.log.envelope import sign_envelope
    from gleek_p2p.log.keys import Identity

    tables = _started(b"leave-forged")
    ben = tables[1]
    # Signed by Ben at the head, chained to this log: the leave checks out.
    real = ben.leave_event().encode()
    assert _left_abort(tables, 0, real).fair
    # Off this chain, from another session, or under a stranger's key: a claim.
    off_chain = sign_envelope(ben._identity, ben.session_id, len(ben.envelopes),
                              b"\x33" * 32, 1, ev.LEAVE, []).encode()
    other = _started(b"leave-elsewhere")[1].leave_event().encode()
    stranger = sign_envelope(Identity.generate(bytes(32)), ben.session_id,
                             len(ben.envelopes), ben.head, 1, ev.LEAVE, []).encode()
    later = sign_envelope(ben._identity, ben.session_id, len(ben.envelopes) + 5,
                          ben.head, 1, ev.LEAVE, []).encode()
    not_a_leave = sign_envelope(ben._identity, ben.session_id, len(ben.envelopes),
                                ben.head, 1, ev.ABORT, [-1, "x", []]).encode()
    for evidence in (off_chain, other, stranger, later, not_a_leave, b"junk"):
        report = _left_abort(tables, 0, evidence)
        assert report.judgement is Judgement.STOPPED and report.exit_code == 3
        assert report.violations == [] and report.ending is None
        text = text_report(report)
        assert "left the table during" not in text.split("Verdict")[-1].split(" says")[0]
        assert "NOT FAIR" not in text


# ------------------------------------------------------------ a property


@pytest.fixture(scope="module")
def one_hand() -> list[bytes]:
    from gleek_p2p.rules import VARIANTS
    from gleek_p2p.tools.selfplay import selfplay

    strategies = [RandomStrategy(bytes([s])) for s in range(3)]
    return selfplay(VARIANTS["standard"], 1, b"leave-property", strategies).records


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(at=st.integers(1, 10_000), leaver=st.integers(0, 2), crossed=st.booleans())
def test_any_seat_leaving_anywhere_is_fair_and_named(
        one_hand: list[bytes], at: int, leaver: int, crossed: bool) -> None:
    """Wherever a seat leaves (on its turn or not), directly or crossing another
    seat's event, verify says the same: fair, ended by that seat, at that position."""
    from gleek_p2p.log.envelope import decode_envelope
    from gleek_p2p.rules import VARIANTS
    from gleek_p2p.tools.selfplay import make_seats

    k = 1 + at % (len(one_hand) - 2)
    if crossed:
        assume(decode_envelope(one_hand[k]).seat != leaver)
    names = [f"random-{s}" for s in range(3)]
    tables = make_seats(VARIANTS["standard"], 1, b"leave-property", names)
    other = (leaver + 1) % 3
    for record in one_hand[:k]:
        for seat in (leaver, other):
            tables[seat].receive(decode_envelope(record), record)
    leave = tables[leaver].leave_event()
    if crossed:
        tables[other].receive(decode_envelope(one_hand[k]), one_hand[k])
        abort = tables[other].abort_event(None, "left", (leave.encode(),), cause=ev.LEFT)
        log = [*one_hand[: k + 1], abort.encode()]
    else:
        log = [*one_hand[:k], leave.encode()]
    report = verify_records(log)
    assert report.judgement is Judgement.FAIR and report.exit_code == 0
    assert report.ending is not None and (report.ending.seat, report.ending.seq) == (leaver, k)
    assert report.violations == [] and report.claims == []


SHELL_WORDS = {
    "en": ("gleek verify: fair, ended early: Ben left the table",
           "gleek verify: stopped on a claim", "Carol left the table.", "log stopped"),
    "fr": ("gleek verify\u00a0: équitable, terminée avant la fin\u00a0: Ben a quitté la table",
           "gleek verify\u00a0: arrêtée sur une affirmation", "Carol a quitté la table.",
           "journal arrêté"),
    "it": ("gleek verify: equa, terminata in anticipo: Ben ha lasciato il tavolo",
           "gleek verify: interrotta su un'affermazione", "Carol ha lasciato il tavolo.",
           "registro interrotto"),
    "pt": ("gleek verify: justa, encerrada antes do fim: Ben saiu da mesa",
           "gleek verify: parada numa alegação", "Carol saiu da mesa.", "registro parado"),
    "nl": ("gleek verify: eerlijk, vroegtijdig beëindigd: Ben heeft de tafel verlaten",
           "gleek verify: gestopt op een bewering", "Carol verliet de tafel.",
           "logboek gestopt"),
}


@pytest.mark.parametrize("lang", sorted(SHELL_WORDS))
def test_the_shell_says_the_verdict_in_every_language(
        lang: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from gleek_p2p.base.i18n import _
    from gleek_p2p.cli import commands
    from gleek_p2p.cli.peer import say_verdict
    from gleek_p2p.session.peer import Outcome
    from gleek_p2p.ui.app import end_lines

    sessions = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "sessions"
    fair, stopped, box, status = SHELL_WORDS[lang]
    # The shell verifies each log with verify_file, whose report holds no words: one
    # real verification of each vector serves all five languages.
    monkeypatch.setattr(commands, "verify_file", lambda path: verified(Path(path).stem))
    i18n.set_language(lang, {})
    try:
        assert say_verdict(sessions / "left-the-table.gleeklog") == 0
        assert say_verdict(sessions / "claim-only.gleeklog") == 3
        err = capsys.readouterr().err
        assert fair in err and stopped in err and "NOT" not in err
        tables = _started(b"leave-words")
        leave = tables[2].leave_event()
        tables[0].receive(leave)
        lines = end_lines(tables[0], Outcome(False, True, "x", 13))
        said = "\n".join(t for _s, t in lines)
        # The end box says it with the link's own sentence (one msgid for both),
        # in the reader's language: never the English one elsewhere.
        said_box = _("{name} left the table.").format(name="Cat")
        assert said_box in said
        assert lang == "en" or said_box != "Cat left the table."
        del box
        assert _("log stopped") == status
    finally:
        i18n.set_language("en", {})


def test_the_replay_tells_who_left_and_what_was_only_claimed() -> None:
    from gleek_p2p.ui.replay import Replay

    def replay(name: str) -> Replay:
        # The verdict reads only the report and the roster: ``Replay.load`` would
        # verify the log (the report shared here) and then rebuild every step
        # again, which this test does not read.
        report = verified(name)
        assert report.roster is not None
        return Replay(report.roster, [], report)

    left = replay("left-the-table").verdict()
    assert "Ben left the table during hand 2 (signed by Ben, event 100)." in left
    claim = replay("claim-only").verdict()
    # An old log's abort has no code: its reason is quoted as the signer's words.
    assert claim == ["event 95: seat 0 (Anne) says: “Cat did not send the keys of the deal "
                     "within 120 s” (the signer's own words). The log cannot prove it."]



async def test_a_leave_while_the_person_chooses_ends_the_turn_at_once(tmp_path: Path) -> None:
    """At a LAN party Bob was choosing a card when Carol left: the session was over
    (his log held her leave) but his screen still said "YOUR TURN" until he pressed
    a key. The screen's pending choice now ends when the table does."""
    with create_pipe_input() as inp:
        human = HumanPlayer(input=inp, output=DummyOutput())
        players = [human, Sleeper(), BotPlayer(RandomStrategy(2))]
        run, stores, _ = runners(tmp_path, b"left-while-choosing", timeout=3600,
                                 players=players)
        tasks = [asyncio.create_task(r.run()) for r in run]
        while human._future is None:
            await asyncio.sleep(0.01)
        await stop(tasks[1])
        assert run[1].leave()
        done = await asyncio.wait_for(asyncio.gather(tasks[0], tasks[2]), 30)  # no key
    assert all(o.aborted and o.reason == "bot-1 left the table" for o in done)
    assert_left(verify_records(stores[0].records), 1, "bot-1")
    assert "your turn" not in human.screen.dump().lower()
