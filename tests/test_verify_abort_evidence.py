"""An abort's evidence proves something only if it belongs where the abort stands.

A seat can always lay hands on events its victim signed somewhere else
(identity keys are long-lived): in an earlier session, later in this one, in
a fork of the chain. ``gleek verify`` must report such an abort as the
signer's claim and never name the victim as a proven cheater.
"""

from __future__ import annotations

from typing import Any

import pytest
from prepared import once

from gleek_p2p.bots.strategy import RandomStrategy, choose_now
from gleek_p2p.log.envelope import decode_envelope, sign_envelope
from gleek_p2p.rules import VARIANTS, Bid
from gleek_p2p.table import events as ev
from gleek_p2p.table.roster import Roster
from gleek_p2p.table.session import Table
from gleek_p2p.table.verify import Judgement, VerifyReport, verify_records
from gleek_p2p.tools.report import json_report, text_report
from gleek_p2p.tools.selfplay import make_seats

STANDARD = VARIANTS["standard"]
VICTIM, ACCUSER = 1, 2


def play(tables: list[Table], upto: int) -> None:
    """Let the seats play (random bots) until the log holds ``upto`` events."""
    bots = [RandomStrategy(s) for s in range(len(tables))]
    while len(tables[0].envelopes) < upto:
        exp = tables[0].expected()
        assert exp is not None
        table = tables[exp.seat]
        envelope = table.auto_event()
        if envelope is None:
            decision = table.decision()
            assert decision is not None
            envelope = table.act(choose_now(bots[exp.seat], decision.view, decision.legal))
        for other in tables:
            other.receive(envelope)


@once
def session(upto: int) -> list[Table]:
    """One 1-hand session ``upto`` events in (built once per run, a copy for each test:
    a test only needs some honest log whose victim signed events, not a log of its own)."""
    tables = make_seats(STANDARD, 1, b"evidence")
    if upto > 20:
        tables = session(20)  # the longer log continues the shorter one
    play(tables, upto)
    return tables


def same_players_new_session(tables: list[Table], nonce: bytes) -> list[Table]:
    old = tables[0].roster
    roster = Roster(old.variant, old.hands, old.publics, old.names, nonce)
    return [Table(roster, t.seat, t._identity, t._secret) for t in tables]


def victim_signed(table: Table, seq: int) -> bytes:
    """An event the victim signed in ``table``'s log at or after ``seq``."""
    for envelope in table.envelopes[seq:]:
        if envelope.seat == VICTIM:
            return envelope.encode()
    raise AssertionError("the victim signed nothing there")


def accuse(tables: list[Table], evidence: bytes) -> VerifyReport:
    abort = tables[ACCUSER].abort_event(VICTIM, "seat 1 cheated, here is the proof",
                                        (evidence,))
    return verify_records([*tables[ACCUSER].encoded, abort.encode()])


def assert_only_a_claim(report: VerifyReport) -> None:
    # Not proven: the session stopped on a claim (exit 3), nobody is named a cheater.
    assert report.judgement is Judgement.STOPPED and report.exit_code == 3
    assert report.violations == []
    claim = report.claims[-1]
    assert claim.seat == VICTIM and not claim.proven and claim.signer == ACCUSER
    assert "cannot prove" in claim.sentence()
    text = text_report(report)
    assert "NOT FAIR" not in text and "blaming" not in text, text
    assert "Verdict: STOPPED" in text and f"seat {ACCUSER} (" in text
    data = json_report(report)
    assert data["verdict"] == "stopped" and data["violations"] == []
    assert data["code"] == "abort.claim" and data["claims"][0]["signer"] == ACCUSER


def test_an_event_the_victim_signed_in_an_earlier_session_proves_nothing() -> None:
    earlier = session(50)
    now = same_players_new_session(earlier, b"\x07" * 32)
    play(now, 20)
    # Any of the victim's old events: the same position, a later one, the last.
    for seq in (len(now[0].envelopes), 5, 30):
        assert_only_a_claim(accuse(now, victim_signed(earlier[0], seq)))


def test_an_event_from_a_later_position_proves_nothing() -> None:
    tables = session(50)
    later = victim_signed(tables[0], 30)
    assert decode_envelope(later).seq > 20
    cut = session(20)
    assert cut[0].encoded == tables[0].encoded[:20]
    assert_only_a_claim(accuse(cut, later))


def test_an_event_of_an_earlier_hand_proves_nothing() -> None:
    tables = make_seats(STANDARD, 2, b"hands")
    while len(tables[0].hands) < 1:
        play(tables, len(tables[0].envelopes) + 1)
    play(tables, len(tables[0].envelopes) + 12)  # into the second hand
    first_hand = tables[0].hands[0]
    old = next(e.encode() for e in tables[0].envelopes[first_hand.first_seq:first_hand.last_seq]
               if e.seat == VICTIM)
    assert_only_a_claim(accuse(tables, old))


def test_a_victim_signature_off_this_chain_proves_nothing() -> None:
    tables = session(20)
    victim = tables[VICTIM]
    # Signed by the victim at the abort's position, in this session, but on a
    # chain this log does not hold (a fork, or bytes the accuser made it sign).
    forked = sign_envelope(victim._identity, victim.session_id, len(victim.envelopes),
                           b"\x11" * 32, VICTIM, ev.ACT, [["bid", VICTIM, 5], []])
    assert_only_a_claim(accuse(tables, forked.encode()))


def test_a_real_violation_at_the_abort_is_still_proven() -> None:
    tables = make_seats(STANDARD, 1, b"proof")
    while True:
        exp = tables[0].expected()
        assert exp is not None
        if tables[exp.seat].decision() is not None:
            break
        play(tables, len(tables[0].envelopes) + 1)
    cheat_seat = exp.seat
    illegal = tables[cheat_seat]._sign(ev.ACT, ev.Act(Bid(cheat_seat, 5), None).to_body())
    accuser = (cheat_seat + 1) % 3
    abort = tables[accuser].abort_event(cheat_seat, "illegal bid", (illegal.encode(),))
    report = verify_records([*tables[accuser].encoded, abort.encode()])
    assert report.exit_code == 1 and report.judgement is Judgement.UNFAIR
    assert report.violations[-1].seat == cheat_seat and report.violations[-1].proven
    assert report.claims == [] and "NOT FAIR" in text_report(report)


def test_an_abort_blaming_nobody_is_a_claim() -> None:
    tables = session(20)
    abort = tables[0].abort_event(None, "my peer failed")
    report = verify_records([*tables[0].encoded, abort.encode()])
    assert report.exit_code == 3 and report.violations == []
    assert all(c.seat is None and not c.proven for c in report.claims)


def test_a_second_version_of_a_held_position_is_proven_equivocation() -> None:
    tables = session(20)
    held = next(e for e in tables[0].envelopes[5:] if e.seat == VICTIM)
    victim = tables[VICTIM]
    other = sign_envelope(victim._identity, victim.session_id, held.seq, b"\x22" * 32, VICTIM,
                          held.kind, [b"another body"])
    report = accuse(tables, other.encode())
    assert report.violations[-1].seat == VICTIM and report.violations[-1].proven
    # The same, claimed by a stranger's key: not the victim's signature, nothing proven.
    from gleek_p2p.log.keys import Identity

    forged = sign_envelope(Identity.generate(bytes(32)), victim.session_id, held.seq,
                           held.prev, VICTIM, held.kind, [b"another body"])
    assert_only_a_claim(accuse(tables, forged.encode()))


def test_many_evidence_items_replay_the_log_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # An abort carries up to MAX_EVIDENCE items; replaying the log up to the
    # abort for each made a crafted abort multiply the cost of verifying its
    # signer's log (``gleek verify``, ``gleek results``, a watcher's end) by as
    # many. Each item is now tried on a copy of one replay, and a proof among
    # items proving nothing is still found, after the items before it failed.
    tables = make_seats(STANDARD, 1, b"proof")
    while True:
        exp = tables[0].expected()
        assert exp is not None
        if tables[exp.seat].decision() is not None and len(tables[0].envelopes) > 20:
            break
        play(tables, len(tables[0].envelopes) + 1)
    cheat_seat = exp.seat
    illegal = tables[cheat_seat]._sign(ev.ACT, ev.Act(Bid(cheat_seat, 5), None).to_body())
    accuser = (cheat_seat + 1) % 3
    records = tables[accuser].encoded
    held = [e.encode() for e in tables[0].envelopes[1:ev.MAX_EVIDENCE]]  # prove nothing
    assert len(held) == ev.MAX_EVIDENCE - 1
    abort = tables[accuser].abort_event(cheat_seat, "illegal bid", (*held, illegal.encode()))
    assert len(ev.Abort.from_body(decode_envelope(abort.encode()).body).evidence) \
        == ev.MAX_EVIDENCE
    taken = 0
    receive = Table.receive

    def counted(self: Table, *args: Any, **kwargs: Any) -> Any:
        nonlocal taken
        taken += 1
        return receive(self, *args, **kwargs)

    monkeypatch.setattr(Table, "receive", counted)
    report = verify_records([*records, abort.encode()])
    # The main replay (the log and the abort), one replay up to the abort, one try per item.
    assert taken <= 2 * len(records) + 1 + ev.MAX_EVIDENCE, taken
    assert report.exit_code == 1 and report.judgement is Judgement.UNFAIR
    assert report.violations[-1].seat == cheat_seat and report.violations[-1].proven
    assert report.claims == []
