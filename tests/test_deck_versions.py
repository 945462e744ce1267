"""Logs of deck protocol v1 still verify, and say their deal was only audited after each hand."""

from __future__ import annotations

from pathlib import Path

from gleek_p2p.cli.commands import verify_file
from gleek_p2p.log.envelope import decode_envelope
from gleek_p2p.table import events as ev
from gleek_p2p.tools.report import json_report, text_report

SESSIONS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "sessions"


def test_a_version_1_log_verifies_and_is_reported_as_audited_after_the_hand() -> None:
    report = verify_file(SESSIONS / "valid-standard-deck-v1.gleeklog")
    assert report.fair
    assert [h.deck_version for h in report.hands] == [1]
    assert "deal audited after each hand" in text_report(report)
    assert json_report(report)["hands"][0]["deck_version"] == 1
    # Every card was known after the hand, the discards included.
    assert len(report.hands[0].cards) == 44


def test_a_version_2_log_is_proved_and_keeps_the_discards_secret() -> None:
    path = SESSIONS / "valid-standard.gleeklog"
    report = verify_file(path)
    assert report.fair
    assert [h.deck_version for h in report.hands] == [2]
    assert "proved pass by pass" in text_report(report)
    record = report.hands[0]
    state = record.state
    # No seed in the log, and no discard (nor an untaken talon) was ever opened.
    kinds = {decode_envelope(r).kind for r in _records(path)}
    assert ev.SEED not in kinds
    assert not set(state.discards) & set(record.cards)
    assert len(record.cards) < 44


def _records(path: Path) -> list[bytes]:
    from gleek_p2p.cli.commands import read_log

    records, _tail = read_log(path)
    return records


def test_a_new_session_runs_version_4_and_verify_reports_it_in_every_language() -> None:
    from gleek_p2p.base.i18n import set_language
    from gleek_p2p.bots.strategy import RandomStrategy
    from gleek_p2p.rules import VARIANTS
    from gleek_p2p.table.verify import verify_records
    from gleek_p2p.tools.selfplay import selfplay

    seed = b"v4 verify"
    result = selfplay(VARIANTS["standard"], 1, seed,
                      [RandomStrategy(seed + bytes([s])) for s in range(3)])
    report = verify_records(result.records)
    assert report.fair
    assert [h.deck_version for h in report.hands] == [4]
    assert json_report(report)["hands"][0]["deck_version"] == 4
    words = {"en": "every card opened proved", "fr": "chaque carte ouverte prouvés",
             "it": "ogni carta aperta dimostrate", "pt": "cada carta aberta provados",
             "nl": "elke geopende kaart bewezen"}
    try:
        for lang, phrase in words.items():
            set_language(lang)
            assert phrase in text_report(report), lang
    finally:
        set_language("en")
