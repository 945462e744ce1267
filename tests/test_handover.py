"""A person hands their seat to a bot: a signed ``handover`` in every log, the game unchanged.

Real runners over memory meshes: the seat's runner signs the hand-over when
the seat is next to sign, then its successor (a bot) plays on with the same
keys; the session ends normally and every log verifies fair and complete,
saying from which event the bot played the seat. A hand-over signed by
another seat, out of turn, in another session or malformed is refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest
from prepared import started
from test_peer_runner import Sleeper, runners

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import Cheating, ProtocolError
from gleek_p2p.base.violation_codes import ViolationCode
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.envelope import sign_envelope
from gleek_p2p.rules import VARIANTS, Event
from gleek_p2p.session.peer import BotPlayer, Player, SessionRunner
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Decision, Table
from gleek_p2p.table.verify import Judgement, verify_records
from gleek_p2p.tools.report import json_report, text_report
from gleek_p2p.tools.selfplay import make_seats
from gleek_p2p.ui.app import end_lines

#: "From event N, bot-1's seat was played by a bot (signed by bot-1)." in each language.
HANDED = {
    "en": "From event {n}, bot-1's seat was played by a bot (signed by bot-1).",
    "fr": "À partir de l'événement {n}, la place de bot-1 a été jouée par un bot "
          "(signé par bot-1).",
    "it": "Dall'evento {n}, il posto di bot-1 è stato giocato da un bot (firmato da bot-1).",
    "pt": "A partir do evento {n}, o lugar de bot-1 foi jogado por um bot (assinado por bot-1).",
    "nl": "Vanaf gebeurtenis {n} speelde een bot de plaats van bot-1 (ondertekend door "
          "bot-1).",
}


class Person:
    """A person at seat 1: asked for a move, they hand the seat over instead."""

    def __init__(self) -> None:
        self.runner: SessionRunner | None = None
        self.asked = 0
        self.notes: list[str] = []

    async def decide(self, table: Table, decision: Decision) -> Event:
        self.asked += 1
        assert self.runner is not None
        if self.asked == 2:  # one move by hand, then the bot
            assert self.runner.hand_over()
            await asyncio.sleep(3600)  # the runner drops this decision
        return decision.legal[0]

    def update(self, table: Table, applied: Sequence[Event], note: str | None) -> None:
        if note:
            self.notes.append(note)


def successor(table: Table) -> tuple[Player, str]:
    return BotPlayer(RandomStrategy(7)), "random"


async def test_a_seat_handed_to_a_bot_finishes_the_session_fair(tmp_path: Path) -> None:
    person = Person()
    players = [BotPlayer(RandomStrategy(0)), person, BotPlayer(RandomStrategy(2))]
    run, stores, _ = runners(tmp_path, b"handover", hands=2, timeout=3600, players=players)
    run[1].successor = successor
    person.runner = run[1]
    outcomes = await asyncio.wait_for(asyncio.gather(*(r.run() for r in run)), 120)
    assert all(o.finished and not o.aborted for o in outcomes)
    assert stores[0].records == stores[1].records == stores[2].records
    assert person.asked == 2 and run[1].player is not person
    handovers = run[0].table.handovers
    assert len(handovers) == 1 and handovers[0].seat == 1 and handovers[0].bot == "random"
    at = handovers[0].seq
    # Signed by seat 1 at its own turn, right before the bot's first move.
    assert run[0].table.envelopes[at].seat == 1
    assert run[0].table.envelopes[at + 1].seat == 1
    assert run[0].table.envelopes[at + 1].kind == ev.ACT
    from gleek_p2p.ui.replay import Replay

    for store in stores:
        report = verify_records(store.records)
        assert report.judgement is Judgement.FAIR and report.complete
        assert HANDED["en"].format(n=at) in Replay.load(store.records).verdict()
        assert json_report(report)["handovers"] == [{"event": at, "seat": 1, "bot": "random"}]
        for lang, words in sorted(HANDED.items()):
            i18n.set_language(lang, {})
            try:
                said = words.format(n=at)
                assert said in text_report(report), lang
                box = [text for _style, text in end_lines(run[0].table, outcomes[0])]
                assert said in box, lang
            finally:
                i18n.set_language("en", {})


async def test_bot_after_takes_the_seat_of_a_person_who_does_not_move(
        tmp_path: Path) -> None:
    players = [BotPlayer(RandomStrategy(0)), Sleeper(), BotPlayer(RandomStrategy(2))]
    run, stores, _ = runners(tmp_path, b"bot-after", timeout=3600, players=players)
    run[1].successor = successor
    run[1].bot_after = 0.05
    outcomes = await asyncio.wait_for(asyncio.gather(*(r.run() for r in run)), 120)
    assert all(o.finished and not o.aborted for o in outcomes)
    assert stores[0].records == stores[1].records == stores[2].records
    assert run[1].handed_over.is_set()
    (handover,) = run[2].table.handovers
    assert handover.seat == 1
    # Nothing of seat 1's was decided before the bot took over: the hand-over comes
    # before its first move.
    acts = [e for e in run[2].table.envelopes[:handover.seq] if e.kind == ev.ACT]
    assert all(e.seat != 1 for e in acts)
    report = verify_records(stores[0].records)
    assert report.judgement is Judgement.FAIR and report.complete


async def test_the_person_takes_the_seat_back_by_running_again(tmp_path: Path) -> None:
    person = Person()
    players = [BotPlayer(RandomStrategy(0)), person, BotPlayer(RandomStrategy(2))]
    run, stores, meshes = runners(tmp_path, b"take-back", hands=2, timeout=3600,
                                  players=players)
    run[1].successor = successor
    person.runner = run[1]
    tasks = [asyncio.create_task(r.run()) for r in run]
    while not run[1].table.handovers:
        await asyncio.sleep(0.001)
    # Stopped (Ctrl-C) while the bot plays: no leave, the others wait for the seat.
    tasks[1].cancel()
    with pytest.raises(asyncio.CancelledError):
        await tasks[1]
    # The same command again: the seat's log and keys, a person plays (and hands over again).
    old = run[1].table
    table = Table(old.roster, 1, old._identity, old._secret)
    SessionRunner.resume_records(table, stores[1].records)
    again = Person()
    again.asked = -5  # some moves by hand, then a second hand-over
    back = SessionRunner(table, stores[1], meshes[1], again, timeout=3600,
                         successor=successor)
    again.runner = back
    outcomes = await asyncio.wait_for(asyncio.gather(tasks[0], tasks[2], back.run()), 120)
    assert all(o.finished and not o.aborted for o in outcomes)
    assert stores[0].records == stores[1].records == stores[2].records
    first, second = run[0].table.handovers
    assert first.seat == second.seat == 1 and first.seq < second.seq
    # Taken back signed: a retake by seat 1 at its own turn, before the person's first
    # move after the restart (the bot's moves come before it, the person's after).
    changes = run[0].table.seat_changes
    assert [type(c).__name__ for c in changes] == ["Handover", "Retake", "Handover"]
    retake = changes[1]
    envelopes = run[0].table.envelopes
    assert envelopes[retake.seq].kind == ev.RETAKE and envelopes[retake.seq].seat == 1
    assert envelopes[retake.seq + 1].kind == ev.ACT and envelopes[retake.seq + 1].seat == 1
    # The person is told, on their screen.
    assert (f"You play your seat again: every log records it from event {retake.seq}, "
            "signed by you.") in again.notes
    acts_between = [e for e in envelopes[retake.seq:second.seq]
                    if e.kind == ev.ACT and e.seat == 1]
    assert acts_between
    report = verify_records(stores[0].records)
    assert report.judgement is Judgement.FAIR and report.complete
    text = text_report(report)
    assert HANDED["en"].format(n=first.seq) in text
    assert (f"From event {retake.seq}, bot-1 took the seat back from the bot (signed by "
            "bot-1).") in text
    assert HANDED["en"].format(n=second.seq) in text


# ------------------------------------------------------------ the table refuses


_started = started  # built once per run (tests/prepared.py)


def test_a_handover_is_taken_from_the_seat_to_sign_and_changes_nothing() -> None:
    tables = _started(b"handover-table")
    exp = tables[0].expected()
    assert exp is not None
    seat = exp.seat
    handover = tables[seat].handover_event("strong")
    for table in tables:
        table.receive(handover)
    assert all(t.expected() == exp for t in tables)
    assert tables[0].handovers[0].seq == 12 and tables[0].handovers[0].seat == seat
    # The seat then signs the event it owed.
    step = tables[seat].auto_event()
    assert step is not None
    for table in tables:
        table.receive(step)
    now = tables[0].expected()
    assert now is not None
    with pytest.raises(ProtocolError):
        tables[(now.seat + 1) % 3].handover_event("strong")  # not its turn: refused locally


@pytest.mark.parametrize("forgery", ["other-seat", "other-key", "other-session", "body",
                                     "long-name", "twice", "first"])
def test_a_forged_or_misplaced_handover_is_refused(forgery: str) -> None:
    tables = _started(b"handover-forged")
    exp = tables[0].expected()
    assert exp is not None
    seat, other = exp.seat, (exp.seat + 1) % 3
    me, them = tables[seat], tables[other]
    receiver = tables[(exp.seat + 2) % 3]
    n, head = len(me.envelopes), me.head
    code: ViolationCode | None
    if forgery == "other-seat":  # signed by the seat that is not next, with its own key
        bad = sign_envelope(them._identity, me.session_id, n, head, other, ev.HANDOVER,
                            ["strong"])
        code = ViolationCode.TURN_OUT_OF_TURN
    elif forgery == "other-key":  # claims the seat to sign next, under another seat's key
        bad = sign_envelope(them._identity, me.session_id, n, head, seat, ev.HANDOVER,
                            ["strong"])
        code = None
    elif forgery == "other-session":  # a true handover of the same seat, another session
        elsewhere = _started(b"handover-elsewhere")
        bad = elsewhere[elsewhere[0].expected().seat].handover_event("strong")  # type: ignore[union-attr]
        code = ViolationCode.CHAIN_OTHER_SESSION
    elif forgery == "body":
        bad = me._sign(ev.HANDOVER, [b"strong"])
        code = ViolationCode.FORM_EVENT
    elif forgery == "long-name":
        bad = me._sign(ev.HANDOVER, ["x" * (ev.MAX_BOT_NAME + 1)])
        code = ViolationCode.FORM_EVENT
    elif forgery == "twice":
        first = me.handover_event("strong")
        for table in tables:
            table.receive(first)
        bad = me._sign(ev.HANDOVER, ["strong"])
        code = ViolationCode.TURN_WRONG_KIND
    else:  # before the roster: the log's first event is the roster
        fresh = make_seats(VARIANTS["standard"], 1, b"handover-first", ["A", "B", "C"])
        receiver = fresh[1]
        bad = fresh[0]._sign(ev.HANDOVER, ["strong"])
        code = ViolationCode.TURN_WRONG_KIND
    before = (len(receiver.envelopes), receiver.head, receiver.handovers, receiver.expected())
    with pytest.raises((ProtocolError, Cheating)) as info:
        receiver.receive(bad)
    if code is not None:
        assert info.value.code is code, info.value
    if isinstance(info.value, Cheating):
        assert info.value.seat == bad.seat  # blamed on its signer, with the event as proof
        assert bad.encode() in info.value.evidence
    assert (len(receiver.envelopes), receiver.head, receiver.handovers,
            receiver.expected()) == before
    # The table goes on as if the forgery never came.
    step = tables[0].expected()
    assert step is not None and not receiver.finished


# ------------------------------------------------------------ the console


#: The leave box's keys with the bot offered, in each language.
BOX_KEYS = {
    "en": "b: let a bot finish my seat",
    "fr": "b : un bot finit ma place",
    "it": "b: un bot finisce il mio posto",
    "pt": "b: um bot termina meu lugar",
    "nl": "b: een bot maakt mijn plaats af",
}


async def test_q_then_b_at_the_console_hands_the_seat_over(tmp_path: Path) -> None:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from gleek_p2p.log.store import LogStore
    from gleek_p2p.rules import Variant
    from gleek_p2p.session.peer import MemoryMesh
    from gleek_p2p.ui.app import HumanPlayer

    tables = make_seats(Variant(), 1, b"ui-handover", ["you", "Bob", "Carol"])
    meshes = MemoryMesh.create(3)
    stores = [LogStore.open(tmp_path / f"seat{i}.log") for i in range(3)]
    said: list[str] = []
    with create_pipe_input() as pipe:
        human = HumanPlayer(input=pipe, output=DummyOutput())
        human.say = said.append
        players: list[Player] = [human, BotPlayer(RandomStrategy(1)),
                                 BotPlayer(RandomStrategy(2))]
        run = [SessionRunner(t, s, m, p, timeout=60, successor=successor if i == 0 else None)
               for i, (t, s, m, p) in enumerate(zip(tables, stores, meshes, players,
                                                    strict=True))]
        human.attach_runner(run[0])
        bots = [asyncio.ensure_future(r.run()) for r in run[1:]]

        async def hand_over() -> None:
            while human.chooser is None:
                await asyncio.sleep(0.002)
            pipe.send_text("q")
            while "Leave the table?" not in human.screen.dump(100, 30):
                await asyncio.sleep(0.01)
            for lang, words in sorted(BOX_KEYS.items()):
                i18n.set_language(lang, {})
                try:
                    assert words in human.screen.dump(100, 30), lang
                finally:
                    i18n.set_language("en", {})
            pipe.send_text("b")

        driver = asyncio.ensure_future(hand_over())
        outcome = await asyncio.wait_for(human.run_alongside(run[0].run()), 60)
        await driver
        others = await asyncio.wait_for(asyncio.gather(*bots), 60)
    assert outcome.finished and all(o.finished for o in others)
    assert said and "A bot plays your seat" in said[0]
    assert stores[0].records == stores[1].records == stores[2].records
    (handover,) = tables[1].handovers
    assert handover.seat == 0 and run[0].player is not human
    report = verify_records(stores[0].records)
    assert report.judgement is Judgement.FAIR and report.complete


async def test_no_bot_is_offered_without_a_successor(tmp_path: Path) -> None:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from gleek_p2p.ui.app import HumanPlayer

    with create_pipe_input() as pipe:
        human = HumanPlayer(input=pipe, output=DummyOutput())
        assert not human._bot_finishes(True)  # no runner yet: nothing to hand over to
        human.screen.press("q")
        assert "b: let a bot" not in human.screen.dump(100, 30)
        human.screen.press("b")
        assert human.runner is None and not human.bot_plays.is_set()
