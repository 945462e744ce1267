"""The real ``gleek local`` in a terminal (tmux, 80x24): play a hand with keys, read the screen.

Bots run as separate peer processes on 127.0.0.1 with mDNS off, so nothing
leaves the machine. Skipped where tmux is missing or ``gleek local`` cannot start.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")


def _tmux(*args: str) -> str:
    assert TMUX is not None
    return subprocess.run([TMUX, *args], capture_output=True, text=True, timeout=10).stdout


def test_gleek_local_plays_a_hand_to_the_end_box(tmp_path: Path) -> None:
    name = f"gleek-ui-{os.getpid()}"
    gleek = Path(sys.executable).with_name("gleek")
    exit_file = tmp_path / "exit"
    err = tmp_path / "stderr"
    command = (f"{gleek} local --hands 1 --data-dir {tmp_path / 'data'} 2>{err}; "
               f"echo $? > {exit_file}; sleep 60")
    _tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", command)
    try:
        screen = ""
        deadline = time.monotonic() + 30
        while "Gleek" not in screen:
            if exit_file.exists() or time.monotonic() > deadline:
                pytest.skip(f"gleek local did not start: {err.read_text()[-500:]}")
            time.sleep(0.2)
            screen = _tmux("capture-pane", "-p", "-t", name)
        assert "pence" in screen and "? help" in screen
        lines = screen.split("\n")
        assert len(lines) <= 25 and all(len(line) <= 80 for line in lines)
        seen_turn = False
        deadline = time.monotonic() + 90
        while "The end" not in screen:
            assert time.monotonic() < deadline, screen
            if "YOUR TURN" in screen.split("\n")[0] and "▶" in screen:
                seen_turn = True
                _tmux("send-keys", "-t", name, "Right", "Enter")
            time.sleep(0.15)
            screen = _tmux("capture-pane", "-p", "-t", name)
        assert seen_turn
        assert "The session is over." in screen and "Totals after 1 hand" in screen
        assert "Every hand was audited" in screen
        _tmux("send-keys", "-t", name, "x")
        deadline = time.monotonic() + 30
        while not exit_file.exists():
            assert time.monotonic() < deadline, "gleek local did not exit after the end box"
            time.sleep(0.2)
        assert exit_file.read_text().strip() == "0", err.read_text()
        assert "fair and complete" in err.read_text()
    finally:
        _tmux("kill-session", "-t", name)
