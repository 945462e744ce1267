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
import inspect
import logging
import multiprocessing
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from gleek_p2p.base.errors import Cheating, GleekError, ProtocolError, ViolationCode
from gleek_p2p.base.i18n import _
from gleek_p2p.base.text import printable
from gleek_p2p.base.timeouts import within
from gleek_p2p.log.chain import check_equivocation
from gleek_p2p.log.envelope import Envelope, decode_envelope, event_hash, verify_envelope
from gleek_p2p.log.store import LogStore
from gleek_p2p.net.messages import Bye, ByeCode, Event, Message, Sync
from gleek_p2p.rules import Event as Move
from gleek_p2p.rules import HandLedger, SeatView
from gleek_p2p.session.abort_words import abort_reason, code_words, signer_words
from gleek_p2p.session.error_words import rejection_words
from gleek_p2p.session.notes import Note, Severity
from gleek_p2p.table import events as ev
from gleek_p2p.table.schema import KIND_BOUNDS
from gleek_p2p.table.session import Decision, Table

log = logging.getLogger(__name__)

GROUP_COMMIT_S = 0.2
"""Longest time another seat's event stays written but not fsynced (SPEC.md §3)."""


LAST_CALL = 5.0
"""Seconds of grace, after the timeout, for a last request before blaming a seat."""

NOTES_PER_KIND = 5
"""How many dropped messages of one kind are told to the user; the rest are counted."""

PARK_WINDOW = 64
"""How far ahead of its log a peer holds back an event (a gap is fetched by Sync)."""

PARK_BYTES_PER_SEAT = 256 * 1024
"""Bytes of held-back events per signing seat (an honest event is under 2 KiB)."""

LEFT_THE_TABLE = "left the table"
"""The end of the sentence a ``Bye`` with ``ByeCode.LEFT_THE_TABLE`` carries (for people)."""

LEAVE_GRACE = 5.0
"""Seconds a seat's signed ``Leave`` on the link waits for its ``leave`` event (sent
just before it) to reach the log, before this seat ends the session on its word."""


_FAILURE_LOG_HEADER = "gleek-p2p: the session runner failed\n"
"""Opens a traceback in the log file (for a developer, not translated)."""


class _PlayerStopped(Exception):
    """Carries (as its cause) a ``GleekError`` the player raised on purpose
    (a person leaving): it stops the runner and is raised to its caller, not
    taken for an internal failure."""


@dataclass(frozen=True)
class LinkUp:
    """Delivered by a mesh when a link to a seat (re)opens: time to catch up."""


@dataclass(frozen=True)
class CheckedEvent:
    """An ``Event`` the mesh has already decoded within its kind's bound and found
    signed by its seat's roster key: the runner takes ``envelope`` as it is
    (an event is decoded once)."""

    envelope: Envelope

    @property
    def data(self) -> bytes:
        """The event's wire bytes."""
        return self.envelope.encode()


Incoming = Message | LinkUp | CheckedEvent


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


class Strategy(Protocol):
    """What a ``BotPlayer`` asks of a bot: ``gleek_p2p.bots.Strategy`` is one.

    The session sees a bot only through this shape, so it never imports the
    bots (which import it, to put a bot at a table: ``bots.run_peer``).
    """

    name: str

    def choose(self, view: SeatView, legal: Sequence[Move]) -> Move | Awaitable[Move]:
        """One element of ``legal``, or an awaitable that gives one."""
        ...

    def on_hand_end(self, view: SeatView, ledger: HandLedger) -> None:
        """Called once a hand has been scored and audited."""

    def on_session_end(self, totals: Sequence[int]) -> None:
        """Called once the session is over, with every seat's total in halfpence."""


@runtime_checkable
class Offloaded(Protocol):
    """The heavy part of a decision, as ``Strategy.offload`` gives it (``bots.Work``).

    ``run`` is a module-level function and ``args`` pickle, so ``run(*args)``
    may run in another process; ``finish`` turns its result into the move.
    """

    @property
    def run(self) -> Callable[..., Any]: ...

    @property
    def args(self) -> tuple[Any, ...]: ...

    @property
    def finish(self) -> Callable[[Any], Move]: ...


async def choose_async(strategy: Strategy, view: SeatView, legal: Sequence[Move]) -> Move:
    """Call a strategy that may be sync or async."""
    choice = strategy.choose(view, legal)
    if inspect.isawaitable(choice):
        return await choice
    return choice


@dataclass
class BotPlayer:
    """A ``Strategy`` as a player, with a time limit per move.

    A strategy that is too slow, fails, or answers with an illegal move does
    not stop the session: the bot plays its first legal move and says why.

    The heavy part of a decision (``Strategy.offload``: the strong bot's
    search) runs in a worker so the event loop keeps answering the other
    seats: ``worker="process"`` (the default: pure-Python search in a thread
    would hold the GIL and starve the loop), ``"thread"``, or ``"inline"``
    (on the loop, as before; for measuring).
    """

    strategy: Strategy
    move_timeout: float = 30.0
    worker: str = "process"
    _hands_seen: int = 0
    _ended: bool = False

    async def decide(self, table: Table, decision: Decision) -> Move:
        try:
            move = await within(self._choose(decision.view, decision.legal), self.move_timeout)
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

    async def _choose(self, view: SeatView, legal: Sequence[Move]) -> Move:
        # A strategy may offer its heavy part (bots.Strategy.offload): the
        # work, the move if it is cheap, or None to be asked by choose.
        offload = None if self.worker == "inline" else getattr(self.strategy, "offload", None)
        work = None if offload is None else offload(view, legal)
        if work is None:
            return await choose_async(self.strategy, view, legal)
        if not isinstance(work, Offloaded):
            move: Move = work
            return move
        if self.worker == "thread":
            return work.finish(await asyncio.to_thread(work.run, *work.args))
        try:
            done = await asyncio.get_running_loop().run_in_executor(
                _search_pool(), work.run, *work.args)
        except BrokenProcessPool:
            # The worker died (killed, out of memory): a thread still keeps the
            # loop alive between the interpreter's switches; the next decision
            # starts a new process.
            _drop_search_pool()
            log.warning("the search worker stopped; searching in a thread")
            done = await asyncio.to_thread(work.run, *work.args)
        return work.finish(done)

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


_POOL: list[ProcessPoolExecutor] = []


_START = "spawn"
"""How the search worker starts (a fresh interpreter: no inherited threads or locks)."""


def _search_pool() -> ProcessPoolExecutor:
    """The one worker process the bots of this interpreter search in, started on first use.

    Spawned, not forked: a fork would copy the loop's threads (zeroconf) and
    their locks. One process: a peer decides one move at a time.
    """
    if not _POOL:
        _POOL.append(ProcessPoolExecutor(1, mp_context=multiprocessing.get_context(_START)))
    return _POOL[0]


def _drop_search_pool() -> None:
    if _POOL:
        _POOL.pop().shutdown(wait=False, cancel_futures=True)


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
    _sync_due: bool = False
    check_in_worker: bool = False
    """Check other seats' deck proofs in a worker thread (``_precheck``): the real
    peer (one per process, its loop idle while it waits). Off where several peers
    share one busy loop (tests): there the worker would queue for the GIL behind
    the loop at each of its library calls."""
    leave_grace: float = LEAVE_GRACE
    """Seconds to wait for a leaver's leave event after its signed Leave (``LEAVE_GRACE``)."""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _pending: dict[tuple[int, int], tuple[int, Envelope]] = field(default_factory=dict)
    """Events ahead of the log: (position, signing seat) -> (sender, event as decoded)."""
    _parked_bytes: dict[int, int] = field(default_factory=dict)
    """Bytes held back in ``_pending``, by signing seat."""
    peak_parked: int = 0
    """The most bytes ever held back at once (for tests and benchmarks)."""
    _asked: dict[int, int] = field(default_factory=dict)
    """The log length at which each seat was last asked (Sync) for what is missing."""
    _refetched: int = -1
    """The log length at which every seat was asked again for a held-back event refused."""
    _gave_up: str | None = None
    _synced: dict[int, int] = field(default_factory=dict)
    """The longest log each seat said (by a Sync) it holds."""
    failure_log: Path | None = None
    """Where the traceback of an internal error is appended (else the logger)."""
    failure: BaseException | None = None
    """The internal error that ended the session, if one did."""
    dropped: Counter[str] = field(default_factory=Counter)
    """Messages dropped, by why: what a peer sent that this seat will not keep."""
    _leaving: dict[int, float] = field(default_factory=dict)
    """Seats whose signed Leave arrived, with when: their leave event is awaited."""
    successor: Callable[[Table], tuple[Player, str]] | None = None
    """Builds the bot that plays this seat once its person hands it over, with the
    bot's name for the ``handover`` event (None: this seat cannot hand over). A
    runner with a successor plays for a person: if its log says a bot plays the
    seat (restarted after the bot was stopped), it signs a ``retake`` at the
    seat's next decision, before the person's move."""
    bot_after: float | None = None
    """Seconds the player may think on its turn before the successor takes the seat
    over (``gleek play --bot-after``); None: never on its own."""
    handed_over: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the seat is handed over to the successor (asked, or ``bot_after``)."""
    _bot: str | None = None
    """The successor's name once it plays (its ``handover`` is in the log)."""

    @classmethod
    def resume_records(cls, table: Table, records: Sequence[bytes]) -> None:
        """Replay a store into a fresh table (after a restart)."""
        for record in records:
            table.receive(decode_envelope(record), record)

    def _note(self, text: str, severity: Severity = Severity.BAD_NEWS) -> None:
        # Every note the runner makes reports trouble (an abort, a rejected event).
        log.info(text)
        self._update((), Note(text, severity))

    def _update(self, applied: Sequence[Move], note: str | None) -> None:
        if self.failure is None:
            self.player.update(self.table, applied, note)
            return
        try:  # after a failure the player may be what failed: it must not stop the abort
            self.player.update(self.table, applied, note)
        except Exception:
            log.exception("the player failed again after the session runner failed")

    def _drop(self, why: str, text: str) -> None:
        """Count a dropped message; say so only for the first few of each kind
        (a flood must not become a flood of notes)."""
        self.dropped[why] += 1
        if self.dropped[why] <= NOTES_PER_KIND:
            self._note(text)
        else:
            log.debug(text)

    async def run(self) -> Outcome:
        """Play until the session is over or aborted.

        The receive loop and the play loop run under one ``TaskGroup``: an
        unexpected error in either (a bug, a failing disk) stops both, and
        this peer then signs an abort that blames nobody and says it failed
        (cause ``local-failure``); the traceback goes to the log. A silent
        receive loop must never turn into a timeout blamed on someone else.
        """
        failure: BaseException | None = None
        stopped: BaseException | None = None
        try:
            async with asyncio.TaskGroup() as group:
                receiver = group.create_task(self._receive_loop())
                group.create_task(self._play(receiver))
        except* _PlayerStopped as stops:
            stopped = stops.exceptions[0].__cause__
        except* Exception as errors:
            failure = errors.exceptions[0]
        if stopped is not None and failure is None:
            raise stopped  # the player's own decision to stop (a person leaving)
        if failure is not None:
            await self._fail(failure)
        if self._gave_up is not None:
            return Outcome(False, True, _("aborted before the log began: {reason}").format(
                reason=printable(self._gave_up)), 0)
        verdict = self.table.verdict
        if verdict is not None:
            if verdict.cause == ev.LOCAL_FAILURE and verdict.signer == self.table.seat:
                return Outcome(False, True, self._failure_sentence(), len(self.table.envelopes))
            if verdict.left is not None:
                return Outcome(False, True, self._left_sentence(verdict.left),
                               len(self.table.envelopes))
            # Worded from the abort's code; its signer's claim all the same (gleek
            # verify says what the log proves).
            signer = printable(self.table.roster.names[verdict.signer])
            return Outcome(False, True, _("{name} ended the session: {reason}").format(
                name=signer, reason=abort_reason(verdict, self.table.roster.names)),
                len(self.table.envelopes))
        return Outcome(self.table.finished, False, _("the session is over"),
                       len(self.table.envelopes))

    async def _play(self, receiver: asyncio.Task[None]) -> None:
        for seat in self.mesh.seats():
            self.mesh.send(seat, Sync(len(self.table.envelopes)))
        await self._act_loop()
        if self._gave_up is None:
            await self._linger()
        receiver.cancel()

    def _left_sentence(self, seat: int) -> str:
        if seat == self.table.seat:
            return _("you left the table")
        return _("{name} left the table").format(
            name=printable(self.table.roster.names[seat]))

    def leave(self) -> bool:
        """This seat's player leaves: sign a ``leave`` at the head of the log, store it
        and send it to every seat (before the links close). False if the session
        is already over (or has no log yet: there is nothing to leave)."""
        table = self.table
        if table.finished or not table.envelopes or table.seat is None:
            return False
        self._commit(table.leave_event())
        return True

    def hand_over(self) -> bool:
        """Let the successor (a bot) play this seat from its next turn on.

        The ``handover`` is signed when the seat is next to sign (so it never
        crosses another seat's event), just before the bot's first decision; a
        decision the person is thinking over is dropped. False if there is no
        successor, the seat is already handed over, or the session is over.
        """
        if self.successor is None or self.handed_over.is_set() or self.table.finished:
            return False
        self.handed_over.set()
        self._changed.set()
        return True

    def _failure_sentence(self) -> str:
        if self.failure_log is None:
            return _("this peer failed (an internal error) and ended the session, "
                     "blaming nobody")
        return _("this peer failed (an internal error) and ended the session, blaming "
                 "nobody; the details are in {path}").format(path=self.failure_log)

    async def _fail(self, failure: BaseException) -> None:
        """End the session after an internal error: log it, sign an abort blaming nobody,
        and stay (at most the timeout) so the others get it."""
        self.failure = failure
        detail = "".join(traceback.format_exception(failure))
        log.error("the session runner failed: %r", failure)
        if self.failure_log is not None:
            try:
                with open(self.failure_log, "a", encoding="utf-8") as out:
                    out.write(_FAILURE_LOG_HEADER + detail + "\n")
            except OSError:
                log.error("%s", detail)
        else:
            log.error("%s", detail)
        self._note(self._failure_sentence())
        seat = self.table.seat
        name = "a peer" if seat is None else f"{self.table.roster.names[seat]}'s peer"
        try:
            self._abort(None, f"{name} failed (an internal error); nobody is to blame",
                        cause=ev.LOCAL_FAILURE)
        except Exception as exc:  # nothing more can be done but say so
            log.error("could not sign the abort after a failure: %r", exc)
            return
        if self._gave_up is not None or self.table.verdict is None:
            return
        receiver = asyncio.create_task(self._receive_loop(tolerant=True))
        try:
            await self._linger()
        except Exception as exc:  # the abort is out: do not fail twice
            log.error("lingering after a failure failed too: %r", exc)
        finally:
            receiver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await receiver

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
        absent = None if verdict is None else (
            verdict.blamed if verdict.left is None else verdict.left)
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
                self._abort(failure.seat, failure.reason, failure.evidence,
                            cause=failure.code.value)
                return
            if self._leave_overdue():
                return
            expected = table.expected()
            assert expected is not None
            if expected.seat == table.seat:
                await self._act()
                continue
            self._changed.clear()
            remaining = self.timeout - (self._now() - waited_since)
            if self._leaving:
                remaining = min(remaining, self.leave_grace)
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
                name = printable(table.roster.names[expected.seat])
                self._abort(expected.seat,
                            f"{name} did not send {expected.what} within {self.timeout:g} s",
                            cause=ev.TIMEOUT)
                return
            with contextlib.suppress(TimeoutError):
                await within(self._changed.wait(), remaining)

    def _leave_overdue(self) -> bool:
        """End the session on a seat's signed Leave whose leave event never came.

        The leaver sends its ``leave`` event just before the Leave, so this is
        a peer of an older version, or an event lost with a link: the abort
        says what this seat saw, blames nobody, and is a claim the log cannot
        prove (``gleek verify`` reports the session as stopped).
        """
        now = self._now()
        for seat, since in sorted(self._leaving.items()):
            if now - since >= self.leave_grace and not self.table.finished:
                name = printable(self.table.roster.names[seat])
                self._abort(None, f"{name} left the table (a signed Leave on the link; "
                            "no leave event reached this log)", cause=ev.LEAVE_UNLOGGED,
                            about=seat)
                return True
        return False

    async def _act(self) -> None:
        table = self.table
        envelope = table.auto_event()
        if envelope is None:
            if self.handed_over.is_set() and self._bot is None:
                self._take_over()
                return
            if self._retake_due():
                retake = table.retake_event()
                self._commit(retake)
                self._note(_("You play your seat again: every log records it from event "
                             "{event}, signed by you.").format(event=retake.seq),
                           Severity.INFO)
                return
            decision = table.decision()
            assert decision is not None
            position = len(table.envelopes)
            try:
                move = await self._decide(decision)
            except GleekError as exc:
                raise _PlayerStopped() from exc
            if move is None or len(table.envelopes) != position or table.finished:
                return  # The table moved on (an abort) or the seat was handed over.
            envelope = table.act(move)
        self._commit(envelope)

    async def _decide(self, decision: Decision) -> Move | None:
        """The player's move; None if the seat is handed over first (asked, or the
        player took longer than ``bot_after``)."""
        if self.successor is None or self._bot is not None:
            return await self.player.decide(self.table, decision)
        thinking = asyncio.ensure_future(self.player.decide(self.table, decision))
        handed = asyncio.ensure_future(self.handed_over.wait())
        try:
            await asyncio.wait({thinking, handed}, timeout=self.bot_after,
                               return_when=asyncio.FIRST_COMPLETED)
            if thinking.done():
                return thinking.result()
            if not handed.done():
                log.info("no move within %g s: a bot takes the seat over", self.bot_after)
                self.handed_over.set()
            return None
        finally:
            for task in (thinking, handed):
                task.cancel()
            await asyncio.gather(thinking, handed, return_exceptions=True)

    def _retake_due(self) -> bool:
        """Whether the person must take the seat back from the bot the log names first."""
        seat = self.table.seat
        return (self.successor is not None and self._bot is None and seat is not None
                and self.table.handed_over(seat))

    def _take_over(self) -> None:
        """Sign the ``handover`` and give the seat to the successor."""
        assert self.successor is not None
        player, name = self.successor(self.table)
        self._commit(self.table.handover_event(name))
        self.player, self._bot = player, name

    def _commit(self, envelope: Envelope) -> None:
        """Take, store and send an event this seat signed."""
        data = envelope.encode()
        applied = self.table.receive(envelope, data)
        self.store.append(data)
        for seat in self.mesh.seats():
            self.mesh.send(seat, Event(data))
        self._update(applied, None)

    def _abort(self, blamed: int | None, reason: str, evidence: Sequence[bytes] = (),
               cause: str | None = None, about: int | None = None) -> None:
        """End the session, signing ``reason`` (English: the detail in the log) with the
        code ``cause`` (SPEC 4.4), which this screen words instead; ``about`` is the seat
        the code speaks of (signed only for a cause that carries it)."""
        if self.table.finished:
            return
        subject = about if about is not None else blamed if blamed is not None \
            else self.table.seat
        shown = None if cause is None or subject is None \
            else code_words(cause, subject, self.table.roster.names)
        if shown is None:
            shown = signer_words(reason)
        if not self.table.envelopes:
            # The roster opens the log: before it there is nothing to sign an abort into.
            self._note(_("giving up: {reason}").format(reason=shown))
            self._gave_up = shown  # what the end screens say: the code's words
            return
        self._note(_("ending the session: {reason}").format(reason=shown))
        self._commit(self.table.abort_event(blamed, reason, tuple(evidence), cause,
                                            about if cause in ev.ABOUT_A_SEAT else None))

    async def _receive_loop(self, tolerant: bool = False) -> None:
        """Take messages until cancelled. A ``GleekError`` is the sender's fault and is
        dropped; anything else is a bug here and ends the loop (and the session),
        unless ``tolerant`` (after a failure, only to serve the log to the others)."""
        while True:
            seat, message = await self.mesh.receive()
            try:
                await self._precheck(message)
                self._handle(seat, message)
            except GleekError as exc:
                # The English detail is for the log; the screen says its code.
                log.debug("ignored a message from seat %s: %s", seat, exc)
                self._drop("rejected", _("ignored a message from seat {seat}: {error}").format(
                    seat=seat, error=rejection_words(exc)))
            except Exception:
                if not tolerant:
                    raise
                log.exception("ignored a message from seat %s after a failure", seat)
            self._changed.set()

    async def _precheck(self, message: Incoming) -> None:
        """Check a deck pass's proof in a worker thread, so the loop never stalls on it.

        libsecp256k1 runs with the GIL released (coincurve's cffi calls), so
        the loop keeps serving the network while the check runs. The verdict
        is still the table's, in ``_handle``; this only spares it the work.
        """
        if not self.check_in_worker or not isinstance(message, Event):
            return
        try:
            job = self.table.precheck(decode_envelope(message.data))
        except GleekError:
            return
        if job is not None:
            await asyncio.to_thread(job)

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
                # A person chose to leave: its leave event, sent just before,
                # ends the session. Ask everyone for it (it may wait behind a
                # gap); only if it never comes does this seat end the session.
                log.info("%s left the table", printable(name))
                self._leaving.setdefault(sender, self._now())
                for seat in self.mesh.seats():
                    self.mesh.send(seat, Sync(len(self.table.envelopes)))
            return
        if isinstance(message, CheckedEvent):
            envelope = message.envelope
        elif isinstance(message, Event):
            # Held to its kind's bound before anything else: a seat's oversized
            # event costs a few bytes of reading, whatever its size (SPEC 3).
            envelope = decode_envelope(message.data, KIND_BOUNDS)
        else:
            self.dropped["not-for-a-seated-peer"] += 1
            return
        data = envelope.encode()
        head = len(self.table.envelopes)
        if envelope.seq > head:
            self._park(sender, envelope, data)
            if self._asked.get(sender) != head:
                self._asked[sender] = head
                self.mesh.send(sender, Sync(head))
            return
        self._take(sender, envelope, data)
        self._drain()

    def _park(self, sender: int, envelope: Envelope, data: bytes) -> None:
        """Hold back an event ahead of the log, within bounds (see ``PARK_WINDOW``).

        Only what the roster's key for its seat signed in this session is kept,
        at most one event per position and signing seat, and at most
        ``PARK_BYTES_PER_SEAT`` bytes per signing seat: a seat can crowd out
        nothing but its own events. Everything else is dropped and counted;
        what is missing is fetched again by ``Sync`` when the log gets there.
        """
        table = self.table
        if envelope.seq - len(table.envelopes) > PARK_WINDOW:
            self.dropped["too-far-ahead"] += 1
            return
        seat = envelope.seat
        if envelope.session_id != table.session_id or not 0 <= seat < table.roster.seats:
            self.dropped["not-this-session"] += 1
            return
        key = (envelope.seq, seat)
        if key in self._pending:
            self.dropped["already-held"] += 1
            return
        if self._parked_bytes.get(seat, 0) + len(data) > PARK_BYTES_PER_SEAT:
            self.dropped["held-back-full"] += 1
            return
        try:
            verify_envelope(envelope, table.roster.publics[seat])
        except GleekError:
            self.dropped["bad-signature"] += 1
            return
        self._pending[key] = (sender, envelope)
        self._parked_bytes[seat] = self._parked_bytes.get(seat, 0) + len(data)
        self.peak_parked = max(self.peak_parked, self.parked_bytes)

    def _drain(self) -> None:
        """Take the held-back events the log has reached, in order."""
        while self._pending and not self.table.finished:
            head = len(self.table.envelopes)
            due = sorted(key for key in self._pending if key[0] <= head)
            if not due:
                return
            for key in due:
                sender, envelope = self._pending.pop(key)
                data = envelope.encode()
                self._parked_bytes[key[1]] -= len(data)
                self._take(sender, envelope, data)
            if len(self.table.envelopes) == head:
                # What was held back for this place was refused (and a true copy
                # may have been dropped while it held the place): ask again, once.
                if self._refetched != head:
                    self._refetched = head
                    for seat in self.mesh.seats():
                        self.mesh.send(seat, Sync(head))
                return
        self._pending.clear()
        self._parked_bytes.clear()

    @property
    def parked_bytes(self) -> int:
        """Bytes of events held back, ahead of the log."""
        return sum(self._parked_bytes.values())

    def _take(self, sender: int, envelope: Envelope, data: bytes) -> None:
        table = self.table
        new = envelope.seq == len(table.envelopes)
        try:
            applied = table.receive(envelope, data)
        except Cheating as exc:
            evidence = exc.evidence or (data,)
            self._abort(exc.seat, exc.reason, evidence, cause=exc.code.value)
            return
        except ProtocolError as exc:
            if self._crossed_leave(envelope) or self._forked_abort(envelope):
                return
            # Not provable against anyone (it may be a stale relay); drop it.
            log.debug("rejected event %s relayed by seat %s: %s", envelope.seq, sender, exc)
            self._drop("rejected", _("rejected event {number} relayed by seat {seat}: {error}")
                       .format(number=envelope.seq, seat=sender, error=rejection_words(exc)))
            return
        if not new:
            return
        # Group commit (SPEC.md §3): another seat's event is written now and
        # fsynced with its batch (what arrives within GROUP_COMMIT_S), or
        # sooner by this seat's own next append, before anything it signs is sent.
        self.store.append(data, sync=False)
        if not self._sync_due:
            self._sync_due = True
            asyncio.get_running_loop().call_later(GROUP_COMMIT_S, self._group_sync)
        for seat in self.mesh.seats():
            if seat != sender and seat != envelope.seat:
                self.mesh.send(seat, Event(data))
        self._update(applied, None)

    def _group_sync(self) -> None:
        """fsync the batch of events taken since the last fsync (if no own append did)."""
        self._sync_due = False
        try:
            self.store.sync()
        except (OSError, GleekError):
            # The store is now broken: the next append raises and ends the session.
            log.exception("the log could not be synced")

    def _crossed_leave(self, envelope: Envelope) -> bool:
        """End the session if ``envelope`` is another seat's signed leave that crossed
        the event this log holds at its position (signed while another seat signed
        there, or on a head the leaver had not passed on yet).

        The leaver is gone and will sign nothing more: this seat signs an abort
        of cause ``left`` blaming nobody, with the leave as its evidence, so its
        log ends with the same fact as the leaver's (``gleek verify`` checks that
        the leave hangs on this chain).
        """
        table = self.table
        if (envelope.kind != ev.LEAVE or table.finished or table.audit_failure is not None
                or envelope.seq > len(table.envelopes)
                or envelope.seq <= 0 or envelope.session_id != table.session_id
                or envelope.seat == table.seat or not 0 <= envelope.seat < table.roster.seats):
            return False
        try:
            verify_envelope(envelope, table.roster.publics[envelope.seat])
            ev.leave_body(envelope.body)
        except GleekError:
            return False
        if envelope.prev != event_hash(table.envelopes[envelope.seq - 1]):
            return False  # not on this chain: nothing it says can be placed here
        name = printable(table.roster.names[envelope.seat])
        self._abort(None, f"{name} left the table at event {envelope.seq}, where this log "
                    "holds another event", (envelope.encode(),), cause=ev.LEFT,
                    about=envelope.seat)
        return True

    def _forked_abort(self, envelope: Envelope) -> bool:
        """End the session if ``envelope`` is another seat's signed abort at a position
        this log already holds with another event.

        That seat ended the session where it stood (its peer failed, or it
        saw something before the event we took there) while the others went
        on; it will sign nothing more on this chain, so waiting for it would
        only end in blaming an honest seat for a timeout. If its evidence
        holds another version of an event this log holds (a split view: a
        seat sent one event to it and another to us), this seat now holds
        both signatures and proves the equivocation, whichever side of the
        split it is on. Otherwise nothing about the fork can be proven here:
        the abort this seat signs blames nobody and carries the other as
        evidence.
        """
        table = self.table
        if (envelope.kind != ev.ABORT or table.finished or envelope.seq >= len(table.envelopes)
                or envelope.session_id != table.session_id or envelope.seat == table.seat
                or not 0 <= envelope.seat < table.roster.seats):
            return False
        try:
            verify_envelope(envelope, table.roster.publics[envelope.seat])
            abort = ev.Abort.from_body(envelope.body)
        except GleekError:
            return False
        proof = _equivocation_in(table, abort.evidence)
        if proof is not None:
            seat, evidence = proof
            self._abort(seat, f"{printable(table.roster.names[seat])} signed two different "
                        f"events at position {decode_envelope(evidence[0]).seq} (one of them "
                        f"reached this seat in the abort of seat {envelope.seat})", evidence,
                        cause=ViolationCode.CHAIN_EQUIVOCATION.value)
            return True
        names = table.roster.names
        name = printable(names[envelope.seat])
        cause = ev.FORKED
        if abort.cause == ev.LOCAL_FAILURE:
            cause = ev.PEER_FAILED
            reason = f"{name}'s peer failed and left the session; nobody is to blame"
        else:
            blamed = "nobody" if abort.blamed is None or not 0 <= abort.blamed < len(names) \
                else printable(names[abort.blamed])
            reason = (f"{name} ended the session at event {envelope.seq}, where this log "
                      f"holds another event (blaming {blamed}: {printable(abort.reason)}); "
                      "nothing can be proven here")
        # A leave that abort carries goes on as evidence too: if its signer played
        # on in this log, gleek verify proves it from the two (SPEC 4.4).
        carried = abort.evidence[:1] if abort.cause == ev.LEFT else ()
        self._abort(None, reason, (envelope.encode(), *carried), cause=cause,
                    about=envelope.seat)
        return True


def _equivocation_in(
    table: Table, evidence: Sequence[bytes]
) -> tuple[int, tuple[bytes, ...]] | None:
    """A seat and the two events it signed for one position, if ``evidence`` holds a
    second version of an event this log holds, else None.

    The pair is what ``gleek verify`` replays as proof: the event of this log
    first, then the other one, which its table refuses as equivocation. An
    abort on either side is not counted, as ``Table`` does not count it.
    """
    for item in evidence:
        try:
            other = decode_envelope(item)
        except GleekError:
            continue
        if not 0 <= other.seq < len(table.envelopes):
            continue
        known = table.envelopes[other.seq]
        if ev.ABORT in (known.kind, other.kind):
            continue
        if check_equivocation(known, other, table.roster.publics) is not None:
            return known.seat, (table.encoded[other.seq], item)
    return None


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
