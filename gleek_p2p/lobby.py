"""Where peers meet: listen, discover, dial, authenticate, sit down.

The ``Lobby`` keeps one authenticated connection per other player. Before
the session it runs the table formation (net/formation.py) until all seats
agree on one roster; during the session it keeps re-dialling any seat whose
link dropped (a restarted peer comes back on the address it announced) and
hands every message to the ``SessionRunner`` through a ``ConnectionMesh``.
mDNS hints and ``--peer`` addresses only say where to dial: who a peer is
comes from its handshake alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import weakref
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

from gleek_p2p.errors import GleekError, ProtocolError
from gleek_p2p.inbox import Inbox, InboxLimits
from gleek_p2p.log.envelope import PROTOCOL_VERSION, decode_envelope, verify_envelope
from gleek_p2p.log.keys import Identity, fingerprint, verify
from gleek_p2p.net.connection import Connection, ConnectionClosed, Limits, Listener, connect
from gleek_p2p.net.discovery import Announcement, Discovery, instance_name
from gleek_p2p.net.formation import Formation, StartOver, TableFormation, keep_connection
from gleek_p2p.net.handshake import Offer
from gleek_p2p.net.messages import Bye, Event, Hello, Leave, Message, Reveal
from gleek_p2p.peer import LEFT_THE_TABLE, Incoming, LinkUp
from gleek_p2p.rules import Variant
from gleek_p2p.table.roster import Roster
from gleek_p2p.timeouts import within

log = logging.getLogger(__name__)

Address = tuple[str, int]


@dataclass(frozen=True)
class LobbyConfig:
    """How this peer presents itself and where it looks for the others."""

    name: str
    table: str
    variant: Variant
    listen: Address = ("0.0.0.0", 0)
    peers: tuple[Address, ...] = ()
    dial_interval: float = 1.0
    formation_grace: float = 1.0
    """Seconds a peer whose link dropped during formation has to come back."""
    limits: Limits = field(default_factory=Limits)
    inbox: InboxLimits = field(default_factory=InboxLimits)
    max_hints: int = 64
    """Most dialling hints kept from discovery (records are free to forge)."""


class Lobby:
    """Connections to the other players of one table, formed and kept alive."""

    def __init__(
        self,
        identity: Identity,
        config: LobbyConfig,
        *,
        discovery: Discovery | None = None,
        notes: Callable[[str], None] = lambda text: None,
        random: Callable[[int], bytes] = os.urandom,
        roster: Roster | None = None,
    ) -> None:
        self.identity = identity
        self.config = config
        self.discovery = discovery
        self.notes = notes
        self.random = random
        self.roster = roster
        self.formation = TableFormation(identity.public, config.name, random(32),
                                        config.variant.players)
        self.conns: dict[bytes, Connection] = {}
        self.addresses: dict[bytes, Address] = {}
        self.queue = Inbox(config.inbox)
        self._formed: asyncio.Future[Formation] | None = None
        self._reveal: Reveal | None = None
        self._closing = False
        self._every_conn: weakref.WeakSet[Connection] = weakref.WeakSet()
        self._listener: Listener | None = None
        self._hints: set[Address] = set()
        self._errors: dict[Address, str] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._starting_over = 0
        """The highest formation attempt a start-over is under way to."""

    @property
    def port(self) -> int:
        assert self._listener is not None
        return self._listener.port

    def _offer(self, port: int) -> Offer:
        v = self.config.variant
        return Offer(PROTOCOL_VERSION, self.config.table, tuple(v.to_wire()), v.players,
                     self.config.name, port)

    async def start(self) -> None:
        """Listen, announce, and start dialling."""
        self._formed = asyncio.get_running_loop().create_future()
        host, port = self.config.listen
        self._listener = Listener(
            identity=self.identity,
            offer=self._offer(port),
            nonce_commit=self.formation.commitment,
            on_connection=self._adopt,
            admit=self._admit,
            on_error=lambda reason: self.notes(f"refused a connection: {reason}"),
            limits=self.config.limits,
        )
        await self._listener.start(host, port)
        self._listener.offer = self._offer(self._listener.port)
        if self.discovery is not None:
            await self.discovery.start(
                Announcement(
                    instance_name(self.config.name, self.random(8)),
                    self._listener.port,
                    PROTOCOL_VERSION,
                    self.config.table,
                    fingerprint(self.identity.public),
                    self.config.variant.players,
                    tuple(self.config.variant.to_wire()),
                )
            )
            self._spawn(self._hint_loop(self.discovery))
        self._spawn(self._dial_loop())
        if self.roster is not None:
            self._formed.set_result(
                Formation(self.roster.publics, self.roster.names, self.roster.nonce)
            )

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def formed(self, timeout: float) -> Formation:
        """Wait until every seat is taken and agreed on."""
        assert self._formed is not None
        try:
            return await within(asyncio.shield(self._formed), timeout)
        except TimeoutError:
            why = "; ".join(f"{h}:{p}: {e}" for (h, p), e in self._errors.items())
            have = len(self.conns) + 1
            raise GleekError(
                f"no table formed within {timeout:g} s ({have} of "
                f"{self.config.variant.players} players here){'; ' + why if why else ''}"
            ) from None

    # ----------------------------------------------------------- connections

    def _admit(self, hello: Hello) -> str | None:
        if self.roster is not None:
            if hello.public in self.roster.publics:
                return None
            return "table full: a session is being played at this table"
        ahead = self.formation.start_over_for(hello)
        if ahead is not None and ahead > self._starting_over:
            self._starting_over = ahead
            self._spawn(self._start_over(f"{hello.name} is at attempt {ahead}", ahead))
        return self.formation.admit(hello)

    async def _adopt(self, conn: Connection) -> None:
        self._every_conn.add(conn)
        if self._closing:
            await conn.close("this peer is leaving")
            return
        public = conn.peer.public
        existing = self.conns.get(public)
        if existing is not None and not existing.closed:
            if keep_connection(self.identity.public, public, conn.dialled):
                # Take the new one first, so the old one's reader does not
                # count the peer as gone (that would abort the formation).
                self.conns[public] = conn
                await existing.close("replaced by a newer connection")
            else:
                await conn.close("duplicate connection")
                return
        peer_host = conn.writer.get_extra_info("peername")
        if peer_host and conn.peer.listen_port:
            self.addresses[public] = (peer_host[0], conn.peer.listen_port)
        self.conns[public] = conn
        self.notes(f"connected to {conn.peer.name} (key {fingerprint(public)})")
        if self.roster is None:
            try:
                reveal = self.formation.add_peer(conn.peer)
            except ProtocolError as exc:
                await conn.close(str(exc))
                return
            if reveal is not None:
                self._reveal = reveal
                for other in list(self.conns.values()):
                    with contextlib.suppress(ConnectionClosed):
                        other.send(reveal)
            elif self._reveal is not None:
                # A replacement connection: the one our reveal went out on is gone.
                with contextlib.suppress(ConnectionClosed):
                    conn.send(self._reveal)
        else:
            if self._reveal is not None:
                # We may have formed on a reveal that crossed a connection the
                # peer has since replaced: it may still wait for ours.
                with contextlib.suppress(ConnectionClosed):
                    conn.send(self._reveal)
            self.queue.notice(public, LinkUp())
        await self._read(conn)

    async def _read(self, conn: Connection) -> None:
        public = conn.peer.public
        try:
            async for message in conn:
                if isinstance(message, Reveal):
                    self._take_reveal(conn, message)
                elif isinstance(message, Leave):
                    self._take_leave(conn, message)
                elif self._keep(message):
                    await self.queue.put(public, message)
        except GleekError as exc:
            self.notes(f"lost {conn.peer.name}: {exc}")
        finally:
            if self.conns.get(public) is conn:
                reason = conn.close_reason or "connection closed"
                self.notes(f"link to {conn.peer.name} is down: {reason}")
                if self._forming():
                    self._spawn(self._forget_later(conn))

    def _keep(self, message: Message) -> bool:
        """Whether a message may wait for the session: only once there is one.

        While the table forms a peer may send nothing but a Reveal (the
        session asks every seat for what it lacks when it starts), and an
        Event must be validly signed by a seat of this session before it
        takes any room.
        """
        roster = self.roster
        if roster is None:
            return False
        if not isinstance(message, Event):
            return True
        try:
            envelope = decode_envelope(message.data)
            if envelope.session_id != roster.session_id or envelope.seat >= roster.seats:
                return False
            verify_envelope(envelope, roster.publics[envelope.seat])
        except ProtocolError:
            return False
        return True

    def _take_leave(self, conn: Connection, leave: Leave) -> None:
        """Tell the session a seat left on purpose, only on its valid signature.

        A Bye's reason is a sentence anyone could have written; a Leave is
        signed by the seat's identity key over this session's id.
        """
        roster = self.roster
        public = conn.peer.public
        if roster is None or roster.seat_of(public) is None:
            return
        if leave.session != roster.session_id or not verify(
            public, Leave.signed_bytes(leave.session), leave.signature
        ):
            self.notes(f"ignored an unsigned or forged leave from {conn.peer.name}")
            return
        self.queue.notice(public, Bye(f"{conn.peer.name} {LEFT_THE_TABLE}"))

    def _forming(self) -> bool:
        return self.roster is None and self._formed is not None and not self._formed.done()

    async def _forget_later(self, conn: Connection) -> None:
        """Count a peer as gone only if no new connection replaces the lost one.

        When both sides dial at once, one side closes the duplicate it keeps
        not; the other may see that close before the connection that replaces
        it arrives. Forgetting the peer at once would abort the formation.
        """
        await asyncio.sleep(self.config.formation_grace)
        public = conn.peer.public
        if not self._forming() or self.conns.get(public) is not conn:
            return
        del self.conns[public]
        # Before our reveal the peer is forgotten; after it, it is waited for
        # (formation.py says why giving up then would split the table).
        self.formation.remove_peer(public)

    async def _start_over(self, why: str, attempt: int) -> None:
        """Move to formation ``attempt``: new nonce, new handshakes.

        A revealed nonce must never be used twice, so every connection (whose
        handshake committed to the old nonce) is closed and dialled again.
        Every peer follows the highest attempt it sees, so all agree on one.
        """
        if not self._forming() or attempt <= self.formation.attempt:
            return
        self.notes(f"starting the table over (attempt {attempt}): {why}")
        self.formation = TableFormation(self.identity.public, self.config.name,
                                        self.random(32), self.config.variant.players, attempt)
        self._reveal = None
        if self._listener is not None:
            self._listener.nonce_commit = self.formation.commitment
            self._listener.attempt = attempt
        conns, self.conns = list(self.conns.values()), {}
        for conn in conns:
            with contextlib.suppress(Exception):
                await conn.close("starting the table over")

    def _take_reveal(self, conn: Connection, reveal: Reveal) -> None:
        if self.roster is not None or self._formed is None or self._formed.done():
            return
        try:
            formation = self.formation.receive_reveal(conn.peer.public, reveal, conn.peer)
        except StartOver as exc:
            if exc.attempt > self._starting_over:
                self._starting_over = exc.attempt
                self._spawn(self._start_over(exc.message, exc.attempt))
            return
        except ProtocolError as exc:
            # Formation blames nobody: the table simply does not form with it.
            self.notes(f"ignored a Reveal: {exc}")
            return
        if formation is not None:
            self._formed.set_result(formation)

    def adopt_roster(self, roster: Roster) -> None:
        """From now on only the roster's players may connect."""
        self.roster = roster

    # --------------------------------------------------------------- dialling

    async def _hint_loop(self, discovery: Discovery) -> None:
        mine = fingerprint(self.identity.public)
        async for hint in discovery.hints():
            if hint.txt.get("fp") == mine:
                continue
            if hint.txt.get("t", self.config.table) != self.config.table:
                continue
            if len(self._hints) < self.config.max_hints:
                self._hints.add((hint.host, hint.port))

    def _targets(self) -> list[Address]:
        live = {a for p, a in self.addresses.items()
                if p in self.conns and not self.conns[p].closed}
        wanted = list(self.config.peers) + sorted(self._hints)
        if self.roster is not None:
            wanted += [a for p, a in self.addresses.items() if p in self.roster.publics]
        seen: set[Address] = set()
        out = []
        for address in wanted:
            if address in live or address in seen:
                continue
            seen.add(address)
            out.append(address)
        return out

    def _full(self) -> bool:
        live = sum(1 for c in self.conns.values() if not c.closed)
        return live >= self.config.variant.players - 1

    async def _dial_loop(self) -> None:
        while True:
            if not self._full():
                for address in self._targets():
                    await self._dial(address)
                    if self._full():
                        break
            await asyncio.sleep(self.config.dial_interval)

    async def _dial(self, address: Address) -> None:
        assert self._listener is not None
        host, port = address
        try:
            conn = await connect(
                host,
                port,
                identity=self.identity,
                offer=self._listener.offer,
                nonce_commit=self.formation.commitment,
                admit=self._admit,
                limits=self.config.limits,
                attempt=self.formation.attempt,
            )
        except ProtocolError as exc:
            if self._errors.get(address) != exc.message:
                self._errors[address] = exc.message
                if "could not reach" not in exc.message:
                    self.notes(f"{host}:{port}: {exc.message}")
            return
        self._errors.pop(address, None)
        self.addresses[conn.peer.public] = (host, conn.peer.listen_port or port)
        self._spawn(self._adopt(conn))

    async def close(self, reason: str = "goodbye", *, leaving: bool = False) -> None:
        """Say goodbye to every peer and stop listening and announcing.

        ``leaving``: the player leaves the session on purpose; every seat is
        sent a signed ``Leave`` first. Dialling and accepting stop first, so
        no connection can be adopted while the others are being closed (an
        open one would keep the server's ``wait_closed`` waiting for ever).
        """
        self._closing = True
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._listener is not None and self._listener.server is not None:
            self._listener.server.close()
        leave = None
        if leaving and self.roster is not None:
            session = self.roster.session_id
            leave = Leave(session, self.identity.sign(Leave.signed_bytes(session)))
        for conn in list(self._every_conn):
            with contextlib.suppress(ConnectionClosed):
                if leave is not None:
                    conn.send(leave)
                conn.send(Bye(reason))
        for conn in list(self._every_conn):
            with contextlib.suppress(Exception):
                await within(conn.close(reason), 2.0)
        if self._listener is not None:
            with contextlib.suppress(TimeoutError):
                await within(self._listener.close(), 5.0)
        if self.discovery is not None:
            with contextlib.suppress(Exception):
                await self.discovery.close()


class ConnectionMesh:
    """The lobby's connections seen by seat: what the ``SessionRunner`` talks to."""

    def __init__(self, lobby: Lobby, roster: Roster) -> None:
        self.lobby = lobby
        self.roster = roster
        self.me = roster.seat_of(lobby.identity.public)

    def send(self, seat: int, message: Message) -> None:
        conn = self.lobby.conns.get(self.roster.publics[seat])
        if conn is None or conn.closed:
            return
        with contextlib.suppress(ConnectionClosed):
            conn.send(message)

    async def receive(self) -> tuple[int, Incoming]:
        while True:
            public, message = await self.lobby.queue.get()
            seat = self.roster.seat_of(public)
            if seat is not None:
                return seat, message

    def seats(self) -> Sequence[int]:
        out = []
        for seat, public in enumerate(self.roster.publics):
            conn = self.lobby.conns.get(public)
            if seat != self.me and conn is not None and not conn.closed:
                out.append(seat)
        return out
