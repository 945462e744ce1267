"""A seat that feeds a watcher nothing new cannot hold it.

A seat feeds a watcher its log from the roster on, each event once, in
order, and nothing else (SPEC 5.7). A hostile seat that kept sending
something (an event already sent, over and over, or any other message) used
to push the watcher's deadline back with every message: the watcher stayed
on it for good, never dialling the honest seats, never timing out. Now such
a seat is left at its first repeat or stray message, and a seat that sends
nothing new is left after ``timeout`` seconds whatever it sends. A watcher
started again continues the log it kept of the session.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import GleekError, ProtocolError
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.keys import Identity, fingerprint
from gleek_p2p.log.store import read_log_file
from gleek_p2p.net.connection import Connection, ConnectionClosed, Limits, Listener, listen
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import Event, Hello, Message, Sync
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.watch import KeptLogUnusable, LiveLog, WatchConfig, WatchResult, watch
from gleek_p2p.session.watchers import Watchers, WatchLimits
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import _derive, selfplay

VARIANT = VARIANTS["standard"]
SEED = b"hostile-feed"
TABLE = "feed/1"


@pytest.fixture(scope="module")
def records() -> list[bytes]:
    return list(selfplay(VARIANT, 1, SEED, [RandomStrategy(i) for i in range(3)]).records)


def _seat(s: int) -> Identity:
    return Identity.generate(_derive(SEED, "identity", s))


def PUBLICS() -> list[bytes]:
    return [_seat(s).public for s in range(3)]


async def _seat_server(seat: int, feed: Callable[[Connection], Awaitable[None]]) -> Listener:
    """A listener holding seat ``seat``'s key that feeds each watcher with ``feed``."""
    offer = Offer(WIRE_VERSION, TABLE, tuple(VARIANT.to_wire()), VARIANT.players,
                  f"seat{seat}", 0)

    async def serve(conn: Connection) -> None:
        try:
            await feed(conn)
            await conn.recv()  # hold the link until the watcher leaves
        except ConnectionClosed:
            pass

    return await listen("127.0.0.1", 0, identity=_seat(seat), offer=offer,
                        nonce_commit=os.urandom(32), on_connection=serve)


def _repeating(records: Sequence[bytes], stray: Message | None) -> Callable[
        [Connection], Awaitable[None]]:
    async def feed(conn: Connection) -> None:
        conn.send(Event(records[0]))
        conn.send(Event(records[1]))
        for _ in range(10_000):  # far longer than the watcher's whole timeout
            conn.send(Event(records[1]) if stray is None else stray)
            await asyncio.sleep(0.01)
    return feed


def _honest(records: Sequence[bytes]) -> Callable[[Connection], Awaitable[None]]:
    async def feed(conn: Connection) -> None:
        for record in records:
            conn.send(Event(record))
            await asyncio.sleep(0)
    return feed


async def _watched(seats: Sequence[Listener], notes: list[str], tmp_path: Path,
                   **settings: Any) -> WatchResult:
    """``gleek watch`` of these seats' table, in their order, with ``settings``; the
    seats closed after it."""
    config = WatchConfig(name="wendy", table=TABLE, variant=VARIANT,
                         peers=tuple(("127.0.0.1", seat.port) for seat in seats),
                         data_dir=tmp_path, retry=0.1, **settings)
    try:
        async with asyncio.timeout(60):
            return await watch(Identity.generate(os.urandom(32)), config, notes.append)
    finally:
        for seat in seats:
            await seat.close()


@pytest.mark.parametrize("stray", [None, Sync(0)], ids=["repeated-event", "stray-message"])
async def test_a_seat_repeating_itself_is_left_for_an_honest_one(
        records: list[bytes], stray: Message | None, tmp_path: Path) -> None:
    hostile = await _seat_server(0, _repeating(records, stray))
    honest = await _seat_server(1, _honest(records))
    notes: list[str] = []
    result = await _watched([hostile, honest], notes, tmp_path, timeout=20.0)
    assert result.table is not None and result.table.finished, notes
    assert result.report is not None and result.report.fair
    # The hostile seat was left for what it sent, not for a timeout.
    assert any("seat0" in n and "leaving it" in n for n in notes), notes
    assert not result.reason, result.reason


async def test_a_seat_sending_nothing_new_is_given_up_after_the_timeout(
        records: list[bytes], tmp_path: Path) -> None:
    # Only the hostile seat: keep-alive traffic never counts as progress.
    async def trickle(conn: Connection) -> None:
        conn.send(Event(records[0]))
        for _ in range(10_000):
            conn.send(Event(records[0]))
            await asyncio.sleep(0.01)

    hostile = await _seat_server(0, trickle)
    notes: list[str] = []
    result = await _watched([hostile], notes, tmp_path, timeout=2.0)
    assert result.reason and "nothing new for 2 s" in result.reason
    assert result.table is not None and not result.table.finished
    assert len(result.table.envelopes) == 1


async def _silent(conn: Connection) -> None:
    """Takes the watcher and sends nothing (a stranger announcing the table)."""


SILENT = {"en": "seat0 (key {key}) sent nothing in 1 s; leaving it",
          "fr": "seat0 (clé {key}) n'a rien envoyé en 1\u00a0s\u00a0; on le quitte",
          "it": "seat0 (chiave {key}) non ha inviato nulla in 1 s; lo si lascia",
          "pt": "seat0 (chave {key}) não enviou nada em 1 s; deixando-o",
          "nl": "seat0 (sleutel {key}) stuurde niets in 1 s; verbinding verlaten"}


@pytest.mark.parametrize("lang", sorted(SILENT))
async def test_a_seat_that_takes_the_watcher_and_sends_nothing_is_left(
        records: list[bytes], lang: str, tmp_path: Path) -> None:
    # A stranger listed first (any advert may claim a seated key) completes the
    # handshake and says nothing: the watcher waited on it for its whole timeout
    # (here an hour), the honest seat never dialled. An honest seat sends its
    # first event at once: one silent for ``first_event`` is left, dialled last.
    # An hour's stagger: the second address is dialled only once the first fails
    # (a race could let the honest seat win first on a busy machine).
    silent = await _seat_server(0, _silent)
    honest = await _seat_server(1, _honest(records))
    notes: list[str] = []
    i18n.set_language(lang, {})
    try:
        result = await _watched([silent, honest], notes, tmp_path, timeout=3600.0,
                                stagger=3600.0, first_event=1.0)
    finally:
        i18n.set_language("en", {})
    assert result.table is not None and result.table.finished, notes
    assert result.report is not None and result.report.fair
    assert not result.reason, result.reason
    assert SILENT[lang].format(key=fingerprint(_seat(0).public)) in notes, notes
    # Left once, then dialled after the honest seat: never followed again.
    assert sum(f"seat0 ({word} {fingerprint(_seat(0).public)})" in n for n in notes
               for word in ("key", "clé", "chiave", "chave", "sleutel")) == 2, notes


def test_a_watcher_started_again_continues_its_own_log(records: list[bytes],
                                                        tmp_path: Path) -> None:
    # A watcher quit (or killed) and started again finds the log it kept for
    # this session: it used to refuse every event of every seat as "a log that
    # does not verify", blaming honest seats, and then hold a half-made table.
    first = LiveLog(tmp_path)
    for record in records[:30]:
        assert first.take(record, PUBLICS()[0])
    first.close()
    again = LiveLog(tmp_path)
    fed = [again.take(record, PUBLICS()[1], place) for place, record in enumerate(records)]
    assert fed[0] and not any(fed[1:30]) and all(fed[30:])
    again.close()
    assert again.finished and again.records == records
    assert again.resumed == 30
    report = verify_records(read_log_file(again.path or tmp_path)[0])
    assert report.fair and report.events == len(records)


def test_a_kept_log_that_cannot_be_continued_is_said_not_blamed_on_a_seat(
        records: list[bytes], tmp_path: Path) -> None:
    first = LiveLog(tmp_path)
    for record in records[:10]:
        first.take(record, PUBLICS()[0])
    first.close()
    assert first.path is not None
    # Another program's log of the session, damaged in the middle.
    data = bytearray(first.path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    first.path.write_bytes(bytes(data))
    again = LiveLog(tmp_path)
    with pytest.raises(KeptLogUnusable, match="move it away") as said:
        again.take(records[0], PUBLICS()[0])
    assert not isinstance(said.value, ProtocolError)  # the feed is not to blame
    assert again.table is None and again.records == [] and again.store is None
    assert first.path.read_bytes() == bytes(data)  # left as it was


UNUSABLE = {"en": "move it away", "fr": "déplacez-le", "it": "spostalo", "pt": "mova-o",
            "nl": "zet het elders"}


@pytest.mark.parametrize("lang", sorted(UNUSABLE))
def test_a_kept_log_in_use_is_said_in_every_language(records: list[bytes], tmp_path: Path,
                                                    lang: str) -> None:
    holder = LiveLog(tmp_path)
    holder.take(records[0], PUBLICS()[0])  # another watch keeps the file open (locked)
    i18n.set_language(lang, {})
    try:
        with pytest.raises(KeptLogUnusable, match=UNUSABLE[lang]) as said:
            LiveLog(tmp_path).take(records[0], PUBLICS()[0])
        assert str(holder.path) in str(said.value)
    finally:
        i18n.set_language("en", {})
        holder.close()


async def test_gleek_watch_started_again_says_it_continues_and_ends_fair(
        records: list[bytes], tmp_path: Path) -> None:
    config_dir = tmp_path / "w"
    first = LiveLog(config_dir / "watched")
    for record in records[:25]:
        first.take(record, PUBLICS()[0])
    first.close()
    honest = await _seat_server(1, _honest(records))
    notes: list[str] = []
    config = WatchConfig(name="wendy", table=TABLE, variant=VARIANT,
                         peers=(("127.0.0.1", honest.port),), data_dir=config_dir,
                         timeout=20.0, retry=0.1)
    try:
        async with asyncio.timeout(60):
            result = await watch(Identity.generate(os.urandom(32)), config, notes.append)
    finally:
        await honest.close()
    assert result.report is not None and result.report.fair, notes
    assert result.path == first.path
    assert any(f"continuing the log kept in {first.path} (25 events)" in n for n in notes), notes
    assert not any("does not verify" in n for n in notes), notes


NAME_SAID = {"en": "cannot be sent", "fr": "ne peut pas être envoyé", "it": "non si può inviare",
             "pt": "não pode ser enviado", "nl": "kan niet verstuurd worden"}


@pytest.mark.parametrize("lang", sorted(NAME_SAID))
async def test_a_watcher_name_no_hello_carries_is_said_before_any_dial(
        lang: str, tmp_path: Path) -> None:
    # It used to fail every handshake, noted as "the handshake failed", until the timeout.
    dialled: list[int] = []

    async def count(conn: Connection) -> None:
        dialled.append(1)

    seat = await _seat_server(0, count)
    i18n.set_language(lang, {})
    try:
        for name in ("w" * 65, "tab\there"):
            config = WatchConfig(name=name, table=TABLE, variant=VARIANT,
                                 peers=(("127.0.0.1", seat.port),), data_dir=tmp_path,
                                 timeout=5.0, retry=0.1)
            with pytest.raises(GleekError, match=NAME_SAID[lang]):
                async with asyncio.timeout(30):
                    await watch(Identity.generate(os.urandom(32)), config, lambda _: None)
    finally:
        i18n.set_language("en", {})
        await seat.close()
    assert dialled == [] and not (tmp_path / "watched").exists()


class _Watcher:
    """A watcher's connection after its handshake: it reads nothing, says nothing."""

    def __init__(self, n: int) -> None:
        self.peer = Hello(WIRE_VERSION, TABLE, tuple(VARIANT.to_wire()), 3,
                          bytes([n + 1]) * 32, f"w{n}", b"\x02" * 32, 0, b"\x03" * 32,
                          watcher=True)
        self.closed = False
        self.farewell = ""
        self.sent = 0
        self.limits = Limits()
        self._quiet = asyncio.Event()

    @property
    def backlog(self) -> int:
        return self.sent

    def send(self, message: Message) -> None:
        self.sent += 1

    async def recv(self) -> Message:
        await self._quiet.wait()
        raise ConnectionClosed("closed")

    async def close(self, reason: str = "", code: int = 0) -> None:
        self.closed, self.farewell = True, reason
        self._quiet.set()


async def test_watchers_admitted_at_once_are_fed_within_the_bounds(
        records: list[bytes]) -> None:
    # Admission is asked at each Hello, and a watcher only counts once it is
    # served, after its handshake: a burst of handshakes completed together all
    # passed admission, and every one was fed, past both bounds.
    limits = WatchLimits(max_watchers=4, burst=8)
    watchers = Watchers(True, limits, lambda text: None)
    watchers.feed(records)
    conns = [_Watcher(n) for n in range(12)]
    assert all(watchers.admit(c.peer, 0.0) is None for c in conns)  # type: ignore[arg-type]
    tasks = [asyncio.ensure_future(watchers.serve(c, 0.0)) for c in conns]  # type: ignore[arg-type]
    for _ in range(20):
        await asyncio.sleep(0)
    fed = [c for c in conns if not c.closed]
    assert len(fed) == limits.max_watchers and all(c.sent > 0 for c in fed)
    refused = [c for c in conns if c.closed]
    assert all(c.sent == 0 and "watchers" in c.farewell for c in refused)
    for c in fed:
        await c.close("done")
    await asyncio.gather(*tasks)
    assert watchers.conns == {}
