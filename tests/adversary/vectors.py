"""Conformance vectors: session logs and the verdict ``gleek verify`` must give.

Run ``python -m tests.adversary.vectors protocol/vectors/sessions`` (from the
repository root) to write them; the test suite verifies every file against
``index.json`` and checks that regenerating gives the same bytes.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gleek_p2p.bots.strategy import RandomStrategy, choose_now
from gleek_p2p.deck import Keys
from gleek_p2p.log.envelope import Envelope, decode_envelope, event_hash, sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.log.store import HEADER, LogStore
from gleek_p2p.rules import VARIANTS, ruling_switches
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Stage, Table
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import _derive, make_seats, selfplay

from .forge import run_session, sign_as
from .scenarios import CHEATER, FIRST_RULINGS, SCENARIOS, _hidden_combination
from .splits import leave, local_failure, split


@dataclass(frozen=True)
class Vector:
    name: str
    records: list[bytes]
    expect: dict[str, Any]
    tail: bytes = b""
    """Bytes after the last whole record (a torn write), written as they are."""


def _descending_deal_keys(table: Table, honest: Envelope | None, index: int) -> Envelope | None:
    """Seat 1 publishes the right deal keys, but in descending slot order."""
    if honest is None or honest.kind != ev.KEYS or table.stage is not Stage.DEAL_KEYS:
        return None
    keys = ev.deck_from_body(ev.KEYS, CHEATER, honest.body)
    assert isinstance(keys, Keys)
    return sign_as(table, ev.KEYS, [Keys(CHEATER, tuple(reversed(keys.keys))).to_wire()])


def _second_implementation_cases(base: list[bytes]) -> list[Vector]:
    """Cases a second implementation could get wrong (protocol/verify.md)."""
    out = []
    result = run_session(_descending_deal_keys, cheater=CHEATER, seed=b"descending-keys",
                         variant=FIRST_RULINGS)
    out.append(Vector("descending-keys", result.records, {
        "exit_code": 1, "event": _first_violation(result.records), "seat": CHEATER, "says": "slot",
        "code": "deck.keys-slots"}))
    # A validly signed event chained after the last one: the session was over.
    last = decode_envelope(base[-1])
    seat0 = Identity.generate(_derive(b"vector-standard", "identity", 0))
    late = sign_envelope(seat0, last.session_id, last.seq + 1, event_hash(last), 0, ev.ABORT,
                         ev.Abort(None, "one more word", ()).to_body(), version=last.version)
    out.append(Vector("after-the-end", [*base, late.encode()], {
        "exit_code": 1, "event": len(base), "seat": None, "says": "over",
        "code": "chain.after-end"}))
    # The last record torn by a crash: the whole records are the log, so the
    # session stops short of its last seed.
    framed = _framed(base[-1])
    torn_seat = last.seat
    out.append(Vector("torn-last-record", base[:-1], {
        "exit_code": 3, "verdict": "stopped", "waiting_for": torn_seat,
        "code": "log.incomplete"},
        tail=framed[: len(framed) // 2]))
    return out


def _play_into_second_hand(seed: bytes) -> list[Table]:
    """Three seats of a 2-hand session, played (random bots) a few moves into hand 2 (under
    the issue-12 rulings these vectors were first written with, so they stay byte for byte)."""
    tables = make_seats(VARIANTS["standard"].rulings_of(12), 2, seed, ("Anne", "Ben", "Cat"))
    bots = [RandomStrategy(seed + bytes([s])) for s in range(3)]
    while not tables[0].hands or len(tables[0].envelopes) < tables[0].hands[0].last_seq + 12:
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
    return tables


def _ending_cases() -> list[Vector]:
    """How a session ends early: a signed leave (fair), a leave that crossed another
    seat's event (fair: the abort carries it), and a claim alone (stopped)."""
    out = []
    tables = _play_into_second_hand(b"vector-leave")
    exp = tables[0].expected()
    assert exp is not None
    leaver = next(s for s in range(3) if s != exp.seat)  # out of turn
    leave = tables[leaver].leave_event()
    out.append(Vector("left-the-table", [*tables[0].encoded, leave.encode()], {
        "exit_code": 0, "verdict": "fair",
        "ended": {"how": "left", "seat": leaver, "event": leave.seq, "hand": 2}}))
    # The seat due signed its step at the same position: the third seat took
    # that first, then signs an abort of cause "left" carrying the leave.
    step = tables[exp.seat].auto_event()
    if step is None:
        decision = tables[exp.seat].decision()
        assert decision is not None
        step = tables[exp.seat].act(decision.legal[0])
    third = next(s for s in range(3) if s not in (leaver, exp.seat))
    tables[third].receive(step)
    abort = tables[third].abort_event(
        None, f"{tables[0].roster.names[leaver]} left the table at event {leave.seq}, where "
        "this log holds another event", (leave.encode(),), cause=ev.LEFT)
    out.append(Vector("left-crossed", [*tables[third].encoded, abort.encode()], {
        "exit_code": 0, "verdict": "fair",
        "ended": {"how": "left", "seat": leaver, "event": leave.seq, "hand": 2}}))
    # A timeout claimed by one seat against another: nothing in the log proves who.
    tables = _play_into_second_hand(b"vector-claim")
    exp = tables[0].expected()
    assert exp is not None
    signer = (exp.seat + 1) % 3
    claim = tables[signer].abort_event(
        exp.seat, f"{tables[0].roster.names[exp.seat]} did not send {exp.what} within 120 s")
    out.append(Vector("claim-only", [*tables[signer].encoded, claim.encode()], {
        "exit_code": 3, "verdict": "stopped", "code": "abort.claim", "signer": signer,
        "seat": exp.seat}))
    return out


def _handover_cases() -> list[Vector]:
    """A seat handed to a bot (twice: seat 1 at its first move, seat 2 later), the
    session complete and fair; and a handover signed out of turn (blamed)."""
    tables = make_seats(VARIANTS["standard"].rulings_of(21), 1, b"vector-handover",
                        ("Anne", "Ben", "Cat"))
    bots = [RandomStrategy(b"vector-handover" + bytes([s])) for s in range(3)]
    handed: list[dict[str, Any]] = []
    out_of_turn: Vector | None = None
    while not tables[0].finished:
        exp = tables[0].expected()
        assert exp is not None
        table = tables[exp.seat]
        envelope = table.auto_event()
        decision = table.decision() if envelope is None else None
        acts = sum(1 for e in table.envelopes if e.kind == ev.ACT)
        if decision is not None and not any(h["seat"] == exp.seat for h in handed) \
                and (exp.seat == 1 or (exp.seat == 2 and acts >= 20)):
            envelope = table.handover_event("strong")
            handed.append({"event": envelope.seq, "seat": exp.seat, "bot": "strong"})
        elif decision is not None:
            envelope = table.act(choose_now(bots[exp.seat], decision.view, decision.legal))
        assert envelope is not None
        if out_of_turn is None and envelope.kind == ev.ACT:
            # The same position, signed by a seat that is not the one due: refused.
            other = (exp.seat + 1) % 3
            wrong = tables[other]._sign(ev.HANDOVER, ["strong"])
            out_of_turn = Vector("handover-out-of-turn", [*tables[0].encoded, wrong.encode()], {
                "exit_code": 1, "event": wrong.seq, "seat": other, "says": "out of turn",
                "code": "turn.out-of-turn"})
        for other_table in tables:
            other_table.receive(envelope)
    assert len(handed) == 2 and out_of_turn is not None
    return [Vector("handed-over", list(tables[0].encoded),
                   _fair(tables[0].encoded, handovers=handed)),
            out_of_turn]


def _retake_cases() -> list[Vector]:
    """Seat 1 handed to a bot at its first move and taken back by its person at its
    fifth, the session complete and fair; and a retake by a seat no bot plays (blamed)."""
    tables = make_seats(VARIANTS["standard"].rulings_of(24), 1, b"vector-retake",
                        ("Anne", "Ben", "Cat"))
    bots = [RandomStrategy(b"vector-retake" + bytes([s])) for s in range(3)]
    changes: list[dict[str, Any]] = []
    misplaced: Vector | None = None
    while not tables[0].finished:
        exp = tables[0].expected()
        assert exp is not None
        table = tables[exp.seat]
        envelope = table.auto_event()
        decision = table.decision() if envelope is None else None
        mine = sum(1 for e in table.envelopes if e.kind == ev.ACT and e.seat == exp.seat)
        if decision is not None and exp.seat == 1 and mine == 0 and not changes:
            envelope = table.handover_event("strong")
            changes.append({"event": envelope.seq, "seat": 1, "bot": "strong"})
        elif decision is not None and exp.seat == 1 and mine == 4 and len(changes) == 1:
            envelope = table.retake_event()
            changes.append({"event": envelope.seq, "seat": 1})
        elif decision is not None:
            if misplaced is None and exp.seat == 0:
                # Seat 0, due to move, signs a retake: no bot plays it.
                wrong = table._sign(ev.RETAKE, [])
                misplaced = Vector("retake-not-handed-over",
                                   [*tables[0].encoded, wrong.encode()], {
                                       "exit_code": 1, "event": wrong.seq, "seat": 0,
                                       "says": "no bot plays seat 0",
                                       "code": "turn.not-handed-over"})
            envelope = table.act(choose_now(bots[exp.seat], decision.view, decision.legal))
        assert envelope is not None
        for other_table in tables:
            other_table.receive(envelope)
    assert len(changes) == 2 and misplaced is not None
    report = verify_records(tables[0].encoded)
    return [Vector("taken-back", list(tables[0].encoded), {
        "exit_code": 0, "totals": list(report.hands[-1].state.totals),
        "rulings": ruling_switches(report.hands[-1].state.variant),
        "handovers": changes[:1], "retakes": changes[1:]}), misplaced]


def _framed(record: bytes) -> bytes:
    """The record as the log file stores it (length, checksums)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "one.gleeklog"
        with LogStore.open(path) as store:
            store.append(record)
        return path.read_bytes()[len(HEADER):]


def _valid(variant: str, hands: int, seed: bytes, rulings: int = 0) -> list[bytes]:
    """A valid session under the rulings made up to issue ``rulings`` (0: the first)."""
    v = VARIANTS[variant].rulings_of(rulings)
    return selfplay(v, hands, seed, [RandomStrategy(seed + bytes([s]))
                                     for s in range(v.players)]).records


def _undeclared_gleek() -> list[bytes]:
    """A session under the current rulings in which seat 1 keeps a gleek undeclared."""
    for attempt in range(40):
        kept: list[int] = []

        def keep(table: Table, honest: Envelope | None, index: int,
                 kept: list[int] = kept) -> Envelope | None:
            envelope = _hidden_combination(table, honest, index)
            if envelope is not None:
                kept.append(index)
            return envelope

        result = run_session(keep, cheater=CHEATER, seed=f"undeclared-{attempt}".encode(),
                             variant=VARIANTS["standard"].rulings_of(12))
        if kept and not result.errors:
            return result.records
    raise AssertionError("no deal gave seat 1 a combination to keep")


_EXPECTING = [True]
"""Whether ``build`` verifies each log for its index entry (``write`` does; a test
comparing the logs' bytes needs none of it, and it is a fifth of the work)."""


def _fair(records: Sequence[bytes], **more: Any) -> dict[str, Any]:
    """The index entry of a fair, complete log: its totals and rulings."""
    if not _EXPECTING[0]:
        return {}
    report = verify_records(records)
    return {"exit_code": 0, "totals": list(report.hands[-1].state.totals),
            "rulings": ruling_switches(report.hands[-1].state.variant), **more}


def _first_violation(records: Sequence[bytes]) -> int | None:
    """The event of the first violation ``gleek verify`` finds in a log."""
    if not _EXPECTING[0]:
        return None
    report = verify_records(records)
    return report.violations[0].seq if report.violations else None


def build(*, expectations: bool = True) -> list[Vector]:
    """Every vector, deterministically, as deck protocol version 2 made them.

    The session vectors are version 2 logs, kept byte for byte (a v2 log
    verifies forever); version 3 has its deck vectors
    (``protocol/vectors/deck-v3-*.json``). Without ``expectations`` the logs
    are not verified and each ``expect`` lacks what only verifying tells.
    """
    import gleek_p2p.deck.protocol as deck_protocol

    saved = deck_protocol.CURRENT_VERSION
    deck_protocol.CURRENT_VERSION = 2
    _EXPECTING[0] = expectations
    try:
        return _build()
    finally:
        deck_protocol.CURRENT_VERSION = saved
        _EXPECTING[0] = True


def _build() -> list[Vector]:
    """Every vector, deterministically.

    The vectors written before the rulings switches (SPEC 1.5) are played
    under the first rulings, as they were, so their bytes stay the same;
    those named ``*-rulings`` and ``undeclared-gleek`` are played under the
    rulings of issue 12, and those named ``*-rulings-21`` under the current
    ones (issue 21: the open auction, trick scores received).
    """
    base = _valid("standard", 1, b"vector-standard")
    two = _valid("two", 1, b"vector-two")
    out = []
    for name, records in (
        ("valid-standard", base),
        ("valid-two", two),
        ("valid-standard-rulings", _valid("standard", 2, b"vector-standard-rulings", 12)),
        ("valid-modern-rulings", _valid("modern", 2, b"vector-modern-rulings", 12)),
        ("undeclared-gleek", _undeclared_gleek()),
        ("valid-standard-rulings-21", _valid("standard", 2, b"vector-standard-rulings-21", 21)),
        ("valid-modern-rulings-21", _valid("modern", 2, b"vector-modern-rulings-21", 21)),
        ("valid-two-rulings-21", _valid("two", 2, b"vector-two-rulings-21", 21)),
    ):
        out.append(Vector(name, records, _fair(records)))
    k = 30  # a mid-hand event to tamper with
    flipped = bytearray(base[k])
    flipped[len(flipped) // 2] ^= 0x01
    def broken(event: int, says: str, code: str) -> dict[str, Any]:
        return {"exit_code": 1, "event": event, "seat": None, "says": says, "code": code}

    out.append(Vector("flipped-byte", [*base[:k], bytes(flipped), *base[k + 1:]],
                      broken(k, "unreadable", "log.unreadable-event")))
    out.append(Vector("reordered", [*base[:k], base[k + 1], base[k], *base[k + 2:]],
                      broken(k, "reordered", "log.misplaced-record")))
    out.append(Vector("dropped", base[:k] + base[k + 1:],
                      broken(k, "reordered, cut", "log.misplaced-record")))
    out.append(Vector("duplicated", [*base[:k + 1], base[k], *base[k + 1:]],
                      broken(k + 1, "padded", "log.misplaced-record")))
    out.append(Vector("spliced", [*base[:k], two[k], *base[k + 1:]],
                      broken(k, "another session", "chain.other-session")))
    # Re-sign an event of seat s with another key: the signature does not verify.
    env = decode_envelope(base[k])
    impostor = Identity.generate(_derive(b"someone else", "identity", 9))
    forged = sign_envelope(impostor, env.session_id, env.seq, env.prev, env.seat, env.kind,
                           env.body, version=env.version)
    out.append(Vector("forged-author", [*base[:k], forged.encode(), *base[k + 1:]],
                      broken(k, "signature", "chain.bad-signature")))
    # The code of the first violation: a proof found in an abort's evidence
    # carries the code of the breach it proves (protocol/violations.md), an
    # audit's rule finding its own.
    for name, says, code in (
            ("equivocation", "two different events", "chain.equivocation"),
            ("revoke", "follow suit", "audit.illegal-move"),
            ("bad-unplayed-key", "commitment", "deck.key-commitment"),
            ("false-ruff", "show all", "audit.illegal-move"),
            ("hidden-combination", "must declare", "audit.illegal-move"),
            ("wrong-deal-key", "key", "deck.key-commitment"),
            ("out-of-turn", "out of turn", "turn.out-of-turn"),
            ("illegal-bid", "bid", "rules.illegal-move")):
        scenario = SCENARIOS[name]
        result = scenario.run(variant=FIRST_RULINGS)
        out.append(Vector(name, result.records, {
            "exit_code": 1, "event": _first_violation(result.records), "seat": scenario.blamed,
            "says": says, "code": code}))
    out.extend(_second_implementation_cases(base))
    out.extend(_proved_hand_cases())
    out.extend(_ending_cases())
    out.extend(_handover_cases())
    out.extend(_retake_cases())
    out.extend(_split_cases())
    out.extend(_coded_cases())
    return out


def _coded_cases() -> list[Vector]:
    """Aborts with a code (SPEC 4.4, "The abort's code"), added after the older vectors,
    which stay as they were: a timeout claimed with its code (screens word it from the
    code), and a well-formed code this version does not know (a later version's: taken,
    judged like any abort, its reason shown as the signer's words)."""
    out = []
    for name, seed, cause in (("claim-coded", b"vector-claim-coded", ev.TIMEOUT),
                              ("unknown-code", b"vector-unknown-code", "later-version-code")):
        tables = _play_into_second_hand(seed)
        exp = tables[0].expected()
        assert exp is not None
        signer = (exp.seat + 1) % 3
        claim = tables[signer].abort_event(
            exp.seat, f"{tables[0].roster.names[exp.seat]} did not send {exp.what} within "
            "120 s", cause=cause)
        out.append(Vector(name, [*tables[signer].encoded, claim.encode()], {
            "exit_code": 3, "verdict": "stopped", "code": "abort.claim", "signer": signer,
            "seat": exp.seat, "cause": cause}))
    return out


def _split_cases() -> list[Vector]:
    """Ben ends the session toward Cat (its leave, or its peer's local-failure abort)
    and plays on toward Anne: Anne's log, ending on her abort that carries Ben's
    word, proves it at Ben's event after it (SPEC 4.4)."""
    out = []
    for name, story, seed in (("left-and-played-on", leave, b"vector-split-leave"),
                              ("failed-and-played-on", local_failure,
                               b"vector-split-failure")):
        lied = split(story, seed)
        out.append(Vector(name, lied.anne, {
            "exit_code": 1, "verdict": "unfair", "event": lied.ben_after, "seat": 1,
            "says": "after ending the session", "code": "chain.signed-after-own-end"}))
    return out


def _proved_hand_cases() -> list[Vector]:
    """Deck v2 refusals a second implementation must make (SPEC 2.8, 2.9), and a modern
    hand with two declarations by each of two seats (settled once, against the mean:
    per declaration the column would be -16, 4, 12 halfpence, not -15, 2, 13)."""
    records = _valid("modern", 1, b"vector-modern-two-declarations-6", 12)
    out = [Vector("modern-two-declarations", records, _fair(records))]
    for name, says, code in (
            # A dispute in a proved hand: refused at its place, no seed revealed.
            ("dispute-proven-hand", "every pass and key is proved", "turn.dispute-proven-hand"),
            # A shuffle proof whose k_f is k_f + L: the equations hold, the range does not.
            ("unreduced-scalar", "not reduced below L", "deck.unreduced-scalar")):
        scenario = SCENARIOS[name]
        result = scenario.run(variant=FIRST_RULINGS)
        out.append(Vector(name, result.records, {
            "exit_code": 1, "event": _first_violation(result.records), "seat": scenario.blamed,
            "says": says, "code": code}))
    return out


#: Logs kept as they were made by deck protocol version 1 (every seed revealed
#: after the hand, the deal audited then): they must still verify.
_FIRST = {"score_sheet_tricks": False, "optional_declaring": False,
          "score_sheet_combinations": False, "open_auction": False, "received_scores": False}
"""The rulings of every log written before they were recorded: all off."""

FROZEN = [
    {"file": "valid-standard-deck-v1.gleeklog", "exit_code": 0, "totals": [-394, 201, 193],
     "rulings": _FIRST},
    {"file": "valid-two-deck-v1.gleeklog", "exit_code": 0, "totals": [162, -162],
     "rulings": _FIRST},
    {"file": "bad-seed-deck-v1.gleeklog", "exit_code": 1, "event": 89, "seat": 1, "says": "seed",
     "code": "deck.seed-mismatch"},
]


def write(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    index: list[dict[str, Any]] = list(FROZEN)
    for vector in build():
        path = directory / f"{vector.name}.gleeklog"
        path.unlink(missing_ok=True)
        with LogStore.open(path) as store:
            for record in vector.records:
                store.append(record)
        if vector.tail:
            with path.open("ab") as f:
                f.write(vector.tail)
        index.append({"file": path.name, **vector.expect})
    (directory / "index.json").write_text(json.dumps(index, indent=1) + "\n")


if __name__ == "__main__":
    write(Path(sys.argv[1] if len(sys.argv) > 1 else "protocol/vectors/sessions"))
