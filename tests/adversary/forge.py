"""Run a session in one process where one seat cheats in a chosen way.

``run_session`` plays like ``selfplay`` but lets a ``Tamper`` replace any
event the cheating seat would sign. Honest seats react as real peers do:
a rejected event with proof makes the first honest seat sign an abort
carrying the evidence; a failed hand audit does the same. The honest log is
returned, together with what each honest table raised.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gleek_p2p.bots.strategy import RandomStrategy, choose_now
from gleek_p2p.errors import Cheating, GleekError
from gleek_p2p.log.envelope import Envelope
from gleek_p2p.rules import VARIANTS, Event, Variant
from gleek_p2p.selfplay import make_seats
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Table

# (cheater's table, the envelope it would honestly sign or None for a decision,
#  the event number) -> the envelope to send instead, or None to behave.
Tamper = Callable[[Table, Envelope | None, int], Envelope | None]


@dataclass
class Result:
    records: list[bytes]
    tables: list[Table]
    errors: list[GleekError] = field(default_factory=list)


def sign_as(table: Table, kind: str, body: list[object]) -> Envelope:
    """Sign any event at the table's next position with its identity."""
    return table._sign(kind, body)  # noqa: SLF001 - an adversary may do anything


def act_envelope(table: Table, action: Event) -> Envelope:
    """Sign a move (legal or not), with the keys of what it shows."""
    keys = table._keys_for(action)  # noqa: SLF001
    return sign_as(table, ev.ACT, ev.Act(action, keys).to_body())


def run_session(
    tamper: Tamper | None = None,
    *,
    cheater: int = 1,
    variant: Variant = VARIANTS["standard"],
    hands: int = 1,
    seed: bytes = b"adversary",
    max_events: int = 5000,
) -> Result:
    tables = make_seats(variant, hands, seed)
    bots = [RandomStrategy(seed + bytes([s])) for s in range(len(tables))]
    honest = [t for t in tables if t.seat != cheater]
    records: list[bytes] = []
    errors: list[GleekError] = []
    while not honest[0].finished and len(records) < max_events:
        lead = honest[0]
        if lead.audit_failure is not None:
            failure = lead.audit_failure
            _broadcast(tables, lead.abort_event(failure.seat, failure.reason, failure.evidence),
                       records)
            break
        expected = lead.expected()
        assert expected is not None
        actor = tables[expected.seat]
        envelope = actor.auto_event()
        if envelope is None:
            decision = actor.decision()
            if decision is None:  # the cheater's own view may disagree; let it play anyway
                break
            move = choose_now(bots[actor.seat or 0], decision.view, decision.legal)
            honest_env: Envelope | None = None
            if actor.seat == cheater and tamper is not None:
                replaced = tamper(actor, None, len(records))
                if replaced is not None:
                    envelope = replaced
            if envelope is None:
                envelope = honest_env or actor.act(move)
        elif actor.seat == cheater and tamper is not None:
            replaced = tamper(actor, envelope, len(records))
            if replaced is not None:
                envelope = replaced
        data = envelope.encode()
        caught: Cheating | None = None
        for table in honest:
            try:
                table.receive(envelope, data)
            except Cheating as exc:
                caught = exc
                errors.append(exc)
            except GleekError as exc:
                errors.append(exc)
        if caught is not None:
            evidence = caught.evidence or (data,)
            _broadcast(tables, lead.abort_event(caught.seat, caught.reason, evidence), records)
            break
        if errors:
            break
        records.append(data)
        try:
            tables[cheater].receive(envelope, data)
        except GleekError:
            pass  # The cheater's own copy may refuse its own lies.
    return Result(records, tables, errors)


def _broadcast(tables: list[Table], envelope: Envelope, records: list[bytes]) -> None:
    data = envelope.encode()
    for table in tables:
        try:
            table.receive(envelope, data)
        except GleekError:
            pass
    records.append(data)
