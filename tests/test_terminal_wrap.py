"""What the commands print straight to a terminal is wrapped between words, at its width.

The terminal itself breaks a line too long for it at its last column, inside a
word. A peer's notes (``say``), the verify report, the evening's results and the
replay's transcript are wrapped first when they go to a terminal; piped, they
are left whole (a reader of the pipe wants one line per line).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from prepared import verify_file_once

from gleek_p2p.base import i18n
from gleek_p2p.base.terminal import fill
from gleek_p2p.cli.gleek import main
from gleek_p2p.session.play import say

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "sessions"


class Terminal(io.StringIO):
    """Output that says it is a terminal (its width comes from ``COLUMNS``)."""

    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en", {})


@pytest.fixture
def each_log_verified_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from gleek_p2p.cli import commands

    monkeypatch.setattr(commands, "verify_file", verify_file_once)


SEARCHING = {  # a peer's note while its table forms, as the lobby says it after 5 s
    "en": ("found Anne at table gleek, still looking for 1 more: looking on the local network "
           "(mDNS); others can join with --peer HOST:41234 (this peer listens on port 41234)"),
    "fr": ("à la table gleek\u00a0: Anne, encore 1 à trouver\u00a0: recherche sur le réseau "
           "local (mDNS)\u00a0; pour rejoindre\u00a0: --peer HÔTE:41234 (ce pair écoute sur le "
           "port 41234)"),
    "it": ("trovato Anne al tavolo gleek, se ne cerca ancora 1: ricerca sulla rete locale "
           "(mDNS); gli altri possono unirsi con --peer HOST:41234 (questo peer ascolta sulla "
           "porta 41234)"),
    "pt": ("encontrado Anne na mesa gleek, falta ainda 1: procurando na rede local (mDNS); os "
           "outros podem entrar com --peer HOST:41234 (este par escuta na porta 41234)"),
    "nl": ("Anne gevonden aan tafel gleek, nog 1 te zoeken: zoeken op het lokale netwerk "
           "(mDNS); anderen kunnen aansluiten met --peer HOST:41234 (deze peer luistert op "
           "poort 41234)"),
}


def _searching(lang: str) -> str:
    """The note in ``lang``, from the catalog (the table above checks its words)."""
    i18n.set_language(lang, {})
    found = i18n.ngettext("found {names} at table {table}, still looking for {n} more",
                          "found {names} at table {table}, still looking for {n} more",
                          1).format(names="Anne", table="gleek", n=1)
    how = i18n._("looking on the local network (mDNS)")
    return i18n._("{found}: {how}; others can join with --peer HOST:{port} (this peer "
                  "listens on port {port})").format(found=found, how=how, port=41234)


def _words(text: str) -> list[str]:
    return text.split()


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_peers_note_is_wrapped_between_words_on_a_terminal(
        lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    note = _searching(lang)
    if note != SEARCHING[lang]:  # the catalog moved on: the words below are what is read
        pytest.fail(f"{lang}: the note now reads {note!r}")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("COLUMNS", "50")
    say(note)
    lines = terminal.getvalue().rstrip("\n").split("\n")
    assert len(lines) >= 3
    assert all(len(line) <= 49 for line in lines), lines
    assert _words("\n".join(lines)) == _words(note)  # no word cut, none lost
    assert all(line.startswith("  ") and not line.startswith("   ") for line in lines[1:])
    assert "41234)" in lines[-1]


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_piped_note_stays_one_line(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    monkeypatch.setenv("COLUMNS", "50")
    say(SEARCHING[lang])
    assert piped.getvalue() == SEARCHING[lang] + "\n"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_verify_report_is_wrapped_between_words_on_a_terminal(
        lang: str, monkeypatch: pytest.MonkeyPatch, each_log_verified_once: None) -> None:
    log = str(VECTORS / "valid-modern-rulings-21.gleeklog")
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stdout", piped)
    assert main(["--lang", lang, "verify", "--no-progress", log]) == 0
    whole = piped.getvalue()
    assert max(len(line) for line in whole.split("\n")) > 60  # the rulings, the verdict
    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setenv("COLUMNS", "60")
    assert main(["--lang", lang, "verify", "--no-progress", log]) == 0
    wrapped = terminal.getvalue()
    assert max(len(line) for line in wrapped.split("\n")) <= 59
    assert _words(wrapped) == _words(whole)
    # A ruling's continued lines stay under its text, after the "- ".
    bullets = [i for i, line in enumerate(wrapped.split("\n")) if line.startswith("  - ")]
    after = wrapped.split("\n")[bullets[1] + 1]
    assert after.startswith("    ") and after[4] != " "


def test_fill_breaks_only_between_words_and_keeps_a_long_word_whole() -> None:
    line = "  seat 0: Bob  key 4cd3-0361-2d77-2aa6 in /home/anne/.local/share/gleek-p2p/sessions"
    assert fill(line, 30).split("\n") == [
        "  seat 0: Bob  key",
        "    4cd3-0361-2d77-2aa6 in",
        "    /home/anne/.local/share/gleek-p2p/sessions",
    ]
    assert fill("short\n\n  also short", 30) == "short\n\n  also short"
