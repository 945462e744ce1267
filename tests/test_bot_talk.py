"""``gleek bot`` tells the game: a line per hand, every move (--verbose), or none (--quiet).

Three real ``gleek bot`` processes on 127.0.0.1 (mDNS off) play one hand.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from gleek_p2p.base import i18n
from gleek_p2p.cli.commands import read_log
from gleek_p2p.ui.narrate import hand_line
from gleek_p2p.ui.replay import Replay


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def bots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, Path]]:
    """Each bot's stderr and its log's path, after one hand."""
    tmp = tmp_path_factory.mktemp("bots")
    ports = [_port() for _seat in range(3)]
    runs = {"Anne": [], "Thomas": ["--quiet"], "Mary": ["--verbose", "--lang", "fr"]}
    procs = {}
    for i, (name, extra) in enumerate(runs.items()):
        command = [sys.executable, "-m", "gleek_p2p", "bot", "--name", name, "--no-mdns",
                   "--listen", f"127.0.0.1:{ports[i]}", "--data-dir", str(tmp / name),
                   "--table", "talk", "--hands", "1", "--strategy", "heuristic",
                   "--timeout", "120", *extra]
        command += [arg for p in ports[:i] for arg in ("--peer", f"127.0.0.1:{p}")]
        procs[name] = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True)
    out = {}
    for name, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr
        out[name] = (stderr, Path(stdout.strip().splitlines()[-1]))
    return out


def _final_state(path: Path) -> tuple[object, tuple[str, ...]]:
    records, _note = read_log(path)
    replay = Replay.load(records)
    return replay.steps[-1].after, replay.roster.names


def test_a_bot_prints_one_line_per_hand_by_default(bots: dict[str, tuple[str, Path]]) -> None:
    stderr, path = bots["Anne"]
    lines = [line for line in stderr.splitlines() if line.startswith("Hand ")]
    assert len(lines) == 1, stderr
    state, names = _final_state(path)
    i18n.set_language("en", {})
    assert lines[0] == hand_line(state, names)  # type: ignore[arg-type]
    line = lines[0]
    assert line.startswith("Hand 1/1: auction: ") and "; money: " in line
    for word in ("trump: ", "trick points: "):
        assert word in line or "post" in line
    assert all(name in line for name in names)
    # Nothing of the moves themselves.
    assert " plays " not in stderr and " bids " not in stderr


def test_quiet_says_nothing_of_the_game(bots: dict[str, tuple[str, Path]]) -> None:
    stderr, _path = bots["Thomas"]
    assert "Hand 1/1" not in stderr and " plays " not in stderr
    assert "seat 0:" in stderr  # the links and the seating are still told


def test_verbose_tells_every_move_in_its_language(bots: dict[str, tuple[str, Path]]) -> None:
    stderr, path = bots["Mary"]
    state, names = _final_state(path)
    try:
        i18n.set_language("fr", {})
        assert hand_line(state, names) in stderr.splitlines()  # type: ignore[arg-type]
    finally:
        i18n.set_language("en", {})
    assert stderr.count(" joue ") + stderr.count("Vous jouez") >= 30  # 36 cards in 12 tricks
    # The talon's seven discards are one line.
    counts = [m.group(1) for line in stderr.splitlines()
              if (m := re.search(r"écart\w* .*\b(\d) (?:cartes )?sur 7", line))]
    assert counts == ["7"], stderr


def test_a_finished_session_is_told_as_a_normal_ending(
        bots: dict[str, tuple[str, Path]]) -> None:
    # Each bot ends on the session's end, in its language; a peer whose goodbye
    # arrives before our own links close is told as a normal ending too. Whether
    # any goodbye arrives first is a race (all three end at once), so only what
    # is said, never that it is said, is asserted of the goodbyes.
    ends = {"Anne": "the session is over", "Thomas": "the session is over",
            "Mary": "la session est terminée"}
    for name, (stderr, _path) in bots.items():
        assert ends[name] in stderr.splitlines(), stderr
    said = "\n".join(stderr for stderr, _path in bots.values())
    farewells = [line for line in said.splitlines()
                 if "closed the table" in line or "a quitté la table" in line
                 or " left the table" in line]
    for line in farewells:
        assert "after the last hand" in line or "après la dernière manche" in line, said
    assert "is down" not in said and "the peer left" not in said
    assert "est coupée" not in said and "la liaison" not in said.lower()
