"""``gleek results``: the evening's scores add up the verified sessions, and only those."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from prepared import verify_each_log_once

from gleek_p2p.base import i18n
from gleek_p2p.bots.registry import make_strategy
from gleek_p2p.bots.strategy import choose_now
from gleek_p2p.cli.gleek import main
from gleek_p2p.log.keys import Identity, fingerprint
from gleek_p2p.log.store import LogStore
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table.drive import run
from gleek_p2p.table.roster import Roster
from gleek_p2p.table.session import Table
from gleek_p2p.table.verify import verify_records

KEYS = {name: Identity.generate(bytes([i + 1]) * 32)
        for i, name in enumerate(("ann", "ben", "cat", "dan"))}


@pytest.fixture(scope="module", autouse=True)
def _each_log_verified_once() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        verify_each_log_once(patch)
        yield


def play(seats: Sequence[tuple[str, str]], seed: int, hands: int = 1) -> list[bytes]:
    """A signed session between the given (key, name) pairs, random bots."""
    identities = [KEYS[key] for key, _name in seats]
    roster = Roster(VARIANTS["standard"], hands, tuple(i.public for i in identities),
                    tuple(name for _key, name in seats), bytes([seed]) * 16)
    tables = [Table(roster, s, identities[s], bytes([seed, s]) * 16) for s in range(3)]
    bots = [make_strategy("random", bytes([seed]), s) for s in range(3)]
    return run(tables, lambda d: choose_now(bots[d.seat], d.view, d.legal))


def write(path: Path, records: Sequence[bytes], mtime: int) -> Path:
    with LogStore.open(path) as store:
        for record in records:
            store.append(record)
    os.utime(path, (mtime, mtime))
    return path


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[bytes]]]:
    """Two fair sessions (ann plays under two names, seats change), one damaged, one junk."""
    folder = tmp_path_factory.mktemp("sessions")
    logs = {
        "first": play([("ann", "Ann"), ("ben", "Ben"), ("cat", "Cat")], 1, hands=2),
        "second": play([("cat", "Cat"), ("dan", "Dan"), ("ann", "Annie")], 2),
    }
    damaged = list(play([("ben", "Ben"), ("cat", "Cat"), ("dan", "Dan")], 3))
    # A move changed after signing: the signature no longer matches.
    middle = len(damaged) // 2
    record = bytearray(damaged[middle])
    record[-1] ^= 0x01
    damaged[middle] = bytes(record)
    logs["damaged"] = damaged
    write(folder / "a-first.gleeklog", logs["first"], 1_000)
    write(folder / "c-second.gleeklog", logs["second"], 3_000)
    write(folder / "b-damaged.gleeklog", damaged, 2_000)
    (folder / "d-junk.gleeklog").write_bytes(b"not a log at all")
    # A claim the log cannot prove: left out, and not called unfair.
    claim = Path(__file__).resolve().parent.parent / "protocol/vectors/sessions/claim-only.gleeklog"
    (folder / "e-claim.gleeklog").write_bytes(claim.read_bytes())
    os.utime(folder / "e-claim.gleeklog", (4_000, 4_000))
    return folder, logs


def totals_of(records: Sequence[bytes]) -> dict[bytes, int]:
    report = verify_records(records)
    assert report.fair
    assert report.roster is not None
    return dict(zip(report.roster.publics, report.hands[-1].state.totals, strict=True))


@pytest.fixture
def english() -> Iterator[None]:
    i18n.set_language("en", {})
    yield
    i18n.set_language("en", {})


def test_totals_are_the_sum_of_the_verified_sessions(
    evening: tuple[Path, dict[str, list[bytes]]], capsys: pytest.CaptureFixture[str],
    english: None,
) -> None:
    folder, logs = evening
    assert main(["results", str(folder), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [Path(s["file"]).name for s in data["sessions"]] == [
        "a-first.gleeklog", "b-damaged.gleeklog", "c-second.gleeklog", "e-claim.gleeklog",
        "d-junk.gleeklog"]  # oldest first; the junk file was written just now
    assert [s["counted"] for s in data["sessions"]] == [True, False, True, False, False]
    expected: dict[str, int] = {}
    for name in ("first", "second"):
        for public, total in totals_of(logs[name]).items():
            expected[fingerprint(public)] = expected.get(fingerprint(public), 0) + total
    got = {p["fingerprint"]: p["total"] for p in data["players"]}
    assert got == expected
    assert sum(got.values()) == 0  # every penny won was paid by someone at the table
    ann = next(p for p in data["players"] if p["fingerprint"] == fingerprint(KEYS["ann"].public))
    assert ann["names"] == ["Ann", "Annie"] and ann["sessions"] == 2 and ann["hands"] == 3
    ben = next(p for p in data["players"] if p["fingerprint"] == fingerprint(KEYS["ben"].public))
    assert ben["sessions"] == 1  # the damaged session he also sat in is not counted
    assert [p["total"] for p in data["players"]] == sorted(got.values(), reverse=True)
    wins = sum(p["wins"] for p in data["players"])
    assert wins == sum(s["winner"] is not None for s in data["sessions"] if s["counted"])
    # The chart's last point is each player's total.
    assert data["running"][-1] == [p["total"] for p in data["players"]]


@pytest.fixture(scope="module")
def evening_in_english(evening: tuple[Path, dict[str, list[bytes]]]) -> str:
    """What ``gleek results`` prints in English for the evening folder (run once: every
    language below is compared with it)."""
    import contextlib
    import io

    folder, _logs = evening
    i18n.set_language("en", {})
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["results", str(folder)]) == 0
    return out.getvalue()


def test_the_text_lists_players_by_key_and_what_was_left_out(evening_in_english: str) -> None:
    out = evening_in_english
    assert out.startswith("5 sessions read, 2 counted.")
    assert "Ann / Annie" in out and fingerprint(KEYS["ann"].public) in out
    assert "b-damaged.gleeklog: not fair: gleek verify found a violation" in out
    assert "d-junk.gleeklog: not a readable session log" in out
    assert ("e-claim.gleeklog: stopped on a claim the log cannot prove; nobody is blamed"
            in out)
    assert "Running totals after each session (pence):" in out
    assert "sessions; " in out  # the chart's axis is sessions, not hands


def test_the_data_folder_is_the_default(
    evening: tuple[Path, dict[str, list[bytes]]], capsys: pytest.CaptureFixture[str],
    tmp_path: Path, english: None,
) -> None:
    _folder, logs = evening
    (tmp_path / "sessions").mkdir()
    write(tmp_path / "sessions" / "x.gleeklog", logs["second"], 5_000)
    assert main(["results", "--data-dir", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["sessions"]) == 1 and data["sessions"][0]["counted"]


def test_nothing_to_count(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                          english: None) -> None:
    assert main(["results", str(tmp_path)]) == 1
    assert capsys.readouterr().out.strip() == "No session log found."
    assert main(["results", str(tmp_path / "missing")]) == 1
    assert "no such file or folder" in capsys.readouterr().err


def test_a_log_given_twice_counts_once(
    evening: tuple[Path, dict[str, list[bytes]]], capsys: pytest.CaptureFixture[str],
    english: None,
) -> None:
    folder, _logs = evening
    first = str(folder / "a-first.gleeklog")
    assert main(["results", first, first, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["sessions"]) == 1


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != "en"])
def test_the_evening_in_every_language(
    evening: tuple[Path, dict[str, list[bytes]]], evening_in_english: str,
    capsys: pytest.CaptureFixture[str], lang: str, english: None,
) -> None:
    folder, _logs = evening
    english_text = evening_in_english
    assert main(["--lang", lang, "results", str(folder)]) == 0
    text = capsys.readouterr().out
    # Same numbers, other words: every heading and reason is translated.
    for line in ("Left out of the totals:", "Running totals after each session (pence):",
                 "not fair: gleek verify found a violation", "not a readable session log"):
        assert line in english_text
        assert line not in text
    assert fingerprint(KEYS["ann"].public) in text
