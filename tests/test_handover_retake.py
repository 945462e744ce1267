"""A person takes their seat back from the bot: a signed ``retake`` at the seat's own turn.

The table takes a ``retake`` only from the seat to sign next and only while a bot
plays it (its last ``handover`` has no retake after it); it changes nothing in
the game. Every forged or misplaced one is refused with its code, the table
unchanged. ``gleek verify``, the replay and the end box say it in every language.
And end to end: a person's ``play_session`` stopped while its bot plays, run again
with the same data folder, signs the retake at the seat's turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest
from prepared import once
from test_handover import _started

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import Cheating, ProtocolError
from gleek_p2p.base.violation_codes import ViolationCode
from gleek_p2p.bots.strategy import RandomStrategy, choose_now
from gleek_p2p.log.envelope import Envelope, sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.rules import VARIANTS
from gleek_p2p.rules import Event as Move
from gleek_p2p.session.lobby import LobbyConfig
from gleek_p2p.session.peer import BotPlayer, SessionRunner
from gleek_p2p.session.play import play_session
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Decision, Handover, Retake, Table
from gleek_p2p.table.verify import Judgement, VerifyReport, verify_records
from gleek_p2p.tools.report import json_report, text_report
from gleek_p2p.tools.selfplay import make_seats
from gleek_p2p.ui.app import end_lines
from gleek_p2p.ui.replay import Replay

#: "From event N, Ben took the seat back from the bot (signed by Ben)." in each language.
TAKEN = {
    "en": "From event {n}, Ben took the seat back from the bot (signed by Ben).",
    "fr": "À partir de l'événement {n}, Ben a repris sa place au bot (signé par Ben).",
    "it": "Dall'evento {n}, Ben ha ripreso il posto dal bot (firmato da Ben).",
    "pt": "A partir do evento {n}, Ben retomou o lugar do bot (assinado por Ben).",
    "nl": "Vanaf gebeurtenis {n} nam Ben de plaats terug van de bot (ondertekend door Ben).",
}

#: What the person's screen says when their peer signs the retake.
NOTE = {
    "en": "You play your seat again: every log records it from event 7, signed by you.",
    "fr": "Vous jouez de nouveau votre place\u00a0: chaque journal l'enregistre à partir de "
          "l'événement 7, signé par vous.",
    "it": "Giochi di nuovo il tuo posto: ogni registro lo annota dall'evento 7, firmato da te.",
    "pt": "Você joga seu lugar de novo: cada registro anota isso a partir do evento 7, "
          "assinado por você.",
    "nl": "Je speelt je plaats weer zelf: elk logboek legt het vast vanaf gebeurtenis 7, "
          "ondertekend door jou.",
}


def _everyone(tables: list[Table], envelope: Envelope) -> None:
    for table in tables:
        table.receive(envelope)


def _handed(seed: bytes) -> tuple[list[Table], int]:
    """Three seats 12 events in; the seat to sign next handed over, its event signed."""
    tables = _started(seed)
    exp = tables[0].expected()
    assert exp is not None
    seat = exp.seat
    _everyone(tables, tables[seat].handover_event("strong"))
    step = tables[seat].auto_event()
    assert step is not None
    _everyone(tables, step)
    return tables, seat


def _to_turn_of(tables: list[Table], seat: int) -> None:
    """Play on (protocol steps and random moves) until ``seat`` is the one to sign."""
    bots = [RandomStrategy(s) for s in range(3)]
    while True:
        exp = tables[0].expected()
        assert exp is not None
        if exp.seat == seat:
            return
        table = tables[exp.seat]
        envelope = table.auto_event()
        if envelope is None:
            decision = table.decision()
            assert decision is not None
            envelope = table.act(choose_now(bots[exp.seat], decision.view, decision.legal))
        _everyone(tables, envelope)


def test_a_retake_at_the_seats_turn_gives_it_back_and_changes_nothing() -> None:
    tables, seat = _handed(b"retake-table")
    assert all(t.handed_over(seat) for t in tables)
    with pytest.raises(ProtocolError) as misuse:
        tables[(seat + 1) % 3].retake_event()  # no bot plays that seat: refused locally
    assert misuse.value.code is ViolationCode.LOCAL_MISUSE
    _to_turn_of(tables, seat)
    exp = tables[0].expected()
    retake = tables[seat].retake_event()
    _everyone(tables, retake)
    assert all(t.expected() == exp and not t.handed_over(seat) for t in tables)
    changes = tables[1].seat_changes
    assert [type(c) for c in changes] == [Handover, Retake]
    assert changes[1] == Retake(retake.seq, seat) and tables[1].handovers == changes[:1]
    # The seat may hand over again later (after a real event), and take itself back again.
    step = tables[seat].auto_event() or tables[seat].act(tables[seat].decision().legal[0])  # type: ignore[union-attr]
    _everyone(tables, step)
    _to_turn_of(tables, seat)
    _everyone(tables, tables[seat].handover_event("strong"))
    _everyone(tables, tables[seat].retake_event())  # at once, before the bot moved
    assert len(tables[2].seat_changes) == 4 and not tables[2].handed_over(seat)


@once
def _handed_at_its_turn(seed: bytes) -> tuple[list[Table], int]:
    """``_handed``, played on until the handed seat is due again (built once per seed:
    each test gets its own copy to forge on)."""
    tables, seat = _handed(seed)
    _to_turn_of(tables, seat)
    return tables, seat


@pytest.mark.parametrize("forgery", ["never-handed", "other-seat", "not-its-turn", "other-key",
                                     "other-session", "body", "twice", "handover-after",
                                     "first"])
def test_a_forged_or_misplaced_retake_is_refused(forgery: str) -> None:
    tables, seat = _handed_at_its_turn(b"retake-forged")
    me = tables[seat]
    receiver = tables[(seat + 2) % 3]
    code: ViolationCode | None
    if forgery == "never-handed":  # the seat due signs a retake though no bot plays it
        tables, seat = _started(b"retake-never"), 0
        exp = tables[0].expected()
        assert exp is not None
        me, receiver = tables[exp.seat], tables[(exp.seat + 1) % 3]
        bad = me._sign(ev.RETAKE, [])
        code = ViolationCode.TURN_NOT_HANDED_OVER
    elif forgery == "other-seat":  # a seat no bot plays, signing where the handed seat is due
        other = tables[(seat + 1) % 3]
        bad = other._sign(ev.RETAKE, [])
        code = ViolationCode.TURN_OUT_OF_TURN
    elif forgery == "not-its-turn":  # the handed seat itself, when another seat is due
        step = me.auto_event() or me.act(me.decision().legal[0])  # type: ignore[union-attr]
        _everyone(tables, step)
        _to_turn_of(tables, (seat + 1) % 3)
        bad = me._sign(ev.RETAKE, [])
        receiver = tables[(seat + 1) % 3]
        code = ViolationCode.TURN_OUT_OF_TURN
    elif forgery == "other-key":  # claims the handed seat, under another seat's key
        them = tables[(seat + 1) % 3]
        bad = sign_envelope(them._identity, me.session_id, len(me.envelopes), me.head, seat,
                            ev.RETAKE, [])
        code = None
    elif forgery == "other-session":  # a true retake of a seat of another session
        elsewhere, at = _handed_at_its_turn(b"retake-elsewhere")
        bad = elsewhere[at].retake_event()
        code = ViolationCode.CHAIN_OTHER_SESSION
    elif forgery == "body":
        bad = me._sign(ev.RETAKE, ["person"])
        code = ViolationCode.FORM_EVENT
    elif forgery == "twice":  # a second retake right after the first: no bot plays it now
        _everyone(tables, me.retake_event())
        bad = me._sign(ev.RETAKE, [])
        code = ViolationCode.TURN_NOT_HANDED_OVER
    elif forgery == "handover-after":  # handover, retake, handover...: the log would grow
        _everyone(tables, me.retake_event())
        bad = me._sign(ev.HANDOVER, ["strong"])
        code = ViolationCode.TURN_WRONG_KIND
    else:  # as event 0: the log's first event is the roster
        fresh = make_seats(VARIANTS["standard"], 1, b"retake-first", ["A", "B", "C"])
        receiver = fresh[1]
        bad = fresh[0]._sign(ev.RETAKE, [])
        code = ViolationCode.TURN_WRONG_KIND
    before = (len(receiver.envelopes), receiver.head, receiver.seat_changes,
              receiver.expected())
    with pytest.raises((ProtocolError, Cheating)) as info:
        receiver.receive(bad)
    if code is not None:
        assert info.value.code is code, info.value
    else:
        assert info.value.code is ViolationCode.CHAIN_BAD_SIGNATURE, info.value
    if isinstance(info.value, Cheating):
        assert info.value.seat == bad.seat and bad.encode() in info.value.evidence
    assert (len(receiver.envelopes), receiver.head, receiver.seat_changes,
            receiver.expected()) == before
    # In a log, the same event is the verdict's proof, with its code.
    if forgery not in ("other-key", "other-session", "first"):
        report = verify_records([*receiver.encoded, bad.encode()])
        assert report.judgement is Judgement.UNFAIR
        assert report.violations[0].code is code and report.violations[0].seq == bad.seq


def _session_with_retake() -> tuple[list[bytes], Table, int]:
    """A whole 1-hand session: Ben hands over at his first move, takes it back at his third."""
    tables = make_seats(VARIANTS["standard"], 1, b"retake-said", ("Anne", "Ben", "Cat"))
    bots = [RandomStrategy(s) for s in range(3)]
    moves = 0
    retake_at = -1
    while not tables[0].finished:
        exp = tables[0].expected()
        assert exp is not None
        table = tables[exp.seat]
        envelope = table.auto_event()
        if envelope is None:
            decision = table.decision()
            assert decision is not None
            if exp.seat == 1 and moves == 0 and not table.handovers:
                envelope = table.handover_event("strong")
            elif exp.seat == 1 and moves == 2 and table.handed_over(1):
                envelope = table.retake_event()
                retake_at = envelope.seq
            else:
                moves += exp.seat == 1
                envelope = table.act(choose_now(bots[exp.seat], decision.view,
                                                decision.legal))
        _everyone(tables, envelope)
    return list(tables[0].encoded), tables[0], retake_at


@pytest.fixture(scope="module")
def retake_said() -> tuple[Table, int, VerifyReport, Replay]:
    """The session with a retake, verified and loaded in the replay once: a report and
    a replay hold facts, worded in the reader's language when read."""
    records, table, at = _session_with_retake()
    return table, at, verify_records(records), Replay.load(records)


@pytest.mark.parametrize("lang", sorted(TAKEN))
def test_verify_the_replay_and_the_end_box_say_the_retake(
        lang: str, retake_said: tuple[Table, int, VerifyReport, Replay]) -> None:
    table, at, report, replay = retake_said
    assert report.judgement is Judgement.FAIR and report.complete
    assert json_report(report)["retakes"] == [{"event": at, "seat": 1}]
    (handover,) = json_report(report)["handovers"]
    assert handover["seat"] == 1 and handover["event"] < at
    i18n.set_language(lang, {})
    try:
        said = TAKEN[lang].format(n=at)
        text = text_report(report)
        assert said in text, text
        # In log order: the handover's sentence first.
        assert text.index(f"{handover['event']}") < text.index(said)
        assert said in replay.verdict()
        assert said in [words for _style, words in end_lines(table, None)]
        assert i18n._("You play your seat again: every log records it from event {event}, "
                      "signed by you.").format(event=7) == NOTE[lang]
    finally:
        i18n.set_language("en", {})


# ------------------------------------------------------------ the same command again


class _Person:
    """A person's player for ``play_session``: hands over at its second decision (or,
    ``again``, plays every decision by hand)."""

    def __init__(self, again: bool = False) -> None:
        self.again = again
        self.asked = 0
        self.runner: SessionRunner | None = None
        self.notes: list[str] = []

    def attach_runner(self, runner: SessionRunner) -> None:
        self.runner = runner

    async def decide(self, table: Table, decision: Decision) -> Move:
        self.asked += 1
        if not self.again and self.asked == 2:
            assert self.runner is not None and self.runner.hand_over()
            await asyncio.Event().wait()  # the runner drops this decision
        return decision.legal[0]

    def update(self, table: Table, applied: Sequence[Move], note: str | None) -> None:
        if note:
            self.notes.append(note)


class _StoppedBot(BotPlayer):
    """The bot the seat is handed to: it moves twice, then waits (to be stopped)."""

    def __init__(self, moved: asyncio.Event) -> None:
        super().__init__(RandomStrategy(7), worker="inline")
        self.moves = 0
        self.moved = moved

    async def decide(self, table: Table, decision: Decision) -> Move:
        self.moves += 1
        if self.moves > 2:
            self.moved.set()
            await asyncio.Event().wait()
        return await super().decide(table, decision)


async def test_the_same_command_again_takes_the_seat_back_signed(tmp_path: Path) -> None:
    """Three ``play_session`` peers on 127.0.0.1: Anne hands over, her peer is stopped
    while the bot plays (Ctrl-C), and the same call with the same data folder resumes
    the seat, signs the retake at her turn and plays to the end."""
    variant = VARIANTS["standard"]
    moved = asyncio.Event()
    ports: list[int] = []
    tasks = []

    def config(name: str) -> LobbyConfig:
        return LobbyConfig(name=name, table="back/1", variant=variant,
                           listen=("127.0.0.1", 0),
                           peers=tuple(("127.0.0.1", p) for p in ports), dial_interval=0.2)

    for i, name in enumerate(("ben", "cat")):
        up: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        tasks.append(asyncio.create_task(play_session(
            identity=Identity.generate(bytes([i + 1]) * 32), config=config(name), hands=1,
            data_dir=tmp_path / name, player=BotPlayer(RandomStrategy(i), worker="inline"),
            timeout=120.0, on_ready=up.set_result)))
        ports.append(await up)
    anne = Identity.generate(b"\x09" * 32)
    first = _Person()
    stopped = asyncio.create_task(play_session(
        identity=anne, config=config("anne"), hands=1, data_dir=tmp_path / "anne",
        player=first, timeout=120.0,
        successor=lambda table: (_StoppedBot(moved), "random")))
    await asyncio.wait_for(moved.wait(), 120)
    stopped.cancel()  # Ctrl-C while the bot plays: no leave, the seat stays hers
    with pytest.raises(asyncio.CancelledError):
        await stopped
    again = _Person(again=True)
    result = await asyncio.wait_for(play_session(
        identity=anne, config=config("anne"), hands=1, data_dir=tmp_path / "anne",
        player=again, timeout=120.0,
        successor=lambda table: (BotPlayer(RandomStrategy(8)), "random")), 180)
    others = await asyncio.wait_for(asyncio.gather(*tasks), 120)
    logs = [r.log_path.read_bytes() for r in (result, *others)]
    assert logs[0] == logs[1] == logs[2] and result.outcome.finished
    table = result.table
    seat = table.roster.seat_of(anne.public)
    handover, retake = table.seat_changes
    assert isinstance(handover, Handover) and isinstance(retake, Retake)
    assert handover.seat == retake.seat == seat and handover.seq < retake.seq
    # The bot's two moves between them; then the person's, right after the retake.
    bot_moves = [e for e in table.envelopes[handover.seq:retake.seq]
                 if e.kind == ev.ACT and e.seat == seat]
    assert len(bot_moves) == 2
    assert table.envelopes[retake.seq + 1].kind == ev.ACT
    assert table.envelopes[retake.seq + 1].seat == seat and again.asked >= 1
    assert any(f"from event {retake.seq}, signed by you" in n for n in again.notes)
    report = verify_records([*table.encoded])
    assert report.judgement is Judgement.FAIR and report.complete
    assert json_report(report)["retakes"] == [{"event": retake.seq, "seat": seat}]
