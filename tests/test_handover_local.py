"""The real ``gleek local`` in tmux: the person presses ``q``, then ``b``; a bot finishes.

The screen closes, the person's peer plays on headless with the same key, and
the three logs (the person's and the two bot peers') verify fair and
complete, each recording the hand-over signed by the person's seat.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_ui_local import TMUX, _Local, _my_turn, _tmux

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")


class _QuickLocal(_Local):
    """``gleek local`` with quick bots (a short think budget for the strong ones)."""

    def __init__(self, tmp: Path) -> None:
        self.name = f"gleek-handover-{time.monotonic_ns()}"
        gleek = Path(sys.executable).with_name("gleek")
        command = (f"{gleek} local --hands 1 --think 20 --data-dir {tmp / 'data'}; "
                   f"echo EXIT=$?; sleep 60")
        _tmux("new-session", "-d", "-s", self.name, "-x", "80", "-y", "40", command)


def test_q_then_b_lets_a_bot_finish_and_every_log_records_it(tmp_path: Path) -> None:
    local = _QuickLocal(tmp_path)
    try:
        local.wait_for(lambda s: "Gleek" in s, 30, "table")
        local.wait_for(_my_turn, 60, "a decision")
        local.keys("q")
        question = local.wait_for(lambda s: "Leave the table?" in s, 10, "the question")
        assert "b: let a bot finish my seat" in question
        local.keys("b")
        screen = local.wait_for(lambda s: "EXIT=" in s, 180, "the end")
        assert "A bot plays your seat from now on" in screen, screen
        lines = [line for line in screen.split("\n") if line.strip()]
        at = next(i for i, line in enumerate(lines) if line.startswith("EXIT="))
        assert lines[at] == "EXIT=0", screen
        assert lines[at - 1].endswith(".gleeklog"), screen
        assert "Traceback" not in screen and "left the table" not in screen
        mine, = tmp_path.glob("data/sessions/*.gleeklog")
        bots = list(tmp_path.glob("data/local-bots/*/sessions/*.gleeklog"))
        assert len(bots) == 2
        logs = [path.read_bytes() for path in (mine, *bots)]
        assert logs[0] == logs[1] == logs[2]
        # Byte-identical logs get the same verdict: verifying the person's is
        # verifying all three (each verify is a process and a whole log's proofs).
        done = subprocess.run([sys.executable, "-m", "gleek_p2p", "verify", "--json",
                               str(mine)], capture_output=True, text=True, timeout=120)
        data = json.loads(done.stdout)
        assert done.returncode == 0 and data["verdict"] == "fair", done.stdout
        assert data["complete"]
        (handover,) = data["handovers"]
        assert data["players"][handover["seat"]]["name"] == "Anne"
        assert handover["bot"] == "strong"
        text = subprocess.run([sys.executable, "-m", "gleek_p2p", "verify",
                               "--no-progress", str(mine)],
                              capture_output=True, text=True, timeout=120).stdout
        assert (f"From event {handover['event']}, Anne's seat was played by a bot "
                "(signed by Anne).") in text, text
    finally:
        local.close()
