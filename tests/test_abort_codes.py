"""An abort's typed code: every screen words the end from it, in the reader's language.

The signed reason is English (the signer's words, kept in the log for people
reading it raw and for older versions); the end box, the peer's last line,
``gleek verify`` and the replay word the end from the code (``Abort.cause``)
and from what the log shows of it. An abort without a code (every old log),
with a code this version does not know, or with one that does not fit the
log is shown with its reason quoted as the signer's words. An attacker signs
aborts too: a malformed code is refused (``form.abort``) with the table
unchanged, and nothing here may crash on whatever an abort holds.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prepared import seated, verify_each_log_once

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import Cheating, ProtocolError, ViolationCode
from gleek_p2p.cli.commands import read_log
from gleek_p2p.log.envelope import Envelope
from gleek_p2p.rules import Variant
from gleek_p2p.session.abort_words import abort_reason
from gleek_p2p.session.peer import Outcome
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Table, Verdict
from gleek_p2p.table.verify import VerifyReport, verify_records
from gleek_p2p.tools.report import json_report, text_report
from gleek_p2p.tools.selfplay import make_seats
from gleek_p2p.ui.app import end_lines

NAMES = ("you", "Bob", "Carol")
SIGNER = 1
VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "sessions"

# The pieces each translation must show, by language: a timeout's words, the mark of
# a signer's own words, the clause on a code this version does not know and on one
# that does not fit the log, and a claim's last sentence.
WORDS = {
    "en": ["Carol did not send their next event in time", "(the signer's own words)",
           "this version does not know their code, later-code",
           "their code, timeout, does not fit the log", "The log cannot prove it."],
    "fr": ["Carol n'a pas envoyé son événement suivant à temps",
           "(les propres mots du signataire)", "cette version ne connaît pas son code, "
           "later-code", "son code, timeout, ne correspond pas au journal",
           "Le journal ne peut pas le prouver."],
    "it": ["Carol non ha inviato in tempo il suo evento successivo", "(parole del firmatario)",
           "questa versione non conosce il suo codice, later-code",
           "il suo codice, timeout, non corrisponde al registro",
           "Il registro non può provarlo."],
    "pt": ["Carol não enviou seu próximo evento a tempo", "(palavras do próprio signatário)",
           "esta versão não conhece seu código, later-code",
           "seu código, timeout, não condiz com o registro", "O registro não pode provar isso."],
    "nl": ["Carol stuurde zijn volgende gebeurtenis niet op tijd",
           "(de eigen woorden van de ondertekenaar)",
           "deze versie kent de code later-code niet",
           "de code, timeout, klopt niet met het logboek", "Het logboek kan dat niet bewijzen."],
}
TIMEOUT_WORDS, QUOTED, UNKNOWN, UNFIT, CANNOT_PROVE = (
    {lang: pieces[i] for lang, pieces in WORDS.items()} for i in range(5))
REASON = "Carol did not send the lock step within 120 s"


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en", {})


def _tables(seed: bytes = b"abort-codes") -> list[Table]:
    """Three seats some events in (the roster, the cut, the shuffle), Carol due next
    (a fresh copy for each test: a table is changed by what it takes)."""
    return seated(seed, NAMES, due=2)


def _ended(tables: list[Table], abort: Envelope) -> tuple[Table, VerifyReport]:
    for table in tables:
        table.receive(abort)
    return tables[0], verify_records(tables[0].encoded)


def _box(table: Table) -> str:
    return "\n".join(t for _s, t in end_lines(table, Outcome(False, True, "", 13), "/x.log"))


def _due(tables: list[Table]) -> int:
    exp = tables[0].expected()
    assert exp is not None
    return exp.seat


def _out_of_turn(tables: list[Table]) -> tuple[int, Envelope, Cheating]:
    """The seat neither due nor the signer signs the next step out of turn, validly:
    that seat, its event, and the ``Cheating`` the signer's table raises on it."""
    cheat = next(s for s in range(3) if s not in (_due(tables), SIGNER))
    wrong = tables[cheat]._sign(ev.CUT_COMMIT, [b"\x00" * 32])
    with pytest.raises(Cheating) as caught:
        tables[SIGNER].receive(wrong)
    return cheat, wrong, caught.value


# --- the codes this program signs, worded in every language -----------------------------


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_timeout_is_worded_from_its_code_in_every_language(lang: str) -> None:
    tables = _tables()
    due = _due(tables)
    assert NAMES[due] == "Carol"
    table, report = _ended(tables, tables[SIGNER].abort_event(due, REASON, cause=ev.TIMEOUT))
    assert table.verdict is not None and table.verdict.fits and table.verdict.about == due
    i18n.set_language(lang, {})
    box = _box(table)
    verify = text_report(report)
    for text in (box, verify):
        assert TIMEOUT_WORDS[lang] in text, (lang, text)
        assert "within 120 s" not in text  # the English detail stays in the log
    # Still a claim, never a verdict: the box says Bob says so, verify that it is unproven.
    assert report.exit_code == 3 and report.claims and not report.violations
    assert f"event {len(tables[0].encoded) - 1}" in verify or lang != "en"
    assert CANNOT_PROVE[lang] in verify
    # Machines read the code; the reason stays as signed.
    claim = json_report(report)["claims"][0]
    assert claim["cause"] == "timeout" and claim["reason"] == REASON
    assert claim["code"] == "abort.claim"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_code_this_program_signs_has_words_of_its_own(lang: str) -> None:
    """Each cause and a violation code, worded without the signed English."""
    tables = _tables(b"abort-codes-2")
    i18n.set_language(lang, {})
    verdicts = {
        ev.LOCAL_FAILURE: Verdict(20, 2, None, "english detail", (), ev.LOCAL_FAILURE,
                                  about=2),
        ev.LEAVE_UNLOGGED: Verdict(20, 0, None, "english detail", (), ev.LEAVE_UNLOGGED,
                                   about=2),
        ev.FORKED: Verdict(20, 0, None, "english detail", (b"x",), ev.FORKED, about=2),
        ev.PEER_FAILED: Verdict(20, 0, None, "english detail", (b"x",), ev.PEER_FAILED,
                                about=2),
        ev.LEFT: Verdict(20, 0, None, "english detail", (b"x",), ev.LEFT, 2, 19, about=2),
        "deck.key-commitment": Verdict(20, 0, 2, "english detail", (b"x",),
                                       "deck.key-commitment", about=2),
    }
    said = {cause: abort_reason(v, tables[0].roster.names) for cause, v in verdicts.items()}
    for cause, text in said.items():
        assert "Carol" in text and "english detail" not in text, (cause, text)
        assert QUOTED[lang] not in text
    assert "deck.key-commitment" in said["deck.key-commitment"]
    assert len(set(said.values())) == len(said)  # each code its own words
    if lang != "en":
        i18n.set_language("en", {})
        english = {c: abort_reason(v, tables[0].roster.names) for c, v in verdicts.items()}
        assert all(english[c] != said[c] for c in said), lang


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_an_old_log_shows_its_reason_quoted_as_the_signers_words(lang: str) -> None:
    """claim-only.gleeklog (unchanged): an abort with no code."""
    report = _claim_only()
    i18n.set_language(lang, {})
    text = text_report(report)
    opening, closing = {"fr": ("«\u00a0", "\u00a0»"), "it": ("«", "»")}.get(lang, ("“", "”"))
    words = "Cat did not send the keys of the deal within 120 s"
    assert f"{opening}{words}{closing}" in text, text
    assert QUOTED[lang] in text and CANNOT_PROVE[lang] in text
    assert report.exit_code == 3
    assert json_report(report)["claims"][0]["cause"] is None


@functools.cache
def _claim_only() -> VerifyReport:
    # Old logs keep their bytes and verdicts: tests/test_table_vectors.py, for every vector.
    return verify_records(read_log(VECTORS / "claim-only.gleeklog")[0])


# --- what an attacker may sign ------------------------------------------------------------


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_timeout_blaming_a_seat_not_due_is_shown_as_the_signers_words(lang: str) -> None:
    tables = _tables()
    due = _due(tables)
    other = next(s for s in range(3) if s not in (due, SIGNER))
    lie = "you did not send the lock step within 120 s"
    table, report = _ended(tables, tables[SIGNER].abort_event(other, lie, cause=ev.TIMEOUT))
    assert table.verdict is not None and not table.verdict.fits
    i18n.set_language(lang, {})
    for text in (_box(table), text_report(report)):
        assert lie in text and UNFIT[lang] in text and QUOTED[lang][1:-1] in text, text
        assert TIMEOUT_WORDS[lang].replace("Carol", "you") not in text
    assert report.exit_code == 3 and not report.violations  # a claim: nobody proven guilty


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_an_unknown_code_is_taken_and_shown_as_the_signers_words(lang: str) -> None:
    tables = _tables()
    words = "Carol \x1b[2Jcheated\u202e, trust me"
    abort = tables[SIGNER]._sign(ev.ABORT, [2, words, [], "later-code"])
    table, report = _ended(tables, abort)  # taken by every seat: the session is over
    assert all(t.verdict is not None and t.verdict.cause == "later-code" for t in tables)
    i18n.set_language(lang, {})
    for text in (_box(table), text_report(report)):
        assert UNKNOWN[lang] in text and "cheated" in text, text
        assert "\x1b" not in text and "\u202e" not in text  # made inert
    assert report.exit_code == 3 and report.claims[0].seat == 2 and not report.violations
    assert json_report(report)["claims"][0]["cause"] == "later-code"


@pytest.mark.parametrize("body", [
    [2, "x", [], "t" * 41],                      # a huge code
    [2, "x", [], "t" * 100_000],
    [2, "x", [], "Timeout"],                     # not a code's characters
    [2, "x", [], "time\x00out"],
    [2, "x", [], 7],                             # not a str
    [2, "x", [], None],
    [-1, "x", [], ev.TIMEOUT],                   # a timeout blaming nobody
    [2, "x", [], ev.FORKED],                     # a cause blaming nobody, blaming Carol
    [-1, "x", [], "deck.key-commitment"],        # a breach with nobody to blame
    [-1, "x", [], ev.LEAVE_UNLOGGED],            # no seat named
    [-1, "x", [], ev.LEAVE_UNLOGGED, 3],         # an empty seat
    [-1, "x", [], ev.LEAVE_UNLOGGED, 2**62],     # a huge one
    [-1, "x", [], ev.LEAVE_UNLOGGED, -1],
    [-1, "x", [], "later-code", 9],
    [2, "x", [], ev.TIMEOUT, 2],                 # a seat where none belongs
])
def test_a_malformed_code_is_refused_with_the_table_unchanged(body: list[object]) -> None:
    tables = _tables()
    abort = tables[SIGNER]._sign(ev.ABORT, body)
    before = list(tables[0].encoded)
    with pytest.raises(Cheating) as caught:
        tables[0].receive(abort)
    assert caught.value.seat == SIGNER and caught.value.code is ViolationCode.FORM_ABORT
    assert tables[0].encoded == before and tables[0].verdict is None
    # gleek verify proves it against the signer, from the log with the abort in it.
    report = verify_records([*before, abort.encode()])
    assert report.exit_code == 1
    assert report.violations[0].seat == SIGNER
    assert report.violations[0].code is ViolationCode.FORM_ABORT


def test_a_forked_abort_whose_evidence_is_not_an_abort_does_not_fit() -> None:
    tables = _tables()
    junk = tables[0].encoded[3]  # a cut commitment, not an abort
    abort = tables[SIGNER].abort_event(None, "Carol ended the session elsewhere", (junk,),
                                       cause=ev.PEER_FAILED)
    table, report = _ended(tables, abort)
    assert table.verdict is not None and not table.verdict.fits
    assert "Carol ended the session elsewhere" in _box(table)
    assert report.exit_code == 3 and report.ending is None  # not a fair ending


def test_a_leave_unlogged_naming_its_own_signer_does_not_fit() -> None:
    tables = _tables()
    abort = tables[SIGNER].abort_event(None, "Bob left", cause=ev.LEAVE_UNLOGGED,
                                       about=SIGNER)
    table, _report = _ended(tables, abort)
    assert table.verdict is not None and not table.verdict.fits
    assert "“Bob left” (the signer's own words; their code, leave-unlogged" in _box(table)


def test_a_violation_code_its_evidence_does_not_prove_is_a_claim_in_its_words() -> None:
    tables = _tables()
    abort = tables[SIGNER].abort_event(2, "Carol broke it", (b"not an envelope",),
                                       cause="deck.key-commitment")
    _table, report = _ended(tables, abort)
    assert report.exit_code == 3 and not report.violations
    assert ("seat 1 (Bob) says: Carol broke the protocol - published a key that does not "
            "match its locking pass (violation deck.key-commitment). "
            "The log cannot prove it.") in text_report(report)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_violation_code_other_than_what_its_evidence_proves_is_a_claim(lang: str) -> None:
    """The evidence proves Carol signed out of turn; the abort says another breach."""
    tables = _tables()
    cheat, wrong, caught = _out_of_turn(tables)
    proven = caught.code.value
    said = "audit.scores-differ" if proven != "audit.scores-differ" else "deck.bad-key"
    abort = tables[SIGNER].abort_event(cheat, "made up", (wrong.encode(),), cause=said)
    _table, report = _ended(tables, abort)
    assert report.exit_code == 1 and report.violations[0].code.value == proven
    assert report.violations[0].seat == cheat
    assert len(report.claims) == 1 and report.claims[0].abort is not None
    i18n.set_language(lang, {})
    text = text_report(report)
    assert f"{said}" in text and "made up" in text and CANNOT_PROVE[lang] in text


def test_a_coded_abort_the_evidence_proves_adds_no_claim() -> None:
    tables = _tables()
    cheat, wrong, caught = _out_of_turn(tables)
    abort = tables[SIGNER].abort_event(cheat, caught.reason, (wrong.encode(),),
                                       cause=caught.code.value)
    _table, report = _ended(tables, abort)
    assert report.exit_code == 1 and report.claims == []
    assert report.violations[0].code is caught.code


# --- nothing an abort holds crashes a screen ----------------------------------------------


_CODES = st.one_of(st.none(), st.sampled_from([*ev.ABORT_CAUSES, "deck.bad-key", "x.y"]),
                   st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.-", min_size=1,
                           max_size=ev.MAX_CODE))


@settings(max_examples=60, deadline=None)
@given(cause=_CODES, about=st.one_of(st.none(), st.integers(-3, 9)), fits=st.booleans(),
       reason=st.text(max_size=50), lang=st.sampled_from(i18n.LANGUAGES))
def test_any_verdict_is_worded_without_a_crash(cause: str | None, about: int | None,
                                               fits: bool, reason: str, lang: str) -> None:
    i18n.set_language(lang, {})
    verdict = Verdict(5, 1, None, reason, (), cause, about=about, fits=fits)
    said = abort_reason(verdict, NAMES)
    assert said and "\x1b" not in said
    if cause is None or not ev.known_code(cause) or not fits or about is None:
        assert QUOTED[lang][1:-1] in said  # the signer's words, quoted


@settings(max_examples=200, deadline=None)
@given(body=st.lists(st.one_of(st.integers(-2, 3), st.text(max_size=45), st.none(),
                               st.lists(st.binary(max_size=4), max_size=2),
                               st.binary(max_size=4)), min_size=3, max_size=6))
def test_any_abort_body_is_taken_or_refused_as_form_abort(body: list[object]) -> None:
    try:
        abort = ev.Abort.from_body(body)
    except ProtocolError as exc:
        assert exc.code is ViolationCode.FORM_ABORT
        return
    assert abort.to_body() == body  # taken whole: nothing lost
    assert abort.cause is None or len(abort.cause) <= ev.MAX_CODE


# --- gleek verify, the command, in every language ------------------------------------------


BEN_LATE = {"en": "Ben did not send their next event in time",
            "fr": "Ben n'a pas envoyé son événement suivant à temps",
            "it": "Ben non ha inviato in tempo il suo evento successivo",
            "pt": "Ben não enviou seu próximo evento a tempo",
            "nl": "Ben stuurde zijn volgende gebeurtenis niet op tijd"}


@pytest.fixture
def each_log_verified_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``gleek verify`` reads the same vector in every language here: the log is
    verified once (its report holds no words) and worded anew each time."""
    verify_each_log_once(monkeypatch)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_gleek_verify_words_a_coded_abort_in_every_language(
        lang: str, capsys: pytest.CaptureFixture[str], each_log_verified_once: None) -> None:
    from gleek_p2p.cli.gleek import main

    assert main(["--lang", lang, "verify", str(VECTORS / "claim-coded.gleeklog")]) == 3
    out = capsys.readouterr().out
    assert BEN_LATE[lang] in out and CANNOT_PROVE[lang] in out, out
    assert "within 120 s" not in out  # the signed English detail stays in the log


def test_gleek_verify_quotes_an_unknown_code_as_the_signers_words(
        capsys: pytest.CaptureFixture[str], each_log_verified_once: None) -> None:
    from gleek_p2p.cli.gleek import main

    # Its words in each language: test_an_unknown_code_is_taken_and_shown_as_the_signers_words.
    assert main(["--lang", "nl", "verify", str(VECTORS / "unknown-code.gleeklog")]) == 3
    out = capsys.readouterr().out
    assert "“Cat did not send the keys of the deal within 120 s”" in out  # quoted, as signed
    assert UNKNOWN["nl"].replace("later-code", "later-version-code") in out, out


# --- the peer's own last line, in a translated language ------------------------------------


class _Sleeper:
    """A player who never answers (a stalled peer)."""

    async def decide(self, table: Table, decision: object) -> object:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    def update(self, table: Table, applied: object, note: object) -> None:
        pass


async def test_a_stalled_seat_is_named_in_the_readers_language(tmp_path: Path) -> None:
    from gleek_p2p.bots.strategy import RandomStrategy
    from gleek_p2p.log.store import LogStore
    from gleek_p2p.session.peer import BotPlayer, MemoryMesh, SessionRunner

    i18n.set_language("pt", {})
    tables = make_seats(Variant(), 1, b"abort-codes-stall", list(NAMES))
    players = [BotPlayer(RandomStrategy(0)), BotPlayer(RandomStrategy(1)), _Sleeper()]
    run = [SessionRunner(t, LogStore.open(tmp_path / f"{s}.gleeklog"), m, p,  # type: ignore[arg-type]
                         timeout=0.5)
           for s, (t, m, p) in enumerate(zip(tables, MemoryMesh.create(3), players,
                                             strict=True))]
    tasks = [asyncio.create_task(r.run()) for r in run]
    done = await asyncio.wait_for(asyncio.gather(tasks[0], tasks[1]), 60)
    tasks[2].cancel()
    await asyncio.gather(tasks[2], return_exceptions=True)
    for outcome in done:
        assert outcome.aborted
        assert "encerrou a sessão: Carol não enviou seu próximo evento a tempo" in \
            outcome.reason, outcome.reason
        assert "within" not in outcome.reason
