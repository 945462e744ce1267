"""Dialling one table's addresses as a staggered race (``net/race.py``, SPEC 5.7).

A stranger announces a table at addresses that accept and then stall: each
held a watcher for its handshake timeout when the addresses were dialled in
turn. The pure tests drive ``race`` with fake attempts and events (no
sleeps); the adversarial ones dial real stalling listeners and one real seat,
all on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import warnings
from pathlib import Path

import pytest

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, Limits, Listener, connect, listen
from gleek_p2p.net.formation import nonce_commitment
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import Refuse, RefuseCode
from gleek_p2p.net.race import race
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.watch import NoWatchers, WatchConfig, watch

VARIANT = VARIANTS["standard"]
HOUR = 3600.0
"""A stagger no test waits out: what starts the next attempt is a failure."""


class Stalled:
    """Fake attempts: those named in ``stall`` wait for good, ``fail`` raise, others win."""

    def __init__(self, stall: set[int], fail: set[int] = frozenset()) -> None:  # type: ignore[assignment]
        self.stall, self.fail = stall, fail
        self.started: list[int] = []
        self.cancelled: list[int] = []
        self.all_started = asyncio.Event()
        self.expect = 0

    async def __call__(self, n: int) -> str:
        self.started.append(n)
        if len(self.started) == self.expect:
            self.all_started.set()
        if n in self.fail:
            raise ProtocolError(f"attempt {n} failed")
        if n in self.stall:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled.append(n)
                raise
        return f"link {n}"


async def _keep(_: str) -> None:
    raise AssertionError("nothing to discard")


async def test_stalled_attempts_cost_their_stagger_not_their_timeout() -> None:
    attempts = Stalled(stall=set(range(10)))
    async with asyncio.timeout(60):  # generous: the race itself waits 10 x 10 ms
        outcome = await race(list(range(11)), attempts, stagger=0.01, discard=_keep)
    assert outcome.won == (10, "link 10")
    assert attempts.started == list(range(11))  # the given order is the start order
    assert sorted(attempts.cancelled) == list(range(10))  # the losers, cancelled
    assert outcome.failures == ()


async def test_a_failure_starts_the_next_attempt_at_once() -> None:
    attempts = Stalled(stall=set(), fail={0, 1, 2})
    async with asyncio.timeout(60):  # an hour's stagger: only failures move the race
        outcome = await race([0, 1, 2, 3], attempts, stagger=HOUR, discard=_keep)
    assert outcome.won == (3, "link 3")
    assert [(n, str(e)) for n, e in outcome.failures] == [
        (0, "attempt 0 failed"), (1, "attempt 1 failed"), (2, "attempt 2 failed")]


async def test_every_attempt_failing_loses_no_failure() -> None:
    attempts = Stalled(stall=set(), fail={0, 1, 2})
    outcome = await race([0, 1, 2], attempts, stagger=HOUR, discard=_keep)
    assert outcome.won is None
    assert [n for n, _e in outcome.failures] == [0, 1, 2]
    assert (await race([], attempts, stagger=HOUR, discard=_keep)).won is None


async def test_a_result_the_race_does_not_take_is_discarded() -> None:
    discarded: list[str] = []

    async def close(link: str) -> None:
        discarded.append(link)

    release = asyncio.Event()

    async def attempt(n: int) -> str:
        if n == 0:
            await release.wait()
            return "link 0"
        release.set()
        # A handshake that completes as it is cancelled: a link all the same.
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.Event().wait()
        return "link 1"

    outcome = await race([0, 1], attempt, stagger=0.0, discard=close)
    assert outcome.won == (0, "link 0")
    assert discarded == ["link 1"]


async def test_an_unexpected_error_stops_the_race_and_cancels_the_rest() -> None:
    attempts = Stalled(stall={0})

    async def attempt(n: int) -> str:
        if n == 1:
            raise KeyError("a bug")
        return await attempts(n)

    with pytest.raises(KeyError):
        await race([0, 1], attempt, stagger=0.0, discard=_keep, expected=ProtocolError)
    assert attempts.cancelled == [0]


async def test_a_cancelled_race_leaves_no_task_running() -> None:
    attempts = Stalled(stall={0, 1, 2})
    attempts.expect = 3
    before = asyncio.all_tasks()
    running = asyncio.ensure_future(race([0, 1, 2], attempts, stagger=0.0, discard=_keep))
    async with asyncio.timeout(60):
        await attempts.all_started.wait()
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert sorted(attempts.cancelled) == [0, 1, 2]
    assert asyncio.all_tasks() == before


# ------------------------------------------------------------ real sockets


class Tarpits:
    """Listeners on 127.0.0.1 that accept and never say a word; each notes when its
    dialler closes the socket."""

    def __init__(self) -> None:
        self.servers: list[asyncio.Server] = []
        self.writers: list[asyncio.StreamWriter] = []
        self.accepted = 0
        self.closed = 0
        self.all_closed = asyncio.Event()

    async def _hold(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        self.writers.append(writer)
        with contextlib.suppress(Exception):
            while await reader.read(4096):
                pass
        self.closed += 1
        if self.closed == self.accepted == len(self.servers):
            self.all_closed.set()

    async def start(self, count: int) -> list[tuple[str, int]]:
        for _ in range(count):
            self.servers.append(await asyncio.start_server(self._hold, "127.0.0.1", 0))
        return [("127.0.0.1", s.sockets[0].getsockname()[1]) for s in self.servers]

    async def close(self) -> None:
        for writer in self.writers:
            writer.close()
        for server in self.servers:
            server.close()
            await server.wait_closed()


def _offer(name: str, watcher: bool = True) -> Offer:
    return Offer(WIRE_VERSION, "race/2", tuple(VARIANT.to_wire()), 3, name, 0, watcher=watcher)


async def _alice() -> tuple[Listener, list[Connection]]:
    """A seat (alice) that admits watchers and feeds them nothing, and the links it took."""
    links: list[Connection] = []

    async def seated(conn: Connection) -> None:
        links.append(conn)

    seat = await listen("127.0.0.1", 0, identity=Identity.generate(bytes([1]) * 32),
                        offer=_offer("alice", watcher=False), nonce_commit=bytes(32),
                        on_connection=seated)
    return seat, links


async def test_the_real_seat_behind_ten_stalling_addresses_is_reached_at_once() -> None:
    """Ten addresses that accept and stall, listed first, then a seat that answers:
    reached within a few staggers, far before one handshake timeout (each tarpit
    would hold a dial in turn for 10 s), and every tarpit's socket is closed."""
    tarpits = Tarpits()
    bogus = await tarpits.start(10)
    seat, links = await _alice()
    me = Identity.generate(bytes([9]) * 32)
    limits = Limits(hello_timeout=10.0, handshake_timeout=10.0)

    async def dial(address: tuple[str, int]) -> Connection:
        return await connect(*address, identity=me, offer=_offer("wendy"),
                             nonce_commit=nonce_commitment(bytes(32)), limits=limits)

    async def drop(conn: Connection) -> None:
        await conn.close()

    loop = asyncio.get_running_loop()
    # A socket dropped without a close is closed by its transport's finalizer, with
    # a ResourceWarning: what is checked is that the race closes them itself.
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ResourceWarning)
        try:
            began = loop.time()
            outcome = await race([*bogus, ("127.0.0.1", seat.port)], dial, stagger=0.25,
                                 discard=drop, expected=ProtocolError)
            took = loop.time() - began
            assert outcome.won is not None and outcome.won[0] == ("127.0.0.1", seat.port)
            assert outcome.won[1].peer.name == "alice"
            assert outcome.failures == ()
            # 10 staggers of 0.25 s: 2.5 s; in turn it was 10 x 10 s. The bound is loose
            # (a loaded machine), yet under one handshake timeout.
            assert took < 10.0, took
            assert tarpits.accepted == 10  # every tarpit was dialled, none skipped
            async with asyncio.timeout(30):
                await tarpits.all_closed.wait()  # the losers' sockets, closed by the race
            await outcome.won[1].close()
            gc.collect()
            assert not [w for w in seen if issubclass(w.category, ResourceWarning)], \
                [str(w.message) for w in seen]
        finally:
            await seat.close()
            for link in links:
                await link.close()
            await tarpits.close()


async def test_a_watch_whose_every_address_stalls_says_why_each_round(tmp_path: Path) -> None:
    """Nothing answers: each round notes every address with its reason, closes every
    socket, and the watch ends with its sentence, no log kept."""
    tarpits = Tarpits()
    bogus = await tarpits.start(3)
    notes: list[str] = []
    config = WatchConfig(name="wendy", table="race/2", variant=VARIANT, peers=tuple(bogus),
                         data_dir=tmp_path, timeout=0.5, retry=0.05, stagger=0.01,
                         limits=Limits(hello_timeout=0.3, handshake_timeout=5.0))
    try:
        async with asyncio.timeout(60):
            result = await watch(Identity.generate(bytes([9]) * 32), config, notes.append,
                                 random=os.urandom)
        assert result.reason == "nothing new for 0.5 s: stopped watching"
        assert result.report is None and result.path is None
        for host, port in bogus:
            assert any(n.startswith(f"{host}:{port}: ") for n in notes), notes
        async with asyncio.timeout(30):
            while tarpits.closed < tarpits.accepted:
                await asyncio.sleep(0.05)
        assert tarpits.accepted >= 3
    finally:
        await tarpits.close()


async def test_a_watch_reaches_the_seat_behind_stalling_addresses_and_stops_cleanly(
        tmp_path: Path) -> None:
    """``gleek watch`` given five stalling addresses first (in turn: 5 x 10 s) follows
    the seat after them within a few staggers; stopped, it leaves no task running."""
    tarpits = Tarpits()
    bogus = await tarpits.start(5)
    seat, links = await _alice()  # admitted, fed nothing: the watcher waits on it
    following = asyncio.Event()
    notes: list[str] = []

    def note(text: str) -> None:
        notes.append(text)
        if text.startswith("watching through alice"):
            following.set()

    config = WatchConfig(name="wendy", table="race/2", variant=VARIANT,
                         peers=(*bogus, ("127.0.0.1", seat.port)), data_dir=tmp_path,
                         timeout=HOUR, limits=Limits(hello_timeout=10.0, handshake_timeout=10.0))
    before = asyncio.all_tasks()
    loop = asyncio.get_running_loop()
    began = loop.time()
    watching = asyncio.ensure_future(watch(Identity.generate(bytes([9]) * 32), config, note,
                                           random=os.urandom))
    try:
        async with asyncio.timeout(60):
            await following.wait()
        took = loop.time() - began
        assert took < 10.0, took  # under one handshake timeout; in turn it took 50 s
        assert not [n for n in notes if n.startswith("127.0.0.1:")]  # no tarpit failed
        async with asyncio.timeout(30):
            await tarpits.all_closed.wait()
    finally:
        watching.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watching
        await seat.close()
        for link in links:
            await link.close()
        await tarpits.close()
    assert asyncio.all_tasks() == before


async def _refusing_stranger() -> Listener:
    """A stranger's listener that refuses every watcher with code 2 (`no watchers`)."""
    return await listen("127.0.0.1", 0, identity=Identity.generate(bytes([7]) * 32),
                        offer=_offer("mallory", watcher=False), nonce_commit=bytes(32),
                        on_connection=_unexpected,
                        admit=lambda hello: Refuse("no watchers", int(RefuseCode.NO_WATCHERS)))


async def _unexpected(conn: Connection) -> None:
    raise AssertionError("the stranger admitted the watcher")


async def test_a_strangers_no_watchers_does_not_end_a_watch_a_seat_takes(
        tmp_path: Path) -> None:
    """Listed first, a stranger refuses `no watchers` at once: the next address is
    dialled at once (an hour's stagger), its seat is followed, nothing is noted of
    the refusal, and the watch goes on."""
    stranger = await _refusing_stranger()
    seat, links = await _alice()
    following = asyncio.Event()

    def note(text: str) -> None:
        if text.startswith("watching through alice"):
            following.set()

    config = WatchConfig(name="wendy", table="race/2", variant=VARIANT,
                         peers=(("127.0.0.1", stranger.port), ("127.0.0.1", seat.port)),
                         data_dir=tmp_path, timeout=HOUR, stagger=HOUR)
    watching = asyncio.ensure_future(watch(Identity.generate(bytes([9]) * 32), config, note,
                                           random=os.urandom))
    try:
        async with asyncio.timeout(60):
            await asyncio.wait({watching, asyncio.ensure_future(following.wait())},
                               return_when=asyncio.FIRST_COMPLETED)
        assert following.is_set() and not watching.done()
    finally:
        watching.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watching
        await seat.close()
        await stranger.close()
        for link in links:
            await link.close()


async def test_no_watchers_still_ends_the_watch_when_no_seat_takes_it(tmp_path: Path) -> None:
    stranger = await _refusing_stranger()
    config = WatchConfig(name="wendy", table="race/2", variant=VARIANT,
                         peers=(("127.0.0.1", stranger.port),), data_dir=tmp_path)
    try:
        async with asyncio.timeout(60):
            with pytest.raises(NoWatchers, match="do not accept watchers"):
                await watch(Identity.generate(bytes([9]) * 32), config, lambda text: None,
                            random=os.urandom)
    finally:
        await stranger.close()
