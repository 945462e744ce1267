"""Real ``gleek bot`` processes on three bridged hosts, under faults.

Each test runs a scenario of this very file inside a private network
namespace (see netns.py): three hosts on a bridge, one bot per host, all
dialling each other with ``--peer`` (mDNS is tested in
test_discovery_session.py). The faults: SIGKILL and restart with the same
flags, SIGSTOP (a stalled peer), loss and delay, a partition healed
after 5 s, a fourth peer and a peer of another protocol version knocking.
Every session must end complete (three byte-identical logs that verify
fair) or with a signed abort blaming the absent seat; nothing stored before
a kill may be lost.

``python test_faults_net.py SCENARIO ARGS...`` runs a scenario (only ever
inside the namespace run_isolated makes) and prints a JSON summary.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from netns import (
    PORT,
    Bot,
    Bridge,
    bot_argv,
    check_logs,
    emit,
    needs_netns,
    run_isolated,
    wait_all,
)

HERE = Path(__file__).resolve()
NAMES = ("ann", "ben", "cat")


# -- scenarios (run inside the namespace) --------------------------------------------


def _stored_records(bot: Bot) -> int:
    from gleek_p2p.cli.commands import read_log

    logs = list((bot.data_dir / "sessions").glob("*.gleeklog"))
    if not logs:
        return 0
    try:
        return len(read_log(logs[0])[0])
    except Exception:
        return 0


def _wait_records(bot: Bot, count: int, deadline: float) -> bool:
    while time.monotonic() < deadline:
        if _stored_records(bot) >= count:
            return True
        if bot.proc is not None and bot.proc.poll() is not None:
            return False
        # Each look parses the whole log (2.7 ms on a loaded machine): every
        # 10 ms took a share of the 2 cores from the bots; a kill point a few
        # events later is as random.
        time.sleep(0.05)
    return False


def _bots(net: Bridge, out: Path, run: str, *, timeout: float, hands: int = 2) -> list[Bot]:
    bots = []
    for i, name in enumerate(NAMES, start=1):
        peers = [f"{net.addr(j)}:{PORT}" for j in range(1, 4) if j != i]
        argv = bot_argv(name, out / run / name, listen=f"{net.addr(i)}:{PORT}", peers=peers,
                        hands=hands, table=f"t-{run}", timeout=timeout)
        (out / run).mkdir(parents=True, exist_ok=True)
        bots.append(Bot(name, net.wrap(i, argv), out / run))
    return bots


def _session(
    net: Bridge, out: Path, run: str, *, timeout: float, limit: float,
    fault: Callable[[list[Bot], float], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Run a session of three bots; ``fault(bots, deadline)`` acts on them
    meanwhile. The fault waits for events (a record count, a process's end),
    never for a fixed time, up to the session's own ``deadline``: on a loaded
    machine a fixed 30 s to reach a kill point was once too short, and the
    session then finished unharmed and proved nothing."""
    bots = _bots(net, out, run, timeout=timeout)
    started = time.monotonic()
    deadline = started + limit
    try:
        for bot in bots:
            bot.start()
        info = fault(bots, deadline) if fault is not None else {}
        wait_all(bots, deadline)
    finally:
        for bot in bots:
            bot.stop()
    return {"bots": {b.name: b.summary() for b in bots}, "seconds": time.monotonic() - started,
            **info}


def scenario_kill(out: Path, runs: int, seed: int, kills: int = 1) -> dict[str, Any]:
    """SIGKILL a bot at a random point, restart it at once with the same flags;
    ``kills`` times in each session, at distinct points, each victim drawn anew
    (the same seat may die twice, or a second seat while the first resumes)."""
    net = Bridge(3)
    rng = random.Random(seed)
    results = []
    for run in range(runs):
        # A two-hand session holds 130 records or more (never 140 for sure):
        # a kill point past the end would kill nobody and prove nothing.
        plan = [(rng.randrange(3), at, rng.uniform(0.0, 1.0))
                for at in sorted(rng.sample(range(1, 125), kills))]

        def fault(bots: list[Bot], deadline: float,
                  plan: list[tuple[int, int, float]] = plan) -> dict[str, Any]:
            done = []
            for victim, at, pause in plan:
                bot = bots[victim]
                # Counted in the victim's own log, which a restart resumes.
                killed = _wait_records(bot, at, deadline)
                if killed:
                    bot.kill()
                    time.sleep(pause)
                    bot.start()
                done.append({"victim": NAMES[victim], "at": at, "pause": pause,
                             "killed": killed})
            return {"kills": done}

        result = _session(net, out, f"kill{run}", timeout=30, limit=90 + 45 * kills,
                          fault=fault)
        results.append(result)
    return {"runs": results}


LATE = 125
"""A position every two-hand session reaches, a few events before its end (the
shortest seen has 130): deck v2 reveals no seeds, so "late" is counted in events."""


def scenario_kill_late(out: Path, runs: int) -> dict[str, Any]:
    """SIGKILL a bot a few events before the session's end: the others may
    finish while it is down, and must still hand it the end."""
    net = Bridge(3)
    results = []
    for run in range(runs):
        victim = run % 3

        def fault(bots: list[Bot], deadline: float, victim: int = victim) -> dict[str, Any]:
            bot = bots[victim]
            _wait_records(bot, LATE, deadline)
            bot.kill()
            time.sleep(1.0)
            bot.start()
            return {"kills": [{"victim": NAMES[victim], "at": f"{LATE} events", "pause": 1.0,
                               "killed": True}]}

        result = _session(net, out, f"late{run}", timeout=20, limit=120, fault=fault)
        results.append(result)
    return {"runs": results}


def scenario_stall(out: Path) -> dict[str, Any]:
    """SIGSTOP one bot mid-hand; the others (``--timeout 3``) must abort blaming it."""
    net = Bridge(3)

    def fault(bots: list[Bot], deadline: float) -> dict[str, Any]:
        if not _wait_records(bots[2], 40, deadline):
            return {"stopped": False}
        bots[2].signal(signal.SIGSTOP)
        wait_all(bots[:2], deadline)
        bots[2].stop()
        return {"stopped": True}

    return _session(net, out, "stall", timeout=3, limit=90, fault=fault)


def scenario_netem(out: Path) -> dict[str, Any]:
    """10% loss and 50 ms delay on every hop across the segment, the whole session."""
    net = Bridge(3, impaired=True)
    net.impair(loss=0.10, delay=0.050)
    result = _session(net, out, "netem", timeout=60, limit=170)
    assert net.hub is not None
    return dict(result, frames=net.hub.frames, dropped=net.hub.dropped)


def scenario_partition(out: Path, timeout: float) -> dict[str, Any]:
    """Cut one host off mid-hand for 5 s, then heal."""
    net = Bridge(3, impaired=True)

    def fault(bots: list[Bot], deadline: float) -> dict[str, Any]:
        if not _wait_records(bots[1], 30, deadline):
            return {"cut": False}
        net.partition(2)
        time.sleep(5)
        net.heal(2)
        return {"cut": True}

    return _session(net, out, f"part{int(timeout)}", timeout=timeout, limit=80, fault=fault)


def scenario_intruders(out: Path) -> dict[str, Any]:
    """A fourth bot at a formed table, and a client of protocol version 99."""
    net = Bridge(4)
    knocks: dict[str, Any] = {}

    def fault(bots: list[Bot], deadline: float) -> dict[str, Any]:
        if not all(_wait_records(b, 1, deadline) for b in bots):
            return {"formed": False}
        peers = [f"{net.addr(j)}:{PORT}" for j in range(1, 4)]
        fourth = Bot("dan", net.wrap(4, bot_argv(
            "dan", out / "intr" / "dan", listen=f"{net.addr(4)}:{PORT}", peers=peers,
            table="t-intr", timeout=6)), out / "intr")
        fourth.start()
        version = subprocess.run(
            net.wrap(4, [sys.executable, str(HERE.parent / "adversary" / "net_clients.py"),
                         net.addr(1), str(PORT), "t-intr/2", "eve", "99"]),
            capture_output=True, text=True, timeout=30, check=False)
        rc = fourth.wait(30)
        fourth.stop()
        knocks["fourth"] = dict(fourth.summary(), rc=rc)
        knocks["version"] = {"rc": version.returncode, "out": version.stdout.strip()}
        return {"formed": True}

    result = _session(net, out, "intr", timeout=30, limit=120, fault=fault)
    return dict(result, **knocks)


SCENARIOS: dict[str, Callable[..., dict[str, Any]]] = {
    "kill": scenario_kill, "kill_late": scenario_kill_late, "stall": scenario_stall,
    "netem": scenario_netem,
    "partition": scenario_partition, "intruders": scenario_intruders,
}


# -- the tests -----------------------------------------------------------------------


def _run(tmp_path: Path, scenario: str, *args: object, limit: float = 200) -> dict[str, Any]:
    return run_isolated(HERE, [scenario, str(tmp_path), *map(str, args)], limit)


def _logs(result: dict[str, Any], printed: tuple[str, ...] = NAMES) -> list[Path]:
    """Each bot's session log; the ``printed`` ones must have said where it is."""
    bots = result["bots"]
    assert all(bots[n]["log"] for n in printed), {n: b["stderr"][-1][-800:]
                                                   for n, b in bots.items()}
    for b in bots.values():
        assert len(b["files"]) == 1, b
    return [Path(bots[n]["files"][0]) for n in NAMES]


def _check_kill_runs(result: dict[str, Any], kills: int = 1) -> None:
    for run in result["runs"]:
        assert len(run["kills"]) == kills and all(k["killed"] for k in run["kills"]), run
        bots = run["bots"]
        for name, bot in bots.items():
            assert bot["starts"] == 1 + sum(k["victim"] == name for k in run["kills"]), name
        where = "; ".join(f"{k['victim']} killed at record {k['at']}" for k in run["kills"]) \
            + ": " + repr({n: [e[-600:] for e in b["stderr"]] for n, b in bots.items()})
        # Every log copied at a kill is a prefix of its peer's final log.
        snapshots = [Path(s) for b in bots.values() for s in b["snapshots"]]
        judgement = check_logs(_logs(run), snapshots)
        assert judgement.complete, where
        assert all(b["rc"] == 0 for b in bots.values()), where


@needs_netns
@pytest.mark.timeout(400)  # two sessions of at most 135 s each: generous for a loaded machine
def test_killed_peer_restarts_and_the_session_completes(tmp_path: Path) -> None:
    _check_kill_runs(_run(tmp_path, "kill", 2, random.randrange(1 << 30), limit=350))


@needs_netns
@pytest.mark.slow
@pytest.mark.timeout(450)  # three sessions of at most 120 s each
def test_peer_killed_at_the_end_still_gets_the_last_events(tmp_path: Path) -> None:
    _check_kill_runs(_run(tmp_path, "kill_late", 3, limit=400))


@needs_netns
@pytest.mark.slow
@pytest.mark.timeout(2000)  # its own limit is 1900 s; the suite's 300 s is too short when loaded
def test_twenty_kills_at_random_points(tmp_path: Path) -> None:
    # Two kills in each of ten sessions: every kill a random seat at a random
    # point, restarted with the same flags, as twenty sessions of one kill did
    # (twice the time); a second kill may find the first victim still resuming.
    _check_kill_runs(_run(tmp_path, "kill", 10, random.randrange(1 << 30), 2, limit=1900),
                     kills=2)


@needs_netns
def test_stalled_peer_is_blamed_in_a_signed_abort(tmp_path: Path) -> None:
    result = _run(tmp_path, "stall")
    assert result["stopped"]
    bots = result["bots"]
    judgement = check_logs(_logs(result, printed=("ann", "ben")))
    assert not judgement.complete
    cat = judgement.names.index("cat")
    assert judgement.blamed == [{cat}, {cat}, set()]
    for name in ("ann", "ben"):
        assert bots[name]["rc"] == 1
        assert "ended the session: cat did not send" in bots[name]["stderr"][-1]
        verify = subprocess.run([sys.executable, "-m", "gleek_p2p", "verify", bots[name]["log"]],
                                capture_output=True, text=True, check=False)
        # A timeout is the signer's claim: stopped (exit 3), nobody named a cheater.
        assert verify.returncode == 3
        assert "Verdict: STOPPED" in verify.stdout and "did not send" in verify.stdout, \
            verify.stdout
        assert "NOT FAIR" not in verify.stdout and "blaming" not in verify.stdout


@needs_netns
def test_lossy_slow_bridge_still_completes(tmp_path: Path) -> None:
    result = _run(tmp_path, "netem")
    assert check_logs(_logs(result)).complete
    assert all(b["rc"] == 0 for b in result["bots"].values())


@needs_netns
def test_partition_healed_before_the_timeout_completes(tmp_path: Path) -> None:
    result = _run(tmp_path, "partition", 30)
    assert result["cut"]
    assert check_logs(_logs(result)).complete


@needs_netns
def test_partition_longer_than_the_timeout_ends_blaming_the_absent_seat(
    tmp_path: Path,
) -> None:
    result = _run(tmp_path, "partition", 2)
    assert result["cut"]
    judgement = check_logs(_logs(result))
    assert not judgement.complete
    # The two that still see each other blame the one cut off (who, alone,
    # blames whoever it was waiting for).
    ben = judgement.names.index("ben")
    assert judgement.blamed[0] == judgement.blamed[2] == {ben}


@needs_netns
def test_fourth_peer_and_other_version_are_refused(tmp_path: Path) -> None:
    result = _run(tmp_path, "intruders")
    assert result["formed"]
    assert check_logs(_logs(result)).complete
    fourth = result["fourth"]
    assert fourth["rc"] == 1
    said = fourth["stderr"][-1]
    # Stopped by the typed refusal itself, not by its formation timeout.
    assert "gleek: the table is full: " in said and "refused this peer" in said, said
    assert "no table formed" not in said and "could not reach" not in said
    from gleek_p2p.net.handshake import WIRE_VERSION

    assert result["version"] == {
        "rc": 0, "out": f"refused: refused the peer: you speak protocol version {WIRE_VERSION}, "
                        "this peer speaks 99"}


if __name__ == "__main__":
    _name, _out, *_args = sys.argv[1:]
    _fn = SCENARIOS[_name]
    _typed = [int(a) if a.isdigit() else float(a) for a in _args]
    emit(_fn(Path(_out), *_typed))
