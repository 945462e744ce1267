"""The asyncio shell around one seat's table: it moves bytes and arms timers.

``SessionRunner`` drives a ``Table`` to the end of the session. It takes
events from the other seats through a ``Mesh`` (the real one is made of
authenticated TCP connections, the fake one of in-memory queues), appends
every event to the local store before acting on it, forwards every new
event to the other seats (so a broken link between two peers heals through
the third), answers ``Sync`` requests from a peer that restarted, asks the
local ``Player`` for decisions, and blames a seat that stays silent past the
timeout in a signed abort. All game logic stays in the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from gleek_p2p.bots.strategy import Strategy, choose_async
from gleek_p2p.errors import Cheating, GleekError, ProtocolError
from gleek_p2p.i18n import _
from gleek_p2p.log.envelope import Envelope, decode_envelope
from gleek_p2p.log.store import LogStore
from gleek_p2p.net.messages import Bye, ByeCode, Event, Message, Sync
from gleek_p2p.notes import Note, Severity
from gleek_p2p.rules import Event as Move
from gleek_p2p.table.session import Decision, Table
from gleek_p2p.timeouts import within

log = logging.getLogger(__name__)


LAST_CALL = 5.0
"""Seconds of grace, after the timeout, for a last request before blaming a seat."""

LEFT_THE_TABLE = "left the table"
"""The end of the sentence a ``Bye`` with ``ByeCode.LEFT_THE_TABLE`` carries (for people)."""


@dataclass(frozen=True)
class LinkUp:
    """Delivered by a mesh when a link to a seat (re)opens: time to catch up."""


Incoming = Message | LinkUp


class Mesh(Protocol):
    """Links from this seat to every other seat of the table."""

    def send(self, seat: int, message: Message) -> None:
        """Queue ``message`` for ``seat``; a dead link drops it silently."""

    async def receive(self) -> tuple[int, Incoming]:
        """The next message from any seat, with the sender's seat."""
        ...

    def seats(self) -> Sequence[int]:
        """The seats currently linked."""
        ...


class Player(Protocol):
    """Whoever makes this seat's decisions: a bot strategy or a person at a screen."""

    async def decide(self, table: Table, decision: Decision) -> Move:
        """One of ``decision.legal``."""
        ...

    def update(self, table: Table, applied: Sequence[Move], note: str | None) -> None:
        """Called after every change of the table (and with a note for the user)."""


@dataclass
class BotPlayer:
    """A ``Strategy`` as a player, with a time limit per move.

    A strategy that is too slow, fails, or answers with an illegal move does
    not stop the session: the bot plays its first legal move and says why.
    """

    strategy: Strategy
    move_timeout: float = 30.0
    _hands_seen: int = 0
    _ended: bool = False

    async def decide(self, table: Table, decision: Decision) -> Move:
        try:
            move = await within(
                choose_async(self.strategy, decision.view, decision.legal), self.move_timeout
            )
        except TimeoutError:
            log.warning("strategy %s took too long; playing its first legal move",
                        self.strategy.name)
            return decision.legal[0]
        except GleekError as exc:
            log.warning("strategy %s failed (%s); playing its first legal move",
                        self.strategy.name, exc)
            return decision.legal[0]
        if move not in decision.legal:
            log.warning("strategy %s chose an illegal move %r; playing its first legal move",
                        self.strategy.name, move)
            return decision.legal[0]
        return move

    def update(self, table: Table, applied: Sequence[Move], note: str | None) -> None:
        if table.seat is None:
            return
        if len(table.hands) > self._hands_seen:
            from gleek_p2p.rules import seat_view

            self._hands_seen = len(table.hands)
            state = table.hands[-1].state
            self.strategy.on_hand_end(seat_view(state, table.seat), state.ledgers[-1])
        if table.finished and not self._ended:
            self._ended = True
            totals = table.hands[-1].state.totals if table.hands else ()
            self.strategy.on_session_end(totals)


@dataclass
class Outcome:
    """How a session ended for this peer."""

    finished: bool
    aborted: bool
    reason: str
    events: int


@dataclass
class SessionRunner:
    """Runs one seat's table over a mesh until the session ends."""

    table: Table
    store: LogStore
    mesh: Mesh
    player: Player
    timeout: float = 120.0
    """Seconds without progress before the seat we wait for is blamed."""
    clock: Callable[[], float] | None = None
    linger_grace: float = 5.0
    """Seconds to wait at the end for a seat we cannot reach (see ``_linger``)."""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _pending: dict[int, bytes] = field(default_factory=dict)
    _gave_up: str | None = None
    _synced: dict[int, int] = field(default_factory=dict)
    """The longest log each seat said (by a Sync) it holds."""

    @classmethod
    def resume_records(cls, table: Table, records: Sequence[bytes]) -> None:
        """Replay a store into a fresh table (after a restart)."""
        for record in records:
            table.receive(decode_envelope(record), record)

    def _note(self, text: str, severity: Severity = Severity.BAD_NEWS) -> None:
        # Every note the runner makes reports trouble (an abort, a rejected event).
        log.info(text)
        self.player.update(self.table, (), Note(text, severity))

    async def run(self) -> Outcome:
        """Play until the session is over or aborted."""
        receiver = asyncio.create_task(self._receive_loop())
        try:
            for seat in self.mesh.seats():
                self.mesh.send(seat, Sync(len(self.table.envelopes)))
            await self._act_loop()
            if self._gave_up is None:
                await self._linger()
        finally:
            receiver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await receiver
        if self._gave_up is not None:
            return Outcome(False, True, _("aborted before the log began: {reason}").format(
                reason=self._gave_up), 0)
        verdict = self.table.verdict
        if verdict is not None:
            who = (_("nobody") if verdict.blamed is None
                   else self.table.roster.names[verdict.blamed])
            return Outcome(False, True, _("aborted, blaming {name}: {reason}").format(
                name=who, reason=verdict.reason), len(self.table.envelopes))
        return Outcome(self.table.finished, False, _("the session is over"),
                       len(self.table.envelopes))

    async def _linger(self) -> None:
        """Stay until every other seat says it holds the whole log (at most the
        timeout), so a peer restarting near the end can still fetch it from us.

        A seat we cannot reach for ``linger_grace`` seconds is not waited for:
        it will fetch the end from whoever it reaches (the log is the same).
        """
        final = len(self.table.envelopes)
        for seat in self.mesh.seats():
            self.mesh.send(seat, Sync(final))
        verdict = self.table.verdict
        absent = None if verdict is None else verdict.blamed
        # Every seat but the one blamed: a peer restarted near the end has heard
        # from nobody yet, and the others may still lack what it signed.
        others = [s for s in range(self.table.roster.seats)
                  if s != self.table.seat and s != absent]
        deadline = self._now() + self.timeout
        unreachable_since: dict[int, float] = {}
        while True:
            now = self._now()
            linked = set(self.mesh.seats())
            waiting = False
            for seat in others:
                if self._synced.get(seat, 0) >= final:
                    continue
                if verdict is not None and seat in self._synced:
                    # After an abort two honest seats may each have signed one at
                    # the same position: their logs end differently and neither
                    # will ever hold the other's. Having heard from it is enough.
                    continue
                if seat in linked:
                    unreachable_since.pop(seat, None)
                    waiting = True
                elif now - unreachable_since.setdefault(seat, now) < self.linger_grace:
                    waiting = True
            if not waiting or now >= deadline:
                return
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await within(self._changed.wait(), min(0.5, deadline - now))

    def _now(self) -> float:
        return self.clock() if self.clock else asyncio.get_running_loop().time()

    async def _act_loop(self) -> None:
        table = self.table
        waited_since = self._now()
        last_len = -1
        last_call = False
        while not table.finished and self._gave_up is None:
            if len(table.envelopes) != last_len:
                last_len = len(table.envelopes)
                waited_since = self._now()
                last_call = False
            if table.audit_failure is not None:
                failure = table.audit_failure
                self._abort(failure.seat, failure.reason, failure.evidence)
                return
            expected = table.expected()
            assert expected is not None
            if expected.seat == table.seat:
                await self._act()
                continue
            self._changed.clear()
            remaining = self.timeout - (self._now() - waited_since)
            if remaining <= 0 and not last_call:
                # Before blaming anyone, ask everyone once more for what we may
                # have missed: this peer may itself have been the one asleep
                # (a suspended process wakes to find its clock far ahead).
                last_call = True
                waited_since = self._now() - self.timeout + min(LAST_CALL, self.timeout)
                for seat in self.mesh.seats():
                    self.mesh.send(seat, Sync(len(table.envelopes)))
                continue
            if remaining <= 0:
                name = table.roster.names[expected.seat]
                self._abort(expected.seat,
                            f"{name} did not send {expected.what} within {self.timeout:g} s")
                return
            with contextlib.suppress(TimeoutError):
                await within(self._changed.wait(), remaining)

    async def _act(self) -> None:
        table = self.table
        envelope = table.auto_event()
        if envelope is None:
            decision = table.decision()
            assert decision is not None
            position = len(table.envelopes)
            move = await self.player.decide(table, decision)
            if len(table.envelopes) != position or table.finished:
                return  # The table moved on (an abort) while the player thought.
            envelope = table.act(move)
        self._commit(envelope)

    def _commit(self, envelope: Envelope) -> None:
        """Take, store and send an event this seat signed."""
        data = envelope.encode()
        applied = self.table.receive(envelope, data)
        self.store.append(data)
        for seat in self.mesh.seats():
            self.mesh.send(seat, Event(data))
        self.player.update(self.table, applied, None)

    def _abort(self, blamed: int | None, reason: str, evidence: Sequence[bytes] = ()) -> None:
        if self.table.finished:
            return
        if not self.table.envelopes:
            # The roster opens the log: before it there is nothing to sign an abort into.
            self._note(_("giving up: {reason}").format(reason=reason))
            self._gave_up = reason
            return
        self._note(_("ending the session: {reason}").format(reason=reason))
        self._commit(self.table.abort_event(blamed, reason, tuple(evidence)))

    async def _receive_loop(self) -> None:
        while True:
            seat, message = await self.mesh.receive()
            try:
                self._handle(seat, message)
            except GleekError as exc:
                self._note(_("ignored a message from seat {seat}: {error}").format(
                    seat=seat, error=exc))
            self._changed.set()

    def _handle(self, sender: int, message: Incoming) -> None:
        if isinstance(message, LinkUp):
            self.mesh.send(sender, Sync(len(self.table.envelopes)))
            return
        if isinstance(message, Sync):
            self._synced[sender] = max(self._synced.get(sender, 0), message.from_seq)
            for record in self.table.encoded[message.from_seq:]:
                self.mesh.send(sender, Event(record))
            return
        if isinstance(message, Bye):
            name = self.table.roster.names[sender]
            if message.meaning is ByeCode.LEFT_THE_TABLE and not self.table.finished:
                # A person chose to leave: waiting out the timeout would help nobody.
                self._abort(sender, f"{name} left the table")
            return
        if not isinstance(message, Event):
            return
        envelope = decode_envelope(message.data)
        if envelope.seq > len(self.table.envelopes):
            self._pending[envelope.seq] = message.data
            self.mesh.send(sender, Sync(len(self.table.envelopes)))
            return
        self._take(sender, envelope, message.data)
        while len(self.table.envelopes) in self._pending:
            data = self._pending.pop(len(self.table.envelopes))
            self._take(sender, decode_envelope(data), data)

    def _take(self, sender: int, envelope: Envelope, data: bytes) -> None:
        table = self.table
        new = envelope.seq == len(table.envelopes)
        try:
            applied = table.receive(envelope, data)
        except Cheating as exc:
            evidence = exc.evidence or (data,)
            self._abort(exc.seat, exc.reason, evidence)
            return
        except ProtocolError as exc:
            # Not provable against anyone (it may be a stale relay); drop it.
            self._note(_("rejected event {number} relayed by seat {seat}: {error}").format(
                number=envelope.seq, seat=sender, error=exc))
            return
        if not new:
            return
        self.store.append(data)
        for seat in self.mesh.seats():
            if seat != sender and seat != envelope.seat:
                self.mesh.send(seat, Event(data))
        self.player.update(table, applied, None)


class MemoryMesh:
    """An in-memory mesh for tests: seats exchange messages through queues."""

    def __init__(self, seat: int, hub: dict[int, MemoryMesh]) -> None:
        self.seat = seat
        self._hub = hub
        self._queue: asyncio.Queue[tuple[int, Incoming]] = asyncio.Queue()
        self.down: set[int] = set()
        """Seats this one cannot reach (for partition tests)."""

    @classmethod
    def create(cls, seats: int) -> list[MemoryMesh]:
        hub: dict[int, MemoryMesh] = {}
        meshes = [cls(s, hub) for s in range(seats)]
        hub.update(enumerate(meshes))
        return meshes

    def send(self, seat: int, message: Message) -> None:
        other = self._hub.get(seat)
        if other is None or seat in self.down or self.seat in other.down:
            return
        other._queue.put_nowait((self.seat, message))

    async def receive(self) -> tuple[int, Incoming]:
        return await self._queue.get()

    def seats(self) -> Sequence[int]:
        return [s for s in self._hub if s != self.seat and s not in self.down]
