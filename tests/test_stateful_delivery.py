"""Three tables over a hostile network: delivery in any order, duplicated, lost.

A hypothesis ``RuleBasedStateMachine`` plays the network between the three
seats of a one-hand session. Each table has an inbox; the rules produce the
next event at the seat that must sign it, deliver any pending event to any
table (in order or not), deliver one twice, drop one (a ``Sync`` re-sends it
later) and try a forged copy. Like ``SessionRunner``, a table holds back an
event from the future (the table itself must refuse it unchanged) and takes
it once the gap is filled.

Invariants: no table ever holds two different events at one position, every
table's log is a prefix of the one log, a table raises nothing but
``ProtocolError``/``Cheating`` and a refusal changes nothing. At the end the
network heals and every table reaches the same final state, which
``verify`` finds fair.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from gleek_p2p.base.errors import Cheating, ProtocolError
from gleek_p2p.deck.suites import Secp256k1Suite
from gleek_p2p.log.envelope import Envelope, decode_envelope, event_hash, sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table.drive import sign_next
from gleek_p2p.table.session import Table
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import make_seats

SEATS = 3


@pytest.fixture(autouse=True)
def proofs_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deck proof that checked out is not checked again on the same bytes.

    The three tables and ``verify`` each check every other seat's shuffle and
    lock proofs: the same pure check of the same bytes, most of this test's
    time. A proof that fails is checked each time, so what each table decides
    is unchanged; what this test varies is the delivery, not the proofs.
    """
    for name in ("verify_shuffle", "verify_lock"):
        check = getattr(Secp256k1Suite, name)
        passed: set[tuple[Any, ...]] = set()

        def once(self: Secp256k1Suite, *args: Any, check: Any = check,
                 passed: set[tuple[Any, ...]] = passed) -> None:
            key = tuple(tuple(a) if isinstance(a, list | tuple) else a for a in args)
            try:
                if key in passed:
                    return
            except TypeError:  # something unhashable: checked as usual
                check(self, *args)
                return
            check(self, *args)
            passed.add(key)

        monkeypatch.setattr(Secp256k1Suite, name, once)


def snapshot(table: Table) -> tuple[Any, ...]:
    return (len(table.envelopes), table.head, table.stage, table.state, len(table.hands),
            table.verdict, table.expected())


class Network(RuleBasedStateMachine):
    """One session, three tables, and a network that loses, repeats and reorders."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[Table] = []
        self.log: list[bytes] = []  # the one log, in the order events were signed
        self.inbox: list[list[bytes]] = [[] for _ in range(SEATS)]
        self.held: list[dict[int, bytes]] = [{} for _ in range(SEATS)]
        self.lost: list[int] = [0] * SEATS
        self.stranger = Identity.generate(b"\x42" * 32)

    @initialize(seed=st.binary(min_size=4, max_size=4))
    def seat_the_players(self, seed: bytes) -> None:
        self.tables = make_seats(VARIANTS["standard"], 1, b"stateful" + seed)

    # ----------------------------------------------------------------- helpers

    def author(self) -> Table | None:
        """The table that must sign the next event, if it has seen the whole log."""
        for table in self.tables:
            if len(table.envelopes) == len(self.log) and not table.finished:
                expected = table.expected()
                if expected is None:
                    return None
                author = self.tables[expected.seat]
                return author if len(author.envelopes) == len(self.log) else None
        return None

    def offer(self, index: int, data: bytes) -> None:
        """Hand ``data`` to table ``index`` the way ``SessionRunner`` does."""
        table = self.tables[index]
        envelope = decode_envelope(data)
        if envelope.seq > len(table.envelopes):
            before = snapshot(table)
            try:
                table.receive(envelope, data)
            except ProtocolError as exc:
                assert "expected" in str(exc)
            else:
                raise AssertionError("a table took an event from the future")
            assert snapshot(table) == before
            self.held[index][envelope.seq] = data
            return
        self.take(index, envelope, data)
        while len(table.envelopes) in self.held[index]:
            data = self.held[index].pop(len(table.envelopes))
            self.take(index, decode_envelope(data), data)

    def take(self, index: int, envelope: Envelope, data: bytes) -> None:
        table = self.tables[index]
        length = len(table.envelopes)
        applied = table.receive(envelope, data)  # an honest event: never refused
        if envelope.seq < length:
            assert applied == [] and len(table.envelopes) == length  # a duplicate
        else:
            assert len(table.envelopes) == length + 1

    def heal(self) -> None:
        """Deliver everything, then play the rest of the session on a perfect network."""
        for index in range(SEATS):
            self.inbox[index].clear()
            for data in self.log[len(self.tables[index].envelopes):]:
                self.offer(index, data)
        while (author := self.author()) is not None:
            self.sign(author, 0)
            for index in range(SEATS):
                for data in self.inbox[index]:
                    self.offer(index, data)
                self.inbox[index].clear()

    def sign(self, author: Table, choice: int) -> None:
        envelope = sign_next(author, lambda d: d.legal[choice % len(d.legal)])
        data = envelope.encode()
        assert author.seat is not None
        self.offer(author.seat, data)  # the author takes its own event first
        self.log.append(data)
        for index in range(SEATS):
            if index != author.seat:
                self.inbox[index].append(data)

    # ------------------------------------------------------------------- rules

    @precondition(lambda self: self.author() is not None)
    @rule(choice=st.integers(0, 1000))
    def produce(self, choice: int) -> None:
        author = self.author()
        assert author is not None
        self.sign(author, choice)

    @precondition(lambda self: any(self.inbox))
    @rule(data=st.data())
    def deliver(self, data: st.DataObject) -> None:
        index = data.draw(st.sampled_from([i for i in range(SEATS) if self.inbox[i]]))
        # Mostly the oldest pending event, sometimes any of them (out of order).
        position = data.draw(st.integers(0, len(self.inbox[index]) - 1) | st.just(0))
        self.offer(index, self.inbox[index].pop(position))

    @precondition(lambda self: any(self.inbox))
    @rule(data=st.data())
    def duplicate(self, data: st.DataObject) -> None:
        index = data.draw(st.sampled_from([i for i in range(SEATS) if self.inbox[i]]))
        position = data.draw(st.integers(0, len(self.inbox[index]) - 1))
        item = self.inbox[index][position]
        self.offer(index, item)
        self.offer(index, item)

    @precondition(lambda self: any(self.inbox))
    @rule(data=st.data())
    def drop(self, data: st.DataObject) -> None:
        index = data.draw(st.sampled_from([i for i in range(SEATS) if self.inbox[i]]))
        position = data.draw(st.integers(0, len(self.inbox[index]) - 1))
        self.inbox[index].pop(position)
        self.lost[index] += 1

    @rule(index=st.integers(0, SEATS - 1))
    def sync(self, index: int) -> None:
        """What a ``Sync(len(envelopes))`` brings back: every event from there on."""
        self.inbox[index].extend(self.log[len(self.tables[index].envelopes):])
        self.lost[index] = 0

    @precondition(lambda self: bool(self.log))
    @rule(index=st.integers(0, SEATS - 1), forger=st.sampled_from(["stranger", "neighbour"]),
          data=st.data())
    def forge(self, index: int, forger: str, data: st.DataObject) -> None:
        """An event of the log (or the next one) re-signed by a key that is not its seat's."""
        table = self.tables[index]
        position = data.draw(st.integers(0, len(self.log)))
        original = decode_envelope(self.log[min(position, len(self.log) - 1)])
        prev = (original.prev if position < len(self.log)
                else event_hash(decode_envelope(self.log[-1])))
        if forger == "stranger":
            key, seat = self.stranger, original.seat
        else:  # another seat's key on the author's event
            seat = original.seat
            key = self.tables[(seat + 1) % SEATS]._identity
            assert key is not None
        forged = sign_envelope(key, table.session_id, position,
                               prev, seat, original.kind, original.body)
        before = snapshot(table)
        try:
            table.receive(forged)
        except (ProtocolError, Cheating) as exc:
            assert str(exc)
        else:
            raise AssertionError("a table accepted an event no seat signed")
        assert snapshot(table) == before

    # -------------------------------------------------------------- invariants

    @invariant()
    def every_log_is_a_prefix_of_the_one_log(self) -> None:
        for table in self.tables:
            assert len(table.envelopes) <= len(self.log)
            assert table.encoded == self.log[: len(table.encoded)]
            assert len(table.encoded) == len(table.envelopes)

    @invariant()
    def no_position_holds_two_events(self) -> None:
        positions = [decode_envelope(d).seq for d in self.log]
        assert positions == list(range(len(self.log)))

    def teardown(self) -> None:
        if not self.tables:
            return
        self.heal()
        first = self.tables[0]
        for table in self.tables:
            assert table.finished and table.verdict is None and table.audit_failure is None
            assert table.encoded == self.log
            assert table.head == first.head and table.stage is first.stage
            # Each seat's engine state keeps what that seat saw; scores and cards are shared.
            assert [h.state.ledgers for h in table.hands] == [h.state.ledgers for h in first.hands]
            assert [h.state.phase for h in table.hands] == [h.state.phase for h in first.hands]
            assert [h.cards for h in table.hands] == [h.cards for h in first.hands]
        report = verify_records(self.log)
        assert report.fair, [v.sentence() for v in report.violations]


Network.TestCase.settings = settings(
    max_examples=12,
    stateful_step_count=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestNetwork = Network.TestCase
