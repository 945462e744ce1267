"""The real ``gleek watch`` in tmux (80x24) beside three ``gleek bot`` peers on 127.0.0.1.

mDNS is off (``--no-mdns --peer``), so nothing leaves the machine. The watcher's
screen shows the table live with every hand face down, ends on the end box
with the verdict, and on a key prints the log it kept: the bots' log, byte for
byte.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_ui_local import TMUX, _Local, _tmux

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")

NAMES = ("ann", "ben", "cat")


class _Watch(_Local):
    """``gleek watch`` in a detached tmux session; the shell prints EXIT=code."""

    def __init__(self, tmp: Path, port: int) -> None:
        self.name = f"gleek-watch-{time.monotonic_ns()}"
        gleek = Path(sys.executable).with_name("gleek")
        command = (f"{gleek} watch --no-mdns --peer 127.0.0.1:{port} --table tw --hands 2 "
                   f"--name wes --data-dir {tmp / 'wes'} 2>{tmp / 'wes.err'}; "
                   f"echo EXIT=$?; sleep 60")
        _tmux("new-session", "-d", "-s", self.name, "-x", "80", "-y", "24", command)


def _private(screen: str) -> bool:
    """Whether a screen shows what only a seated player sees: the turn prompt, or the
    row of a hand's worth under its cards (the narration may say "worth 8" of a
    suit shown on the ruff: that is public)."""
    return "YOUR TURN" in screen or re.search(r"^worth ", screen, re.MULTILINE) is not None


def _bot_listening(tmp: Path, name: str, peers: list[int]) -> tuple[subprocess.Popen[bytes], int]:
    """A bot peer listening on a port of the system's choosing, and that port once it
    listens (its ready file says): no port picked beforehand that another process
    could take between the picking and the bind (a fresh-clone run saw nothing listen)."""
    ready = tmp / f"{name}.port"
    argv = [sys.executable, "-m", "gleek_p2p", "bot", "--name", name, "--no-mdns",
            "--listen", "127.0.0.1:0", "--ready-file", str(ready),
            "--data-dir", str(tmp / name), "--table", "tw", "--hands", "2",
            "--strategy", "random", "--timeout", "60",
            *(a for p in peers for a in ("--peer", f"127.0.0.1:{p}"))]
    bot = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (ready.exists() and ready.read_text().strip().isdigit()):
        if bot.poll() is not None:
            pytest.fail(f"bot {name} exited ({bot.returncode}) before it listened")
        assert time.monotonic() < deadline, f"bot {name} did not listen within 60 s"
        time.sleep(0.05)
    return bot, int(ready.read_text())


def test_gleek_watch_shows_the_table_face_down_to_the_end_box(tmp_path: Path) -> None:
    ports: list[int] = []
    bots = []
    for name in NAMES:
        bot, port = _bot_listening(tmp_path, name, list(ports))
        bots.append(bot)
        ports.append(port)
    watcher = _Watch(tmp_path, ports[0])
    try:
        screen = watcher.wait_for(lambda s: "Gleek, watching · hand" in s, 60, "the table")
        lines = screen.split("\n")
        assert len(lines) <= 25 and all(len(line) <= 80 for line in lines)
        assert not _private(screen), screen
        # Face-down cards (??) show wherever a hand is drawn; the first screen may come
        # at a phase that draws none (a late start), so any screen up to the end counts.
        face_down = "??" in screen
        deadline = time.monotonic() + 240
        closed: set[str] = set()
        while "The end" not in screen:
            face_down = face_down or "??" in screen
            assert not _private(screen), screen
            assert time.monotonic() < deadline, screen
            assert "EXIT=" not in screen, (screen, (tmp_path / "wes.err").read_text())
            summary = re.search(r"Hand (\d+) is over \(", screen)
            if summary and summary.group(1) not in closed:
                # A hand's summary: one key closes it (one more could close the end
                # box waiting behind the last one before it is read).
                closed.add(summary.group(1))
                watcher.keys("x")
            time.sleep(0.2)
            screen = watcher.screen()
        assert "Verdict: FAIR" in screen, screen
        assert face_down
        watcher.keys("x")
        screen = watcher.wait_for(lambda s: "EXIT=" in s, 30, "the exit")
        out = [line for line in screen.split("\n") if line.strip()]
        at = next(i for i, line in enumerate(out) if line.startswith("EXIT="))
        assert out[at] == "EXIT=0", screen
        kept, = (tmp_path / "wes" / "watched").glob("*.gleeklog")
        # The path printed last (wrapped at the terminal's edge).
        assert "".join(out[:at]).endswith(str(kept)), screen
        for bot in bots:
            stdout, _err = bot.communicate(timeout=60)
            assert bot.returncode == 0
            assert Path(stdout.decode().strip().splitlines()[-1]).read_bytes() == \
                kept.read_bytes()
        assert "Traceback" not in (tmp_path / "wes.err").read_text()
    finally:
        watcher.close()
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
                bot.wait()
