"""A table picked from the LAN plays its own hands and variant: the person is told when
that is not what they asked for on the command line (``cli/peer.py:choose_table``).

The picker used to replace ``--hands`` and ``--variant`` with the table's without a
word: ``gleek play --hands 3``, table 1 picked, and a 12-hand session began.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gleek_p2p.base import i18n
from gleek_p2p.cli import peer, tables
from gleek_p2p.cli.given import given
from gleek_p2p.cli.gleek import build_parser
from gleek_p2p.cli.tables import Chosen

NB = "\u00a0"


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


def _pick(monkeypatch: pytest.MonkeyPatch, chosen: Chosen) -> list[str]:
    said: list[str] = []
    monkeypatch.setattr(tables, "pick_table", lambda args, write: chosen)
    monkeypatch.setattr(peer, "say", said.append)
    return said


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ["Table oak plays 5 hands, not 3 as you asked with --hands: whoever started it "
            "chose, and you join it as it plays.",
            "Table oak plays the variant standard, not whist as you asked with --variant: "
            "whoever started it chose, and you join it as it plays."]),
    ("fr", [f"La table oak se joue en 5 manches, et non en 3 comme demandé avec --hands{NB}: "
            "qui l'a lancée l'a choisi, et vous la rejoignez telle qu'elle se joue.",
            "La table oak se joue avec la variante standard, et non whist comme demandé avec "
            f"--variant{NB}: qui l'a lancée l'a choisie, et vous la rejoignez telle qu'elle "
            "se joue."]),
    ("it", ["Al tavolo oak si giocano 5 mani, non 3 come hai chiesto con --hands: l'ha "
            "deciso chi l'ha aperto, e ti siedi al tavolo così com'è.",
            "Al tavolo oak si gioca la variante standard, non whist come hai chiesto con "
            "--variant: l'ha scelta chi l'ha aperto, e ti siedi al tavolo così com'è."]),
    ("pt", ["A mesa oak joga 5 mãos, não 3 como você pediu com --hands: quem a abriu "
            "escolheu, e você entra nela como ela é jogada.",
            "A mesa oak joga a variante standard, não whist como você pediu com --variant: "
            "quem a abriu escolheu, e você entra nela como ela é jogada."]),
    ("nl", ["Tafel oak speelt 5 handen, niet 3 zoals je met --hands vroeg: wie hem begon, "
            "koos dat, en je schuift aan zoals hij speelt.",
            "Tafel oak speelt de variant standard, niet whist zoals je met --variant vroeg: "
            "wie hem begon, koos dat, en je schuift aan zoals hij speelt."]),
])
def test_a_picked_table_that_plays_otherwise_says_so_in_every_language(
        monkeypatch: pytest.MonkeyPatch, lang: str, words: list[str]) -> None:
    i18n.set_language(lang, {})
    said = _pick(monkeypatch, Chosen("oak", 5, "standard"))
    args = build_parser().parse_args(["play", "--name", "Ann", "--hands", "3",
                                      "--variant", "whist"])
    told = peer.choose_table(args)
    assert list(told) == words
    assert said == words  # at the picker, before the screen covers the terminal
    # The table is joined as it plays: its hands and variant, not the flags'.
    config = peer.peer_config(args)
    assert (config.table, config.hands, config.variant) == ("oak", 5, "standard")


@pytest.mark.parametrize(("lang", "words"), [
    ("en", "Table elm plays 1 hand, not 12 as you asked with --hands"),
    ("fr", "La table elm se joue en 1 manche, et non en 12"),
    ("it", "Al tavolo elm si gioca 1 mano, non 12"),
    ("pt", "A mesa elm joga 1 mão, não 12"),
    ("nl", "Tafel elm speelt 1 hand, niet 12"),
])
def test_one_hand_is_singular_and_a_typed_default_still_counts(
        monkeypatch: pytest.MonkeyPatch, lang: str, words: str) -> None:
    """``--hands 12`` typed is a wish even though 12 is the default."""
    i18n.set_language(lang, {})
    _pick(monkeypatch, Chosen("elm", 1, "standard"))
    args = build_parser().parse_args(["bot", "--name", "Bo", "--pick", "--hands", "12"])
    [sentence] = peer.choose_table(args)
    assert sentence.startswith(words), sentence
    assert args.hands == 1


def test_nothing_is_said_when_nothing_was_asked_or_the_table_plays_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    said = _pick(monkeypatch, Chosen("oak", 5, "whist"))
    # No flag given: the defaults are nobody's wish, the table's rules are taken silently.
    args = build_parser().parse_args(["play", "--name", "Ann"])
    assert given(args) == frozenset()
    assert peer.choose_table(args) == ()
    assert (args.hands, args.variant) == (5, "whist")
    # What was asked is what the table plays.
    args = build_parser().parse_args(["play", "--name", "Ann", "--hands", "5",
                                      "--variant", "whist"])
    assert given(args) == {"hands", "variant"}
    assert peer.choose_table(args) == ()
    # Only the setting that differs is told.
    args = build_parser().parse_args(["play", "--name", "Ann", "--hands", "5",
                                      "--variant", "standard"])
    assert [s.split(",")[0] for s in peer.choose_table(args)] == [
        "Table oak plays the variant whist"]
    assert said == ["Table oak plays the variant whist, not standard as you asked with "
                    "--variant: whoever started it chose, and you join it as it plays."]


def test_a_new_table_plays_the_flags_and_says_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    _pick(monkeypatch, Chosen("birch"))
    args = build_parser().parse_args(["play", "--name", "Ann", "--hands", "3",
                                      "--variant", "whist"])
    assert peer.choose_table(args) == ()
    assert (args.table, args.hands, args.variant) == ("birch", 3, "whist")


def test_a_hostile_table_name_is_told_inert(monkeypatch: pytest.MonkeyPatch) -> None:
    _pick(monkeypatch, Chosen("oak\x1b[2J", 5, "standard"))
    args = build_parser().parse_args(["play", "--name", "Ann", "--hands", "3"])
    [sentence] = peer.choose_table(args)
    assert "\x1b" not in sentence and sentence.startswith("Table oak\\x1b[2J plays 5 hands")
