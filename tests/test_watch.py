"""``gleek watch``: a watcher follows a real table (three ``play_session`` peers on
127.0.0.1), verifies the log live and keeps a copy ``gleek verify`` accepts; a
hostile watcher changes nothing for the players; ``--watchers no`` refuses one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

import pytest
from adversary.net_clients import dial_with

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.keys import Identity, fingerprint
from gleek_p2p.net.connection import ConnectionClosed, Limits, Refused, connect
from gleek_p2p.net.handshake import WIRE_VERSION, Offer
from gleek_p2p.net.messages import Event, Hello, Refuse, RefuseCode, Sync, decode_message
from gleek_p2p.rules import VARIANTS
from gleek_p2p.rules import Event as Move
from gleek_p2p.session.lobby import LobbyConfig
from gleek_p2p.session.lobby_status import LobbyStatus
from gleek_p2p.session.peer import BotPlayer
from gleek_p2p.session.play import SessionResult, play_session
from gleek_p2p.session.watch import LiveLog, NoWatchers, WatchConfig, WatchResult, watch
from gleek_p2p.table.session import Decision, Table
from gleek_p2p.table.verify import verify_records
from gleek_p2p.ui.render import lobby_lines

NAMES = ("alice", "bob", "carol")
VARIANT = VARIANTS["standard"]


def _identity(i: int) -> Identity:
    return Identity.generate(bytes([i + 1]) * 32)


class HeldBot(BotPlayer):
    """A bot that stops before its first move of hand 2 until ``go`` is set."""

    def __init__(self, seed: str, go: asyncio.Event, at_hand_2: asyncio.Event) -> None:
        super().__init__(RandomStrategy(seed))
        self.go = go
        self.at_hand_2 = at_hand_2

    async def decide(self, table: Table, decision: Decision) -> Move:
        if table.hands:
            self.at_hand_2.set()
            await self.go.wait()
        return await super().decide(table, decision)


async def _three(tmp_path: Path, table: str, go: asyncio.Event, at_hand_2: asyncio.Event,
                 notes: list[str], watchers: bool = True,
                 statuses: list[LobbyStatus] | None = None,
                 ) -> tuple[list[int], asyncio.Future[list[SessionResult]]]:
    ports: list[int] = []
    tasks: list[asyncio.Task[SessionResult]] = []
    for i, name in enumerate(NAMES):
        up: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        config = LobbyConfig(name=name, table=table, variant=VARIANT, listen=("127.0.0.1", 0),
                             peers=tuple(("127.0.0.1", p) for p in ports), dial_interval=0.2,
                             watchers=watchers)
        tasks.append(asyncio.create_task(play_session(
            identity=_identity(i), config=config, hands=2, data_dir=tmp_path / name,
            player=HeldBot(f"seed-{i}", go, at_hand_2), timeout=30.0, random=os.urandom,
            on_ready=up.set_result, notes=lambda text, who=name: notes.append(f"{who}: {text}"),
            on_status=statuses.append if statuses is not None else None,
        )))
        ports.append(await up)
    return ports, asyncio.gather(*tasks)


def _config(tmp_path: Path, table: str, ports: Sequence[int], name: str = "wendy") -> WatchConfig:
    return WatchConfig(name=name, table=table, variant=VARIANT,
                       peers=tuple(("127.0.0.1", p) for p in ports),
                       data_dir=tmp_path / name, timeout=30.0, retry=0.2)


def _assert_players_fair(results: Sequence[SessionResult]) -> bytes:
    assert all(r.outcome.finished and not r.outcome.aborted for r in results), [
        r.outcome.reason for r in results]
    logs = [r.log_path.read_bytes() for r in results]
    assert logs[0] == logs[1] == logs[2]
    from gleek_p2p.cli.commands import verify_file

    report = verify_file(results[0].log_path)
    assert report.fair and report.complete and len(report.hands) == 2
    return logs[0]


def _assert_watched(result: WatchResult, players_log: bytes) -> None:
    from gleek_p2p.cli.commands import verify_file

    assert result.path is not None and result.report is not None
    assert result.report.fair and result.report.complete
    # The watcher's own copy is the players' log, byte for byte, and verifies alone.
    assert result.path.read_bytes() == players_log
    again = verify_file(result.path)
    assert again.fair and again.complete and len(again.hands) == 2


class _Timeline(list[LobbyStatus]):
    """The statuses the seats gave, each with how many notes had been made before it."""

    def __init__(self, notes: list[str]) -> None:
        super().__init__()
        self.notes = notes
        self.notes_seen: list[int] = []

    def append(self, status: LobbyStatus) -> None:
        super().append(status)
        self.notes_seen.append(len(self.notes))


async def test_a_watcher_joins_mid_session_and_keeps_a_log_that_verifies(
    tmp_path: Path,
) -> None:
    go, at_hand_2, notes = asyncio.Event(), asyncio.Event(), []
    statuses = _Timeline(notes)
    ports, game = await _three(tmp_path, "watched/2", go, at_hand_2, notes, statuses=statuses)
    await asyncio.wait_for(at_hand_2.wait(), 60)  # hand 1 is over: mid-session
    seen: list[str] = []
    hands: list[int] = []

    def heard(text: str) -> None:
        seen.append(text)
        if text.startswith("watching through"):
            go.set()  # the table goes on only once the watcher is in

    watcher = Identity.generate(b"w" * 32)
    result = await asyncio.wait_for(watch(
        watcher, _config(tmp_path, "watched/2", ports[:1]), heard,
        on_hand=lambda table, hand: hands.append(hand)), 90)
    results = await asyncio.wait_for(game, 90)
    log = _assert_players_fair(results)
    _assert_watched(result, log)
    assert hands == [0, 1]  # hand 1 caught up, hand 2 followed live
    # The players are told who watches: name and key fingerprint.
    watching = [n for n in notes if "is watching this table" in n]
    assert watching and all(f"wendy (key {fingerprint(watcher.public)})" in n
                            for n in watching), notes
    assert any(n.startswith("alice: wendy") for n in watching)
    # ... and the seated screen's status lists the watcher while it watches.
    shown = [s for s in statuses if s.watchers]
    assert shown and shown[0].watchers[0].fingerprint == fingerprint(watcher.public)
    assert f"  watching: wendy  key {fingerprint(watcher.public)}" in lobby_lines(shown[0])
    # Gone from every status alice gives after it left (the session's end may close
    # her lobby before the watcher leaves: then there is none, nothing to check).
    left = next((i for i, n in enumerate(notes)
                 if n.startswith("alice: wendy") and "stopped watching" in n), None)
    after = [status for status, seen in zip(statuses, statuses.notes_seen, strict=True)
             if left is not None and seen > left and status.me.name == "alice"]
    assert not any(status.watchers for status in after)


class _Heard(list[str]):
    """Notes, with an event set when one matching ``waited`` arrives."""

    def __init__(self, waited: str) -> None:
        super().__init__()
        self.waited = waited
        self.arrived = asyncio.Event()

    def append(self, text: str) -> None:
        super().append(text)
        if self.waited in text:
            self.arrived.set()


async def test_the_players_see_a_watcher_leave_mid_session(tmp_path: Path) -> None:
    # The watcher goes while hand 2 is held, so the seats go on giving statuses
    # after it left: every one of alice's must have dropped it (none may be missing).
    go, at_hand_2 = asyncio.Event(), asyncio.Event()
    notes = _Heard("stopped watching")
    statuses = _Timeline(notes)
    ports, game = await _three(tmp_path, "left/2", go, at_hand_2, notes, statuses=statuses)
    await asyncio.wait_for(at_hand_2.wait(), 60)
    watching = asyncio.Event()

    def heard(text: str) -> None:
        if text.startswith("watching through"):
            watching.set()

    watcher = Identity.generate(b"v" * 32)
    task = asyncio.create_task(watch(watcher, _config(tmp_path, "left/2", ports[:1]), heard))
    await asyncio.wait_for(watching.wait(), 60)
    assert any(s.watchers for s in statuses if s.me.name == "alice")
    task.cancel()  # the person leaves
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await asyncio.wait_for(notes.arrived.wait(), 60)
    go.set()
    _assert_players_fair(await asyncio.wait_for(game, 90))
    left = next(i for i, n in enumerate(notes)
                if n.startswith("alice: wendy") and "stopped watching" in n)
    after = [status for status, seen in zip(statuses, statuses.notes_seen, strict=True)
             if seen > left and status.me.name == "alice"]
    assert after and not any(status.watchers for status in after)


async def _hostile(port: int, table: str, seated: Identity) -> list[str]:
    """Every misdeed a watcher can try; what each ended in."""
    v = VARIANT
    outcomes = []
    # A seat claimed: a stranger's key asking as a player is refused (table full).
    with pytest.raises(Refused) as refused:
        await dial_with(("127.0.0.1", port), table=table, name="mallory")
    assert refused.value.refusal.meaning is RefuseCode.TABLE_FULL
    outcomes.append("seat refused")
    # A watcher that floods forged events and Syncs: closed on its first message.
    offer = Offer(WIRE_VERSION, table, tuple(v.to_wire()), v.players, "mallory", 0,
                  watcher=True)
    conn = await connect("127.0.0.1", port, identity=Identity.generate(os.urandom(32)),
                         offer=offer, nonce_commit=os.urandom(32),
                         limits=Limits(handshake_timeout=5.0))
    forged = b"\x93\x00" + os.urandom(200)
    for _ in range(500):
        try:
            conn.send(Event(forged))
            conn.send(Sync(0))
        except ConnectionClosed:
            break
    with pytest.raises(ConnectionClosed):
        async with asyncio.timeout(20):
            while True:
                await conn.recv()  # the log it is fed, then the close
    # Closed by the seat for speaking, not by the end of the session.
    assert conn.farewell is not None and "a watcher sends nothing" in conn.farewell.reason, (
        conn.close_reason)
    outcomes.append("flood closed")
    # A watcher that never reads: fed at most its backlog, then dropped (no
    # need to wait for that here: the players must simply not notice).
    slow = await connect("127.0.0.1", port, identity=Identity.generate(os.urandom(32)),
                         offer=offer, nonce_commit=os.urandom(32),
                         limits=Limits(handshake_timeout=5.0))
    assert not slow.closed  # held open and never read, to the end of the session
    outcomes.append("slow held")
    # A seated player's key cannot be claimed without its private key; with
    # it, asking as a watcher gives a watcher, never the seat's events.
    thief = Offer(WIRE_VERSION, table, tuple(v.to_wire()), v.players, "alice", 0,
                  watcher=True)
    as_seat = await connect("127.0.0.1", port, identity=seated, offer=thief,
                            nonce_commit=os.urandom(32), limits=Limits(handshake_timeout=5.0))
    await as_seat.close("done")
    outcomes.append("own key as watcher")
    return outcomes


async def test_a_hostile_watcher_changes_nothing_for_the_players(tmp_path: Path) -> None:
    go, at_hand_2, notes = asyncio.Event(), asyncio.Event(), []
    ports, game = await _three(tmp_path, "hostile/2", go, at_hand_2, notes)
    await asyncio.wait_for(at_hand_2.wait(), 60)
    outcomes = await _hostile(ports[1], "hostile/2", _identity(0))
    assert outcomes == ["seat refused", "flood closed", "slow held", "own key as watcher"]
    honest: asyncio.Task[WatchResult] = asyncio.create_task(watch(
        Identity.generate(b"h" * 32), _config(tmp_path, "hostile/2", ports[1:2]),
        lambda text: go.set() if text.startswith("watching through") else None))
    results = await asyncio.wait_for(game, 90)
    log = _assert_players_fair(results)
    _assert_watched(await asyncio.wait_for(honest, 60), log)
    told = [n for n in notes if n.startswith("bob: mallory")]
    assert any("is watching" in n for n in told) and any("stopped watching" in n for n in told)


async def test_a_table_without_watchers_refuses_one(tmp_path: Path) -> None:
    go, at_hand_2, notes = asyncio.Event(), asyncio.Event(), []
    ports, game = await _three(tmp_path, "private/2", go, at_hand_2, notes, watchers=False)
    await asyncio.wait_for(at_hand_2.wait(), 60)
    with pytest.raises(NoWatchers, match="do not accept watchers"):
        await asyncio.wait_for(watch(Identity.generate(b"n" * 32),
                                     _config(tmp_path, "private/2", ports), lambda text: None), 30)
    go.set()
    _assert_players_fair(await asyncio.wait_for(game, 90))
    assert not list((tmp_path / "wendy").glob("**/*.gleeklog"))


# ---------------------------------------------------------------- the wire and the log


def test_a_watcher_hello_is_marked_and_a_player_hello_unchanged() -> None:
    v = VARIANT
    player = Offer(WIRE_VERSION, "t/2", tuple(v.to_wire()), 3, "p", 0).hello(
        b"\x01" * 32, b"\x02" * 32, b"\x03" * 32)
    watcher = Offer(WIRE_VERSION, "t/2", tuple(v.to_wire()), 3, "p", 0,
                    watcher=True).hello(b"\x01" * 32, b"\x02" * 32, b"\x03" * 32)
    assert len(player.to_wire()) == 11 and player.to_wire() == watcher.to_wire()[:11]
    assert watcher.to_wire()[11] == 1
    from gleek_p2p.net.messages import encode_message

    # wire.md §6: the same bytes, the array one longer, then 01.
    plain, marked = encode_message(player), encode_message(watcher)
    assert plain[0] == 0x9B and marked == b"\x9c" + plain[1:] + b"\x01"
    assert decode_message(encode_message(watcher)) == watcher
    assert decode_message(encode_message(player)) == player
    for mark in (0, 2, True, b"\x01"):
        with pytest.raises(ProtocolError):
            Hello.from_wire([*player.to_wire()[1:], mark])


def _session_records() -> list[bytes]:
    from gleek_p2p.tools.selfplay import selfplay

    strategies = [RandomStrategy(f"s{i}") for i in range(3)]
    return list(selfplay(VARIANT, 1, b"watch-seed", strategies).records)


def test_the_live_log_refuses_a_lying_feed_and_holds_what_it_held(tmp_path: Path) -> None:
    records = _session_records()
    roster_keys = verify_records(records).roster
    assert roster_keys is not None
    seat = roster_keys.publics[0]
    live = LiveLog(tmp_path)
    with pytest.raises(ProtocolError, match=r"starts? with a roster|came before"):
        live.take(records[1], seat)
    with pytest.raises(ProtocolError, match="does not sit"):
        live.take(records[0], b"\x09" * 32)
    for record in records[:5]:
        assert live.take(record, seat)
    assert not live.take(records[2], seat)  # a catch-up repeats what is held
    with pytest.raises(ProtocolError):
        live.take(records[4][:-1] + bytes([records[4][-1] ^ 1]), seat)  # not the one held
    with pytest.raises(ProtocolError, match="came before"):
        live.take(records[7], seat)
    tampered = bytearray(records[5])
    tampered[-1] ^= 1
    with pytest.raises(ProtocolError):
        live.take(bytes(tampered), seat)
    assert live.records == records[:5]
    for record in records[5:]:
        live.take(record, seat)
    live.close()
    assert live.finished and live.path is not None
    assert verify_records(live.records).fair



class _Slow:
    """A watcher's connection that never drains: only ``backlog`` counts."""

    def __init__(self) -> None:
        self.queued: list[bytes] = []
        self.closed = False
        self.limits = Limits(queue_size=100)

    @property
    def backlog(self) -> int:
        return len(self.queued)

    def send(self, message: Event) -> None:
        self.queued.append(message.data)


def test_a_watcher_that_does_not_read_holds_at_most_its_backlog() -> None:
    from gleek_p2p.session.watchers import Watchers, WatchLimits

    watchers = Watchers(True, WatchLimits(backlog=8), lambda text: None)
    records = [i.to_bytes(2, "big") for i in range(50)]
    watchers.feed(records)
    slow = _Slow()
    watchers._send(slow, watchers.limits.backlog)  # type: ignore[arg-type]
    assert slow.queued == records[:8]
    records.extend(i.to_bytes(2, "big") for i in range(50, 500))
    watchers._send(slow, watchers.limits.backlog)  # type: ignore[arg-type]
    assert len(slow.queued) == 8  # the log grew; what waits on the watcher did not
    slow.queued.clear()  # it read them
    watchers._send(slow, watchers.limits.backlog)  # type: ignore[arg-type]
    assert slow.queued == records[8:16]  # in order, from where it was


def test_a_watcher_is_refused_before_play_beyond_the_bound_and_when_unwelcome() -> None:
    from gleek_p2p.session.watchers import Watchers, WatchLimits

    hello = Offer(WIRE_VERSION, "t/2", tuple(VARIANT.to_wire()), 3, "w", 0,
                  watcher=True).hello(b"\x01" * 32, b"\x02" * 32, b"\x03" * 32)
    closed = Watchers(False, WatchLimits(), lambda text: None)
    refusal = closed.admit(hello, 0.0)
    assert not isinstance(refusal, str) and refusal is not None
    assert refusal.meaning is RefuseCode.NO_WATCHERS
    early = Watchers(True, WatchLimits(max_watchers=1), lambda text: None)
    assert early.admit(hello, 0.0) == Refuse("the table is not playing yet; try again soon",
                                             RefuseCode.NOT_NOW)
    early.feed([])
    assert early.admit(hello, 0.0) is None
    early.conns[b"\x09" * 32] = _Slow()  # type: ignore[assignment]
    assert early.admit(hello, 0.0) == Refuse("this seat already feeds 1 watchers",
                                             RefuseCode.NOT_NOW)


async def test_gleek_watch_prints_each_hand_the_verdict_and_the_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from gleek_p2p.cli.gleek import main

    go, at_hand_2 = asyncio.Event(), asyncio.Event()
    loop = asyncio.get_running_loop()

    class Notes(list[str]):
        def append(self, text: str) -> None:
            super().append(text)
            if "is watching this table" in text:
                loop.call_soon_threadsafe(go.set)  # hand 2 waits for the watcher

    notes = Notes()
    ports, game = await _three(tmp_path, "cli/2", go, at_hand_2, notes)
    await asyncio.wait_for(at_hand_2.wait(), 60)
    argv = ["watch", "--table", "cli", "--hands", "2", "--peer", f"127.0.0.1:{ports[2]}",
            "--name", "wendy", "--data-dir", str(tmp_path / "wendy"), "--timeout", "30"]
    code = await asyncio.wait_for(asyncio.to_thread(main, argv), 90)
    log = _assert_players_fair(await asyncio.wait_for(game, 90))
    out, err = capsys.readouterr()
    assert code == 0, err
    path = Path(out.strip().splitlines()[-1])
    assert path.read_bytes() == log and path.parent == tmp_path / "wendy" / "watched"
    assert "hand 1: " in err and "hand 2: " in err, err
    assert "watching through carol" in err


SEEN = {
    "en": ("wendy (key {fp}) is watching this table", "  watching: wendy  key {fp}",
           "the players of this table do not accept watchers", "hand 1: "),
    "fr": ("wendy (clé {fp}) regarde cette table", "  spectateur\u00a0: wendy  clé {fp}",
           "les joueurs de cette table n'acceptent pas de spectateurs", "manche 1\u00a0: "),
    "it": ("wendy (chiave {fp}) sta guardando questo tavolo",
           "  spettatore: wendy  chiave {fp}",
           "i giocatori di questo tavolo non accettano spettatori", "mano 1: "),
    "pt": ("wendy (chave {fp}) está assistindo a esta mesa",
           "  espectador: wendy  chave {fp}",
           "os jogadores desta mesa não aceitam espectadores", "mão 1: "),
    "nl": ("wendy (sleutel {fp}) kijkt naar deze tafel", "  toeschouwer: wendy  sleutel {fp}",
           "de spelers aan deze tafel laten geen toeschouwers toe", "hand 1: "),
}


@pytest.mark.parametrize("lang", sorted(SEEN))
async def test_what_players_and_watchers_read_in_every_language(lang: str) -> None:
    """The players' note and status line, and the watcher's refusal, as each reader sees them."""
    from gleek_p2p.base import i18n
    from gleek_p2p.net.connection import LinkDown
    from gleek_p2p.session.lobby_status import PeerStatus
    from gleek_p2p.session.watchers import Watchers, WatchLimits

    note, line, refused, hand = (t.format(fp=fingerprint(b"\x07" * 32)) for t in SEEN[lang])
    i18n.set_language(lang, {})
    try:
        said: list[str] = []
        watchers = Watchers(True, WatchLimits(), said.append)
        watchers.feed([])
        conn = _Slow()
        conn.peer = Hello(1, "t/2", (), 3, b"\x07" * 32, "wendy", b"\x00" * 32, 0,  # type: ignore[attr-defined]
                          b"\x00" * 32, 0, True)
        conn.close_why = LinkDown.CLOSED_HERE  # type: ignore[attr-defined]
        conn.closed = True  # nothing to feed: serve returns at once
        conn.recv = _never  # type: ignore[attr-defined]
        await watchers.serve(conn, 0.0)  # type: ignore[arg-type]
        assert said[0] == note
        status = LobbyStatus("t/2", 3, PeerStatus("alice", "ab"), (), True, None,
                             (PeerStatus("wendy", fingerprint(b"\x07" * 32)),))
        assert line in lobby_lines(status)
        assert str(NoWatchers(i18n._("the players of this table do not accept watchers"))) \
            == refused
        assert i18n._("hand {number}: {line}").format(number=1, line="") == hand
    finally:
        i18n.set_language("en", {})


async def _never() -> None:
    await asyncio.Event().wait()


def test_watchers_coming_back_at_once_are_refused_beyond_the_burst() -> None:
    from gleek_p2p.session.watchers import Watchers, WatchLimits

    watchers = Watchers(True, WatchLimits(burst=2, window=10.0), lambda text: None)
    watchers.feed([])
    hello = Offer(WIRE_VERSION, "t/2", tuple(VARIANT.to_wire()), 3, "w", 0,
                  watcher=True).hello(b"\x01" * 32, b"\x02" * 32, b"\x03" * 32)
    watchers._taken.extend([1.0, 2.0])  # two taken (and gone again) lately
    assert watchers.admit(hello, 5.0) == Refuse("too many watchers came lately; try again soon",
                                                RefuseCode.NOT_NOW)
    assert watchers.admit(hello, 11.5) is None  # the first has left the window


@pytest.mark.parametrize("watchers", [True, False])
def test_run_peer_takes_watchers_as_a_keyword(watchers: bool,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A scripted bot's table says whether it accepts watchers, as ``--watchers`` does."""
    from gleek_p2p.bots import run_peer
    from gleek_p2p.session import play
    from gleek_p2p.session.config import PeerConfig

    seen: list[PeerConfig] = []

    def session(strategy: object, config: PeerConfig) -> None:
        seen.append(config)

    monkeypatch.setattr(play, "run_bot_session", session)
    run_peer(RandomStrategy("x"), name="bot", watchers=watchers)
    (config,) = seen
    assert config.watchers is watchers
    # ... and it is what the lobby announces and answers watchers with.
    assert play.lobby_config(config, config.rules()).watchers is watchers
    default = PeerConfig(name="bot")
    assert default.watchers is True
