"""A log a newer program wrote is not judged: nobody is blamed for what this one cannot read.

The envelope's ``version`` is the log's version (1 for every log before deck
protocol version 4, 2 from it on; this program reads both). An
event of a higher version may be well formed there and malformed here, so a
reader says "a newer program wrote it" (``log.newer-version``, unreadable,
exit 2) rather than blame its honest signer, as the releases before the
coded abort did for a current log. Every existing vector still verifies as
before (tests/test_table_vectors.py checks them byte for byte).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from vector_reports import VECTORS, vector_report

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import ProtocolError, ViolationCode
from gleek_p2p.log import canonical
from gleek_p2p.log.envelope import PROTOCOL_VERSION, NewerLog, decode_envelope
from gleek_p2p.log.store import read_log_file
from gleek_p2p.table.schema import KIND_BOUNDS
from gleek_p2p.table.verify import Judgement, VerifyReport, verify_records
from gleek_p2p.tools.report import json_report, text_report

#: A log that ends on a coded abort: what the releases before codes blamed.
CODED = "claim-coded.gleeklog"
#: The version a newer program than this one writes.
NEWER = 3


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


def _records() -> list[bytes]:
    records, _offset, _size = read_log_file(VECTORS / CODED)
    return records


def _as_version(record: bytes, version: object, extra: tuple[object, ...] = ()) -> bytes:
    """``record`` with another ``version`` (the signature no longer fits: never checked)."""
    fields = canonical.decode(record, max_len=1 << 20, max_depth=32, max_items=1 << 20)
    assert isinstance(fields, list)
    return canonical.encode([version, *fields[1:], *extra])


@pytest.mark.parametrize("version", [PROTOCOL_VERSION + 1, 99, canonical.INT_MAX])
@pytest.mark.parametrize("extra", [(), ("a ninth field of that version",)])
def test_an_event_of_a_higher_version_is_a_newer_programs(version: int,
                                                          extra: tuple[object, ...]) -> None:
    data = _as_version(_records()[0], version, extra)
    for bounds in (None, KIND_BOUNDS):
        with pytest.raises(NewerLog) as newer:
            decode_envelope(data, bounds)
        assert newer.value.version == version
        assert newer.value.code is ViolationCode.LOG_NEWER_VERSION
        assert "written by a newer program" in str(newer.value)


@pytest.mark.parametrize("version", [0, -1, "1", True, None, b"\x01"])
def test_any_other_wrong_version_is_a_malformed_event(version: object) -> None:
    with pytest.raises(ProtocolError, match="unsupported protocol version") as bad:
        decode_envelope(_as_version(_records()[0], version))
    assert not isinstance(bad.value, NewerLog)


def test_the_vector_still_verifies_as_it_did() -> None:
    # The coded abort is a claim the log cannot prove: nobody blamed, exit 3.
    report = vector_report(CODED)
    assert report.readable and report.judgement is Judgement.STOPPED
    assert not report.violations and report.claims


def test_this_program_reads_versions_1_and_2() -> None:
    assert PROTOCOL_VERSION + 1 == NEWER


def test_a_log_of_a_newer_version_is_not_judged_and_nobody_is_blamed() -> None:
    # What a newer program writes: every event, the roster first, of its version.
    report = verify_records([_as_version(r, NEWER) for r in _records()])
    assert not report.readable and report.judgement is Judgement.UNREADABLE
    assert report.exit_code == 2
    assert report.error_code is ViolationCode.LOG_NEWER_VERSION and report.log_version == NEWER
    assert report.violations == [] and report.claims == []
    data = json_report(report)
    assert data["code"] == "log.newer-version" and data["violations"] == []


def test_one_newer_record_in_an_older_log_is_an_altered_record_nobody_is_blamed_for() -> None:
    # Only the abort of a newer version (a file edited by hand): one program wrote
    # the roster, so this is not a newer program's log, and no seat is named.
    records = _records()
    report = verify_records([*records[:-1], _as_version(records[-1], NEWER)])
    assert report.readable and report.error_code is None
    assert [(v.seq, v.seat, v.code) for v in report.violations] == [
        (len(records) - 1, None, ViolationCode.LOG_UNREADABLE_EVENT)]
    assert report.claims == []


@pytest.mark.parametrize("name", ["revoke.gleeklog", "false-ruff.gleeklog"])
def test_a_newer_record_cannot_hide_what_the_records_before_prove(name: str) -> None:
    # A cheater's own copy of the log with one record made "version 3" (signed or
    # not): it reads as that copy cut there plus an altered record, never as a
    # newer program's log, so what the records before it prove still stands.
    records, _offset, _size = read_log_file(VECTORS / name)

    def named(report: VerifyReport) -> list[tuple[int | None, int | None, object]]:
        return [(v.seq, v.seat, v.code) for v in report.violations if v.seat is not None]

    proven = named(verify_records(records))
    assert proven
    for where in (1, proven[0][0] + 1, len(records) - 1):
        tampered = [*records[:where], _as_version(records[where], NEWER),
                    *records[where + 1:]]
        report = verify_records(tampered)
        assert report.readable and report.error_code is None, where
        assert report.judgement is Judgement.UNFAIR, where
        assert report.violations[-1].code is ViolationCode.LOG_UNREADABLE_EVENT
        assert named(report) == named(verify_records(records[:where])), where
    assert named(report) == proven  # the last record changed: the cheater is still named


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ["a newer program wrote it (log version 3; this program reads version 2): "
            "update this program to check it", "Verdict: UNREADABLE"]),
    ("fr", ["un programme plus récent l'a écrit (journal en version 3 ; ce programme lit "
            "la version 2) : mettez ce programme à jour pour le vérifier"]),
    ("it", ["l'ha scritto un programma più recente (registro in versione 3; questo "
            "programma legge la versione 2): aggiorna questo programma per verificarlo"]),
    ("pt", ["um programa mais novo o escreveu (registro na versão 3; este programa lê a "
            "versão 2): atualize este programa para verificá-lo"]),
    ("nl", ["een nieuwer programma heeft het geschreven (logversie 3; dit programma leest "
            "versie 2): werk dit programma bij om het te controleren"]),
])
def test_the_words_in_every_language(lang: str, words: list[str]) -> None:
    report = verify_records([_as_version(r, NEWER) for r in _records()])
    i18n.set_language(lang, {})
    text = text_report(report).replace("\u00a0", " ").replace("\u202f", " ")
    for word in words:
        assert word in text, (word, text)
    assert "Cat" not in text and "seat" not in text
