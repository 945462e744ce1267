"""``gleek replay``: the steps rebuild the session exactly, views hide what they must."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from prompt_toolkit.input import DummyInput
from prompt_toolkit.output import DummyOutput
from vector_reports import VECTORS

from gleek_p2p.base.violation_codes import ViolationCode
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.envelope import Envelope
from gleek_p2p.log.store import LogStore, read_log_file
from gleek_p2p.rules import Deal, Event, Phase, Variant, card_label, shown_slots
from gleek_p2p.table.session import Table
from gleek_p2p.tools.selfplay import selfplay
from gleek_p2p.ui.replay import Replay, ReplayScreen, mask_state, run_replay


@pytest.fixture(scope="module")
def session() -> list[bytes]:
    strategies = [RandomStrategy(i) for i in range(3)]
    return selfplay(Variant(), 2, b"replay-seed", strategies).records


@pytest.fixture(scope="module")
def replay(session: list[bytes]) -> Replay:
    return Replay.load(session)


def test_steps_rebuild_every_hand_exactly(replay: Replay) -> None:
    assert replay.report.fair
    starts = replay.hand_starts()
    assert len(starts) == 2
    ends = [replay.steps[i - 1].after for i in starts[1:]] + [replay.steps[-1].after]
    for record, state in zip(replay.report.hands, ends, strict=True):
        assert state.ledgers == record.state.ledgers
        assert state.totals == record.state.totals
    assert replay.steps[-1].after.phase is Phase.SESSION_OVER
    # Every step's "before" is the previous step's "after": nothing is skipped.
    for a, b in zip(replay.steps, replay.steps[1:], strict=False):
        assert a.after is b.before


def test_all_cards_after_the_deal_and_masked_views(replay: Replay) -> None:
    starts = replay.hand_starts()
    deal = starts[0]
    full = replay.state(deal, None)
    # Deck v2 keeps the discards (and an untaken talon) secret: every other card is known.
    end = replay.steps[starts[1] - 1].after
    secret = set(end.discards) | (set(end.talon) if end.talon_taker < 0 else set())
    assert {x for x, c in enumerate(full.cards) if c < 0} <= secret
    for seat in range(3):
        seen = replay.state(deal, seat)
        for other in range(3):
            for slot in full.holding[other]:
                if full.cards[slot] >= 0:
                    assert (seen.cards[slot] >= 0) == (other == seat)
    last = replay.steps[-1].after
    masked = mask_state(last, 1)
    for slot in shown_slots(last):
        assert masked.cards[slot] == last.cards[slot]


def test_transcript_for_a_seat_does_not_leak_discards(replay: Replay) -> None:
    taker = next((s.after.talon_taker for s in replay.steps if s.after.talon_taker >= 0), None)
    if taker is None:
        pytest.skip("the talon was dead in both hands")
    other = (taker + 1) % 3
    mine = "\n".join(replay.transcript(taker))
    theirs = "\n".join(replay.transcript(other))
    name = replay.roster.names[taker]
    assert f"{name} discards" in mine and "You discard" not in mine
    assert "cards face down" in theirs
    assert theirs.startswith("The log verifies")


def test_the_screen_steps_forward_back_and_by_hand(replay: Replay) -> None:
    view = ReplayScreen(replay, None, input=DummyInput(), output=DummyOutput())
    screen = view.screen
    assert "step 1/" in screen.dump()
    view.press("right")
    view.press("right")
    assert view.index == 2
    view.press("left")
    assert view.index == 1
    view.press("home")
    starts = replay.hand_starts()
    assert all(isinstance(replay.steps[i].event, Deal) for i in starts)
    view.press("pagedown")
    assert view.index == starts[0]
    view.press("pagedown")
    assert view.index == starts[1]
    view.press("pagedown")
    assert view.index == len(replay.steps) - 1
    view.press("pageup")
    assert view.index == starts[1]
    view.press("pageup")
    assert view.index == starts[0]
    view.press("end")
    text = " ".join(screen.dump().split())  # a sentence may wrap anywhere in the log
    assert "session over" in text and "The session is over" in text
    view.press("home")
    assert view.index == 0
    # All cards: every seat's hand row; a seat's view: one hand with worth.
    view.press("pagedown")
    assert sum(1 for name in replay.roster.names if name[:6] in screen.dump()) == 3
    full = replay.state(view.index, None)
    for slot in full.holding[2]:
        assert card_label(full.cards[slot]) in screen.dump()
    view.press("v")
    assert view.viewer == 0 and "worth" in screen.dump()
    view.press("2")
    assert view.viewer == 2
    view.press("a")
    assert view.viewer is None


def test_run_replay_without_a_terminal_prints_the_transcript(
    session: list[bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.log"
    with LogStore.open(path) as store:
        for record in session:
            store.append(record)
    assert run_replay(argparse.Namespace(file=str(path), seat=1)) == 0
    out = capsys.readouterr().out
    assert out.startswith("The log verifies")
    assert "Hand 2 is over" in out and "The session is over" in out
    assert run_replay(argparse.Namespace(file=str(path), seat=7)) == 2
    assert "no seat 7" in capsys.readouterr().err
    assert run_replay(argparse.Namespace(file=str(tmp_path / "nope.log"), seat=None)) == 2


def test_a_log_cut_short_replays_what_is_there(session: list[bytes]) -> None:
    cut = Replay.load(session[: len(session) // 2])
    assert not cut.report.fair
    assert cut.steps and "incomplete" in " ".join(cut.verdict())


def test_a_seats_view_calls_every_seat_by_its_name(replay: Replay) -> None:
    names = replay.roster.names
    for seat in range(3):
        lines = replay.transcript(seat)
        text = "\n".join(lines)
        assert "you " not in text.lower().replace("your ", "") or "you" in names
        assert any(line.startswith(f"{names[seat]} ") for line in lines)
        screen = ReplayScreen(replay, seat, input=DummyInput(), output=DummyOutput(), color=False)
        screen.press("end")
        for _ in range(30):  # back into the last tricks: every row by name
            screen.press("left")
        dump = screen.screen.dump(80, 24)
        rows = dump.split("\n")[1:4]
        for name in names:
            assert sum(name[:8] in row for row in rows) == 1, dump
        assert not any(" you " in f" {row} " for row in rows), dump
        assert names[seat][:6] in dump.split("\n")[10]  # the hand row names its seat


def test_the_log_is_checked_once(session: list[bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    # Every record reaches a table once: the verifier's, whose engine events the
    # replay builds its steps from (no second observer table reading the log again).
    calls = []
    receive = Table.receive

    def counted(self: Table, envelope: Envelope, encoded: bytes | None = None) -> list[Event]:
        calls.append(envelope.seq)
        return receive(self, envelope, encoded)

    monkeypatch.setattr(Table, "receive", counted)
    again = Replay.load(session)
    assert calls == list(range(len(session)))
    assert again.report.fair and len(again.steps) > 0
    assert again.verdict()[0] == "The log verifies: every deal was fair and every move legal."


def test_an_altered_log_replays_up_to_where_the_verifier_stops() -> None:
    # Record 31 of this vector repeats event 30: the log was altered there, and the
    # replay shows nothing past it (the verifier took nothing after it).
    records, _good, _size = read_log_file(VECTORS / "duplicated.gleeklog")
    altered = Replay.load(records)
    assert [v.code for v in altered.report.violations] == [ViolationCode.LOG_MISPLACED_RECORD]
    assert altered.steps and max(s.record for s in altered.steps) < 31
    assert altered.report.events == 31
