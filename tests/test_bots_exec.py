"""Exec bots: an external program speaking JSON lines (protocol/bot-protocol.md)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from gleek_p2p.base.errors import GleekError, IllegalMove, ProtocolError
from gleek_p2p.bots.exec_bot import ExecStrategy, parse_reply
from gleek_p2p.bots.heuristic import HeuristicStrategy
from gleek_p2p.bots.registry import make_strategy
from gleek_p2p.bots.strategy import Strategy
from gleek_p2p.rules import VARIANTS, PassBid, Play
from gleek_p2p.tools.simulate import SimResult, simulate, simulate_async

ENGINE = Path(__file__).with_name("bots_engine.py")
EXAMPLE = Path(__file__).parents[1] / "examples" / "exec_bot.py"
STANDARD = VARIANTS["standard"]


def engine(mode: str, arg: float | None = None, timeout: float = 10.0) -> ExecStrategy:
    extra = "" if arg is None else f" {arg}"
    return ExecStrategy(f"{sys.executable} {ENGINE} {mode}{extra}", timeout, io.StringIO())


def table(bot: Strategy) -> list[Strategy]:
    return [bot, HeuristicStrategy(b"1"), HeuristicStrategy(b"2")]


async def play(bot: ExecStrategy, hands: int = 1) -> SimResult:
    return await simulate_async(STANDARD, hands, b"exec", table(bot))


@pytest.mark.parametrize("mode", ["index", "json"])
async def test_a_good_engine_plays_a_session(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "received"
    monkeypatch.setenv("BOTS_ENGINE_LOG", str(log))
    bot = engine(mode)
    result = await play(bot, 2)
    assert len(result.hands) == 2 and sum(result.totals) == 0
    received = log.read_text().split()
    assert received.count("hand_end") == 2 and received[-1] == "session_end"
    assert received.count("move") > 10
    assert bot._proc is not None and bot._proc.returncode == 0  # it exited at end of input


async def test_the_example_bot_follows_the_protocol() -> None:
    bot = ExecStrategy(f"'{sys.executable} {EXAMPLE}'")  # quoted as on a command line
    result = await play(bot, 2)
    assert len(result.hands) == 2


async def test_a_slow_engine_loses_the_move_not_the_game() -> None:
    bot = engine("slow", 0.8, timeout=0.3)
    result = await play(bot)
    # Later moves wait behind the late answer, so a loaded machine may time out more.
    assert bot.timeouts >= 1
    note = bot._log.getvalue()  # type: ignore[union-attr]
    assert "took more than 0.3 s; playing its first legal move" in note
    assert len(result.hands) == 1  # the late answer was skipped, later ones lined up


async def test_a_crashing_engine_gives_a_clear_error() -> None:
    with pytest.raises(GleekError, match=r"stopped answering.*exit code 3"):
        await play(engine("crash", 2))


@pytest.mark.parametrize(
    ("mode", "error", "words"),
    [
        ("garbage", ProtocolError, "expected the index of a legal move"),
        ("range", ProtocolError, "are legal"),
        ("illegal", IllegalMove, "not a legal move"),
    ],
)
async def test_garbage_gives_a_clear_error(mode: str, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        await play(engine(mode))


async def test_a_missing_program_gives_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(GleekError, match="cannot start"):
        await play(ExecStrategy(str(tmp_path / "no-such-bot")))


def test_bad_commands_are_refused_at_once() -> None:
    with pytest.raises(GleekError, match="empty"):
        ExecStrategy("  ")
    with pytest.raises(GleekError, match="cannot parse"):
        ExecStrategy("bot 'unterminated")
    assert isinstance(make_strategy("exec:'prog --x 1'"), ExecStrategy)


def test_parse_reply() -> None:
    legal = [PassBid(0), Play(0, 3)]
    assert parse_reply(" 1\n", legal) == Play(0, 3)
    assert parse_reply('{"kind": "pass_bid", "seat": 0}', legal) == PassBid(0)
    for line, words in [
        ("-1", "are legal"),
        ("1.0", "expected"),
        ("[0]", "expected"),
        ('{"kind": "play"}', "malformed"),
        ("", "expected"),
    ]:
        with pytest.raises(ProtocolError, match=words):
            parse_reply(line, legal)
    with pytest.raises(IllegalMove):
        parse_reply('{"kind": "play", "seat": 0, "slot": 4}', legal)


def test_sync_simulate_refuses_an_async_bot() -> None:
    with pytest.raises(TypeError, match="async"):
        simulate(STANDARD, 1, b"x", table(engine("index")))


def test_gleek_simulate_with_a_crashing_exec_bot_prints_one_sentence() -> None:
    bots = f"exec:{sys.executable} {ENGINE} crash 0,heuristic,heuristic"
    done = subprocess.run(
        [sys.executable, "-m", "gleek_p2p", "simulate", "--hands", "1", "--bots", bots],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("gleek: bot program") and done.stderr.count("\n") == 1
