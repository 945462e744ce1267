"""``gleek verify`` and ``gleek replay`` tell apart two seats of one name, as the game screen does.

Two players may both call themselves "Bob": the report names each with a piece of
its key's fingerprint (the one its seat line shows), in every sentence, column and
legend, in every language.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from gleek_p2p.base import i18n
from gleek_p2p.bots.strategy import RandomStrategy, choose_now
from gleek_p2p.log.keys import fingerprint
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table.drive import run
from gleek_p2p.table.verify import VerifyReport, verify_records
from gleek_p2p.tools.report import text_report
from gleek_p2p.tools.selfplay import make_seats
from gleek_p2p.ui.replay import Replay

LANGUAGES = ("en", "fr", "it", "pt", "nl")
NBSP = "\u00a0"

SEAT = {"en": "seat {seat}: {name}  key {key}",
        "fr": f"place {{seat}}{NBSP}: {{name}}  clé {{key}}",
        "it": "posto {seat}: {name}  chiave {key}", "pt": "lugar {seat}: {name}  chave {key}",
        "nl": "plaats {seat}: {name}  sleutel {key}"}
TOTALS = {"en": "Totals: ", "fr": f"Totaux{NBSP}: ", "it": "Totali: ", "pt": "Totais: ",
          "nl": "Totalen: "}
LEGEND = {"en": "hands; {legend}; * = several",
          "fr": f"manches{NBSP}; {{legend}}{NBSP}; * = plusieurs",
          "it": "mani; {legend}; * = più d'uno", "pt": "mãos; {legend}; * = vários",
          "nl": "handen; {legend}; * = meerdere"}
WAITING = {"en": "it stops waiting for {name} (a move)",
           "fr": "il s'arrête en attendant {name} (un coup)",
           "it": "si ferma in attesa di {name} (una mossa)",
           "pt": "ele para esperando {name} (uma jogada)",
           "nl": "het stopt terwijl het op {name} wacht (een zet)"}
INCOMPLETE = {"en": "The log is incomplete: every event checks out, but {stopped}.",
              "fr": f"Le journal est incomplet{NBSP}: chaque événement est vérifié, mais "
                    "{stopped}.",
              "it": "Il registro è incompleto: ogni evento è verificato, ma {stopped}.",
              "pt": "O registro está incompleto: cada evento confere, mas {stopped}.",
              "nl": "Het logboek is onvolledig: elke gebeurtenis klopt, maar {stopped}."}
"""The replay's verdict on a log that stops waiting for a seat's move."""


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


@pytest.fixture(scope="module")
def two_bobs() -> tuple[list[bytes], tuple[bytes, ...]]:
    """A whole 1-hand session's log whose seats 0 and 1 are both "Bob", and the seats' keys."""
    tables = make_seats(VARIANTS["standard"], 1, b"two seats, one name", ["Bob", "Bob", "Cat"])
    players = [RandomStrategy(seed) for seed in (1, 2, 3)]
    records = run(tables, lambda d: choose_now(players[d.seat], d.view, d.legal))
    return records, tables[0].roster.publics


def _labels(publics: tuple[bytes, ...]) -> tuple[str, str]:
    first, second = (fingerprint(p) for p in publics[:2])
    assert first[:4] != second[:4]  # else the labels take more of the fingerprint
    return f"Bob {first[:4]}", f"Bob {second[:4]}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_report_names_two_bobs_apart_everywhere(
        lang: str, two_bobs: tuple[list[bytes], tuple[bytes, ...]]) -> None:
    records, publics = two_bobs
    report: VerifyReport = verify_records(records)
    assert report.fair and report.complete
    first, second = _labels(publics)
    i18n.set_language(lang)
    lines = text_report(report).splitlines()
    assert "  " + SEAT[lang].format(seat=0, name=first, key=fingerprint(publics[0])) in lines
    assert "  " + SEAT[lang].format(seat=1, name=second, key=fingerprint(publics[1])) in lines
    assert "  " + SEAT[lang].format(seat=2, name="Cat", key=fingerprint(publics[2])) in lines
    totals = [line for line in lines if line.startswith(TOTALS[lang])]
    assert len(totals) == 1
    assert re.fullmatch(re.escape(TOTALS[lang] + first) + r" [+-]\d+½?, " + re.escape(second)
                        + r" [+-]\d+½?, Cat [+-]\d+½? \((pence|penny)\)", totals[0])
    legend = LEGEND[lang].format(legend=f"0 = {first}, 1 = {second}, 2 = Cat")
    assert lines[-1].strip() == legend
    head = next(line for line in lines if line.strip().startswith(first))
    assert head.split() == [*first.split(), *second.split(), "Cat"]  # the ledger's columns
    # Every time a Bob is named (bids, ruff, tricks, honours...) it is one of the two.
    text = "\n".join(lines)
    assert text.count(first) > 4 and text.count(second) > 4
    assert re.search(rf"Bob(?! ({first[4:]}|{second[4:]})\b)", text) is None


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_stopped_log_says_which_bob_it_waits_for(
        lang: str, two_bobs: tuple[list[bytes], tuple[bytes, ...]]) -> None:
    records, publics = two_bobs
    first, second = _labels(publics)
    cut = records[:40]
    report = verify_records(cut)
    table = report.table
    assert table is not None
    exp = table.expected()
    assert exp is not None
    waited = (first, second, "Cat")[exp.seat]
    i18n.set_language(lang)
    stopped = WAITING[lang].format(name=waited)
    assert INCOMPLETE[lang].format(stopped=stopped) in Replay.load(cut).verdict()
    assert f"{stopped}. " in text_report(report)


SESSIONS_LEGEND = {"en": "sessions; {legend}; * = several",
                   "fr": f"parties{NBSP}; {{legend}}{NBSP}; * = plusieurs",
                   "it": "partite; {legend}; * = più d'uno",
                   "pt": "partidas; {legend}; * = vários",
                   "nl": "spellen; {legend}; * = meerdere"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_evenings_results_name_two_bobs_apart(lang: str) -> None:
    """``gleek results``: two players (two keys) who both sat as Bob are two rows and two
    marks of the chart; its legend, with no key column beside it, tells them apart."""
    from pathlib import Path

    from gleek_p2p.tools.results import SessionResult, evening, text_results

    publics = tuple(bytes([n]) * 32 for n in (1, 2, 3))
    names = ("Bob", "Bob", "Cat")
    night = evening([
        SessionResult(Path("a.gleeklog"), True, "", b"a", publics, names, 2, (10, -4, -6), 0),
        SessionResult(Path("b.gleeklog"), True, "", b"b", publics, names, 2, (-2, 8, -6), 1)])
    first, second = _labels(publics)
    i18n.set_language(lang)
    lines = text_results(night).splitlines()
    rows = [line.split() for line in lines if line.startswith("Bob ")]
    # Best total first: the first Bob has +4 (10 - 2) pence, the second +2 (-4 + 8).
    assert rows == [[*first.split(), fingerprint(publics[0]), "2", "4", "+4", "1"],
                    [*second.split(), fingerprint(publics[1]), "2", "4", "+2", "1"]]
    assert lines[-1].strip() == SESSIONS_LEGEND[lang].format(
        legend=f"0 = {first}, 1 = {second}, 2 = Cat")
