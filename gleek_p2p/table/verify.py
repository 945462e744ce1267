"""Verify a whole session log, offline, with no secret but what the log holds.

The verifier is an observer ``Table``: it replays every event exactly as a
seat did, and at the end of each hand, with the seeds the seats revealed, it
recomputes the deck protocol and replays the hand with every card known. The
first event that fails is a violation naming the seat to blame; an ``abort``
at the end is checked against the evidence it carries.

Three outcomes (``Judgement``): **fair** (complete, or ended early by a seat's
own signed word: a ``leave``, or its own peer's failure), **unfair** (a proven
violation: the seat, the code, the evidence) and **stopped** (the log ends
waiting for a seat, or with a claim it cannot prove: nobody is named).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum

from gleek_p2p.base.errors import Cheating, GleekError, ProtocolError, ViolationCode
from gleek_p2p.base.text import one_line
from gleek_p2p.log.envelope import NewerLog, decode_envelope, event_hash, verify_envelope
from gleek_p2p.log.store import LogFault
from gleek_p2p.rules import Event, State
from gleek_p2p.table import events as ev
from gleek_p2p.table.roster import Roster
from gleek_p2p.table.session import Handover, HandRecord, SeatChange, Stage, Table, Verdict


@dataclass(frozen=True)
class Violation:
    """One proven (or claimed) breach: where, who, what, and the proof."""

    seq: int | None
    seat: int | None
    reason: str
    evidence: tuple[bytes, ...] = ()
    proven: bool = True
    code: ViolationCode | None = None
    """What was broken, stable across wordings (``protocol/violations.md``)."""
    signer: int | None = None
    """For a claim (``proven`` False): the seat that signed the abort making it."""
    cause: Cheating | None = field(default=None, compare=False, repr=False)
    """The table's own record of the violation, when it kept one (an audit failure)."""
    abort: Verdict | None = field(default=None, compare=False, repr=False)
    """For a claim: the abort making it, whose code (``Verdict.cause``) the screens
    word it from (``Verdict.fits`` False when the code does not fit the log)."""

    def sentence(self, names: Sequence[str] | None = None) -> str:
        where = "" if self.seq is None else f"event {self.seq}: "
        who = ""
        if self.seat is not None:
            name = names[self.seat] if names and 0 <= self.seat < len(names) else ""
            who = f"seat {self.seat}{f' ({name})' if name else ''} - "
        if not self.proven:
            # A claim names nobody: it is the signer's words (shown inert, on one line).
            signer = -1 if self.signer is None else self.signer
            name = names[signer] if names and 0 <= signer < len(names) else ""
            return (f"{where}seat {signer}{f' ({name})' if name else ''} says: "
                    f"“{one_line(self.reason)}” (the signer's own words). The log cannot "
                    "prove it.")
        # The reason may be a peer's words (an abort's): shown inert, on one line.
        return f"{where}{who}{one_line(self.reason)}"


class Judgement(Enum):
    """What a log proves about its session, with ``gleek verify``'s exit code for each."""

    FAIR = "fair"
    """Complete, or ended early by a seat's own signed word; no violation."""
    UNFAIR = "unfair"
    """A violation is proven (or the log was altered)."""
    UNREADABLE = "unreadable"
    """Not a session log."""
    STOPPED = "stopped"
    """Nothing proven either way: the log stops waiting for a seat, or ends on a claim."""

    @property
    def exit_code(self) -> int:
        return _EXIT_CODES[self]


_EXIT_CODES = {Judgement.FAIR: 0, Judgement.UNFAIR: 1, Judgement.UNREADABLE: 2,
               Judgement.STOPPED: 3}


@dataclass(frozen=True)
class Ending:
    """How a session that is not complete ended by a seat's own signed word."""

    seat: int
    """The seat that left (or whose peer failed)."""
    seq: int
    """Where it signed it (a leave carried by another seat's abort: where it stands)."""
    hand: int | None
    """The hand (from 0) under way then; None before the first deal."""
    cause: str
    """``events.LEFT`` (its player left) or ``events.LOCAL_FAILURE`` (its peer failed)."""
    reason: str = ""
    """The signer's words, for a failure."""


@dataclass
class VerifyReport:
    """What ``gleek verify`` found: the table as replayed, and every problem."""

    readable: bool
    roster: Roster | None = None
    table: Table | None = None
    events: int = 0
    violations: list[Violation] = field(default_factory=list)
    """Proven violations only (a claim is in ``claims``)."""
    claims: list[Violation] = field(default_factory=list)
    """What an abort says that the log cannot prove (``proven`` False): nobody is blamed."""
    ending: Ending | None = None
    """A session ended early by a seat's own signed word (no violation): who, where."""
    complete: bool = False
    error: str = ""
    stopped: str = ""
    """For a log that checks out but ends early: where it stops (no seat is blamed)."""
    waiting_for: int | None = None
    """In an incomplete log: the seat whose event the log stops waiting for."""
    error_code: ViolationCode | None = None
    """For an unreadable log: why (``log.empty``, ``log.not-a-log``, ``log.no-roster``)."""
    log_fault: LogFault | None = None
    """For a file that is not a log (``log.not-a-log``): why, for a screen to word."""
    log_version: int | None = None
    """For a log a newer program wrote (``log.newer-version``): the version it names."""

    @property
    def handovers(self) -> tuple[Handover, ...]:
        """Every seat's signed hand-over to a bot, in log order (none if unreadable)."""
        return () if self.table is None else self.table.handovers

    @property
    def seat_changes(self) -> tuple[SeatChange, ...]:
        """Every signed hand-over and retake, in log order (none if unreadable)."""
        return () if self.table is None else self.table.seat_changes

    @property
    def hands(self) -> list[HandRecord]:
        return [] if self.table is None else self.table.hands

    @property
    def judgement(self) -> Judgement:
        if not self.readable:
            return Judgement.UNREADABLE
        if self.violations:
            return Judgement.UNFAIR
        if self.complete or self.ending is not None:
            return Judgement.FAIR
        return Judgement.STOPPED

    @property
    def fair(self) -> bool:
        """Complete, or ended early by a seat's own signed word, and no violation."""
        return self.judgement is Judgement.FAIR

    @property
    def incomplete(self) -> bool:
        """Every event checks out, but the log stops before the session's end (no abort)."""
        return self.judgement is Judgement.STOPPED and not self.claims

    @property
    def code(self) -> ViolationCode | None:
        """The code of the whole log's state when no violation names it: unreadable,
        cut short, or ended on a claim."""
        if not self.readable:
            return self.error_code
        if self.judgement is not Judgement.STOPPED:
            return None
        return ViolationCode.ABORT_CLAIM if self.claims else ViolationCode.LOG_INCOMPLETE

    @property
    def exit_code(self) -> int:
        """0 fair, 1 unfair (proven), 2 unreadable, 3 stopped (nothing proven)."""
        return self.judgement.exit_code


def _newer(exc: NewerLog) -> VerifyReport:
    """A log of a version this program does not know: no verdict, no seat blamed.

    Its bodies may be well formed in that version and malformed in ours, so
    judging them here could blame an honest signer (SPEC 3, "The log's version").
    """
    return VerifyReport(readable=False, error=str(exc),
                        error_code=ViolationCode.LOG_NEWER_VERSION, log_version=exc.version)


def verify_records(
    records: Sequence[bytes], progress: Callable[[int, int], None] | None = None,
    taken: Callable[[int, list[Event], State | None], None] | None = None,
) -> VerifyReport:
    """Verify a session given its encoded envelopes, in log order.

    ``taken(index, events, state)`` is told of every record the table takes: the
    engine events it caused and the table's state after it (the replay builds
    its steps from them, so the log is checked once).
    """
    if not records:
        return VerifyReport(readable=False, error="the log holds no event",
                            error_code=ViolationCode.LOG_EMPTY)
    try:
        first = decode_envelope(records[0])
    except NewerLog as exc:
        return _newer(exc)
    except GleekError as exc:
        return VerifyReport(readable=False, error=f"not a session log: {exc}",
                            error_code=ViolationCode.LOG_NO_ROSTER)
    try:
        if first.kind != ev.ROSTER or first.seq != 0:
            raise ProtocolError("the log does not start with a roster",
                                code=ViolationCode.LOG_NO_ROSTER)
        roster = Roster.from_body(first.body)
    except GleekError as exc:
        return VerifyReport(readable=False, error=f"not a session log: {exc}",
                            error_code=ViolationCode.LOG_NO_ROSTER)
    table = Table(roster)
    report = VerifyReport(readable=True, roster=roster, table=table)
    for index, record in enumerate(records):
        if progress is not None:
            progress(index, len(records))
        try:
            envelope = decode_envelope(record)
        except NewerLog as exc:
            # One program writes a whole log, the roster first: a later record of
            # a newer version is an altered record, not a newer log. Read as a
            # newer log, it would hide what the records before it prove (a seat
            # could append one to its own copy to make its cheating unreadable).
            report.violations.append(Violation(
                index, None, f"unreadable event: record {index} names log version "
                f"{exc.version}, the log's roster version {first.version}", (record,),
                code=ViolationCode.LOG_UNREADABLE_EVENT))
            break
        except ProtocolError as exc:
            report.violations.append(Violation(index, None, f"unreadable event: {exc}",
                                               code=ViolationCode.LOG_UNREADABLE_EVENT))
            break
        if envelope.seq != index:
            # A stored log holds each position once, in order: it was altered.
            report.violations.append(Violation(
                index, None, f"record {index} holds event number {envelope.seq}: the log "
                "was reordered, cut or padded", (record,),
                code=ViolationCode.LOG_MISPLACED_RECORD))
            break
        try:
            applied = table.receive(envelope, record)
        except Cheating as exc:
            report.violations.append(
                Violation(_event_of(exc.evidence, index), exc.seat, exc.reason, exc.evidence,
                          code=exc.code))
            break
        except ProtocolError as exc:
            # Not signed by its seat, or not for this place: nobody can be blamed,
            # but the log is not the one the players signed.
            report.violations.append(Violation(index, None, str(exc), (record,), code=exc.code))
            break
        report.events += 1
        if taken is not None:
            taken(index, applied, table.state)
        failure = table.audit_failure
        if failure is not None and not any(v.cause is failure for v in report.violations):
            report.violations.append(Violation(
                _event_of(failure.evidence, index), failure.seat, failure.reason,
                failure.evidence, code=failure.code, cause=failure))
    if progress is not None:
        progress(len(records), len(records))
    verdict = table.verdict
    played_on = None if verdict is None else _signed_after_own_end(records, table, verdict)
    if played_on is not None:
        # The seat whose own end the abort carries signed on in this log: it
        # signed two branches of the chain; that proves it, whoever aborted.
        report.violations.append(played_on)
    elif verdict is not None:
        report.ending = _ending_of(records, table, verdict)
    if verdict is not None and report.ending is None and (
            played_on is None or verdict.blamed not in (None, played_on.seat)):
        # (An abort that blames yet another seat is still judged: its claim stays one.)
        # A proof found in an abort's evidence is reported as abort.proven, a
        # claim the log cannot prove as abort.claim.
        for v in _judge_abort(roster, records, verdict, report):
            if v.code is None:
                v = replace(v, code=ViolationCode.ABORT_PROVEN if v.proven
                            else ViolationCode.ABORT_CLAIM)
            (report.violations if v.proven else report.claims).append(v)
    report.complete = table.stage is Stage.OVER
    if not report.complete and not report.violations and verdict is None:
        # A log cut short (a copy taken mid-game, a peer that left) proves
        # nothing against the seat it waits for: say where it stops, blame nobody.
        exp = table.expected()
        report.waiting_for = exp.seat if exp else None
        report.stopped = (f"it stops waiting for {roster.names[exp.seat]} ({exp.what})"
                          if exp else "it stops before the end")
    return report


def early_end(table: Table) -> Ending | None:
    """How a finished table's session ended by a seat's own signed word, as ``gleek
    verify`` would say it of that table's log (no violation found before), or None.

    Cheap (no replay): the peer commands read their exit code from it. A
    seat's leave carried by an abort counts only on this chain and only if
    that seat signed nothing after it here (SPEC 4.4).
    """
    verdict = table.verdict
    if verdict is None or _signed_after_own_end(table.encoded, table, verdict) is not None:
        return None
    return _ending_of(table.encoded, table, verdict)


def _ending_of(records: Sequence[bytes], table: Table, verdict: Verdict) -> Ending | None:
    """The seat's own signed end of the session, if that is how it ended.

    A ``leave`` event is its signer's word; so is an abort of cause
    ``local-failure`` about the signer's own peer. An abort of cause ``left``
    counts only if the leave it carries is this session's, signed by the
    leaver, and chained to this log where it stands: the event before it is
    the one this log holds there (the leave crossed another event at that
    position). Anything else is the abort signer's claim.
    """
    if verdict.cause == ev.LOCAL_FAILURE and verdict.blamed is None:
        return Ending(verdict.signer, verdict.seq, table.hand_at(verdict.seq),
                      ev.LOCAL_FAILURE, verdict.reason)
    if verdict.blamed is None and verdict.cause in (None, ev.PEER_FAILED) and verdict.evidence:
        # A seat that signed its abort where another seat's local-failure abort
        # could not go (the two crossed): that abort, on this chain, is the fact.
        failure = _failure_in(records, table, verdict.evidence[0], verdict.seq)
        if failure is not None:
            return failure
    if verdict.left is None or verdict.left_at is None:
        return None
    at = verdict.left_at
    if decode_envelope(records[verdict.seq]).kind != ev.LEAVE:
        # An abort carrying the leave: it must hang on this chain where it stands.
        leave = decode_envelope(verdict.evidence[0])
        if leave.prev != event_hash(decode_envelope(records[at - 1])):
            return None
    return Ending(verdict.left, at, table.hand_at(at), ev.LEFT)


def _signed_after_own_end(records: Sequence[bytes], table: Table,
                          verdict: Verdict) -> Violation | None:
    """A seat proven to have signed on after its own end, from an abort's evidence and
    this log; else None.

    A seat's own end is its ``leave``, or its abort of cause ``local-failure``
    (validly signed, of this session, at a position p no later than the
    abort). An honest seat signs nothing after it, and nothing at all once
    its log holds it; so if this log holds another event at p and an event
    that seat signed at p or later, the seat signed two branches of the
    chain. At p itself that is equivocation; later, it ended the session
    toward one seat and played on toward another
    (``chain.signed-after-own-end``). The end's own ``prev`` does not matter:
    no single chain of the seat's can hold both. Whatever the abort says
    (its cause, whom it blames), the two signatures prove it.
    """
    roster = table.roster
    for item in verdict.evidence:
        try:
            end = decode_envelope(item)
            if (end.kind not in (ev.LEAVE, ev.ABORT) or end.session_id != roster.session_id
                    or not 0 < end.seq <= verdict.seq or not 0 <= end.seat < roster.seats):
                continue
            if end.kind == ev.LEAVE:
                ev.leave_body(end.body)
            elif ev.Abort.from_body(end.body).cause != ev.LOCAL_FAILURE:
                continue
            verify_envelope(end, roster.publics[end.seat])
        except ProtocolError:
            continue
        what = "its leave" if end.kind == ev.LEAVE else "its own failure"
        # Up to the abort itself: a leaver that signs an abort after its leave
        # signed on too. (Two aborts at one position are no proof: Table._check_duplicate.)
        for seq in range(end.seq, verdict.seq + 1):
            mine = decode_envelope(records[seq])
            if mine.seat != end.seat or records[seq] == item or (
                    seq == end.seq and mine.kind == end.kind == ev.ABORT):
                continue
            if seq == end.seq:
                return Violation(seq, end.seat, f"signed two different events at position "
                                 f"{seq}", (records[seq], item),
                                 code=ViolationCode.CHAIN_EQUIVOCATION)
            return Violation(seq, end.seat, f"signed event {seq} of this log after ending the "
                             f"session at event {end.seq} ({what}) on another branch",
                             (records[seq], item), code=ViolationCode.CHAIN_SIGNED_AFTER_OWN_END)
    return None


def _failure_in(records: Sequence[bytes], table: Table, item: bytes,
                upto: int) -> Ending | None:
    """``item`` as a seat's own local-failure abort of this session, signed at a
    position up to ``upto`` and chained to this log there; else None."""
    roster = table.roster
    try:
        other = decode_envelope(item)
        if (other.kind != ev.ABORT or other.session_id != roster.session_id
                or not 0 < other.seq <= upto or not 0 <= other.seat < roster.seats):
            return None
        abort = ev.Abort.from_body(other.body)
        verify_envelope(other, roster.publics[other.seat])
        if abort.cause != ev.LOCAL_FAILURE:
            return None
        if other.prev != event_hash(decode_envelope(records[other.seq - 1])):
            return None
    except ProtocolError:
        return None
    return Ending(other.seat, other.seq, table.hand_at(other.seq), ev.LOCAL_FAILURE,
                  abort.reason)


def _event_of(evidence: Sequence[bytes], default: int) -> int:
    """The position of the first signed event in the evidence (the offending one)."""
    for item in evidence:
        try:
            return decode_envelope(item).seq
        except ProtocolError:
            continue
    return default


def _judge_abort(
    roster: Roster, records: Sequence[bytes], verdict: Verdict, report: VerifyReport
) -> list[Violation]:
    """Check an abort's evidence by replaying it where the abort stands.

    Only a ``Cheating`` naming the blamed seat, raised by a piece of evidence
    of this session at a position no later than the abort (chained to this
    log at the abort's position; a second version of an event the log holds
    before it) is proof. Anything else (an event of another session, a later
    position, a fork of the chain, an error that is not ``Cheating``) is
    reported as the signer's claim: identity keys are long-lived, so a seat
    can always show something the victim once signed somewhere else.
    """
    found = [v for v in report.violations if v.proven and v.seat == verdict.blamed] \
        if verdict.blamed is not None else []
    if found:
        return _other_code(verdict, found[0])  # The verifier found the breach on its own.
    prefix = records[: verdict.seq]
    replayed: list[Table | None] = []
    """The log up to the abort, replayed once for every item (lazily: an abort may
    carry none worth it): each item is tried on a copy. Replayed for each item, up to
    ``MAX_EVIDENCE`` items made verifying the signer's log that many times as slow."""

    def before_abort() -> Table | None:
        if not replayed:
            replay = Table(roster)
            try:
                for record in prefix:
                    replay.receive(decode_envelope(record), record)
            except GleekError:
                # The log itself fails before the abort: the main replay says so.
                replayed.append(None)
            else:
                replayed.append(replay)
        base = replayed[0]
        return None if base is None else copy.deepcopy(base)

    for item in verdict.evidence:
        proof = _proof_in(roster, before_abort, verdict, item)
        if proof is not None:
            return [proof, *_other_code(verdict, proof)]
    # The signer's words, as its claim: they name nobody as proven guilty.
    return [
        Violation(
            verdict.seq,
            verdict.blamed,
            verdict.reason,
            verdict.evidence,
            proven=False,
            signer=verdict.signer,
            abort=verdict,
        )
    ]


def _other_code(verdict: Verdict, proof: Violation) -> list[Violation]:
    """The abort's violation code as its signer's claim, if the breach proven against
    the seat it blames is another one (the code does not fit its evidence); else []."""
    if verdict.cause not in ev.VIOLATION_CODES or proof.code is None \
            or proof.code.value == verdict.cause:
        return []
    return [Violation(verdict.seq, verdict.blamed, verdict.reason, verdict.evidence,
                      proven=False, signer=verdict.signer, abort=replace(verdict, fits=False))]


def _proof_in(
    roster: Roster, before_abort: Callable[[], Table | None], verdict: Verdict, item: bytes
) -> Violation | None:
    """The violation one piece of an abort's evidence proves, or None; ``before_abort``
    gives a table of its own that took the log up to the abort (None if it fails there)."""
    if verdict.blamed is None:
        return None
    try:
        evidence = decode_envelope(item)
    except ProtocolError:
        return None
    if evidence.session_id != roster.session_id or not 0 <= evidence.seq <= verdict.seq:
        return None
    replay = before_abort()
    if replay is None:
        return None
    # At the abort's position the evidence must hang on this chain (the event
    # before it is the one this log holds). Before it, only a second event for
    # a position the log holds can raise Cheating: two signatures by one seat
    # for one position of this session, which no honest seat ever makes.
    if evidence.seq == verdict.seq:
        expected_prev = bytes(32) if evidence.seq == 0 else event_hash(
            replay.envelopes[evidence.seq - 1])
        if evidence.prev != expected_prev:
            return None
    try:
        replay.receive(evidence, item)
    except Cheating as exc:
        if exc.seat == verdict.blamed:
            return Violation(_event_of(exc.evidence, verdict.seq), exc.seat, exc.reason,
                             exc.evidence, code=exc.code)
    except GleekError:
        return None
    return None
