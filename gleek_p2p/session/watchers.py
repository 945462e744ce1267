"""A seated peer's watchers: who may watch, and the log fed to each (SPEC 5.7).

A watcher is a peer whose Hello says ``watcher``: it never counts in a
formation, never takes a seat and has nothing to say, so anything it sends
ends its connection. Each is fed the whole log from its first event, then
every event this seat's table takes, by one task that never lets more than
``backlog`` messages wait on the connection: a watcher that reads slowly
holds only that much of our memory, and one that takes nothing for the
connection's write timeout is disconnected (it may reconnect and catch up
from the start). The players' own links never wait on a watcher.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gleek_p2p.base.i18n import _
from gleek_p2p.base.timeouts import within
from gleek_p2p.log.keys import fingerprint
from gleek_p2p.net.connection import Connection, ConnectionClosed
from gleek_p2p.net.messages import ByeCode, Event, Hello, Refuse, RefuseCode

__all__ = ["WatchLimits", "Watchers"]


@dataclass(frozen=True)
class WatchLimits:
    """The bounds on what watchers cost a seated peer."""

    max_watchers: int = 4
    """Most watchers fed at once by this seat; one more is refused."""
    backlog: int = 64
    """Most events waiting on one watcher's connection."""
    poll: float = 0.05
    """Seconds between looks at the log when nothing woke the feeder."""
    burst: int = 8
    window: float = 10.0
    """At most ``burst`` watchers taken in any ``window`` seconds: keys are free, so a
    watcher closed for speaking that comes straight back costs us a refusal, not a feed."""


class Watchers:
    """The watchers of one seat: admission, the feed, and what the players are told."""

    def __init__(self, accept: bool, limits: WatchLimits,
                 notes: Callable[[str], None]) -> None:
        self.accept = accept
        self.limits = limits
        self.notes = notes
        self.records: Sequence[bytes] | None = None
        """The table's log as it grows (``Table.encoded``), once the session is on."""
        self.conns: dict[bytes, Connection] = {}
        self._wake = asyncio.Event()
        self._taken: collections.deque[float] = collections.deque()
        """When the watchers of the last ``window`` were taken (at most ``burst``)."""
        self._sent: dict[Connection, int] = {}
        """How much of the log each watcher was sent."""
        self.served = 0
        """Watchers fed since the start (for tests and the status)."""

    def admit(self, hello: Hello, now: float) -> Refuse | None:
        """Whether to take a watcher's Hello at time ``now``: None to take it, else the
        refusal."""
        if not self.accept:
            return Refuse("this table does not accept watchers", RefuseCode.NO_WATCHERS)
        # Each "not now" carries its code, so the watcher words it in its own language.
        if self.records is None:
            return Refuse("the table is not playing yet; try again soon", RefuseCode.NOT_NOW)
        return self._no_room(hello.public, now)

    def _no_room(self, public: bytes, now: float) -> Refuse | None:
        """The bounds: watchers fed now (another key's), watchers taken lately."""
        live = sum(1 for p, c in self.conns.items() if not c.closed and p != public)
        if live >= self.limits.max_watchers:
            return Refuse(f"this seat already feeds {self.limits.max_watchers} watchers",
                          RefuseCode.NOT_NOW)
        while self._taken and self._taken[0] <= now - self.limits.window:
            self._taken.popleft()
        if len(self._taken) >= self.limits.burst:
            return Refuse("too many watchers came lately; try again soon", RefuseCode.NOT_NOW)
        return None

    def feed(self, records: Sequence[bytes]) -> None:
        """Start feeding watchers from this log (it grows in place)."""
        self.records = records
        self.grew()

    def grew(self) -> None:
        """The log may have grown: wake the feeders."""
        self._wake.set()

    async def serve(self, conn: Connection, now: float) -> None:
        """Feed one watcher (taken at ``now``) until it or we close; its own messages end it.

        The bounds are checked again here: ``admit`` saw its Hello, and handshakes
        completed together all passed it before any of them was counted.
        """
        public = conn.peer.public
        full = self._no_room(public, now)
        if full is not None:
            await conn.close(full.reason, ByeCode.CLOSING)
            return
        self._taken.append(now)
        old = self.conns.get(public)
        if old is not None and not old.closed:
            await old.close("replaced by a newer connection", ByeCode.DUPLICATE)
        self.conns[public] = conn
        self.served += 1
        who = _("{name} (key {key})").format(name=conn.peer.name, key=fingerprint(public))
        self.notes(_("{who} is watching this table").format(who=who))
        reader = asyncio.create_task(self._silence(conn))
        try:
            await self._feed(conn)
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            if self.conns.get(public) is conn:
                del self.conns[public]
                self.notes(_("{who} stopped watching").format(who=who))

    async def _silence(self, conn: Connection) -> None:
        """A watcher has nothing to say: the first message it sends ends it."""
        with contextlib.suppress(ConnectionClosed):
            message = await conn.recv()
            await conn.close(f"a watcher sends nothing (got {type(message).__name__})")

    async def _feed(self, conn: Connection) -> None:
        self._sent[conn] = 0
        try:
            while not conn.closed:
                self._send(conn, self.limits.backlog)
                self._wake.clear()
                # The connection's writer closes a watcher that takes nothing for
                # its write timeout, which ends this loop too.
                with contextlib.suppress(TimeoutError):
                    await within(self._wake.wait(), self.limits.poll)
        finally:
            self._sent.pop(conn, None)

    def _send(self, conn: Connection, bound: int) -> None:
        """Queue the events ``conn`` lacks while fewer than ``bound`` wait on it."""
        records = self.records
        assert records is not None
        sent = self._sent.get(conn, 0)
        try:
            while sent < len(records) and conn.backlog < bound:
                conn.send(Event(records[sent]))
                sent += 1
        except ConnectionClosed:
            pass
        self._sent[conn] = sent

    def flush(self) -> None:
        """Queue what each watcher still lacks (the lobby closes next)."""
        # The feeders are cancelled with the lobby's tasks; the session's last
        # events must still reach a watcher that keeps up. The bound leaves
        # room in the connection's queue for the goodbye.
        if self.records is None:
            return
        for conn in list(self._sent):
            self._send(conn, conn.limits.queue_size - 2)
