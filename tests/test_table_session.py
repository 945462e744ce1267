"""The table protocol: one chain all seats agree on, and no card seen too early."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest
from prepared import once

from gleek_p2p.base.errors import Cheating, IllegalMove, ProtocolError
from gleek_p2p.base.violation_codes import ViolationCode
from gleek_p2p.bots.strategy import RandomStrategy, choose_now
from gleek_p2p.log.envelope import Envelope, decode_envelope, sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.rules import (
    TALON,
    VARIANTS,
    Bid,
    PassBid,
    Phase,
    card_of,
    deal_layout,
    shown_slots,
)
from gleek_p2p.table import events as ev
from gleek_p2p.table.drive import run, sign_next, step
from gleek_p2p.table.roster import Roster
from gleek_p2p.table.session import Stage, Table
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import make_seats, selfplay

STANDARD = VARIANTS["standard"]


def bots(n: int, seed: int = 0) -> list[RandomStrategy]:
    return [RandomStrategy(seed * 10 + s) for s in range(n)]


def test_selfplay_logs_are_identical_and_verify() -> None:
    result = selfplay(STANDARD, 2, b"identical", bots(3))
    first = result.tables[0].encoded
    assert all(t.encoded == first for t in result.tables)
    assert first == result.records
    report = verify_records(result.records)
    assert report.fair and report.complete and report.exit_code == 0
    # The verifier and every seat score every hand the same.
    for table in result.tables:
        assert [h.state.ledgers for h in table.hands] == [h.state.ledgers for h in report.hands]
    totals = report.hands[-1].state.totals
    assert sum(totals) == 0 and len(report.hands) == 2


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_variant_plays_through_the_protocol(name: str) -> None:
    variant = VARIANTS[name]
    result = selfplay(variant, 1, name.encode(), bots(variant.players, 3))
    report = verify_records(result.records)
    assert report.fair, report.violations
    assert all(sum(v) == 0 for v in report.hands[0].state.ledgers[0].phases.values())


def test_same_seed_same_log() -> None:
    a = selfplay(STANDARD, 1, b"same", bots(3))
    b = selfplay(STANDARD, 1, b"same", bots(3))
    assert a.records == b.records
    # Another seed: the first events (roster, cut, first deck commit) already differ,
    # so playing that session through would prove nothing more.
    c = make_seats(STANDARD, 1, b"other", [f"{s.name}-{i}" for i, s in enumerate(bots(3))])
    advance(c, lambda: len(c[0].envelopes) == 8)
    assert a.records[:8] != c[0].encoded


def drive(tables: list[Table], strategies: list[RandomStrategy], after_each: object) -> None:
    run(tables, lambda d: choose_now(strategies[d.seat], d.view, d.legal),
        on_event=lambda _e, _d: after_each(tables))  # type: ignore[operator]


def test_no_seat_learns_a_card_before_the_rules_show_it() -> None:
    tables = make_seats(STANDARD, 2, b"privacy")
    observer = Table(tables[0].roster)
    checked = [0]

    def check(tables: list[Table]) -> None:
        observer.receive(tables[0].envelopes[-1], tables[0].encoded[-1])
        for table in [*tables, observer]:
            state = table.state
            if state is None or state.phase in (Phase.HAND_OVER, Phase.SESSION_OVER, Phase.CUT):
                continue
            layout = deal_layout(state.variant, state.dealer)
            public = shown_slots(state)
            for slot, owner in enumerate(layout):
                if card_of(state, slot) is None:
                    continue
                mine = table.seat is not None and owner == table.seat
                talon = owner == TALON and table.seat is not None and (
                    state.talon_taker == table.seat)
                assert mine or talon or slot in public, (table.seat, slot, state.phase)
                checked[0] += 1

    drive(tables, bots(3, 1), check)
    assert checked[0] > 1000


def advance(tables: list[Table], done: Callable[[], bool]) -> None:
    """Let the seats sign their protocol steps until ``done()`` (no player's decision)."""
    run(tables, until=done)


def _tables() -> list[Table]:
    tables = make_seats(STANDARD, 1, b"units")
    # The roster, the cut commits and reveals, and the first deck commit.
    advance(tables, lambda: len(tables[0].envelopes) == 8)
    return tables


def _snapshot(table: Table) -> tuple[object, ...]:
    return (len(table.envelopes), table.head, table.stage, table.state, table.expected())


def test_out_of_turn_event_is_blamed_and_changes_nothing() -> None:
    tables = _tables()
    exp = tables[0].expected()
    assert exp is not None
    wrong = (exp.seat + 1) % 3
    envelope = tables[wrong]._sign(ev.COMMIT, [["commit", wrong, bytes(32)]])
    before = _snapshot(tables[0])
    with pytest.raises(Cheating) as caught:
        tables[0].receive(envelope)
    assert caught.value.seat == wrong and "out of turn" in caught.value.reason
    assert caught.value.evidence[0] == envelope.encode()
    assert _snapshot(tables[0]) == before


def test_bad_signature_is_rejected_without_blame() -> None:
    tables = _tables()
    exp = tables[0].expected()
    assert exp is not None
    envelope = tables[exp.seat].auto_event()
    assert envelope is not None
    forged = Envelope(envelope.version, envelope.session_id, envelope.seq, envelope.prev,
                      envelope.seat, envelope.kind, envelope.body, bytes(64))
    before = _snapshot(tables[1])
    with pytest.raises(ProtocolError) as caught:
        tables[1].receive(forged)
    assert not isinstance(caught.value, Cheating)
    assert _snapshot(tables[1]) == before
    tables[1].receive(envelope)  # the genuine event still goes in
    assert len(tables[1].envelopes) == before[0] + 1  # type: ignore[operator]


def test_event_from_another_session_is_rejected() -> None:
    tables = _tables()
    other = make_seats(STANDARD, 1, b"another")
    stranger = other[0].roster_event()
    with pytest.raises(ProtocolError, match="another session"):
        tables[1].receive(stranger)


@once
def _at_auction() -> list[Table]:
    """Three seats at the auction's first decision (a deep copy per test: they mutate it)."""
    tables = make_seats(STANDARD, 1, b"dup")
    advance(tables, lambda: any(t.decision() for t in tables))
    return tables


def test_duplicate_is_ignored_and_equivocation_is_proven() -> None:
    tables = _at_auction()
    exp = tables[0].expected()
    assert exp is not None and exp.kinds == (ev.ACT,)
    actor = tables[exp.seat]
    first = actor.act(PassBid(exp.seat))
    second = actor.act(Bid(exp.seat, 13))
    for table in tables:
        table.receive(first)
    assert tables[1].receive(first) == []  # a duplicate: nothing happens
    with pytest.raises(Cheating) as caught:
        tables[(exp.seat + 1) % 3].receive(second)
    assert caught.value.seat == exp.seat
    assert set(caught.value.evidence) == {first.encode(), second.encode()}


def test_illegal_move_is_refused_by_the_mover_and_blamed_by_the_others() -> None:
    tables = _at_auction()
    exp = tables[0].expected()
    assert exp is not None
    with pytest.raises(IllegalMove):
        tables[exp.seat].act(Bid(exp.seat, 5))
    cheat = tables[exp.seat]._sign(ev.ACT, ev.Act(Bid(exp.seat, 5), None).to_body())
    other = tables[(exp.seat + 1) % 3]
    before = _snapshot(other)
    with pytest.raises(Cheating) as caught:
        other.receive(cheat)
    assert caught.value.seat == exp.seat and "bid" in caught.value.reason
    assert _snapshot(other) == before


def test_roster_refuses_small_order_and_duplicate_keys() -> None:
    good = make_seats(STANDARD, 1, b"roster")[0].roster
    small = b"\x01" + bytes(31)
    with pytest.raises(ProtocolError):
        Roster(STANDARD, 1, (small, *good.publics[1:]), good.names, good.nonce)
    with pytest.raises(ProtocolError):
        Roster(STANDARD, 1, (good.publics[0],) * 3, good.names, good.nonce)
    with pytest.raises(ProtocolError):
        Roster(STANDARD, 0, good.publics, good.names, good.nonce)
    assert Roster.from_body(good.to_body()) == good


def test_a_false_dispute_in_a_version_1_hand_is_blamed_by_the_audit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Deck v1 keeps its dispute: the seeds come out and the audit judges.
    monkeypatch.setattr("gleek_p2p.deck.protocol.CURRENT_VERSION", 1)
    tables = make_seats(STANDARD, 1, b"dispute")
    advance(tables, lambda: tables[0].stage is Stage.PLAY)
    liar = tables[2]
    dispute = liar._sign(ev.DISPUTE, [0])
    for table in tables:
        table.receive(dispute)
    assert tables[0].stage is Stage.SEEDS
    advance(tables, lambda: tables[0].expected() is None)
    failure = tables[0].audit_failure
    assert failure is not None and failure.seat == 2 and "sound" in failure.reason
    assert failure.code is ViolationCode.AUDIT_FALSE_DISPUTE


@pytest.mark.parametrize("stage", [Stage.DEAL_KEYS, Stage.PLAY, Stage.UNPLAYED])
def test_a_dispute_in_a_proved_hand_is_refused_at_once_and_opens_nothing(stage: Stage) -> None:
    # This deal reaches every stage (the talon is taken, so an unplayed card is opened)
    # under the rulings of issue 12; a dispute is refused the same way under any rulings.
    tables = make_seats(STANDARD.rulings_of(12), 1, b"dispute-v2")
    chooser = bots(3)

    run(tables, lambda d: choose_now(chooser[d.seat], d.view, d.legal),
        until=lambda: tables[0].stage is stage)
    observer = Table(tables[0].roster)
    for data in tables[0].encoded:
        observer.receive(decode_envelope(data), data)
    for table in [*tables, observer]:
        before = (_snapshot(table), table._m.deck.visible_cards() if table._m.deck else None)
        dispute = tables[1]._sign(ev.DISPUTE, [0])
        if table is tables[1]:
            continue
        with pytest.raises(Cheating) as caught:
            table.receive(dispute)
        assert caught.value.seat == 1
        assert caught.value.code is ViolationCode.TURN_DISPUTE_PROVEN_HAND
        assert caught.value.evidence[0] == dispute.encode()
        # Nothing changed: no seed is due, no slot was opened.
        assert (_snapshot(table), table._m.deck.visible_cards() if table._m.deck else None) \
            == before
        assert table.stage is stage and table.expected() is not None
        assert table.expected().kinds != (ev.SEED,)  # type: ignore[union-attr]


@pytest.mark.parametrize("version", [3, 4])
def test_a_dispute_in_a_v3_or_v4_hand_is_refused_and_blamed_at_once(
        monkeypatch: pytest.MonkeyPatch, version: int) -> None:
    monkeypatch.setattr("gleek_p2p.deck.protocol.CURRENT_VERSION", version)
    tables = make_seats(STANDARD, 1, b"v3-dispute")
    advance(tables, lambda: tables[0].stage is Stage.PLAY)
    assert tables[0]._m.deck is not None and tables[0]._m.deck.version == version
    before = _snapshot(tables[0])
    dispute = tables[2]._sign(ev.DISPUTE, [0])
    with pytest.raises(Cheating) as caught:
        tables[0].receive(dispute)
    assert caught.value.seat == 2 and f"version {version}" in caught.value.reason
    assert caught.value.code is ViolationCode.TURN_DISPUTE_PROVEN_HAND
    assert _snapshot(tables[0]) == before


@pytest.mark.parametrize("stage", [Stage.CUT_COMMIT, Stage.CUT_REVEAL, Stage.DECK])
def test_a_dispute_before_the_deal_keys_is_refused_and_blamed(stage: Stage) -> None:
    tables = make_seats(STANDARD, 1, b"early-dispute")
    advance(tables, lambda: tables[0].stage is stage)
    before = _snapshot(tables[0])
    dispute = tables[2]._sign(ev.DISPUTE, [0])
    with pytest.raises(Cheating) as caught:
        tables[0].receive(dispute)
    assert caught.value.seat == 2 and "dispute" in caught.value.reason
    assert _snapshot(tables[0]) == before
    # The seat due next can still sign its step: nothing was half-taken.
    exp = tables[0].expected()
    assert exp is not None and tables[exp.seat].auto_event() is not None


def test_abort_ends_the_session_and_names_the_blamed_seat() -> None:
    tables = _tables()
    abort = tables[2].abort_event(1, "seat 1 did not move in time")
    for table in tables:
        table.receive(abort)
    assert all(t.finished and t.verdict is not None and t.verdict.blamed == 1 for t in tables)
    nxt = tables[0]._sign(ev.CUT_COMMIT, [bytes(32)])
    with pytest.raises(ProtocolError, match="over"):
        tables[1].receive(nxt)
    report = verify_records(tables[0].encoded)
    # Only the signer's claim: stopped (exit 3), no violation, the accused named only as such.
    assert report.exit_code == 3 and report.violations == []
    assert report.claims[-1].seat == 1 and report.claims[-1].signer == 2


def test_cut_reveal_must_match_its_commitment() -> None:
    tables = make_seats(STANDARD, 1, b"cut")
    advance(tables, lambda: tables[0].stage is Stage.CUT_REVEAL)
    lie = tables[0]._sign(ev.CUT_REVEAL, [hashlib.sha256(b"not my nonce").digest()])
    with pytest.raises(Cheating) as caught:
        tables[1].receive(lie)
    assert caught.value.seat == 0


def test_an_outsider_cannot_sign_for_a_seat() -> None:
    tables = _tables()
    outsider = Identity.generate(bytes(range(32)))
    exp = tables[0].expected()
    assert exp is not None
    honest = tables[exp.seat].auto_event()
    assert honest is not None
    forged = sign_envelope(outsider, honest.session_id, honest.seq, honest.prev, honest.seat,
                           honest.kind, honest.body)
    with pytest.raises(ProtocolError, match="signature"):
        tables[(exp.seat + 1) % 3].receive(forged)


def test_cli_turns_an_unexpected_error_into_a_sentence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import tempfile

    from gleek_p2p.cli import commands
    from gleek_p2p.cli import gleek as cli

    def broken(args: object) -> int:
        raise ValueError("something impossible")

    monkeypatch.setattr(commands, "run_verify", broken)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # not the machine's /tmp
    assert cli.main(["verify", "x"]) == 70
    err = capsys.readouterr().err
    assert "internal error" in err and "something impossible" in err
    assert "Traceback" not in err
    # The traceback is kept for a bug report, in the file the sentence names.
    [saved] = tmp_path.glob("gleek-error-*.txt")
    assert str(saved) in err
    assert "Traceback" in saved.read_text() and "something impossible" in saved.read_text()


def test_an_event_whose_hand_audit_raises_changes_nothing() -> None:
    """``receive`` rejects the event that ends a hand whose audit fails, and keeps nothing.

    The audit runs only when the hand's last event arrives (deck v2: the last
    keys of the unplayed cards; v1: the last seed); here the live copy scored
    the hand differently from the audit (a copy that went astray), so the
    audit raises. Before the fix the event was already in the log by then.
    """
    # The rulings of issue 12: with this seed the first hand then ends on the
    # unplayed cards' keys (random bids under the open auction change the
    # hand, and some hands end on a play).
    records = selfplay(STANDARD.rulings_of(12), 2, b"atomic-audit", bots(3)).records
    envelopes = [decode_envelope(r) for r in records]
    probe = Table(Roster.from_body(envelopes[0].body))
    index = 0
    while not probe.hands:
        probe.receive(envelopes[index], records[index])
        index += 1
    index -= 1  # the event that completes the first hand
    table = Table(Roster.from_body(envelopes[0].body))
    for envelope, record in zip(envelopes[:index], records[:index], strict=True):
        table.receive(envelope, record)
    last_seed = envelopes[index]
    assert last_seed.kind in (ev.SEED, ev.KEYS)
    state = table.state
    assert state is not None and state.ledgers
    astray = state._replace(ledgers=(*state.ledgers[:-1], dataclasses.replace(
        state.ledgers[-1], trick_points=tuple(x + 1 for x in state.ledgers[-1].trick_points))))
    table._m.state = astray
    before = (list(table.envelopes), list(table.encoded), table.head, table.stage,
              table.state, list(table.hands), table.audit_failure, table.expected())
    with pytest.raises(ProtocolError, match="scores differently"):
        table.receive(last_seed, records[index])
    after = (list(table.envelopes), list(table.encoded), table.head, table.stage,
             table.state, list(table.hands), table.audit_failure, table.expected())
    assert after == before
    # Put right, the same seed is taken: the rejection lost nothing.
    table._m.state = state
    table.receive(last_seed, records[index])
    assert len(table.hands) == 1 and table.hands[0].last_seq == index
    assert table.stage is Stage.DECK and table.head != before[2]
    for envelope, record in zip(envelopes[index + 1:], records[index + 1:], strict=True):
        table.receive(envelope, record)
    assert table.stage is Stage.OVER
    # Each hand's record starts at its first deck event and ends at its last event.
    first, second = table.hands
    assert envelopes[second.first_seq].kind == ev.COMMIT
    assert second.first_seq == first.last_seq + 1
    # (deck v2: the last act when nobody holds an unplayed card)
    assert envelopes[second.last_seq].kind in (ev.SEED, ev.KEYS, ev.ACT)


def test_the_drive_helper_refuses_what_it_cannot_do() -> None:
    tables = _at_auction()
    assert any(t.decision() is not None for t in tables)
    exp = tables[0].expected()
    assert exp is not None and exp.kinds == (ev.ACT,)
    with pytest.raises(ProtocolError, match="decision"):
        sign_next(tables[exp.seat])
    with pytest.raises(ProtocolError, match="nothing to sign"):
        sign_next(tables[(exp.seat + 1) % 3])
    before = [len(t.envelopes) for t in tables]
    assert before == [len(tables[0].envelopes)] * 3
    records = run(tables, lambda d: d.legal[0])
    assert tables[0].finished and verify_records([*tables[0].encoded]).fair
    assert records == tables[0].encoded[before[0]:]
    with pytest.raises(ProtocolError, match="no event is expected"):
        step(tables)


# protocol/violations.md, protocol/events.json and the code agree (issue 19).


def test_an_unknown_kind_is_named_as_such_whoever_signs_it() -> None:
    tables = _tables()
    exp = tables[0].expected()
    assert exp is not None
    for seat in range(3):  # the seat due and the others alike
        envelope = tables[seat]._sign("shrug", [])
        with pytest.raises(Cheating) as caught:
            tables[0].receive(envelope)
        assert caught.value.seat == seat
        assert caught.value.code is ViolationCode.TURN_UNKNOWN_KIND


@pytest.mark.parametrize(("commit", "code"), [
    (["commit", 1, bytes(31), 2], ViolationCode.DECK_BAD_COMMITMENT),
    (["commit", 1, bytes(31)], ViolationCode.DECK_BAD_COMMITMENT),
    (["commit", 1, bytes(32), 5], ViolationCode.DECK_WRONG_VERSION),
    (["commit", 1, bytes(32), 3], ViolationCode.DECK_WRONG_VERSION),
    (["commit", 1, bytes(32), 2, 0], ViolationCode.FORM_DECK_MESSAGE),
])
def test_a_malformed_commit_gets_the_code_the_list_gives(
        commit: list[object], code: ViolationCode) -> None:
    tables = make_seats(STANDARD, 1, b"units")

    def due() -> bool:
        exp = tables[0].expected()
        return exp is not None and exp.seat == 1 and exp.kinds == (ev.COMMIT,)

    advance(tables, due)
    envelope = tables[1]._sign(ev.COMMIT, [commit])
    with pytest.raises(Cheating) as caught:
        tables[0].receive(envelope)
    assert caught.value.seat == 1 and caught.value.code is code


@pytest.mark.parametrize("blamed", [3, 5, -2])
def test_an_abort_blaming_a_seat_not_at_the_table_is_malformed(blamed: int) -> None:
    tables = _tables()
    envelope = tables[2]._sign(ev.ABORT, [blamed, "seat 5 cheated", []])
    before = _snapshot(tables[0])
    with pytest.raises(Cheating) as caught:
        tables[0].receive(envelope)
    assert caught.value.seat == 2 and caught.value.code is ViolationCode.FORM_ABORT
    assert _snapshot(tables[0]) == before
    report = verify_records([*tables[0].encoded, envelope.encode()])
    assert report.violations[0].seat == 2
    assert report.violations[0].code is ViolationCode.FORM_ABORT


@pytest.mark.parametrize("version", [3, 4])
def test_a_slot_of_its_own_that_does_not_open_in_a_proved_hand_is_a_local_fault(
        monkeypatch: pytest.MonkeyPatch, version: int) -> None:
    # Proved passes and checked keys always open: if this seat's own slot does
    # not, its own keys are wrong (a corrupted store), so it blames nobody and
    # disputes nothing; the event that showed it is not refused either. In v3 the
    # seat opens its slots with its own lock keys, in v4 by stripping its shuffle
    # layer (from its seed): that is what the lost store gets wrong.
    from gleek_p2p.deck.group import scalar_from_wide
    from gleek_p2p.table.session import LocalFault

    monkeypatch.setattr("gleek_p2p.deck.protocol.CURRENT_VERSION", version)
    tables = make_seats(STANDARD, 1, b"local-fault")
    advance(tables, lambda: tables[0].stage is Stage.DEAL_KEYS)
    victim = tables[0]
    assert victim._m.deck is not None and victim._m.deck.version == version
    wrong = tuple(scalar_from_wide(hashlib.sha512(b"%d" % j).digest()) for j in range(44))
    wrong_seed = hashlib.sha256(b"not seat 0's seed").digest()
    others_taken = 0
    while victim.stage is Stage.DEAL_KEYS:
        exp = victim.expected()
        assert exp is not None
        envelope = sign_next(tables[exp.seat])
        deck = victim._m.deck
        assert deck is not None
        good_keys, good_seed = deck._own_lock_keys() if version == 3 else None, deck._seed
        if exp.seat != 0:
            # As if its store had lost its seed (v3: the lock keys made from it).
            if version == 3:
                deck._own_keys = wrong
            else:
                deck._seed = wrong_seed
        before = _snapshot(victim)
        try:
            victim.receive(envelope)
        except LocalFault:
            assert _snapshot(victim) == before
            assert victim._m.dispute_slot is None and victim.verdict is None
            # Only the keys that complete its slots show it: the second other seat's.
            assert exp.seat != 0 and others_taken == 1
            return
        others_taken += exp.seat != 0
        assert victim._m.deck is not None
        victim._m.deck._own_keys = good_keys
        victim._m.deck._seed = good_seed
        for table in tables[1:]:
            table.receive(envelope)
    pytest.fail("seat 0's own slots opened with wrong keys")
