"""The end box, an abort's reason, a rejected message and an unreadable log say what the
seat did in the reader's words, from its ViolationCode; the code follows only as a detail
(they showed "Carol broke the protocol (violation turn.out-of-turn)" and no more)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from prepared import SESSIONS, seated, verified

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import Cheating, ProtocolError, ViolationCode
from gleek_p2p.base.violation_words import VIOLATION_WORDS, broke_the_protocol
from gleek_p2p.log.envelope import decode_envelope
from gleek_p2p.log.store import read_log_file
from gleek_p2p.session.error_words import rejection_words
from gleek_p2p.session.peer import Outcome
from gleek_p2p.table.session import Table
from gleek_p2p.table.verify import VerifyReport
from gleek_p2p.tools.report import unreadable_words
from gleek_p2p.ui.app import end_lines


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


NB = "\u00a0"

ABORTED = {
    "en": "Bob ended the session: Carol broke the protocol - signed an event out of turn "
          "(violation turn.out-of-turn)",
    "fr": f"Bob a arrêté la session{NB}: Carol a enfreint le protocole - a signé un événement "
          "hors de son tour (violation turn.out-of-turn)",
    "it": "Bob ha chiuso la sessione: Carol ha violato il protocollo - ha firmato un evento "
          "fuori turno (violazione turn.out-of-turn)",
    "pt": "Bob encerrou a sessão: Carol violou o protocolo - assinou um evento fora da sua "
          "vez (violação turn.out-of-turn)",
    "nl": "Bob beëindigde de sessie: Carol brak het protocol - ondertekende een gebeurtenis "
          "buiten de beurt (overtreding turn.out-of-turn)",
}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_end_box_says_what_the_blamed_seat_did(lang: str) -> None:
    tables = seated(b"s30-words-end-box")
    abort = tables[1].abort_event(2, "Carol signed out of turn", (),
                                  cause=ViolationCode.TURN_OUT_OF_TURN.value)
    for table in tables:
        table.receive(abort)
    i18n.set_language(lang, {})
    shown = [text for _style, text in end_lines(tables[0], Outcome(False, True, "x", 13))]
    assert ABORTED[lang] in shown


AUDIT = {
    "en": ("A hand audit failed: {who} broke the protocol - made a move the rules forbid, as "
           "the hand's audit found (violation audit.illegal-move).", "bot-1", "your seat"),
    "fr": (f"L'audit d'une manche a échoué{NB}: {{who}} a enfreint le protocole - a joué un "
           "coup que les règles interdisent, comme l'a trouvé l'audit de la manche (violation "
           "audit.illegal-move).", "bot-1", "votre place"),
    "it": ("La verifica di una mano è fallita: {who} ha violato il protocollo - ha fatto una "
           "mossa che le regole vietano, come ha trovato la verifica della mano (violazione "
           "audit.illegal-move).", "bot-1", "il tuo posto"),
    "pt": ("A auditoria de uma mão falhou: {who} violou o protocolo - fez uma jogada que as "
           "regras proíbem, como a auditoria da mão constatou (violação audit.illegal-move).",
           "bot-1", "o seu lugar"),
    "nl": ("De controle van een hand mislukte: {who} brak het protocol - deed een zet die de "
           "regels verbieden, zoals de controle van de hand vond (overtreding "
           "audit.illegal-move).", "bot-1", "uw plaats"),
}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_end_box_says_what_a_failed_audit_found(lang: str) -> None:
    """The revoke vector: seat 1's revoke, found by the hand's audit, on a watcher's screen
    and on the screen of the seat itself (its own sentence, in the third person all the
    same so that the code's phrase agrees with it)."""
    records = read_log_file(SESSIONS / "revoke.gleeklog")[0]
    roster = verified("revoke").roster
    assert roster is not None
    table = Table(roster)
    for record in records:
        table.receive(decode_envelope(record), record)
    assert table.audit_failure is not None
    assert table.audit_failure.code is ViolationCode.AUDIT_ILLEGAL_MOVE
    i18n.set_language(lang, {})
    sentence, other, own = AUDIT[lang]
    for seat, who in ((None, other), (1, own)):
        table.seat = seat  # whose screen it is: Namer speaks to that seat
        shown = [text for _s, text in end_lines(table, Outcome(False, True, "x", 90))]
        assert sentence.format(who=who) in shown


REJECTED = {
    "en": ("it breaks the protocol - an event does not chain to the one before it "
           "(violation chain.wrong-prev)",
           "it cannot be read - an event cannot be read: the log was damaged or altered "
           "(violation log.unreadable-event)"),
    "fr": ("il enfreint le protocole - un événement n'est pas chaîné au précédent "
           "(violation chain.wrong-prev)",
           "il est illisible - " + i18n.translation("fr").gettext(
               VIOLATION_WORDS[ViolationCode.LOG_UNREADABLE_EVENT])
           + " (violation log.unreadable-event)"),
    "it": ("viola il protocollo - un evento non è concatenato a quello precedente "
           "(violazione chain.wrong-prev)",
           "è illeggibile - un evento è illeggibile: il registro è stato danneggiato o "
           "alterato (violazione log.unreadable-event)"),
    "pt": ("viola o protocolo - um evento não se encadeia ao anterior "
           "(violação chain.wrong-prev)",
           "não pode ser lido - um evento não pode ser lido: o registro foi danificado ou "
           "alterado (violação log.unreadable-event)"),
    "nl": ("het breekt het protocol - een gebeurtenis sluit niet aan op de vorige "
           "(overtreding chain.wrong-prev)",
           "het is onleesbaar - een gebeurtenis is onleesbaar: het logboek is beschadigd of "
           "gewijzigd (overtreding log.unreadable-event)"),
}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_rejected_message_and_an_unreadable_log_say_what_was_wrong(lang: str) -> None:
    i18n.set_language(lang, {})
    rejected, unreadable = REJECTED[lang]
    assert rejection_words(Cheating(2, "bad prev", code=ViolationCode.CHAIN_WRONG_PREV)) \
        == rejected
    assert rejection_words(ProtocolError("bad prev", code=ViolationCode.CHAIN_WRONG_PREV)) \
        == rejected
    report = VerifyReport(readable=False, error_code=ViolationCode.LOG_UNREADABLE_EVENT)
    assert unreadable_words(report) == unreadable


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_code_reads_as_what_the_seat_did(lang: str) -> None:
    """Every code this version knows gives its own sentence, no two alike, each with the
    code as its detail and never the English phrase in another language."""
    i18n.set_language(lang, {})
    said = {code: broke_the_protocol("Carol", code) for code in ViolationCode}
    assert len(set(said.values())) == len(ViolationCode)
    for code, text in said.items():
        assert text.startswith("Carol ") and text.endswith(f" {code.value})")
        assert lang == "en" or VIOLATION_WORDS[code] not in text, text
