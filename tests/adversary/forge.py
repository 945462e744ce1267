"""Run a session in one process where one seat cheats in a chosen way.

``run_session`` plays like ``selfplay`` but lets a ``Tamper`` replace any
event the cheating seat would sign. Honest seats react as real peers do:
a rejected event with proof makes the first honest seat sign an abort
carrying the evidence; a failed hand audit does the same. The honest log is
returned, together with what each honest table raised.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gleek_p2p.base.errors import Cheating, GleekError, IllegalMove
from gleek_p2p.bots.strategy import RandomStrategy, choose_now
from gleek_p2p.log.envelope import Envelope
from gleek_p2p.rules import VARIANTS, Event, Phase, Variant, apply, shown_slots
from gleek_p2p.table import events as ev
from gleek_p2p.table.drive import sign_next
from gleek_p2p.table.session import Decision, Table
from gleek_p2p.table.shown import shown_slots_of
from gleek_p2p.tools.selfplay import make_seats

# (cheater's table, the envelope it would honestly sign or None for a decision,
#  the event number) -> the envelope to send instead, or None to behave.
Tamper = Callable[[Table, Envelope | None, int], Envelope | None]
# (cheater's table, the event number) -> an extra envelope to deliver first
# (out of turn, a second version of a position, ...), or None.
Inject = Callable[[Table, int], Envelope | None]


@dataclass
class Result:
    records: list[bytes]
    tables: list[Table]
    errors: list[GleekError] = field(default_factory=list)


class LiarTable(Table):
    """The cheater's own copy: it believes its own lies.

    An honest seat's engine knows its whole hand, so it would refuse the
    cheater's false moves and fall out of step with the log. This copy
    judges the cheater's own moves as the other seats do, blind to the
    cards they cannot see.
    """

    def _take_act(self, seq: int, seat: int, body: list[Any]) -> list[Event]:
        try:
            return super()._take_act(seq, seat, body)
        except IllegalMove:
            if seat != self.seat:
                raise
        m = self._m
        assert m.state is not None
        act = ev.Act.from_body(seat, body)
        shown = set(shown_slots_of(act.action)) | shown_slots(m.state)
        state = m.state
        hidden = [x for x in state.holding[seat] if x not in shown]
        cards, where = list(state.cards), list(state.where)
        for slot in hidden:
            where[cards[slot]] = -1
            cards[slot] = -1
        after = apply(state._replace(cards=tuple(cards), where=tuple(where)), act.action)
        m.state = after._replace(cards=state.cards, where=state.where)
        m.hand_actions.append((seq, act.action))
        if m.state.phase in (Phase.HAND_OVER, Phase.SESSION_OVER):
            self._end_of_hand()
        return [act.action]


def sign_as(table: Table, kind: str, body: list[object]) -> Envelope:
    """Sign any event at the table's next position with its identity."""
    return table._sign(kind, body)


def act_envelope(table: Table, action: Event) -> Envelope:
    """Sign a move (legal or not), with the keys of what it shows."""
    keys = table._keys_for(action)
    return sign_as(table, ev.ACT, ev.Act(action, keys).to_body())


def run_session(
    tamper: Tamper | None = None,
    *,
    inject: Inject | None = None,
    cheater: int = 1,
    variant: Variant = VARIANTS["standard"],
    hands: int = 1,
    seed: bytes = b"adversary",
    max_events: int = 5000,
) -> Result:
    tables = make_seats(variant, hands, seed)
    liar = tables[cheater]
    tables[cheater] = LiarTable(liar.roster, liar.seat, liar._identity, liar._secret)
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
        if inject is not None:
            extra = inject(tables[cheater], len(records))
            if extra is not None:
                caught_extra = _deliver(honest, extra, errors)
                if caught_extra is not None:
                    evidence = caught_extra.evidence or (extra.encode(),)
                    _broadcast(tables, lead.abort_event(caught_extra.seat, caught_extra.reason,
                                                        evidence), records)
                    break
        expected = lead.expected()
        assert expected is not None
        actor = tables[expected.seat]

        def honest_move(decision: Decision) -> Event:
            return choose_now(bots[decision.seat], decision.view, decision.legal)

        if actor.seat != cheater or tamper is None:
            envelope = sign_next(actor, honest_move)
        elif (envelope := actor.auto_event()) is not None:
            envelope = tamper(actor, envelope, len(records)) or envelope
        else:
            decision = actor.decision()
            if decision is None:  # the cheater's own view may disagree; let it play anyway
                break
            move = honest_move(decision)  # chosen first, so the bots' draws do not depend on tamper
            envelope = tamper(actor, None, len(records)) or actor.act(move)
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
        with contextlib.suppress(GleekError):  # the cheater's copy may refuse its own lies
            tables[cheater].receive(envelope, data)
    return Result(records, tables, errors)


def _deliver(honest: list[Table], envelope: Envelope, errors: list[GleekError]) -> Cheating | None:
    caught: Cheating | None = None
    for table in honest:
        try:
            table.receive(envelope)
        except Cheating as exc:
            caught = exc
            errors.append(exc)
        except GleekError as exc:
            errors.append(exc)
    return caught


def _broadcast(tables: list[Table], envelope: Envelope, records: list[bytes]) -> None:
    data = envelope.encode()
    for table in tables:
        with contextlib.suppress(GleekError):
            table.receive(envelope, data)
    records.append(data)


def future_flood(victim: Table, flooder: Table, count: int, size: int = 7_000,
                 first: int = 0) -> list[bytes]:
    """What a seated peer floods another with to grow its held-back events: a quarter
    far ahead of ``victim``'s log, the rest near (in the window and just past it),
    each signed with the flooder's real key but for every seventh, forged.

    They are of the kind with the largest bound but the abort's (SPEC 3: a
    shuffle), as large as it lets them be: a larger event is refused before
    it is parked."""
    from gleek_p2p.log.envelope import sign_envelope
    from gleek_p2p.log.keys import Identity

    identity = flooder._identity
    assert identity is not None and flooder.seat is not None
    stranger = Identity.generate(bytes(32))
    head = len(victim.envelopes)
    padding = b"\xee" * size
    out = []
    for i in range(first, first + count):
        seq = head + 1000 + i if i % 4 == 0 else head + 1 + i % 80
        signer = stranger if i % 7 == 0 else identity
        envelope = sign_envelope(signer, victim.session_id, seq, bytes([i % 256]) * 32,
                                 flooder.seat, ev.SHUFFLE, [padding, i])
        out.append(envelope.encode())
    return out
