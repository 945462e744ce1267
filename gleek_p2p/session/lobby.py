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
from gleek_p2p.base.text import printable
from gleek_p2p.base.timeouts import within
from gleek_p2p.log.envelope import decode_envelope, verify_envelope
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
from gleek_p2p.net.formation import (
    Caught,
    Evidence,
    Formation,
    FormationError,
    FormationFault,
    KeptOut,
    StartOver,
    TableFormation,
    keep_connection,
)
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.hints import HintBook, HintLimits
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
from gleek_p2p.net.refusals import FullTable, FullTables
from gleek_p2p.rules import Variant
from gleek_p2p.session.formation_words import formation_words
from gleek_p2p.session.inbox import Inbox, InboxLimits
from gleek_p2p.session.link_words import (
    dial_failure,
    handshake_failure,
    link_down,
    mismatch,
    refusal_words,
    table_words,
)
from gleek_p2p.session.lobby_status import LobbyStatus, PeerStatus
from gleek_p2p.session.notes import Note, NoteKind, NoteLimiter, Severity
from gleek_p2p.session.peer import LEFT_THE_TABLE, CheckedEvent, Incoming, LinkUp
from gleek_p2p.session.watchers import Watchers, WatchLimits
from gleek_p2p.table.roster import MAX_NAME, Roster, fits_roster
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
    hints: HintLimits = field(default_factory=HintLimits)
    """Bounds of the dialling hints kept from discovery (records are free to forge),
    and of their dials in flight (``HintLimits.dials``)."""
    reveal_deadline: float = 5.0
    """Seconds the last peer of a revealed table has to reveal once all the others did."""
    keep_out_seconds: float = 120.0
    """How long a peer dropped from the formation (caught, or too slow to reveal) is refused."""
    noise_burst: int = 3
    noise_window: float = 60.0
    """Notes of one noise kind (a refused Hello, a failed handshake...) shown per window
    of this many seconds: ``noise_burst``, then one count (``notes.NoteLimiter``)."""
    watchers: bool = True
    """Whether the table accepts watchers (announced in the discovery record)."""
    watch: WatchLimits = field(default_factory=WatchLimits)
    """How many watchers this seat feeds, and how much each may hold of our memory."""


@dataclass(frozen=True)
class _Dial:
    """What a dial under way was when it started."""

    hint: bool
    """Of a discovery hint alone (not an address given, told or of a seat): it
    counts against ``HintLimits.dials``."""
    retry: bool = False
    """Of a hint that failed before: at most half the hints' dials."""


class TableFull(GleekError):
    """Peers seated at this table proved they refused us: every seat is taken.

    Raised by ``Lobby.formed`` once the refusals are believable
    (``refusals.FullTables``): dialling again cannot get us in. ``address``
    and ``refusal`` are the first witness's (``address`` None if it dialled us).
    """

    def __init__(self, table: FullTable) -> None:
        first = table.witnesses[0]
        names = ", ".join(_("{name} (key {key})").format(
            name=w.peer.name, key=fingerprint(w.peer.public)) for w in table.witnesses)
        super().__init__(_("the table is full: {names} sit at it and refused this peer, "
                           "each proving who it is").format(names=names))
        self.table = table
        self.address = first.address
        self.refusal = first.refusal


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
        # A first attempt drawn at random: two runs of one key never sign
        # one attempt twice (formation.py), and nobody else moves it.
        self.formation = TableFormation(identity.public, config.name, random(32),
                                        config.variant.players,
                                        int.from_bytes(random(4), "big") >> 1, identity.sign)
        self._kept_out = KeptOut(config.keep_out_seconds)
        self._full_tables = FullTables(identity.public, config.variant.players)
        """Proven "table full" refusals: what would make us stop forming."""
        self._laggard_watch: tuple[int, bytes] | None = None
        """(attempt, key) of the one peer whose Reveal we wait for."""
        self.conns: dict[bytes, Connection] = {}
        self.addresses: dict[bytes, Address] = {}
        self.queue = Inbox(config.inbox)
        self._formed: asyncio.Future[Formation] | None = None
        self._reveal: Reveal | None = None
        self._closing = False
        self._every_conn: weakref.WeakSet[Connection] = weakref.WeakSet()
        self._listener: Listener | None = None
        self._hints = HintBook(config.hints, first_backoff=config.dial_interval)
        self._dialling: dict[Address, _Dial] = {}
        """Dials under way, and what each was when it started."""
        self._next_dial: dict[Address, float] = {}
        """Addresses vouched for (not mere hints): not dialled again before this time."""
        self._dial_wake = asyncio.Event()
        self._errors: dict[Address, str] = {}
        self._said_errors: dict[Address, str] = {}
        """The same errors in the person's words, for ``NoTable``."""
        self._refusals_told: collections.OrderedDict[bytes, None] = collections.OrderedDict()
        self._noise = NoteLimiter(config.noise_burst, config.noise_window)
        self._told: dict[bytes, tuple[tuple[bytes, Address], ...]] = {}
        """What each peer says of where the others listen: sender -> (key, address)s."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._instance: str | None = None
        """Our discovery record's instance name, once announced."""
        self._announce_wake = asyncio.Event()
        self.watchers = Watchers(config.watchers, config.watch, self._watch_note)
        """The peers watching this table through this seat (watchers.py)."""

    @property
    def port(self) -> int:
        assert self._listener is not None
        return self._listener.port

    def _offer(self, port: int) -> Offer:
        v = self.config.variant
        return Offer(WIRE_VERSION, self.config.table, tuple(v.to_wire()), v.players,
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
            on_failure=lambda exc: self._noisy(NoteKind.HANDSHAKE_FAILED, _(
                "refused a connection: {reason}").format(reason=handshake_failure(exc))),
            on_refused=self._tell_refusal,
            limits=self.config.limits,
        )
        self._listener.attempt = self.formation.attempt
        await self._listener.start(host, port)
        self._listener.offer = self._offer(self._listener.port)
        if self.discovery is not None:
            self._instance = instance_name(self.config.name, self.random(8))
            announced = self._announcement()
            await self.discovery.start(announced)
            self._spawn(self._hint_loop(self.discovery))
            self._spawn(self._announce_loop(self.discovery, announced))
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
                          tuple((a, self._said_errors.get(a, e))
                                for a, e in self._errors.items())) from None

    # ----------------------------------------------------------- connections

    def _admit(self, hello: Hello) -> str | Refuse | None:
        if hello.watcher:
            # Never a seat, never in the formation: admitted on the watchers' terms only.
            return self.watchers.admit(hello, asyncio.get_running_loop().time())
        if self.roster is not None:
            if hello.public in self.roster.publics:
                return None
            return self._table_full("table full: a session is being played at this table",
                                    self.roster.publics)
        if not fits_roster(hello.name):
            # A Hello's name is looser than a roster's: counted, it would let the
            # table form and then fail every seat making the roster (SPEC 5.2).
            return Refuse(f"your name {hello.name!r} cannot sit at a table: a player's name "
                          f"is 1 to {MAX_NAME} printable characters", RefuseCode.NONE)
        formed = self.formation.formation
        if formed is not None and hello.public not in formed.publics:
            return self._table_full("table full: the table has formed", formed.publics)
        # Pure: asked on a Hello nobody has authenticated yet, so nothing a
        # stranger says here changes the formation (not even its attempt).
        if self._kept_out.holds(hello.public, asyncio.get_running_loop().time()):
            return Refuse("you were dropped from this table's formation; try again later",
                          RefuseCode.NOT_NOW)
        # Refused while a formation is under way: the seats may free up again.
        reason = self.formation.admit(hello)
        return None if reason is None else Refuse(reason, RefuseCode.NOT_NOW)

    def _table_full(self, reason: str, publics: Sequence[bytes]) -> Refuse:
        """A ``TABLE_FULL`` refusal naming our table and where its seats listen.

        The handshake signs it, so a fourth player can believe it; where the
        others listen lets one that was given a single address reach a
        second seat, whose refusal it needs too (refusals.py).
        """
        seated = tuple(sorted(publics))
        where = [self.addresses.get(p) if p != self.identity.public else None for p in seated]
        return Refuse(reason, RefuseCode.TABLE_FULL, seated,
                      tuple(a[0] if a else "" for a in where),
                      tuple(a[1] if a else 0 for a in where))

    def _first_refusal(self, public: bytes) -> bool:
        """True the first time a refusal between this peer and ``public`` is told, either
        way (we refused it, or it refused our link): one mention per key. A refused
        peer redials, maybe for minutes, and keys are free to make, so only the
        latest few are remembered."""
        if public in self._refusals_told:
            self._refusals_told.move_to_end(public)
            return False
        self._refusals_told[public] = None
        if len(self._refusals_told) > REMEMBERED_REFUSALS:
            self._refusals_told.popitem(last=False)
        return True

    def _tell_refusal(self, refused: Refused) -> None:
        """Mention each refusal once per peer, not once per redial (within bounds)."""
        if refused.by_peer:
            # A peer that dialled us refused us: news of its table, not of ours.
            self._refused_us(None, refused)
            return
        who = refused.peer
        if who is not None:
            if not self._first_refusal(who.public):
                return
            offer = self._listener.offer if self._listener is not None else None
            why = mismatch(offer, who) if offer is not None else None
            self._noisy(NoteKind.REFUSED, _("refused {name} (key {key}): {reason}").format(
                name=who.name, key=fingerprint(who.public),
                reason=why or refusal_words(refused.why)))
        else:
            self._noisy(NoteKind.REFUSED, _("refused a connection: {reason}").format(
                reason=refusal_words(refused.why)))

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
            await conn.close("this peer is leaving", ByeCode.CLOSING)
            return
        if conn.peer.watcher:
            await self.watchers.serve(conn, asyncio.get_running_loop().time())
            return
        public = conn.peer.public
        existing = self.conns.get(public)
        if existing is not None and not existing.closed:
            if keep_connection(self.identity.public, public, conn.dialled):
                # Take the new one first, so the old one's reader does not
                # count the peer as gone (that would abort the formation).
                self.conns[public] = conn
                await existing.close("replaced by a newer connection", ByeCode.DUPLICATE)
            else:
                await conn.close("duplicate connection", ByeCode.DUPLICATE)
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
            if not await self._count(conn):
                return
        else:
            if self._reveal is not None:
                # We may have formed on a reveal that crossed a connection the
                # peer has since replaced: it may still wait for ours.
                with contextlib.suppress(ConnectionClosed):
                    conn.send(self._reveal)
            self.queue.notice(public, LinkUp())
        await self._read(conn)

    async def _count(self, conn: Connection) -> bool:
        """Count an authenticated peer in the formation; False if it is not kept."""
        if conn.own_hello is None or conn.peer_proof is None:
            await conn.close("no handshake evidence")
            return False
        if (self.roster is None and self.formation.formation is None
                and conn.own_hello.nonce_commit != self.formation.commitment):
            # Its handshake began before we started over: the peer holds our
            # old commitment. Closed as a start-over, so it moves on too.
            await conn.close("starting the table over", ByeCode.STARTING_OVER)
            return False
        evidence = Evidence(conn.peer, conn.own_hello, conn.peer_proof)
        attempt = self.formation.attempt
        try:
            reveal = self.formation.add_peer(conn.peer, evidence)
        except StartOver as exc:
            self._moved_on(exc)
            return True
        except FormationError as exc:
            # The peer words a known code in its own language; our sentence (English,
            # with its name) is for its logs only.
            code = (ByeCode.TABLE_FULL if exc.fault is FormationFault.NOT_ADMITTED
                    else ByeCode.NONE)
            await conn.close(str(exc), code)
            return False
        except ProtocolError as exc:
            await conn.close(str(exc))
            return False
        if reveal is not None:
            self._reveal = reveal
            for other in list(self.conns.values()):
                with contextlib.suppress(ConnectionClosed):
                    other.send(reveal)
            self._settle(attempt)
        elif self._reveal is not None:
            # A replacement connection: the one our reveal (and the others'
            # we relayed) went out on is gone.
            for reveal in [self._reveal, *self.formation.reveals.values()]:
                if reveal.sender != conn.peer.public:
                    with contextlib.suppress(ConnectionClosed):
                        conn.send(reveal)
        return True

    def _settle(self, attempt: int) -> None:
        """Check the Reveals taken before ours; complete, start over or watch for a laggard."""
        try:
            formation = self.formation.settle()
        except StartOver as exc:
            self._moved_on(exc)
            return
        self._after_reveals(attempt, formation)

    def _after_reveals(self, attempt: int, formation: Formation | None) -> None:
        if formation is not None:
            if self._formed is not None and not self._formed.done():
                self._formed.set_result(formation)
            self._status_changed()
            return
        laggard = self.formation.laggard()
        if laggard is not None and self._laggard_watch != (attempt, laggard):
            self._laggard_watch = (attempt, laggard)
            self._spawn(self._drop_if_silent(attempt, laggard))

    async def _drop_if_silent(self, attempt: int, public: bytes) -> None:
        """Drop the last peer of our revealed table if it has not revealed in time.

        Every other peer revealed (and we relay what we get, so a Reveal sent
        to one of us reaches all): a peer that holds a seat without revealing
        blocks the table, so it is kept out for a while and we start over
        with whoever is waiting.
        """
        await asyncio.sleep(self.config.reveal_deadline)
        if (not self._forming() or self.formation.attempt != attempt
                or self.formation.laggard() != public):
            return
        hello = self.formation.peers[public]
        conn = self.conns.get(public)
        if conn is not None and not conn.closed:
            # It holds its seat and says nothing: a squatter. (A peer whose
            # link is down may have crashed: it is not kept out.)
            self._keep_out(public)
        why = _("{name} (key {key}) did not reveal within {seconds} s of the others").format(
            name=hello.name, key=fingerprint(public), seconds=f"{self.config.reveal_deadline:g}")
        try:
            step = self.formation.next_attempt(why)
        except ProtocolError as exc:
            self.notes(Note(formation_words(exc), Severity.BAD_NEWS))
            return
        await self._start_over(why, step.attempt)

    def _peer_moved_on(self, conn: Connection) -> None:
        """A peer said, on its authenticated link, that it left the attempt it was counted in.

        It started over, or it refused us once both proofs were in (its table
        filled up in the meantime): either way its Hello will never complete a
        table with us. If our nonce is out with it we move on now, rather
        than wait for it for ever (or count its old Hello again in our next
        attempt and move on once more when it comes back).
        """
        if not self._forming():
            return
        known = self.formation.peers.get(conn.peer.public)
        if known is None or known.nonce_commit != conn.peer.nonce_commit:
            return
        if not self.formation.revealed:
            self.formation.remove_peer(conn.peer.public)
            return
        try:
            step = self.formation.next_attempt(
                _("{name} started the table over").format(name=conn.peer.name))
        except ProtocolError as exc:
            self.notes(Note(formation_words(exc), Severity.BAD_NEWS))
            return
        self._spawn(self._start_over(step.message, step.attempt))

    def _keep_out(self, public: bytes) -> None:
        self._kept_out.add(public, asyncio.get_running_loop().time())

    def _moved_on(self, exc: StartOver) -> None:
        if isinstance(exc, Caught) and exc.proof.holds():
            self._keep_out(exc.public)
            one, other = exc.proof.first.peer, exc.proof.second.peer
            if one.name != other.name:
                detail = _("the names {one} and {other}").format(
                    one=repr(one.name), other=repr(other.name))
            else:
                detail = _("two nonce commitments")
            self.notes(Note(_("{name} (key {key}) told the players different things, "
                              "proven by two Hellos it signed ({detail}): it is kept out "
                              "of this table for {seconds} s").format(
                                  name=one.name, key=fingerprint(exc.public), detail=detail,
                                  seconds=f"{self.config.keep_out_seconds:g}"),
                            Severity.BAD_NEWS))
        self._spawn(self._start_over(formation_words(exc), exc.attempt))

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
        except GleekError:
            if self.conns.get(public) is not conn or self._closing:
                # Worded from the link's close code (the error's text is English,
                # for the logs); a link still ours is worded once, below.
                self.notes(Note(link_down(conn.peer.name, conn), Severity.BAD_NEWS))
        finally:
            farewell = conn.farewell
            if (conn.refusal is not None and conn.refusal.meaning is RefuseCode.TABLE_FULL
                    and self._forming()):
                # Sealed by the channel after both proofs: proven, like a signed one.
                self._proven_full(self.addresses.get(public), conn.peer, conn.refusal)
            if conn.refusal is not None or (
                    farewell is not None and farewell.meaning is ByeCode.STARTING_OVER):
                self._peer_moved_on(conn)
            if self.conns.get(public) is conn and not self._closing:
                # In words from the close code: a peer that closes after the
                # last hand is news, not bad news. A refusal is told once per key,
                # whichever side refused (a fourth player refused by our table may
                # also refuse our link to it, "table full").
                over = farewell is not None and farewell.meaning is ByeCode.SESSION_OVER
                if conn.refusal is None or self._first_refusal(public):
                    self.notes(Note(link_down(conn.peer.name, conn),
                                    Severity.INFO if over else Severity.BAD_NEWS))
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
        handshake committed to the old nonce) is closed, with goodbye code
        ``STARTING_OVER`` so a peer that revealed with us moves on too, and
        dialled again. Attempts are our own: only ever ``attempt + 1``.
        """
        # Only ever our own next attempt: a start-over already made is not repeated.
        if not self._forming() or attempt != self.formation.attempt + 1:
            return
        self.notes(_("starting the table over (attempt {attempt}): {reason}").format(
            attempt=attempt, reason=why))
        self.formation = TableFormation(self.identity.public, self.config.name,
                                        self.random(32), self.config.variant.players, attempt,
                                        self.identity.sign, self.formation.spent_now())
        self._reveal = None
        if self._listener is not None:
            self._listener.nonce_commit = self.formation.commitment
            self._listener.attempt = attempt
        conns, self.conns = list(self.conns.values()), {}
        for conn in conns:
            with contextlib.suppress(Exception):
                await conn.close("starting the table over", ByeCode.STARTING_OVER)

    def _take_reveal(self, conn: Connection, reveal: Reveal) -> None:
        if not self._forming():
            return
        attempt = self.formation.attempt
        new = reveal.sender not in self.formation.reveals
        try:
            formation = self.formation.receive_reveal(conn.peer.public, reveal, conn.peer)
        except StartOver as exc:
            self._moved_on(exc)
            return
        except ProtocolError as exc:
            # Only proof names a peer: anything else is just not taken.
            self._noisy(NoteKind.REVEAL_IGNORED,
                        _("ignored a Reveal: {error}").format(error=formation_words(exc)))
            return
        if new and self.formation.reveals.get(reveal.sender) == reveal:
            # Relayed to the others, so a peer cannot reveal to one of us only.
            for public, other in list(self.conns.items()):
                if public not in (conn.peer.public, reveal.sender):
                    with contextlib.suppress(ConnectionClosed):
                        other.send(reveal)
        self._after_reveals(attempt, formation)

    def feed_watchers(self, records: Sequence[bytes]) -> None:
        """Feed watchers this log (the table's ``encoded``, growing in place)."""
        self.watchers.feed(records)

    def _watch_note(self, text: str) -> None:
        # A watcher comes and goes at will: its notes are limited like any noise.
        self._noisy(NoteKind.WATCHER, text)
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
        watching = tuple(PeerStatus(c.peer.name, fingerprint(p))
                         for p, c in self.watchers.conns.items() if not c.closed)
        return LobbyStatus(self.config.table, self.config.variant.players, me, peers,
                           formed is not None, port, watching)

    def _table_formed(self) -> Formation | None:
        if self.roster is not None:
            return Formation(self.roster.publics, self.roster.names, self.roster.nonce)
        return self.formation.formation

    def _status_changed(self) -> None:
        if not self._closing:
            self.on_status(self.status())
            self._announce_wake.set()

    def _announcement(self) -> Announcement:
        """Our discovery record: where we listen, and the table's public facts now."""
        assert self._instance is not None and self._listener is not None
        status = self.status()
        seated = [status.me, *(p for p in status.peers if status.formed or p.connected)]
        return Announcement(
            self._instance, self._listener.port, WIRE_VERSION, self.config.table,
            fingerprint(self.identity.public), self.config.variant.players,
            tuple(self.config.variant.to_wire()), playing=status.formed,
            seated=tuple((p.fingerprint, p.name) for p in seated),
            watchers=self.config.watchers,
        )

    async def _announce_loop(self, discovery: Discovery, announced: Announcement) -> None:
        """Keep our record's table facts current (``gleek tables`` reads them).

        One update at a time, of the latest status: a burst of changes costs
        one announcement, not one each.
        """
        while True:
            await self._announce_wake.wait()
            self._announce_wake.clear()
            now = self._announcement()
            if now != announced:
                try:
                    await discovery.update(now)
                except Exception as exc:  # a record left stale is no reason to stop playing
                    log.info("could not update the discovery record: %s", exc)
                announced = now

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
        table = table_words(self.config.table)
        if not live:
            found = _("nobody found yet at table {table}").format(table=table)
        elif len(live) < missing:
            found = ngettext("found {names} at table {table}, still looking for {n} more",
                             "found {names} at table {table}, still looking for {n} more",
                             missing - len(live)).format(names=", ".join(live), table=table,
                                                         n=missing - len(live))
        else:
            found = _("found {names} at table {table}, who have yet to reach each other"
                      ).format(names=", ".join(live), table=table)
        # Every address this peer dials: the --peer ones (even once connected) and the rest.
        dialled = list(dict.fromkeys([*self.config.peers, *self._targets()]))
        if self.discovery is not None:
            how = _("looking on the local network (mDNS)")
        elif dialled:
            how = _("dialling {addresses}").format(
                addresses=", ".join(f"{h}:{p}" for h, p in dialled[:3]))
        else:
            how = _("mDNS is off and no --peer was given, so the others must dial this peer")
        return _("{found}: {how}; others can join with --peer HOST:{port} (this peer "
                 "listens on port {port})").format(found=found, how=how, port=port)

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

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    def _heard(self, address: Address) -> None:
        """Discovery says a peer may listen at ``address``."""
        new = address not in self._hints
        if self._hints.heard(address, self._now()) and new:
            self._dial_wake.set()

    async def _hint_loop(self, discovery: Discovery) -> None:
        mine = fingerprint(self.identity.public)
        ours = self._announcement()
        async for hint in discovery.hints():
            if hint.txt.get("fp") == mine:
                continue
            # Only records of the table asked for (its name and hands, our
            # version, variant and seats) take a place in the book and a dial:
            # any other would refuse us at its Hello, and a stranger announcing
            # many tables would keep the dials of this one waiting.
            if not ours.matches(hint):
                continue
            self._heard((hint.host, hint.port))

    def _live_addresses(self) -> set[Address]:
        return {a for p, a in self.addresses.items()
                if p in self.conns and not self.conns[p].closed}

    def _vouched_targets(self) -> list[Address]:
        """Addresses given with ``--peer``, told by a connected peer, or where a seat listens."""
        wanted = list(self.config.peers) + self._told_targets()
        if self.roster is not None:
            wanted += [a for p, a in self.addresses.items() if p in self.roster.publics]
        return wanted

    def _targets(self) -> list[Address]:
        """Where to dial now, best first: addresses vouched for, then hints due."""
        live = self._live_addresses()
        wanted = self._vouched_targets() + self._hints.due(self._now())
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
        """Dial every target, several at once, and again when one ends or a hint comes.

        Hints are dialled at most ``hints.dials`` at once (counting those
        that left the book meanwhile), at most half of them hints that failed
        before, so a fresh hint never waits behind tarpits only; the rest wait
        in the book, in its order. An address given or told (a few, from the
        person or a connected peer) is dialled beside them, at most once per
        ``dial_interval``.
        """
        while not self._turned_away_already():
            self._dial_wake.clear()
            if len(self._full_tables) and self._believe_full():
                return  # those forming with us left: the refusals now stand
            if not self._full():
                self._start_dials()
            with contextlib.suppress(TimeoutError):
                await within(self._dial_wake.wait(), self.config.dial_interval)

    def _start_dials(self) -> None:
        now = self._now()
        for address in self._live_addresses():
            self._hints.succeeded(address, now)  # a peer authenticated there
        targets = self._targets()
        vouched = set(self._vouched_targets())
        self._next_dial = {a: t for a, t in self._next_dial.items() if t > now}
        # Every dial started on a hint counts until it ends, its hint still in
        # the book or not: a stream of new records cannot open more sockets.
        cap = self.config.hints.dials
        hint_dials = sum(1 for d in self._dialling.values() if d.hint)
        retries = sum(1 for d in self._dialling.values() if d.retry)
        for address in targets:
            if address in self._dialling:
                continue
            dial = _Dial(hint=address not in vouched)
            if dial.hint:
                if hint_dials >= cap:
                    break  # the rest wait in the book, in its order
                dial = _Dial(hint=True, retry=self._hints.failures(address) > 0)
                if dial.retry and retries >= cap // 2:
                    continue
                hint_dials += 1
                retries += dial.retry
            else:
                if self._next_dial.get(address, 0.0) > now:
                    continue
                self._next_dial[address] = now + self.config.dial_interval
            self._dialling[address] = dial
            self._spawn(self._dial(address))

    async def _dial(self, address: Address) -> None:
        try:
            await self._dial_once(address)
        finally:
            self._dialling.pop(address, None)
            self._dial_wake.set()

    async def _dial_once(self, address: Address) -> None:
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
            if exc.by_peer and exc.refusal.meaning is RefuseCode.TABLE_FULL:
                self._hints.failed(address, self._now())
                self._refused_us(address, exc)
            else:
                self._dial_failed(address, exc)
            return
        except ProtocolError as exc:
            self._dial_failed(address, exc)
            return
        self._errors.pop(address, None)
        self._hints.succeeded(address, self._now())
        self.addresses[conn.peer.public] = (host, conn.peer.listen_port or port)
        self._spawn(self._adopt(conn))

    def _dial_failed(self, address: Address, exc: ProtocolError) -> None:
        """Back a hint off; say why once per reason (silence for nobody listening yet).

        Nothing is said of a discovery hint alone: a hint is anyone's word,
        and a line per forged record would bury real news.
        """
        self._hints.failed(address, self._now())
        if address not in self._vouched_targets():
            return
        if self._errors.get(address) != exc.message:
            host, port = address
            why = None
            if isinstance(exc, Refused) and exc.peer is not None and self._listener is not None:
                # Worded from the offers, for the person here: not the refusal's
                # own sentence, which speaks to the other side.
                why = mismatch(self._listener.offer, exc.peer)
            if why is None:
                why = dial_failure(exc)
            self._errors[address] = exc.message
            self._said_errors[address] = why
            if not isinstance(exc, Unreachable):
                self.notes(f"{host}:{port}: {why}")

    def _turned_away_already(self) -> bool:
        f = self._formed
        return f is not None and f.done() and not f.cancelled() and f.exception() is not None

    def _refused_us(self, address: Address | None, refused: Refused) -> None:
        """A peer refused us in its handshake: believe "table full" only when proven.

        A plain refusal is anyone's word (a forged mDNS record costs
        nothing), and one proven refusal is one key's: both are noted (rate
        limited) and we go on forming. Only ``WITNESSES`` seats of one table
        that formed without us, while nobody else is forming with us, stop
        us (refusals.py). Whatever else a refusal says is for the person: its
        code is NONE, and a table never forms or fails on it.
        """
        refusal, peer = refused.refusal, refused.peer
        if refusal.meaning is not RefuseCode.TABLE_FULL or not self._forming():
            if address is None and peer is not None and refusal.meaning is RefuseCode.NOT_NOW:
                self._noisy(NoteKind.REFUSED_US, _("{name} (key {key}) does not take this peer "
                                                   "now; it may later").format(
                    name=peer.name, key=fingerprint(peer.public)))
            elif address is None and peer is not None:
                # The peer's own words, which this program cannot translate: quoted.
                self._noisy(NoteKind.REFUSED_US, _("{name} (key {key}) refused this peer, "
                                                   "saying: “{reason}”").format(
                    name=peer.name, key=fingerprint(peer.public),
                    reason=printable(refusal.reason)))
            return
        if not refused.proven or peer is None:
            where = f"{address[0]}:{address[1]}" if address else _("a peer")
            said = _("{who} says the table is full but does not prove who it is: not "
                     "believed, still forming").format(who=where)
            self._noisy(NoteKind.REFUSED_US, said)
            self._remember_error(address, refused.message, said)
            return
        self._proven_full(address, peer, refusal)

    def _proven_full(self, address: Address | None, peer: Hello, refusal: Refuse) -> None:
        """Take a proven ``TABLE_FULL`` refusal from ``peer``; stop if it is the second."""
        if not self._full_tables.heard(peer, refusal, address, self._now()):
            said = _("{name} (key {key}) says the table is full but names no table it "
                     "sits at without us: not believed, still forming").format(
                         name=peer.name, key=fingerprint(peer.public))
            self._noisy(NoteKind.REFUSED_US, said)
            self._remember_error(address, "table full (not believed)", said)
            return
        for public, told in refusal.where():
            if public != self.identity.public:
                # Only a hint: the handshake there proves who answers.
                self._heard(self._seen_through(address, told))
        if not self._believe_full():
            said = _("{name} (key {key}) says the table is full; still forming until "
                     "another player seated there says so too").format(
                         name=peer.name, key=fingerprint(peer.public))
            self._noisy(NoteKind.REFUSED_US, said)
            self._remember_error(address, "table full (one seat said so)", said)

    @staticmethod
    def _seen_through(via: Address | None, told: Address) -> Address:
        """``told`` as we can dial it: a seat on the refuser's loopback is on its host."""
        if via is not None and is_loopback(told[0]) and not is_loopback(via[0]):
            return (via[0], told[1])
        return told

    def _remember_error(self, address: Address | None, message: str, said: str) -> None:
        """What ``NoTable`` says of an address we dialled, if no table forms in time."""
        if address is not None:
            self._errors[address] = message
            self._said_errors[address] = said

    def _believe_full(self) -> bool:
        """Stop forming (``TableFull``) if the proven refusals now make a verdict."""
        if not self._forming():
            return False
        around = [p for p, c in self.conns.items() if not c.closed]
        table = self._full_tables.verdict(around, self._now())
        if table is None:
            return False
        assert self._formed is not None
        self._formed.set_exception(TableFull(table))
        # Retrieved by ``formed``; a lobby nobody waits on must not warn.
        self._formed.exception()
        return True

    async def close(self, reason: str = "goodbye", code: ByeCode = ByeCode.CLOSING, *,
                    leaving: bool = False) -> None:
        """Say goodbye (``Bye(reason, code)``) to every peer, stop listening and announcing.

        ``leaving``: the player leaves the session on purpose; every seat is
        sent a signed ``Leave`` first. Dialling and accepting stop first, so
        no connection can be adopted while the others are being closed (an
        open one would keep the server's ``wait_closed`` waiting for ever).
        """
        self._closing = True
        self.watchers.flush()
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
        if isinstance(message, Event):
            self.lobby.watchers.grew()  # the runner sends what its table just took
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
