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
import collections
import contextlib
import logging
import os
import weakref
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

from gleek_p2p.base.errors import GleekError, ProtocolError
from gleek_p2p.base.i18n import _, ngettext
from gleek_p2p.base.timeouts import within
from gleek_p2p.log.envelope import PROTOCOL_VERSION, decode_envelope, verify_envelope
from gleek_p2p.log.keys import Identity, fingerprint, verify
from gleek_p2p.net.connection import (
    Connection,
    ConnectionClosed,
    Limits,
    Listener,
    Refused,
    Unreachable,
    connect,
)
from gleek_p2p.net.discovery import Announcement, Discovery, instance_name, is_loopback
from gleek_p2p.net.formation import Formation, StartOver, TableFormation, keep_connection
from gleek_p2p.net.handshake import Offer
from gleek_p2p.net.messages import (
    Addresses,
    Bye,
    ByeCode,
    Event,
    Hello,
    Leave,
    Message,
    Refuse,
    RefuseCode,
    Reveal,
)
from gleek_p2p.rules import Variant
from gleek_p2p.session.inbox import Inbox, InboxLimits
from gleek_p2p.session.lobby_status import LobbyStatus, PeerStatus
from gleek_p2p.session.notes import Note, NoteKind, NoteLimiter, Severity
from gleek_p2p.session.peer import LEFT_THE_TABLE, CheckedEvent, Incoming, LinkUp
from gleek_p2p.table.roster import Roster
from gleek_p2p.table.schema import KIND_BOUNDS

log = logging.getLogger(__name__)

Address = tuple[str, int]

REMEMBERED_REFUSALS = 256
"""Keys whose refusal was told, most recent first: a redialling peer is told once
while it is among them; a flood of fresh keys pushes out the oldest."""


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
    searching_note_after: float = 5.0
    """Seconds alone before saying what is going on (then at growing intervals)."""
    limits: Limits = field(default_factory=Limits)
    inbox: InboxLimits = field(default_factory=InboxLimits)
    max_hints: int = 64
    """Most dialling hints kept from discovery (records are free to forge)."""
    noise_burst: int = 3
    noise_window: float = 60.0
    """Notes of one noise kind (a refused Hello, a failed handshake...) shown per window
    of this many seconds: ``noise_burst``, then one count (``notes.NoteLimiter``)."""


class TableFull(GleekError):
    """A peer already seated at this table refused us: every seat is taken.

    Raised by ``Lobby.formed`` at once: dialling again cannot get us in.
    """

    def __init__(self, address: Address, refusal: Refuse) -> None:
        host, port = address
        super().__init__(_("the table is full: {host}:{port} refused this peer ({reason})")
                         .format(host=host, port=port, reason=refusal.reason))
        self.address = address
        self.refusal = refusal


class NoTable(GleekError):
    """No table formed in time: ``connected`` names the peers we did reach.

    Having every other player connected is not a table: they must reach each
    other too, and the sentence says which case it is.
    """

    def __init__(self, timeout: float, connected: tuple[str, ...], seats: int,
                 errors: tuple[tuple[Address, str], ...]) -> None:
        if len(connected) < seats - 1:
            what = ngettext("{have} of {n} player here", "{have} of {n} players here",
                            seats).format(have=len(connected) + 1, n=seats)
        else:
            what = _("connected to {names}, but they did not all reach each other").format(
                names=" & ".join(connected))
        why = "; ".join(f"{h}:{p}: {e}" for (h, p), e in errors)
        super().__init__(_("no table formed within {seconds} s ({what})").format(
            seconds=f"{timeout:g}", what=what) + ("; " + why if why else ""))
        self.connected = connected
        self.seats = seats


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
        on_status: Callable[[LobbyStatus], None] = lambda status: None,
    ) -> None:
        self.identity = identity
        self.on_status = on_status
        """Told a fresh ``status()`` whenever who is here changes."""
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
        self._refusals_told: collections.OrderedDict[bytes, None] = collections.OrderedDict()
        self._noise = NoteLimiter(config.noise_burst, config.noise_window)
        self._told: dict[bytes, tuple[tuple[bytes, Address], ...]] = {}
        """What each peer says of where the others listen: sender -> (key, address)s."""
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
            on_error=lambda reason: self._noisy(NoteKind.HANDSHAKE_FAILED, _(
                "refused a connection: {reason}").format(reason=reason)),
            on_refused=self._tell_refusal,
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
        self._spawn(self._count_noise())
        if self.roster is None:
            self._spawn(self._say_while_searching())
        resumed = self._table_formed() if self.roster is not None else None
        if resumed is not None:
            self._formed.set_result(resumed)
        self._status_changed()

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
            live = tuple(c.peer.name for c in self.conns.values() if not c.closed)
            raise NoTable(timeout, live, self.config.variant.players,
                          tuple(self._errors.items())) from None

    # ----------------------------------------------------------- connections

    def _admit(self, hello: Hello) -> str | Refuse | None:
        if self.roster is not None:
            if hello.public in self.roster.publics:
                return None
            return Refuse("table full: a session is being played at this table",
                          RefuseCode.TABLE_FULL)
        formed = self.formation.formation
        if formed is not None and hello.public not in formed.publics:
            return Refuse("table full: the table has formed", RefuseCode.TABLE_FULL)
        ahead = self.formation.start_over_for(hello)
        if ahead is not None and ahead > self._starting_over:
            self._starting_over = ahead
            self._spawn(self._start_over(f"{hello.name} is at attempt {ahead}", ahead))
        # Refused while a formation is under way: the seats may free up again.
        return self.formation.admit(hello)

    def _tell_refusal(self, refused: Refused) -> None:
        """Mention each refusal once per peer, not once per redial (within bounds)."""
        who = refused.peer
        if who is not None:
            # One mention per key: a refused peer redials, maybe for minutes. Keys
            # are free to make, so only the latest few are remembered.
            if who.public in self._refusals_told:
                self._refusals_told.move_to_end(who.public)
                return
            self._refusals_told[who.public] = None
            if len(self._refusals_told) > REMEMBERED_REFUSALS:
                self._refusals_told.popitem(last=False)
            self._noisy(NoteKind.REFUSED, _("refused {name} (key {key}): {reason}").format(
                name=who.name, key=fingerprint(who.public), reason=refused.refusal.reason))
        else:
            self._noisy(NoteKind.REFUSED, _("refused a connection: {reason}").format(
                reason=refused.refusal.reason))

    def _noisy(self, kind: NoteKind, text: str) -> None:
        """Say something a stranger can make us say at will: a few a window, then a count."""
        for note in self._noise.offer(Note(text, Severity.INFO, kind),
                                      asyncio.get_running_loop().time()):
            self.notes(note)

    async def _count_noise(self) -> None:
        """Say how many noise notes each window held back, once it is over."""
        while True:
            await asyncio.sleep(self._noise.window)
            for note in self._noise.flush(asyncio.get_running_loop().time()):
                self.notes(note)

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
        self.notes(_("connected to {name} (key {key})").format(
            name=conn.peer.name, key=fingerprint(public)))
        self._status_changed()
        if self.roster is None:
            self._pass_on_addresses()
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
                elif isinstance(message, Addresses):
                    self._take_addresses(public, message)
                elif isinstance(message, Leave):
                    self._take_leave(conn, message)
                elif (kept := self._keep(message)) is not None:
                    await self.queue.put(public, kept)
        except GleekError as exc:
            self.notes(Note(_("lost {name}: {error}").format(name=conn.peer.name, error=exc),
                            Severity.BAD_NEWS))
        finally:
            if self.conns.get(public) is conn:
                reason = conn.close_reason or "connection closed"
                self.notes(Note(_("link to {name} is down: {reason}").format(
                    name=conn.peer.name, reason=reason), Severity.BAD_NEWS))
                self._status_changed()
                if self._forming():
                    self._spawn(self._forget_later(conn))

    def _keep(self, message: Message) -> Incoming | None:
        """What of a message may wait for the session (None: nothing), only once there is one.

        While the table forms a peer may send nothing but a Reveal (the
        session asks every seat for what it lacks when it starts), and an
        Event must fit its kind's bound and be validly signed by a seat of
        this session before it takes any room; it waits decoded, so the
        session does not decode it again.
        """
        roster = self.roster
        if roster is None:
            return None
        if not isinstance(message, Event):
            return message
        try:
            envelope = decode_envelope(message.data, KIND_BOUNDS)
            if envelope.session_id != roster.session_id or envelope.seat >= roster.seats:
                return None
            verify_envelope(envelope, roster.publics[envelope.seat])
        except ProtocolError:
            return None
        return CheckedEvent(envelope)

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
            self.notes(Note(_("ignored an unsigned or forged leave from {name}").format(
                name=conn.peer.name), Severity.BAD_NEWS))
            return
        self.queue.notice(public, Bye(f"{conn.peer.name} {LEFT_THE_TABLE}",
                                      ByeCode.LEFT_THE_TABLE))

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
        self.notes(_("starting the table over (attempt {attempt}): {reason}").format(
            attempt=attempt, reason=why))
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
            self._noisy(NoteKind.REVEAL_IGNORED,
                        _("ignored a Reveal: {error}").format(error=exc))
            return
        if formation is not None:
            self._formed.set_result(formation)
            self._status_changed()

    def adopt_roster(self, roster: Roster) -> None:
        """From now on only the roster's players may connect."""
        self.roster = roster
        self._status_changed()

    # ----------------------------------------------------------------- status

    def status(self) -> LobbyStatus:
        """Who is here now: connected peers while forming, every seat once formed."""
        def peer(public: bytes, name: str, seat: int | None = None) -> PeerStatus:
            conn = self.conns.get(public)
            return PeerStatus(name, fingerprint(public), self.addresses.get(public),
                              conn is not None and not conn.closed, seat)

        formed = self._table_formed()
        me_seat = None
        if formed is None:
            peers = tuple(peer(p, c.peer.name) for p, c in self.conns.items() if not c.closed)
        else:
            peers = tuple(peer(p, name, seat) for seat, (p, name)
                          in enumerate(zip(formed.publics, formed.names, strict=True))
                          if p != self.identity.public)
            me_seat = formed.publics.index(self.identity.public)
        me = PeerStatus(self.config.name, fingerprint(self.identity.public), None, True, me_seat)
        port = self._listener.port if self._listener and self._listener.server else None
        return LobbyStatus(self.config.table, self.config.variant.players, me, peers,
                           formed is not None, port)

    def _table_formed(self) -> Formation | None:
        if self.roster is not None:
            return Formation(self.roster.publics, self.roster.names, self.roster.nonce)
        return self.formation.formation

    def _status_changed(self) -> None:
        if not self._closing:
            self.on_status(self.status())

    # -------------------------------------------------------------- searching

    async def _say_while_searching(self) -> None:
        """Tell the person what is going on while players are missing.

        After ``searching_note_after`` seconds, then after three times as long
        each time (5 s, 15 s, 45 s, ...): a silent lobby looks like a hang.
        """
        wait = self.config.searching_note_after
        while self._forming():
            await asyncio.sleep(wait)
            wait *= 3
            if self._forming():
                self.notes(self._searching_sentence())

    def _searching_sentence(self) -> str:
        assert self._listener is not None
        port = self._listener.port
        missing = self.config.variant.players - 1
        live = [c.peer.name for c in self.conns.values() if not c.closed]
        if not live:
            found = "nobody found yet"
        elif len(live) < missing:
            found = f"found {', '.join(live)}, still looking for {missing - len(live)} more"
        else:
            found = f"found {', '.join(live)}, who have yet to reach each other"
        if self.discovery is not None:
            how = "looking on the local network (mDNS)"
        elif targets := self._targets():
            how = "dialling " + ", ".join(f"{h}:{p}" for h, p in targets[:3])
        else:
            how = "mDNS is off and no --peer was given, so the others must dial this peer"
        return (f"{found} at table {self.config.table!r}: {how}; others can join "
                f"with --peer HOST:{port} (this peer listens on port {port})")

    # ------------------------------------------------------ address passing

    def _pass_on_addresses(self) -> None:
        """Tell every connected peer where the others listen.

        Two players who each gave only a third's address (a star) learn of
        each other this way; the handshake still proves who answers there.
        """
        live = {p: c for p, c in self.conns.items() if not c.closed}
        for public, conn in live.items():
            others = [(p, self._seen_from(conn, self.addresses[p]))
                      for p in live if p != public and p in self.addresses]
            if not others:
                continue
            with contextlib.suppress(ConnectionClosed, ProtocolError):
                conn.send(Addresses(tuple(key for key, _addr in others),
                                    tuple(addr[0] for _key, addr in others),
                                    tuple(addr[1] for _key, addr in others)))

    @staticmethod
    def _seen_from(conn: Connection, address: Address) -> Address:
        """``address`` as the peer at the end of ``conn`` can dial it.

        A peer we reach on our loopback runs on our host: a peer on another
        host reaches it at the address it reaches us at.
        """
        host, port = address
        if not is_loopback(host):
            return address
        ours = conn.writer.get_extra_info("sockname")
        if ours and not is_loopback(str(ours[0])):
            return (str(ours[0]), port)
        return address

    def _take_addresses(self, sender: bytes, message: Addresses) -> None:
        # Each peer's latest list replaces its previous one: what we keep is
        # bounded by the peers connected, whatever a peer sends.
        if self._forming():
            self._told[sender] = tuple(message.entries())

    def _told_targets(self) -> list[Address]:
        """Addresses live peers told us of, for players we are not connected to."""
        live = {p for p, c in self.conns.items() if not c.closed}
        out = []
        for sender, entries in sorted(self._told.items()):
            if sender in live:
                out += [address for public, address in entries
                        if public not in live and public != self.identity.public]
        return out

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
        wanted = list(self.config.peers) + sorted(self._hints) + self._told_targets()
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
        while not self._turned_away_already():
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
        except Refused as exc:
            if exc.by_peer and exc.refusal.meaning is RefuseCode.TABLE_FULL and self._forming():
                self._turned_away(address, exc.refusal)  # said once, by ``formed``
            else:
                self._dial_failed(address, exc)
            return
        except ProtocolError as exc:
            self._dial_failed(address, exc)
            return
        self._errors.pop(address, None)
        self.addresses[conn.peer.public] = (host, conn.peer.listen_port or port)
        self._spawn(self._adopt(conn))

    def _dial_failed(self, address: Address, exc: ProtocolError) -> None:
        """Say why a dial failed once per reason (silence for nobody listening yet)."""
        if self._errors.get(address) != exc.message:
            self._errors[address] = exc.message
            if not isinstance(exc, Unreachable):
                host, port = address
                self.notes(f"{host}:{port}: {exc.message}")

    def _turned_away_already(self) -> bool:
        f = self._formed
        return f is not None and f.done() and not f.cancelled() and f.exception() is not None

    def _turned_away(self, address: Address, refusal: Refuse) -> None:
        """A seated peer says the table is full: give up forming at once."""
        if self._formed is not None:
            self._formed.set_exception(TableFull(address, refusal))
            # Retrieved by ``formed``; a lobby nobody waits on must not warn.
            self._formed.exception()

    async def close(self, reason: str = "goodbye", code: ByeCode = ByeCode.NONE, *,
                    leaving: bool = False) -> None:
        """Say goodbye (``Bye(reason, code)``) to every peer, stop listening and announcing.

        ``leaving``: the player leaves the session on purpose; every seat is
        sent a signed ``Leave`` first. Dialling and accepting stop first, so
        no connection can be adopted while the others are being closed (an
        open one would keep the server's ``wait_closed`` waiting for ever).
        """
        self._closing = True
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for note in self._noise.flush(0.0, everything=True):
            self.notes(note)  # what the last window held back
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
                conn.send(Bye(reason, code))
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
