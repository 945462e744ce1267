"""``gleek local`` starts its bots on ports the system chooses and dials only ports that
listen: it reads each bot's port from its ready file, and says in words when a bot
stops (or hangs) before it listens."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import GleekError
from gleek_p2p.cli import peer

STOPPED = {
    "en": "the bot Thomas stopped before it could play (exit code 3); what it said is in ",
    "fr": "le bot Thomas s'est arrêté avant de pouvoir jouer (code de sortie 3)\u00a0; ce "
          "qu'il a dit est dans ",
    "it": "il bot Thomas si è fermato prima di poter giocare (codice di uscita 3); quello "
          "che ha detto è in ",
    "pt": "o bot Thomas parou antes de poder jogar (código de saída 3); o que ele disse "
          "está em ",
    "nl": "de bot Thomas stopte voordat hij kon spelen (afsluitcode 3); wat hij zei staat in ",
}
SILENT = {
    "en": "the bot Thomas did not start within 0 s; what it said is in ",
    "fr": "le bot Thomas n'a pas démarré en 0 s\u00a0; ce qu'il a dit est dans ",
    "it": "il bot Thomas non è partito entro 0 s; quello che ha detto è in ",
    "pt": "o bot Thomas não iniciou em 0 s; o que ele disse está em ",
    "nl": "de bot Thomas is niet binnen 0 s gestart; wat hij zei staat in ",
}


def _python(code: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL)


def test_the_port_is_read_from_the_ready_file_once_written(tmp_path: Path) -> None:
    ready = tmp_path / "Thomas.port"
    # Written in two steps, as a file is: an empty or partial file is not a port yet.
    proc = _python(f"import time, pathlib; p = pathlib.Path({str(ready)!r}); "
                   "p.write_text(''); time.sleep(0.2); p.write_text('41234'); time.sleep(30)")
    try:
        assert peer._listening(proc, ready, "Thomas", tmp_path / "Thomas.log") == 41234
    finally:
        proc.kill()
        proc.wait()


def _said(lang: str, proc: subprocess.Popen[bytes], log: Path) -> str:
    """What ``_listening`` tells the person, in ``lang``, of a bot that never listens."""
    i18n.set_language(lang, {})
    try:
        with pytest.raises(GleekError) as caught:
            peer._listening(proc, log.with_suffix(".port"), "Thomas", log)
    finally:
        i18n.set_language("en", {})
        proc.kill()
        proc.wait()
    return str(caught.value)


@pytest.mark.parametrize("lang", sorted(STOPPED))
def test_a_bot_that_stops_before_it_listens_is_said_in_words(
        lang: str, tmp_path: Path) -> None:
    log = tmp_path / "Thomas.log"
    assert _said(lang, _python("raise SystemExit(3)"), log) == STOPPED[lang] + str(log)


@pytest.mark.parametrize("lang", sorted(SILENT))
def test_a_bot_that_never_listens_is_given_up_in_words(
        lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(peer, "BOT_START_S", 0.0)
    log = tmp_path / "Thomas.log"
    assert _said(lang, _python("import time; time.sleep(30)"), log) == SILENT[lang] + str(log)


def test_a_bot_listens_on_a_port_of_the_systems_choosing_and_says_which(
        tmp_path: Path) -> None:
    # The real bot peer: --listen 127.0.0.1:0 and --ready-file, as gleek local starts it.
    import argparse

    args = argparse.Namespace(hands=1, variant="standard", bots="random", timeout=5.0,
                              think=None)
    ready = tmp_path / "Thomas.port"
    command = peer.bot_command("Thomas", 0, [], tmp_path / "bot", args, "t", ready)
    assert command[command.index("--listen") + 1] == "127.0.0.1:0"
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL)
    try:
        port = peer._listening(proc, ready, "Thomas", tmp_path / "Thomas.log")
        import socket

        with socket.create_connection(("127.0.0.1", port), timeout=10):
            pass  # it listens there
    finally:
        proc.kill()
        proc.wait()
