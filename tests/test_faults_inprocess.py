"""Three real peers in one event loop: TCP on 127.0.0.1, no namespace, no mDNS.

Each peer is a full ``play_session`` (lobby, handshake, formation, session
runner, durable store); only the process is shared. A second test refuses a
fourth peer and a peer speaking another protocol version at a formed table.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from adversary.net_clients import dial_with

from gleek_p2p.base.errors import GleekError, ProtocolError
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log import canonical
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Refused
from gleek_p2p.net.handshake import WIRE_VERSION
from gleek_p2p.net.messages import RefuseCode
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby import LobbyConfig
from gleek_p2p.session.peer import BotPlayer
from gleek_p2p.session.play import SessionFiles, SessionResult, play_session

NAMES = ("alice", "bob", "carol")


def _identity(i: int) -> Identity:
    return Identity.generate(bytes([i + 1]) * 32)


async def _three(
    tmp_path: Path, table: str, hands: int = 2, timeout: float = 30.0,
    ready: asyncio.Queue[int] | None = None, notes: list[str] | None = None,
) -> list[SessionResult]:
    """Three peers, each dialling the ones before it (ports learnt as they listen)."""
    variant = VARIANTS["standard"]
    ports: list[int] = []
    results: list[asyncio.Task[SessionResult]] = []
    for i, name in enumerate(NAMES):
        up: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        config = LobbyConfig(
            name=name, table=table, variant=variant, listen=("127.0.0.1", 0),
            peers=tuple(("127.0.0.1", p) for p in ports), dial_interval=0.2,
        )
        results.append(asyncio.create_task(play_session(
            identity=_identity(i), config=config, hands=hands,
            data_dir=tmp_path / name, player=BotPlayer(RandomStrategy(f"seed-{i}")),
            timeout=timeout, random=os.urandom, on_ready=up.set_result,
            notes=(lambda text, who=name: notes.append(f"{who}: {text}"))
            if notes is not None else lambda text: None,
        )))
        ports.append(await up)
        if ready is not None:
            ready.put_nowait(ports[-1])
    return list(await asyncio.wait_for(asyncio.gather(*results), 90))


def _stored(data_dir: Path) -> bool:
    return any(p.stat().st_size > 0 for p in (data_dir / "sessions").glob("*.gleeklog"))


def _assert_identical_and_fair(results: list[SessionResult], hands: int = 2) -> None:
    from gleek_p2p.cli.commands import verify_file

    assert all(r.outcome.finished and not r.outcome.aborted for r in results), [
        r.outcome.reason for r in results]
    logs = [r.log_path.read_bytes() for r in results]
    assert logs[0] == logs[1] == logs[2]
    report = verify_file(results[0].log_path)
    assert report.fair, [v.sentence() for v in report.violations]
    assert len(report.hands) == hands


async def test_three_peers_in_one_loop_play_and_agree(tmp_path: Path) -> None:
    # One hand: two uninterrupted hands agreeing is what the fourth-peer test's
    # table (full/2) proves besides its refusals.
    results = await _three(tmp_path, "inproc/1", hands=1)
    _assert_identical_and_fair(results, hands=1)
    # The unfinished-session markers are gone: a restart would not resume.
    for name in NAMES:
        assert list((tmp_path / name / "tables").iterdir()) == []


async def test_a_fourth_peer_and_another_version_are_refused(tmp_path: Path) -> None:
    ports: asyncio.Queue[int] = asyncio.Queue()
    notes: list[str] = []
    game = asyncio.create_task(_three(tmp_path, "full/2", ready=ports, notes=notes))
    first = await ports.get()
    for _ in range(2):
        await ports.get()
    # Knock once every seat has stored the roster: the table is formed everywhere.
    async with asyncio.timeout(30):
        while not all(_stored(tmp_path / n) for n in NAMES):
            await asyncio.sleep(0.02)
    dave = _identity(7)
    for _ in range(3):
        with pytest.raises(Refused, match="table full") as refused:
            await dial_with(("127.0.0.1", first), table="full/2", name="dave", identity=dave)
        assert refused.value.by_peer
        assert refused.value.refusal.meaning is RefuseCode.TABLE_FULL
    # Both ends check the version: the dialler refuses first and says why.
    with pytest.raises(ProtocolError,
                       match=rf"protocol version {WIRE_VERSION}, this peer speaks 99"):
        await dial_with(("127.0.0.1", first), table="full/2", name="eve", version=99)
    results = await game
    refusals = [n for n in notes if n.startswith("alice: refused")]
    # Three knocks, one mention.
    # Worded from the refusal's code, never the English reason it carries on the wire.
    full = [n for n in refusals if n.endswith(": the table is full")]
    assert len(full) == 1 and "dave" in full[0], refusals
    # Worded from the two offers, for the person reading (link_words.mismatch).
    assert any(f"eve speaks protocol version 99, this program {WIRE_VERSION}" in n
               for n in refusals), notes
    _assert_identical_and_fair(results)


async def test_a_lone_peer_gives_up_saying_why(tmp_path: Path) -> None:
    config = LobbyConfig(name="solo", table="alone/1", variant=VARIANTS["standard"],
                         listen=("127.0.0.1", 0))
    with pytest.raises(GleekError, match=r"no table formed within 0.5 s \(1 of 3"):
        await play_session(identity=_identity(9), config=config, hands=1,
                           data_dir=tmp_path / "solo", player=BotPlayer(RandomStrategy()),
                           timeout=0.5)


async def test_a_peer_killed_before_the_roster_arrives_resumes_the_same_table(
    tmp_path: Path,
) -> None:
    """The marker keeps the roster: a restart before event 0 sits at the same table."""
    results = await _three(tmp_path, "early/1", hands=1)
    _assert_identical_and_fair(results, hands=1)
    roster = results[0].table.roster
    # Put bob back to the moment after formation, before any event was stored.
    bob = tmp_path / "bob"
    log = next((bob / "sessions").glob("*.gleeklog"))
    log.unlink()
    marker = SessionFiles(bob).current_marker("early/1")
    marker.write_text(f"{log}\n{canonical.encode(roster.to_body()).hex()}\n")
    found = SessionFiles(bob).unfinished("early/1", _identity(1))
    assert found == (roster, log)
    # Without the roster line (an older marker) there is nothing to resume.
    marker.write_text(f"{log}\n")
    assert SessionFiles(bob).unfinished("early/1", _identity(1)) is None


async def test_all_three_restart_and_the_session_goes_on(tmp_path: Path) -> None:
    """Every peer stops mid-session; restarted with the same data, they resume it."""
    table = "all-restart/2"
    first = asyncio.create_task(_three(tmp_path, table, hands=2))
    # Stop everyone once the first hand is well under way.
    async with asyncio.timeout(60):
        while not all(_records(tmp_path / n) >= 40 for n in NAMES):
            await asyncio.sleep(0.01)
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    stopped = [_records(tmp_path / n) for n in NAMES]
    assert all(k >= 40 for k in stopped)
    # The same data directories and table name: each resumes its own log.
    results = await _three(tmp_path, table, hands=2)
    _assert_identical_and_fair(results)
    assert len({r.log_path.name for r in results}) == 1
    assert all(r.outcome.events > max(stopped) for r in results)


def _records(data_dir: Path) -> int:
    from gleek_p2p.cli.commands import read_log

    logs = list((data_dir / "sessions").glob("*.gleeklog")) if (data_dir / "sessions").exists() \
        else []
    return max((len(read_log(p)[0]) for p in logs), default=0)


async def test_a_peer_that_leaves_on_purpose_ends_every_log_alike(tmp_path: Path) -> None:
    """Leaving (as `q` in the console does) signs a leave into every log: the others
    end the session at once, and every log's verdict is fair, naming who left."""
    variant = VARIANTS["standard"]
    ports: list[int] = []
    tasks: list[asyncio.Task[SessionResult]] = []
    for i, name in enumerate(NAMES):
        up: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        config = LobbyConfig(name=name, table="leave/1", variant=variant,
                             listen=("127.0.0.1", 0),
                             peers=tuple(("127.0.0.1", p) for p in ports), dial_interval=0.2)
        tasks.append(asyncio.create_task(play_session(
            identity=_identity(i), config=config, hands=1, data_dir=tmp_path / name,
            player=BotPlayer(RandomStrategy(f"leave-{i}")), timeout=3600,
            on_ready=up.set_result)))
        ports.append(await up)
    async with asyncio.timeout(30):
        while _records(tmp_path / "bob") < 20:
            await asyncio.sleep(0.01)
    tasks[1].cancel()  # bob leaves
    results = await asyncio.wait_for(asyncio.gather(tasks[0], tasks[2]), 20)  # not 3600 s
    for result in results:
        assert result.outcome.aborted and "bob left the table" in result.outcome.reason
        assert result.table.verdict is not None and result.table.verdict.blamed is None
        assert result.table.verdict.left == result.table.roster.names.index("bob")
    await asyncio.gather(tasks[1], return_exceptions=True)
    from gleek_p2p.cli.commands import verify_file

    logs = [next((tmp_path / name / "sessions").glob("*.gleeklog")) for name in NAMES]
    endings = set()
    for path in logs:
        # The leave may cross a bot's move (bob leaves out of turn): a log then ends
        # with an abort carrying it, but every verdict is the same.
        report = verify_file(path)
        assert report.fair and report.exit_code == 0 and report.ending is not None
        assert report.roster is not None and report.roster.names[report.ending.seat] == "bob"
        endings.add(report.ending)
    assert len(endings) == 1
