"""``gleek results`` against logs made to count what did not happen (SPEC 4.6).

A roster other players never signed in, one session given as several logs,
and a session one log proves unfair while another reads fair: each is left
out (or counted once), saying why, in every language.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from adversary import splits
from prepared import once, verify_each_log_once

from gleek_p2p.base import i18n
from gleek_p2p.cli.gleek import main
from gleek_p2p.log.keys import Identity, fingerprint
from gleek_p2p.log.store import LogStore
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table import events as ev
from gleek_p2p.table.drive import run
from gleek_p2p.table.roster import Roster
from gleek_p2p.table.session import Table
from gleek_p2p.table.verify import Judgement, verify_records
from gleek_p2p.tools.results import evening, session_result
from gleek_p2p.tools.selfplay import make_seats

ANN, BEN, MALLORY = (Identity.generate(bytes([i]) * 32) for i in (11, 12, 13))


@pytest.fixture(scope="module", autouse=True)
def _each_log_verified_once() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        verify_each_log_once(patch)
        yield


def write(folder: Path, name: str, records: Sequence[bytes]) -> Path:
    path = folder / f"{name}.gleeklog"
    with LogStore.open(path) as store:
        for record in records:
            store.append(record)
    return path


@pytest.fixture
def english() -> Iterator[None]:
    i18n.set_language("en", {})
    yield
    i18n.set_language("en", {})


def forged_roster(end: str) -> list[bytes]:
    """Mallory's own roster, with Ann's and Ben's public keys under names of her
    choosing, ended at once by her own signed word: a fair log of no hand."""
    roster = Roster(VARIANTS["standard"], 1, (MALLORY.public, ANN.public, BEN.public),
                    ("Mallory", "Ann the cheat", "Ben"), b"\x05" * 16)
    table = Table(roster, 0, MALLORY, b"\x06" * 32)
    first = table.roster_event()
    table.receive(first)
    last = (table.leave_event() if end == ev.LEAVE else
            table.abort_event(None, "my peer failed", cause=ev.LOCAL_FAILURE))
    return [first.encode(), last.encode()]


@pytest.mark.parametrize("end", [ev.LEAVE, ev.LOCAL_FAILURE])
def test_a_roster_the_other_players_never_signed_in_does_not_count(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], english: None, end: str) -> None:
    records = forged_roster(end)
    report = verify_records(records)
    # What verify says is true: Mallory ended her own session at event 1.
    assert report.judgement is Judgement.FAIR and report.ending is not None
    assert report.ending.seat == 0 and report.ending.seq == 1
    path = write(tmp_path, "forged", records)
    assert main(["results", str(path), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["players"] == [] and data["running"] == []
    assert not data["sessions"][0]["counted"]
    assert "never signed" in data["sessions"][0]["why_not"]
    assert main(["results", str(path)]) == 1
    text = capsys.readouterr().out
    assert "0 counted" in text and "Ann the cheat" not in text.split("Left out")[0]


def one_session(seed: bytes) -> list[bytes]:
    tables = make_seats(VARIANTS["standard"], 1, seed, ("Ann", "Ben", "Cat"))
    from gleek_p2p.bots.strategy import RandomStrategy, choose_now

    bots = [RandomStrategy(seed + bytes([s])) for s in range(3)]
    return run(tables, lambda d: choose_now(bots[d.seat], d.view, d.legal))


def test_one_session_in_several_logs_counts_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], english: None) -> None:
    records = one_session(b"counted-once")
    totals = verify_records(records).hands[-1].state.totals
    # The three seats' logs (byte-identical) and a copy under another name.
    paths = [write(tmp_path, name, records) for name in ("anne", "ben", "cat", "copy")]
    assert main(["results", *map(str, paths), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["counted"] for s in data["sessions"]].count(True) == 1
    assert sorted(p["total"] for p in data["players"]) == sorted(totals)
    assert all(p["sessions"] == 1 and p["hands"] == 1 for p in data["players"])
    assert all("same session as" in s["why_not"] for s in data["sessions"] if not s["counted"])


def test_of_two_fair_logs_of_one_session_the_longer_counts(tmp_path: Path) -> None:
    # The honest crossing: Cat took Ben's leave at p, Anne her own event there and
    # then the abort of cause "left". Both fair; one session.
    honest = splits.split(splits.leave, b"results-crossing")
    from gleek_p2p.log.envelope import decode_envelope

    leave = decode_envelope(honest.cat[honest.at])
    third = make_seats(VARIANTS["standard"], 2, b"results-crossing", splits.NAMES)[splits.CAT]
    anne = honest.anne[: honest.at + 1]
    for record in anne:
        third.receive(decode_envelope(record), record)
    anne_log = [*anne, third.abort_event(None, "left", (leave.encode(),), cause=ev.LEFT).encode()]
    results = [session_result(write(tmp_path, name, log), verify_records(log))
               for name, log in (("cat", honest.cat), ("anne", anne_log))]
    assert all(r.counted for r in results)
    night = evening(results)
    counted = [s for s in night.sessions if s.counted]
    assert len(counted) == 1 and all(p.sessions == 1 for p in night.players)
    assert counted[0].hands == max(r.hands for r in results)


@once
def lied_split() -> splits.Split:
    """Ben left toward Cat and played on toward Anne (built once; each caller gets a copy)."""
    return splits.split(splits.leave, b"results-lied")


def test_a_session_one_log_proves_unfair_counts_in_none(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], english: None) -> None:
    # Ben left toward Cat and played on toward Anne: Cat's log reads fair, Anne's
    # proves it. Given both, the session is left out of every total.
    lied = lied_split()
    cat = write(tmp_path, "cat", lied.cat)
    anne = write(tmp_path, "anne", lied.anne)
    assert main(["results", str(cat), "--json"]) == 0  # alone, it reads fair
    capsys.readouterr()
    assert main(["results", str(cat), str(anne), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["players"] == [] and not any(s["counted"] for s in data["sessions"])
    why = {Path(s["file"]).name: s["why_not"] for s in data["sessions"]}
    assert "anne.gleeklog" in why["cat.gleeklog"]
    # A damaged copy blames no seat: it leaves the fair log counted.
    damaged = list(lied.cat)
    damaged[5] = damaged[5][:-1] + bytes([damaged[5][-1] ^ 1])
    broken = write(tmp_path, "broken", damaged)
    assert main(["results", str(cat), str(broken), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["counted"] for s in data["sessions"]].count(True) == 1


@pytest.fixture(scope="module")
def left_out(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], str]:
    """The arguments of a ``gleek results`` that leaves logs out for every reason, and
    what it prints in English (once: each language below is compared with it)."""
    folder = tmp_path_factory.mktemp("left-out")
    lied = lied_split()
    paths = [write(folder, "forged", forged_roster(ev.LEAVE)),
             write(folder, "cat", lied.cat), write(folder, "anne", lied.anne),
             write(folder, "copy", lied.anne)]
    records = one_session(b"results-words")
    paths += [write(folder, "one", records), write(folder, "two", records)]
    args = ["results", *map(str, paths)]
    i18n.set_language("en", {})
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    return args, out.getvalue()


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != "en"])
def test_why_a_log_is_left_out_in_every_language(
        left_out: tuple[list[str], str], capsys: pytest.CaptureFixture[str], lang: str,
        english: None) -> None:
    args, english_text = left_out
    assert main(["--lang", lang, *args]) == 0
    text = capsys.readouterr().out
    for words in ("never signed", "same session as", "a log of the same session"):
        assert words in english_text
        assert words not in text, (lang, words)
    for name in ("one.gleeklog", "anne.gleeklog"):
        assert text.count(name) == english_text.count(name) >= 1
    assert fingerprint(ANN.public) not in text
