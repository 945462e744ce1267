"""``gleek verify`` and ``gleek replay`` word what they found from codes, in every language.

The logs are the conformance vectors (protocol/vectors/sessions, made by
tests/adversary/vectors.py): real tampered logs, each verified once per run.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from prepared import SESSIONS, verified

from gleek_p2p.base import i18n
from gleek_p2p.base.violation_codes import ViolationCode
from gleek_p2p.cli.gleek import main
from gleek_p2p.log.envelope import decode_envelope
from gleek_p2p.log.store import read_log_file
from gleek_p2p.table.session import Stage, Table
from gleek_p2p.table.verify import VerifyReport
from gleek_p2p.tools.report import text_report
from gleek_p2p.tools.verdict_words import VIOLATION_WORDS, stop_words
from gleek_p2p.ui.replay import Replay


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


TAMPERED = {
    "out-of-turn": ViolationCode.TURN_OUT_OF_TURN,
    "unreduced-scalar": ViolationCode.DECK_UNREDUCED_SCALAR,
    "descending-keys": ViolationCode.DECK_KEYS_SLOTS,
    "equivocation": ViolationCode.CHAIN_EQUIVOCATION,
    "retake-not-handed-over": ViolationCode.TURN_NOT_HANDED_OVER,
    "illegal-bid": ViolationCode.RULES_ILLEGAL_MOVE,
    "forged-author": ViolationCode.CHAIN_BAD_SIGNATURE,
    "spliced": ViolationCode.CHAIN_OTHER_SESSION,
    "flipped-byte": ViolationCode.LOG_UNREADABLE_EVENT,
    "dropped": ViolationCode.LOG_MISPLACED_RECORD,
    "revoke": ViolationCode.AUDIT_ILLEGAL_MOVE,
}
"""Vector logs with one proven violation each, by the code it carries."""

DETAIL = {"en": "(the program's detail: “", "fr": "(détail du programme, en anglais\u00a0: «\u00a0",
          "it": "(dettaglio del programma, in inglese: «",
          "pt": "(detalhe do programa, em inglês: “",
          "nl": "(detail van het programma, in het Engels: “"}
"""How each language marks the table layer's English reason as the program's detail."""

SAID = {
    ("revoke", "en"): "event 78: seat 1 (bot-1) - made a move the rules forbid, as the hand's "
                      "audit found (",
    ("revoke", "fr"): "événement 78\u00a0: place 1 (bot-1) - a joué un coup que les règles "
                      "interdisent, comme l'a trouvé l'audit de la manche (",
    ("revoke", "it"): "evento 78: posto 1 (bot-1) - ha fatto una mossa che le regole vietano, "
                      "come ha trovato la verifica della mano (",
    ("revoke", "pt"): "evento 78: lugar 1 (bot-1) - fez uma jogada que as regras proíbem, como "
                      "a auditoria da mão constatou (",
    ("revoke", "nl"): "gebeurtenis 78: plaats 1 (bot-1) - deed een zet die de regels verbieden, "
                      "zoals de controle van de hand vond (",
    ("forged-author", "en"): "event 30: an event's signature is not valid: the log was altered (",
    ("forged-author", "fr"): "événement 30\u00a0: la signature d'un événement n'est pas "
                             "valide\u00a0: le journal a été modifié (",
    ("forged-author", "it"): "evento 30: la firma di un evento non è valida: il registro è "
                             "stato alterato (",
    ("forged-author", "pt"): "evento 30: a assinatura de um evento não confere: o registro foi "
                             "alterado (",
    ("forged-author", "nl"): "gebeurtenis 30: de handtekening van een gebeurtenis klopt niet: "
                             "het logboek is gewijzigd (",
}
"""Two verdict lines as a reader of each language sees them, up to the detail."""


def test_every_code_has_its_words() -> None:
    assert set(VIOLATION_WORDS) == set(ViolationCode)
    assert len(set(VIOLATION_WORDS.values())) == len(ViolationCode)


def _violation_line(report: VerifyReport, lang: str) -> str:
    i18n.set_language(lang, {})
    lines = text_report(report).splitlines()
    # The line after the verdict (the rulings above are listed the same way).
    after = lines[lines.index(i18n._("Verdict: NOT FAIR.")) + 1:]
    # One proven violation: one line after the verdict (a log's end has no line).
    assert [line for line in after if line.startswith("  - ")] == after[:1], after
    return after[0][4:]


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("name", sorted(TAMPERED))
def test_a_proven_violation_is_worded_from_its_code(name: str, lang: str) -> None:
    report = verified(name)
    violation = report.violations[0]
    assert violation.code is TAMPERED[name]
    line = _violation_line(report, lang)
    words = i18n._(VIOLATION_WORDS[violation.code])
    verdict, _marker, detail = line.partition(DETAIL[lang])
    # What was broken, in the reader's words; the English reason only in the detail.
    assert verdict.endswith(words + " "), (lang, line)
    assert violation.reason not in verdict
    closing = "\u00a0»)" if lang == "fr" else ("»)" if lang == "it" else "”)")
    assert detail == violation.reason + closing, (lang, line)
    if lang != "en":
        assert VIOLATION_WORDS[violation.code] not in line, (lang, line)
    if (name, lang) in SAID:
        assert line.startswith(SAID[name, lang]), (lang, line)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_gleek_verify_prints_the_words_of_its_language(
        lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", lang, "verify", str(SESSIONS / "out-of-turn.gleeklog")]) == 1
    out = capsys.readouterr().out
    expected = {"en": "seat 1 (bot-1) - signed an event out of turn",
                "fr": "place 1 (bot-1) - a signé un événement hors de son tour",
                "it": "posto 1 (bot-1) - ha firmato un evento fuori turno",
                "pt": "lugar 1 (bot-1) - assinou um evento fora da sua vez",
                "nl": "plaats 1 (bot-1) - ondertekende een gebeurtenis buiten de beurt"}[lang]
    assert expected + " " + DETAIL[lang] in out, out


@pytest.fixture(scope="module")
def replays() -> dict[str, Replay]:
    out = {}
    for name in ("out-of-turn", "torn-last-record"):
        records, _good, _size = read_log_file(SESSIONS / f"{name}.gleeklog")
        out[name] = Replay.load(records)
    return out


STOPS = {"en": "it stops waiting for random-0 (the keys of the cards left unplayed)",
         "fr": "il s'arrête en attendant random-0 (les clés des cartes non jouées)",
         "it": "si ferma in attesa di random-0 (le chiavi delle carte non giocate)",
         "pt": "ele para esperando random-0 (as chaves das cartas não jogadas)",
         "nl": "het stopt terwijl het op random-0 wacht (de sleutels van de niet gespeelde "
               "kaarten)"}
"""Where torn-last-record stops, in each language."""


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_replay_says_the_same_words(lang: str, replays: dict[str, Replay]) -> None:
    report = replays["out-of-turn"].report
    i18n.set_language(lang, {})
    verdict = replays["out-of-turn"].verdict()
    assert verdict == [_violation_line(report, lang)]
    assert i18n._(VIOLATION_WORDS[ViolationCode.TURN_OUT_OF_TURN]) in verdict[0]
    stopped = replays["torn-last-record"].verdict()
    assert len(stopped) == 1 and STOPS[lang] in stopped[0], stopped


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_log_cut_short_says_where_it_stops_in_the_readers_words(lang: str) -> None:
    report = verified("torn-last-record")
    i18n.set_language(lang, {})
    text = text_report(report)
    assert STOPS[lang] in text
    assert lang == "en" or "stops waiting" not in text


AWAITED = {
    (Stage.CUT_COMMIT, "cut-commit"): "a commitment for the cut",
    (Stage.CUT_REVEAL, "cut-reveal"): "the cut",
    (Stage.DECK, "commit"): "the shuffle (a commitment)",
    (Stage.DECK, "shuffle"): "the shuffle (mixing the deck)",
    (Stage.DECK, "lock"): "the shuffle (locking the cards)",
    (Stage.DEAL_KEYS, "keys"): "the keys of the deal",
    (Stage.PLAY, "act"): "a move",
    (Stage.PLAY, "keys"): "the keys of the talon",
    (Stage.SEEDS, "seed"): "the seed of the hand",
}
"""What a deck v1 log waits for at each stage it passes (its seeds come at the end; the
keys of the unplayed cards, a later deck's, are torn-last-record's stop above)."""


def test_every_stage_a_log_can_stop_at_is_worded() -> None:
    records, _good, _size = read_log_file(SESSIONS / "valid-standard-deck-v1.gleeklog")
    roster = verified("valid-standard-deck-v1").roster
    assert roster is not None
    table = Table(roster)
    seen = {}
    for record in records:
        table.receive(decode_envelope(record), record)
        exp = table.expected()
        if exp is None:
            break
        key = (table.stage, exp.kinds[0])
        if key not in seen:
            seen[key] = stop_words(VerifyReport(readable=True, roster=roster, table=table))
            name = roster.names[exp.seat]
            assert seen[key] == f"it stops waiting for {name} ({AWAITED[key]})"
    assert set(AWAITED) <= set(seen)
    assert stop_words(VerifyReport(readable=True, roster=roster, table=table)) == \
        "it stops before the end"
