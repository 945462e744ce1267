"""What a peer says is shown inert: no control character reaches a screen or a report.

The attack: an abort whose reason carries escape sequences that clear the
screen and paint a fake "Verdict: FAIR" (or a newline that starts a fake
line of the report). Everywhere it is shown, in ``gleek verify``'s report,
in the replay transcript, in the console UI and in a bot's notes, it must
come out as visible, harmless text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from prepared import seated
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from gleek_p2p.base.text import printable
from gleek_p2p.log.store import LogStore
from gleek_p2p.session.peer import Outcome
from gleek_p2p.table.session import Table
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.report import json_report, text_report
from gleek_p2p.ui.app import HumanPlayer, end_lines

PAINT = "\x1b[2J\x1b[H\x1b[32mVerdict: FAIR\x1b[0m\r\n\x9b2JVerdict: FAIR\u202e\x07\x00"


def unsafe(text: str) -> bool:
    return any((ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F
               or c in "\u202e\u2028" for c in text)


def aborted(reason: str) -> list[Table]:
    tables = seated(b"paint")
    abort = tables[1].abort_event(2, reason)
    for table in tables:
        table.receive(abort)
    return tables


@given(st.text())
def test_printable_leaves_nothing_unsafe_and_plain_text_alone(text: str) -> None:
    out = printable(text)
    assert not unsafe(out) and "\n" not in out
    if text.isprintable():
        assert out == text


def test_printable_shows_what_it_replaced() -> None:
    assert printable("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert printable("\x9b\u202e") == "\\x9b\\u202e"
    assert printable("line\nnext", keep_newlines=True) == "line\nnext"
    assert printable("Bob ♠ ½ café") == "Bob ♠ ½ café"


def test_the_verify_report_shows_a_painted_reason_inert() -> None:
    tables = aborted(PAINT)
    report = verify_records(tables[0].encoded)
    text = text_report(report)
    assert not unsafe(text)
    assert "\\x1b[2J" in text
    # One line carries the whole reason: no line of the report starts with the fake verdict.
    assert not any(line.startswith("Verdict: FAIR") for line in text.splitlines())
    assert any(line.startswith("Verdict: STOPPED") for line in text.splitlines())
    # JSON escapes on its own; the reason is kept as signed, for tools.
    data = json.dumps(json_report(report))
    assert "\x1b" not in data and json.loads(data)["claims"][-1]["reason"].endswith(
        PAINT[:300])


def test_the_console_shows_a_painted_reason_inert() -> None:
    tables = aborted(PAINT)
    with create_pipe_input() as inp:
        human = HumanPlayer(input=inp, output=DummyOutput())
        human.update(tables[0], (), f"ending the session: {PAINT}")
        lines = end_lines(tables[0], Outcome(False, True, f"aborted: {PAINT}", 13), "/tmp/x")
        human.show_end(lines)
        text = human.screen.dump(width=200, height=60)
    assert not unsafe(text)
    assert "\\x1b[2J" in text


def test_replay_prints_a_painted_reason_inert(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from gleek_p2p.cli.gleek import main

    tables = aborted(PAINT)
    path = tmp_path / "painted.gleeklog"
    with LogStore.open(path) as store:
        for record in tables[0].encoded:
            store.append(record)
    main(["verify", "--no-progress", str(path)])
    main(["replay", str(path)])  # no terminal: the transcript
    out = capsys.readouterr()
    assert not unsafe(out.out) and not unsafe(out.err)
    assert "\\x1b[2J" in out.out


def test_a_bots_notes_are_inert(capsys: pytest.CaptureFixture[str]) -> None:
    from gleek_p2p.session.play import say

    say(f"Bob said: {PAINT}")
    assert not unsafe(capsys.readouterr().err.rstrip("\n"))
