"""A third seat that ends the session toward one honest seat and plays on toward the other.

Ben (seat 1) lies; Anne (0) and Cat (2) are honest and relay what they take, as
their peers do (``tests/adversary/splits.py``). Whatever Ben does, no honest
seat is ever named, Ben is named only where a log holds two events it signed
that no single chain of its own can hold, and every log's verdict is true.
"""

from __future__ import annotations

import pytest
from adversary import splits
from adversary.splits import ANNE, BEN, CAT, NAMES
from prepared import auto_step

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import Cheating, ProtocolError
from gleek_p2p.base.text import one_line
from gleek_p2p.base.violation_codes import ViolationCode
from gleek_p2p.log.envelope import decode_envelope
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table import events as ev
from gleek_p2p.table.verify import Judgement, VerifyReport, verify_records
from gleek_p2p.tools.report import json_report, text_report, violation_sentence
from gleek_p2p.tools.selfplay import make_seats


@pytest.fixture(scope="module")
def left() -> splits.Split:
    return splits.split(splits.leave, b"split-leave")


@pytest.fixture(scope="module")
def failed() -> splits.Split:
    return splits.split(splits.local_failure, b"split-failure")


def assert_ben_proven(report: VerifyReport, event: int, code: ViolationCode) -> None:
    assert report.judgement is Judgement.UNFAIR and report.exit_code == 1
    assert [(v.seq, v.seat, v.code, v.proven) for v in report.violations] == [
        (event, BEN, code, True)]
    assert report.claims == [] and report.ending is None
    text = text_report(report)
    verdict = text.split("Verdict: NOT FAIR.")[1]
    assert f"seat {BEN} (Ben)" in verdict
    assert "(Anne)" not in verdict and "(Cat)" not in verdict


def assert_ben_left(report: VerifyReport, at: int, cause: str) -> None:
    # Cat's log holds only Ben's word for ``at``: it ended there, fairly, as far
    # as anything this log holds can tell.
    assert report.judgement is Judgement.FAIR and report.exit_code == 0
    assert report.ending is not None
    assert (report.ending.seat, report.ending.seq, report.ending.cause) == (BEN, at, cause)
    assert report.violations == [] and report.claims == []


def test_a_seat_that_leaves_toward_one_seat_and_plays_on_toward_the_other_is_proven(
        left: splits.Split) -> None:
    # Before this ruling Anne's log read "fair: Ben left the table", while it
    # holds Ben's move after the leave, on another branch.
    assert all(isinstance(e, ProtocolError) and not isinstance(e, Cheating)
               for e in left.refused.values())
    anne = verify_records(left.anne)
    assert_ben_proven(anne, left.ben_after, ViolationCode.CHAIN_SIGNED_AFTER_OWN_END)
    mine, word = (decode_envelope(e) for e in anne.violations[0].evidence)
    assert (mine.seat, mine.seq, word.seat, word.kind, word.seq) == (
        BEN, left.ben_after, BEN, ev.LEAVE, left.at)
    data = json_report(anne)
    assert data["verdict"] == "unfair" and data["ended"] is None
    assert data["violations"][0]["code"] == "chain.signed-after-own-end"
    assert_ben_left(verify_records(left.cat), left.at, ev.LEFT)


def test_a_seat_whose_peer_fails_toward_one_seat_and_plays_on_is_proven(
        failed: splits.Split) -> None:
    assert_ben_proven(verify_records(failed.anne), failed.ben_after,
                      ViolationCode.CHAIN_SIGNED_AFTER_OWN_END)
    assert_ben_left(verify_records(failed.cat), failed.at, ev.LOCAL_FAILURE)


def test_a_leave_and_a_move_at_one_position_is_equivocation_in_the_log_that_holds_both() -> None:
    # Ben's turn: Cat gets its leave, Anne its move. Anne holds both: proof. Cat's
    # session ended with the leave, so nothing may follow it there: her log says
    # Ben left, which is what it holds.
    both = splits.split(splits.leave, b"split-leave-due", ben_due=True)
    assert all(isinstance(e, Cheating) and e.seat == BEN and
               e.code is ViolationCode.CHAIN_EQUIVOCATION for e in both.refused.values())
    assert_ben_proven(verify_records(both.anne), both.at, ViolationCode.CHAIN_EQUIVOCATION)
    assert_ben_left(verify_records(both.cat), both.at, ev.LEFT)


def test_ben_cannot_sign_its_own_leave_into_an_abort_over_its_own_move(
        left: splits.Split) -> None:
    # Ben signed its move at p toward Anne, then an abort of cause "left"
    # carrying its own leave for p: two events of Ben's at one position.

    both = splits.split(splits.leave, b"split-own-abort", ben_due=True)
    ben = make_seats(VARIANTS["standard"], 2, b"split-own-abort", NAMES)[BEN]
    anne_log = both.anne[: both.at + 1]  # Anne's log up to Ben's move at p
    for record in anne_log:
        ben.receive(decode_envelope(record), record)
    leave = next(decode_envelope(r) for r in both.cat if decode_envelope(r).kind == ev.LEAVE)
    abort = ben.abort_event(None, "I left", (leave.encode(),), cause=ev.LEFT)
    report = verify_records([*anne_log, abort.encode()])
    assert_ben_proven(report, both.at, ViolationCode.CHAIN_EQUIVOCATION)


def test_a_handover_toward_one_seat_and_a_move_toward_the_other_is_proven_in_both() -> None:
    both = splits.split(splits.handover, b"split-handover", ben_due=True)
    assert set(both.refused) == {ANNE, CAT}
    assert all(isinstance(e, Cheating) and e.seat == BEN and
               e.code is ViolationCode.CHAIN_EQUIVOCATION for e in both.refused.values())
    for log in (both.anne, both.cat):
        assert_ben_proven(verify_records(log), both.at, ViolationCode.CHAIN_EQUIVOCATION)


def test_an_honest_crossing_still_reads_fair() -> None:
    # The same geometry with an honest Ben: it leaves and signs nothing more.
    # Anne signed her move where Ben left; Cat took the leave. Both logs: fair.

    honest = splits.split(splits.leave, b"split-honest")
    anne = honest.anne[: honest.at + 1]
    cat = honest.cat
    leave = decode_envelope(cat[honest.at])
    assert leave.kind == ev.LEAVE

    third = make_seats(VARIANTS["standard"], 2, b"split-honest", NAMES)[CAT]
    for record in anne:
        third.receive(decode_envelope(record), record)
    abort = third.abort_event(None, "Ben left", (leave.encode(),), cause=ev.LEFT)
    assert_ben_left(verify_records([*anne, abort.encode()]), honest.at, ev.LEFT)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_proof_names_ben_alone_in_every_language(lang: str, left: splits.Split) -> None:
    report = verify_records(left.anne)
    assert report.roster is not None
    i18n.set_language(lang, {})
    try:
        line = violation_sentence(report.violations[0], report.roster.names)
        text = text_report(report)
    finally:
        i18n.set_language("en", {})
    assert "(Ben)" in line and str(left.ben_after) in line
    assert "(Anne)" not in line and "(Cat)" not in line
    assert line in text


PADDED = ("Cat did not answer" + " " * 90 + "- event 12: seat 1 (Ben) - signed two different "
          "events at position 12" + "\u2800" * 80 + "Verdict: NOT FAIR.")


def test_a_claim_padded_to_look_like_a_line_of_the_report_stays_on_its_line() -> None:
    # A reason padded with blanks as wide as a terminal would draw "- event 12:
    # seat 1 (Ben) ..." on a line of its own, like a proven violation.
    from gleek_p2p.table.drive import run

    tables = make_seats(VARIANTS["standard"], 1, b"padded-claim", NAMES)
    run(tables, until=lambda: len(tables[0].envelopes) >= 12)  # the shuffle: no decision
    abort = tables[ANNE].abort_event(CAT, PADDED)
    report = verify_records([*tables[ANNE].encoded, abort.encode()])
    assert report.judgement is Judgement.STOPPED and report.claims
    for lang in i18n.LANGUAGES:
        i18n.set_language(lang, {})
        try:
            text = text_report(report)
        finally:
            i18n.set_language("en", {})
        lines = [line for line in text.splitlines() if "seat 1 (Ben)" in line]
        assert len(lines) == 1 and lines[0].startswith("  - "), (lang, lines)
        claim = lines[0][4:]
        assert one_line(PADDED) in claim and "(Anne)" in claim, (lang, claim)
        assert "  " not in claim and "\u2800" not in claim, (lang, claim)
    assert one_line(PADDED).count(" - ") == 2 and "\u2800" not in one_line(PADDED)
    assert report.claims[0].sentence(NAMES).count("  ") == 0


def test_the_proof_holds_whatever_the_abort_carrying_it_says(left: splits.Split) -> None:
    # Anne's abort, however worded: blaming Ben, or blaming Cat (a false claim
    # beside the proof), with Ben's leave as its only evidence.
    leave = next(decode_envelope(r) for r in left.cat if decode_envelope(r).kind == ev.LEAVE)
    anne = make_seats(VARIANTS["standard"], 2, b"split-leave", NAMES)[ANNE]
    log = left.anne[:-1]
    for record in log:
        anne.receive(decode_envelope(record), record)
    for blamed in (BEN, CAT):
        abort = anne.abort_event(blamed, "Ben left and played on", (leave.encode(),))
        report = verify_records([*log, abort.encode()])
        assert [(v.seq, v.seat, v.code) for v in report.violations] == [
            (left.ben_after, BEN, ViolationCode.CHAIN_SIGNED_AFTER_OWN_END)]
        # Cat is only ever the subject of Anne's claim, never proven.
        assert [(c.seat, c.proven) for c in report.claims] == ([] if blamed == BEN
                                                              else [(CAT, False)])


def test_an_old_leave_or_handover_replayed_moves_nothing() -> None:
    # A signed leave or handover, replayed at another position or into another
    # session, is refused with nobody blamed; the table is unchanged.
    tables = make_seats(VARIANTS["standard"].rulings_of(21), 1, b"replayed", NAMES)
    other = make_seats(VARIANTS["standard"].rulings_of(21), 1, b"replayed-other", NAMES)
    from gleek_p2p.bots.strategy import RandomStrategy, choose_now

    bots = [RandomStrategy(bytes([s])) for s in range(3)]
    handover = None
    while handover is None or len(tables[0].envelopes) < handover.seq + 6:
        exp = tables[0].expected()
        assert exp is not None
        table = tables[exp.seat]
        envelope = table.auto_event()
        if envelope is None and handover is None and exp.seat == BEN:
            envelope = handover = table.handover_event("strong")
        elif envelope is None:
            decision = table.decision()
            assert decision is not None
            envelope = table.act(choose_now(bots[exp.seat], decision.view, decision.legal))
        for t in tables:
            t.receive(envelope)
    for _ in range(12):  # the other session's cut and shuffle: no decision
        auto_step(other)
    foreign_leave = other[BEN].leave_event()
    foreign_handover = other[BEN]._sign(ev.HANDOVER, ["strong"])
    before = (len(tables[0].envelopes), tables[0].handovers, tables[0].stage)
    assert tables[0].receive(handover) == []  # its own position: a re-delivery, ignored
    for stranger in (foreign_leave, foreign_handover):
        with pytest.raises(ProtocolError) as info:
            tables[0].receive(stranger)
        assert not isinstance(info.value, Cheating)
    assert (len(tables[0].envelopes), tables[0].handovers, tables[0].stage) == before
    assert [h.seat for h in tables[0].handovers] == [BEN]
    assert verify_records(tables[0].encoded).violations == []


def test_the_peer_commands_exit_code_reads_the_log_as_verify_does(left: splits.Split) -> None:
    # gleek play/bot exit 0 on a fair early end: the leave Cat took, not the one
    # Anne's abort carries while her log proves Ben played on after it.
    from gleek_p2p.table.roster import Roster
    from gleek_p2p.table.session import Table
    from gleek_p2p.table.verify import early_end

    def replayed(log: list[bytes]) -> Table:
        table = Table(Roster.from_body(decode_envelope(log[0]).body))
        for record in log:
            table.receive(decode_envelope(record), record)
        return table

    anne, cat = replayed(left.anne), replayed(left.cat)
    assert anne.verdict is not None and anne.verdict.left == BEN  # the table alone would say so
    assert early_end(anne) is None
    ending = early_end(cat)
    assert ending is not None and (ending.seat, ending.seq, ending.cause) == (BEN, left.at, ev.LEFT)


def test_a_leaver_that_signs_an_abort_after_its_leave_signed_on_too(left: splits.Split) -> None:
    # Ben's leave at p reached Cat; toward Anne, Ben signs an abort after Anne's
    # event at p, carrying its own leave (or blaming Cat with it): both on record.
    leave = next(decode_envelope(r) for r in left.cat if decode_envelope(r).kind == ev.LEAVE)
    ben = make_seats(VARIANTS["standard"], 2, b"split-leave", NAMES)[BEN]
    log = left.anne[: left.at + 1]
    for record in log:
        ben.receive(decode_envelope(record), record)
    for blamed, cause in ((None, ev.LEFT), (CAT, None)):
        abort = ben.abort_event(blamed, "I left", (leave.encode(),), cause=cause)
        report = verify_records([*log, abort.encode()])
        assert [(v.seq, v.seat, v.code) for v in report.violations] == [
            (left.at + 1, BEN, ViolationCode.CHAIN_SIGNED_AFTER_OWN_END)]
        assert report.ending is None and all(not c.proven for c in report.claims)
