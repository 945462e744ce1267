"""``gleek watch``: follow a table's log live as a watcher, verify it, keep it.

The watcher dials a seated peer with a Hello marked ``watcher`` (SPEC 5.7),
is sent the whole log from its roster on, then each event as that seat's
table takes it. Every event is checked as it arrives by an observer
``Table``, exactly as ``gleek verify`` replays it, and appended to a log of
its own that ``gleek verify`` reads. The watcher signs nothing and sends
nothing: a seat that feeds it an event that does not verify, or a log other
than the one it sent before, is left and another seat is dialled.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from gleek_p2p.base.errors import GleekError, ProtocolError
from gleek_p2p.base.i18n import _, ngettext
from gleek_p2p.log.envelope import decode_envelope
from gleek_p2p.log.keys import Identity, fingerprint
from gleek_p2p.log.store import LogStore
from gleek_p2p.net.connection import Connection, Limits, Refused, connect
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import MAX_NAME_BYTES, ByeCode, Event, RefuseCode, Text
from gleek_p2p.net.race import DIAL_STAGGER, race
from gleek_p2p.rules import Event as Move
from gleek_p2p.rules import Variant
from gleek_p2p.session.error_words import rejection_words
from gleek_p2p.session.link_words import dial_failure, mismatch
from gleek_p2p.table import events as ev
from gleek_p2p.table.roster import Roster
from gleek_p2p.table.schema import KIND_BOUNDS
from gleek_p2p.table.session import Table
from gleek_p2p.table.verify import VerifyReport, verify_records

__all__ = ["Impersonated", "KeptLogUnusable", "LiveLog", "NoWatchers", "NotAnnounced",
           "OnEvent", "WatchConfig", "WatchResult", "watch", "watched_log"]

Address = tuple[str, int]


class NoWatchers(GleekError):
    """The table's players chose not to be watched (``--watchers no``)."""


class NotAnnounced(ProtocolError):
    """A seat fed the log of a table whose players are not those the LAN announced
    for the table watched: another table using its name, or a seat lying about it."""


class KeptLogUnusable(GleekError):
    """The log this watcher keeps of the session cannot be opened or continued (another
    ``gleek watch`` keeps it, or it is damaged): this side's trouble, no seat's."""


class Impersonated(GleekError):
    """No seat dialled fed the table the LAN announced: the watcher refuses to watch."""


@dataclass(frozen=True)
class WatchConfig:
    """Where and what to watch."""

    name: str
    """The watcher's name, shown to the players."""
    table: str
    """The table's name on the wire (with its hands: ``NAME/HANDS``)."""
    variant: Variant
    peers: tuple[Address, ...]
    """Seated peers to dial, in this order, as a staggered race (``net.race``)."""
    data_dir: Path
    timeout: float = 300.0
    """Seconds without a new event (or without any seat answering) before giving up."""
    retry: float = 1.0
    """Seconds between two rounds of dials."""
    stagger: float = DIAL_STAGGER
    """Seconds between the starts of two dials of one round (``net.race``)."""
    first_event: float = 10.0
    """Seconds a seat has, once it took the watcher, to send its first event: a seat
    feeds its log from the roster on at once, so one that stays silent is a stranger
    holding the watcher (it is left, and dialled last from then on)."""
    limits: Limits = field(default_factory=Limits)
    announced: frozenset[str] | None = None
    """The key fingerprints the LAN's records announce for the table's seats (``gleek
    tables`` lists them); a roster with other keys is not watched. None: not known
    (``--peer``), any roster the seat sits at is taken."""


class LiveLog:
    """The log as it arrives: each event checked by an observer ``Table``, then stored.

    ``take`` raises ``ProtocolError`` for an event the log cannot take (not
    the next, not signed by its seat, against the rules, or another event
    than the one already held at its place) and then holds exactly what it
    held: the feed is to blame, never the log.
    """

    def __init__(self, directory: Path, announced: frozenset[str] | None = None) -> None:
        self.directory = directory
        self.announced = announced
        """The seats' key fingerprints the roster must carry (None: any)."""
        self.table: Table | None = None
        self.store: LogStore | None = None
        self.records: list[bytes] = []
        self.applied: list[Move] = []
        """The engine events the last new event caused (for a screen to narrate)."""
        self.resumed = 0
        """Events of this session already kept here by an earlier watch, continued."""

    @property
    def path(self) -> Path | None:
        return self.store.path if self.store is not None else None

    @property
    def finished(self) -> bool:
        return self.table is not None and self.table.finished

    def take(self, data: bytes, feeder: bytes, place: int | None = None) -> bool:
        """Take one event fed by the seat of key ``feeder``; True if it is new.

        ``place``: how many events this seat fed before on this link. A seat
        feeds its log from the roster on, each event once, in order (SPEC 5.7):
        an event at any other position is refused, so a seat repeating itself
        cannot pass for one still catching the watcher up.
        """
        envelope = decode_envelope(data, KIND_BOUNDS)
        if place is not None and envelope.seq != place:
            raise ProtocolError(f"the seat fed event {envelope.seq} where its feed was at "
                                f"event {place}")
        held = len(self.records)
        if envelope.seq < held:
            # A reconnection starts over from the roster: the same bytes, or a lie.
            if self.records[envelope.seq] != data:
                raise ProtocolError(f"event {envelope.seq} differs from the one received before")
            return False
        if envelope.seq > held:
            raise ProtocolError(f"event {envelope.seq} came before event {held}")
        table = self.table
        if table is None:
            if envelope.kind != ev.ROSTER:
                raise ProtocolError("the log does not start with a roster")
            roster = Roster.from_body(envelope.body)
            if feeder not in roster.publics:
                raise ProtocolError("the peer feeds the log of a table it does not sit at")
            keys = frozenset(fingerprint(p) for p in roster.publics)
            if self.announced is not None and keys != self.announced:
                raise NotAnnounced(
                    f"the roster's keys {', '.join(sorted(keys))} are not the keys "
                    f"announced for the table ({', '.join(sorted(self.announced))})")
            table = Table(roster)
        elif feeder not in table.roster.publics:
            raise ProtocolError("the peer does not sit at the table watched")
        try:
            applied = table.receive(envelope, data)
        except GleekError as exc:
            # A seat's table never sends what it did not take: this feed lies.
            raise ProtocolError(f"event {envelope.seq} does not verify: {exc}") from None
        if self.table is None:
            self._begin(table, data)
            self.applied = applied
            return True
        assert self.store is not None
        self.store.append(data, sync=False)
        self.records.append(data)
        self.applied = applied
        return True

    def _begin(self, table: Table, roster: bytes) -> None:
        """Open this session's log (``table`` took its roster), continuing what an
        earlier watch of it kept there; ``KeptLogUnusable`` leaves everything as it was."""
        path = self.directory / f"{table.session_id.hex()}.gleeklog"
        unusable = KeptLogUnusable(_(
            "the log of this session kept in {path} cannot be used (another gleek watch may "
            "be keeping it, or it is damaged): move it away to watch this session "
            "again").format(path=path))
        try:
            store = LogStore.open(path)
        except GleekError:
            raise unusable from None
        kept = store.records
        try:
            if kept and kept[0] != roster:
                raise ProtocolError("another roster")
            # Checked again as it is read: only what verifies is continued.
            for record in kept[1:]:
                table.receive(decode_envelope(record, KIND_BOUNDS), record)
            if not kept:
                store.append(roster, sync=False)
        except GleekError:
            store.close()
            raise unusable from None
        self.table, self.store = table, store
        self.records = kept or [roster]
        self.resumed = len(kept)

    def close(self) -> None:
        if self.store is not None:
            with contextlib.suppress(OSError):
                self.store.sync()
            self.store.close()


@dataclass
class WatchResult:
    """How the watch ended: the log kept and what ``gleek verify`` says of it."""

    path: Path | None
    table: Table | None
    report: VerifyReport | None
    reason: str


OnEvent = Callable[[Table, Sequence[Move]], None]
"""Told of each new event as the observer table took it, with the engine events it caused."""


async def watch(identity: Identity, config: WatchConfig, notes: Callable[[str], None],
                on_hand: Callable[[Table, int], None] = lambda table, hand: None,
                random: Callable[[int], bytes] = os.urandom,
                on_event: OnEvent = lambda table, applied: None,
                live: LiveLog | None = None) -> WatchResult:
    """Watch until the session ends (or nothing new comes for ``timeout``).

    ``on_event`` hears every new event (a screen follows the table with it);
    ``live`` is the log to keep (by default one under ``data_dir/watched``):
    whoever stops the watch early still holds what was kept.
    """
    if not config.peers:
        raise GleekError(_("no peer to watch: give a seated peer's address with --peer"))
    try:
        Text("the watcher's name", MAX_NAME_BYTES).check(config.name)
    except ProtocolError:
        # Found only at the handshake, every dial would fail until the timeout.
        raise GleekError(_("your name {name} cannot be sent: a name is at most {most} bytes "
                           "of UTF-8, with no control character").format(
            name=repr(config.name), most=MAX_NAME_BYTES)) from None
    v = config.variant
    offer = Offer(WIRE_VERSION, config.table, tuple(v.to_wire()), v.players,
                  config.name, 0, watcher=True)
    if live is None:
        live = watched_log(config)
    loop = asyncio.get_running_loop()
    progress = loop.time()
    told = 0
    reason = ""
    turn = 0

    async def dial(address: Address) -> Connection:
        host, port = address
        return await connect(host, port, identity=identity, offer=offer,
                             nonce_commit=random(32), limits=config.limits)

    foreign: set[Address] = set()
    """Seats that fed another table than the one announced: never dialled again."""
    silent: set[Address] = set()
    """Seats that took the watcher and sent nothing: dialled after every other."""
    try:
        while not live.finished:
            if loop.time() - progress > config.timeout:
                reason = _("nothing new for {seconds} s: stopped watching").format(
                    seconds=f"{config.timeout:g}")
                break
            if len(foreign) == len(set(config.peers)):
                raise Impersonated(_(
                    "not watching: no seat of this table fed the table its players announce "
                    "on the local network (another table may be using its name)"))
            # Every seat not known to feed another table, raced from the one after
            # the seat last followed (the records' order: seated announcers first).
            order = list(dict.fromkeys(config.peers[turn:] + config.peers[:turn]))
            order.sort(key=lambda address: address in silent)  # stable: silent ones last
            outcome = await race([a for a in order if a not in foreign], dial,
                                 stagger=config.stagger, discard=_drop, expected=ProtocolError)
            unwatched = False
            for (host, port), exc in outcome.failures:
                assert isinstance(exc, ProtocolError)  # race(expected=ProtocolError)
                if isinstance(exc, Refused) and exc.by_peer \
                        and exc.refusal.meaning is RefuseCode.NO_WATCHERS:
                    # Ends the watch only if no seat took us: any stranger can refuse.
                    unwatched = True
                    continue
                # Worded from the Hellos when they differ (another version, table...):
                # the refusal's own sentence is English, for the other side.
                why = mismatch(offer, exc.peer) if isinstance(exc, Refused) \
                    and exc.peer is not None else None
                notes(_("{host}:{port}: {reason}").format(host=host, port=port,
                                                          reason=why or dial_failure(exc)))
            if outcome.won is None:
                if unwatched:
                    raise NoWatchers(_("the players of this table do not accept watchers"))
                await asyncio.sleep(config.retry)
                continue
            (host, port), conn = outcome.won
            turn = config.peers.index((host, port)) + 1
            notes(_("watching through {name} (key {key})").format(
                name=conn.peer.name, key=fingerprint(conn.peer.public)))
            try:
                progress, told, left = await _follow(conn, live, notes, on_hand, on_event,
                                                     progress, told, config.timeout,
                                                     config.first_event)
            finally:
                await conn.close("the watcher leaves", ByeCode.CLOSING)
            if left is Left.FOREIGN:
                foreign.add((host, port))
                continue
            if left is Left.SILENT:
                silent.add((host, port))
            if not live.finished:
                await asyncio.sleep(config.retry)
    finally:
        live.close()
    report = verify_records(live.records) if live.records else None
    return WatchResult(live.path, live.table, report, reason)


async def _drop(conn: Connection) -> None:
    """Close a seat's link this watcher does not follow (another dial won the race)."""
    await conn.close("the watcher leaves", ByeCode.CLOSING)


def watched_log(config: WatchConfig) -> LiveLog:
    """Where ``watch`` keeps the log of ``config``'s table: ``data_dir/watched``."""
    return LiveLog(config.data_dir / "watched", config.announced)


class Left(Enum):
    """Why the watcher left the seat it followed (None of these: the link ended)."""

    FOLLOWED = "followed"
    """The session ended, the link did, or nothing new came in time."""
    FOREIGN = "foreign"
    """It fed another table than the one announced."""
    SILENT = "silent"
    """It took the watcher and sent no event within ``first_event`` seconds."""


async def _follow(conn: Connection, live: LiveLog, notes: Callable[[str], None],
                  on_hand: Callable[[Table, int], None], on_event: OnEvent, progress: float,
                  told: int, timeout: float, first_event: float) -> tuple[float, int, Left]:
    """Take events from one seat until the session ends or the link does.

    Returns when progress was last made, how many hands were told, and why the
    seat was left.
    """
    loop = asyncio.get_running_loop()
    if live.table is not None:
        notes(_("catching up from the start"))
    # Only a new event pushes the deadline back: a seat that keeps sending
    # something else (a repeat, any other message) must not hold the watcher.
    since = max(progress, loop.time())
    first_by = loop.time() + first_event
    fed = 0
    try:
        async with asyncio.timeout(None) as scope:
            while not live.finished:
                deadline = max(progress, since) + timeout
                scope.reschedule(deadline if fed else min(deadline, first_by))
                message = await conn.recv()
                try:
                    if not isinstance(message, Event):
                        # A seat has nothing else for a watcher.
                        raise ProtocolError(f"the seat sent a {type(message).__name__} to "
                                            "a watcher")
                    new = live.take(message.data, conn.peer.public, fed)
                    fed += 1
                except NotAnnounced:
                    assert live.announced is not None
                    notes(_("{name} (key {key}) feeds a table whose seats are not those the "
                            "local network announces for this table (announced keys: "
                            "{announced}): it may be another table using its name; leaving "
                            "it").format(name=conn.peer.name,
                                         key=fingerprint(conn.peer.public),
                                         announced=", ".join(sorted(live.announced))))
                    return progress, told, Left.FOREIGN
                except ProtocolError as exc:
                    notes(_("{name} (key {key}) sent a log that does not verify: {error}; "
                            "leaving it").format(name=conn.peer.name,
                                                 key=fingerprint(conn.peer.public),
                                                 error=rejection_words(exc)))
                    return progress, told, Left.FOLLOWED
                if not new:
                    continue
                progress = loop.time()
                table = live.table
                assert table is not None
                if fed == 1:  # the roster: the table is new to this watch
                    _seats(table.roster, notes)
                    if live.resumed:
                        notes(ngettext("continuing the log kept in {path} ({n} event)",
                                       "continuing the log kept in {path} ({n} events)",
                                       live.resumed).format(path=live.path, n=live.resumed))
                on_event(table, live.applied)
                while told < len(table.hands):
                    on_hand(table, told)
                    told += 1
    except KeptLogUnusable:
        raise  # this side's trouble: the watch stops and says so
    except TimeoutError:
        if not fed:
            notes(_("{name} (key {key}) sent nothing in {seconds} s; leaving it").format(
                name=conn.peer.name, key=fingerprint(conn.peer.public),
                seconds=f"{first_event:g}"))
            return progress, told, Left.SILENT
    except GleekError:
        pass  # the link ended
    return progress, told, Left.FOLLOWED


def _seats(roster: Roster, notes: Callable[[str], None]) -> None:
    for s, (name, public) in enumerate(zip(roster.names, roster.publics, strict=True)):
        notes(_("seat {seat}: {name}, key {key}").format(
            seat=s, name=name, key=fingerprint(public)))
