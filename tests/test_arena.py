"""``gleek arena``: duplicate deals, the same result on every backend, external bots."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gleek_p2p.cli.gleek import main
from gleek_p2p.tools.arena import arena_json, run_games, seatings

EXEC_BOT = Path(__file__).resolve().parent.parent / "examples" / "exec_bot.py"


def test_seatings_seat_every_strategy() -> None:
    assert len(seatings(3, 3)) == 6
    two = seatings(2, 3)
    assert len(two) == 6 and all({0, 1} == set(s) for s in two)
    assert seatings(2, 2) == [(0, 1), (1, 0)]


def test_every_deal_in_every_seating_and_money_balances() -> None:
    r = run_games(["random", "heuristic"], "standard", 12, "s")
    assert len(r.games) == 12
    by_deal: dict[int, list[tuple[int, ...]]] = {}
    for g in r.games:
        assert sum(g.net) == 0
        by_deal.setdefault(g.deal, []).append(g.seating)
    assert all(sorted(s) == sorted(seatings(2, 3)) for s in by_deal.values())
    j = arena_json(r)
    assert j["hands"] == 12 and j["deals"] == 2
    h = j["head_to_head"]
    assert h["random"]["heuristic"]["mean"] == -h["heuristic"]["random"]["mean"]
    for s in j["strategies"].values():
        lo, hi = s["ci95"]
        assert lo <= s["mean"] <= hi


def test_two_processes_give_the_one_process_result() -> None:
    args = (["strong", "heuristic", "random"], "standard", 12, "p", 4)
    assert run_games(*args, procs=2) == run_games(*args, procs=1)


def test_dask_cluster_gives_the_local_result() -> None:
    distributed = pytest.importorskip(
        "distributed", reason="the optional 'arena' extra (distributed) is not installed"
    )
    args = (["strong", "heuristic"], "standard", 12, "d", 4)
    local = run_games(*args)
    # processes=False: scheduler and worker in this process, over inproc:// (no socket).
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        assert cluster.scheduler_address.startswith("inproc://")
        remote = run_games(*args, scheduler=cluster.scheduler_address)
    assert remote == local


def test_external_bots_take_part(capsys: pytest.CaptureFixture[str]) -> None:
    bots = f"exec:{sys.executable} {EXEC_BOT},gleek_p2p.bots.strategy:RandomStrategy"
    code = main(["arena", "--bots", bots, "--hands", "6", "--json", "--seed", "x"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hands"] == 6
    assert set(out["strategies"]) == set(bots.split(","))


def test_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--bots", "random,heuristic", "--hands", "6"]) == 0
    out = capsys.readouterr().out
    assert "head to head" in out and "heuristic" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "random"], "2 to 3 strategies"),
        (["--bots", "random,nonsense"], "unknown strategy"),
        (["--bots", "random,random"], "name each strategy once"),
        (["--hands", "0"], "--hands"),
        (["--procs", "0"], "--procs"),
    ],
)
def test_bad_arguments_are_a_sentence(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["arena", *argv]) == 1
    assert message in capsys.readouterr().err


def test_progress_bar_only_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["arena", "--bots", "random,heuristic", "--hands", "24", "--json"]) == 0
    assert "arena [" not in capsys.readouterr().err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["arena", "--bots", "random,heuristic", "--hands", "24", "--json"]) == 0
    captured = capsys.readouterr()
    assert "arena [" in captured.err and "100%" in captured.err
    assert json.loads(captured.out)["hands"] == 24


def test_an_unreachable_scheduler_is_a_sentence(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("distributed", reason="the optional 'arena' extra is not installed")
    import socket

    import gleek_p2p.tools.arena

    monkeypatch.setattr(gleek_p2p.tools.arena, "CONNECT_TIMEOUT_S", 2)
    with socket.socket() as s:  # a port on 127.0.0.1 that nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = ["arena", "--bots", "random,heuristic", "--hands", "6"]
    assert main([*argv, "--scheduler", f"tcp://127.0.0.1:{port}"]) == 1
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err
