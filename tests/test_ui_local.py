"""The real ``gleek local`` in a terminal (tmux, 80x24): play a hand with keys, read the screen.

Bots run as separate peer processes on 127.0.0.1 with mDNS off, so nothing
leaves the machine. Skipped where tmux is missing.
The strong bots think 20 ms a decision (``--think 20``), not 300: these tests
read the person's screen, and the default think time was most of their time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from gleek_p2p.cli.gleek import main

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")


def _tmux(*args: str) -> str:
    assert TMUX is not None
    return subprocess.run([TMUX, *args], capture_output=True, text=True, timeout=10).stdout


class _Local:
    """``gleek local`` running in a detached 80x24 tmux session; the shell prints EXIT=code."""

    def __init__(self, tmp: Path, hands: int) -> None:
        self.name = f"gleek-ui-{os.getpid()}-{hands}-{time.monotonic_ns()}"
        gleek = Path(sys.executable).with_name("gleek")
        command = (f"{gleek} local --hands {hands} --think 20 --data-dir {tmp / 'data'}; "
                   f"echo EXIT=$?; sleep 60")
        _tmux("new-session", "-d", "-s", self.name, "-x", "80", "-y", "24", command)

    def screen(self) -> str:
        return _tmux("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        _tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, check: Callable[[str], bool], seconds: float, what: str) -> str:
        deadline = time.monotonic() + seconds
        screen = self.screen()
        while not check(screen):
            if "EXIT=" in screen and not check(screen):
                pytest.fail(f"gleek local ended before {what}:\n{screen}")
            assert time.monotonic() < deadline, f"no {what} within {seconds} s:\n{screen}"
            time.sleep(0.15)
            screen = self.screen()
        return screen

    def close(self) -> None:
        _tmux("kill-session", "-t", self.name)


def _records(tmp: Path) -> int:
    """Records in the person's session log so far (0 before it exists)."""
    from gleek_p2p.cli.commands import read_log

    logs = list(tmp.glob("data/sessions/*.gleeklog"))
    return len(read_log(logs[0])[0]) if logs else 0


def _hand_one_end(tmp: Path) -> int:
    """The number of records up to hand 1's last event (the log's own replay says)."""
    from gleek_p2p.cli.commands import read_log
    from gleek_p2p.table.verify import verify_records

    records = read_log(next(tmp.glob("data/sessions/*.gleeklog")))[0]
    hands = verify_records(records).hands
    assert hands, "hand 1 is over on the screen but not in the log"
    return hands[0].last_seq + 1


def _my_turn(screen: str) -> bool:
    return "YOUR TURN" in screen.split("\n")[0] and "Leave?" not in screen \
        and "is over (" not in screen


def test_the_hand_end_summary_stays_until_a_key(tmp_path: Path) -> None:
    local = _Local(tmp_path, 2)
    try:
        local.wait_for(lambda s: "Gleek" in s, 30, "table")
        deadline = time.monotonic() + 120
        screen = local.screen()
        while "Hand 1 is over" not in screen:
            assert time.monotonic() < deadline, screen
            if _my_turn(screen):
                local.keys("Right", "Enter")
                time.sleep(0.1)
            time.sleep(0.15)
            screen = local.screen()
        assert "Trick 12:" in screen and "this hand" in screen and "session" in screen
        assert all(len(line) <= 80 for line in screen.split("\n"))
        # The bots deal on underneath (the log grows: the next hand's passes);
        # the summary stays until a key. Counted from hand 1's last event, not from
        # when the screen was read: hand 2's set-up and deal may be done by then,
        # and then wait for this player's bid.
        deadline = time.monotonic() + 60
        while _records(tmp_path) < _hand_one_end(tmp_path) + 3:
            assert time.monotonic() < deadline, "the next hand was not dealt underneath"
            time.sleep(0.15)
        assert "Hand 1 is over" in local.screen()
        local.keys("v")
        history = local.wait_for(lambda s: "Past hands" in s, 10, "the past hands")
        assert "the session" in history
        local.keys("Escape")
        local.wait_for(lambda s: "Past hands" not in s and "is over (" not in s, 10,
                       "the table again")
    finally:
        local.close()


def test_leaving_on_your_own_turn_ends_in_seconds_with_the_log_path_last(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    local = _Local(tmp_path, 2)
    try:
        local.wait_for(lambda s: "Gleek" in s, 30, "table")
        local.wait_for(_my_turn, 60, "a decision")
        local.keys("q")
        local.wait_for(lambda s: "Leave the table?" in s, 10, "the question")
        started = time.monotonic()
        local.keys("y")
        screen = local.wait_for(lambda s: "EXIT=" in s, 30, "the end")
        took = time.monotonic() - started
        lines = [line for line in screen.split("\n") if line.strip()]
        at = next(i for i, line in enumerate(lines) if line.startswith("EXIT="))
        assert lines[at] == "EXIT=0", screen
        assert lines[at - 1].endswith(".gleeklog"), screen
        assert "You left the table" in screen and "Traceback" not in screen
        assert took < 15, f"leaving took {took:.1f} s"
        bots = list(tmp_path.glob("data/local-bots/*/sessions/*.gleeklog"))
        assert len(bots) == 2
        # The three logs end alike: the leave is in each, and each verdict is
        # fair, ended early, naming who left (and nobody as a cheater).
        mine, = tmp_path.glob("data/sessions/*.gleeklog")
        verdicts = []
        capsys.readouterr()
        for path in (mine, *bots):
            if path == mine:  # the real command once; then its entry point, in this process
                done = subprocess.run([sys.executable, "-m", "gleek_p2p", "verify", "--json",
                                       str(path)], capture_output=True, text=True, timeout=120)
                code, out = done.returncode, done.stdout
            else:
                code, out = main(["verify", "--json", str(path)]), capsys.readouterr().out
            data = json.loads(out)
            assert code == 0 and data["verdict"] == "fair", (path, out)
            verdicts.append(data["ended"])
            main(["verify", "--no-progress", str(path)])
            text = capsys.readouterr().out
            leaver = data["players"][data["ended"]["seat"]]["name"]
            assert f"{leaver} left the table during hand 1" in text, text
            assert "NOT FAIR" not in text and "blaming" not in text
        assert verdicts[0]["how"] == "left" and verdicts[0] == verdicts[1] == verdicts[2]
    finally:
        local.close()


def test_the_result_table_stays_in_the_terminal_before_the_log_path(tmp_path: Path) -> None:
    """A hand played with keys to the end box; then issue 23, item 3: the totals and
    the winner outlive the full screen."""
    local = _Local(tmp_path, 1)
    try:
        screen = local.wait_for(lambda s: "Gleek" in s, 30, "table")
        assert "pence" in screen and "? help" in screen
        lines = screen.split("\n")
        assert len(lines) <= 25 and all(len(line) <= 80 for line in lines)
        seen_turn = False
        deadline = time.monotonic() + 120
        while "The end" not in screen:
            assert time.monotonic() < deadline, screen
            if "is over (" in screen:  # the hand-end summary: any key closes it
                local.keys("x")
            elif _my_turn(screen) and "▶" in screen:
                seen_turn = True
                local.keys("Right", "Enter")
            time.sleep(0.15)
            screen = local.screen()
        assert seen_turn
        assert "The session is over." in screen and "Totals after 1 hand" in screen
        assert "Every hand was audited" in screen
        local.keys("x")
        screen = local.wait_for(lambda s: "EXIT=" in s, 30, "the end")
        lines = [line for line in screen.split("\n") if line.strip()]
        at = next(i for i, line in enumerate(lines) if line.startswith("EXIT="))
        assert lines[at] == "EXIT=0", screen
        assert lines[at - 1].endswith(".gleeklog"), screen
        assert "fair and complete" in screen
        head = next(i for i, line in enumerate(lines)
                    if line == "The result after 1 hand, in pence:")
        rows = lines[head + 1:head + 4]
        assert sorted(row.split()[0] for row in rows) == ["Anne", "Mary", "Thomas"], screen
        assert [row.split()[:2] for row in rows if "(you)" in row] == [["Anne", "(you)"]]
        totals = [row.split()[-1] for row in rows]
        assert all(t.lstrip("+-").rstrip("½").isdigit() or t in ("0", "½") for t in totals)
        winner = lines[head + 4]
        assert winner.endswith("wins the session.") or winner in (
            "You win the session.", "A tie for first place."), screen
        assert head < at - 1  # before the log's path
    finally:
        local.close()
