"""``gleek watch`` on the table screen: the public table live, every hand face down.

The screen is fed the events of a real log as a watcher's observer table takes
them (``LiveLog``), and read back with ``TableScreen.dump``; then a watcher
follows three ``play_session`` peers on 127.0.0.1 with keys from a pipe:
``i`` shows the seats, ``q`` stops watching at once, the end box tells the
verdict and the log kept.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import DummyInput, PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_watch import _assert_players_fair, _config, _three

from gleek_p2p.base import i18n
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.keys import Identity, fingerprint
from gleek_p2p.rules import Phase, State, Variant
from gleek_p2p.session.watch import LiveLog, WatchResult, watch, watched_log
from gleek_p2p.table.verify import Judgement, verify_records
from gleek_p2p.tools.selfplay import selfplay
from gleek_p2p.ui.app import UserQuit
from gleek_p2p.ui.watching import WatcherScreen


@pytest.fixture(scope="module")
def session() -> list[bytes]:
    return list(selfplay(Variant(), 2, b"watch-screen", [RandomStrategy(i) for i in range(3)])
                .records)


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp:
        yield inp


def _feed(session: list[bytes], tmp: Path, upto: int | None = None, every: bool = True
          ) -> tuple[LiveLog, WatcherScreen, list[tuple[State, str]]]:
    """The screen fed ``session`` event by event; each state with the screen drawn then.

    ``every=False`` draws only after the last event, if its state is one drawn
    (a dump is most of the cost, and some tests read only the last).
    """
    live = LiveLog(tmp)
    screen = WatcherScreen(input=DummyInput(), output=DummyOutput())
    roster = verify_records(session[:1]).roster
    assert roster is not None
    drawn: list[tuple[State, str]] = []
    for record in session[:upto]:
        assert live.take(record, roster.publics[1])
        assert live.table is not None
        screen.follow(live.table, live.applied)
        screen.screen.close_panel()  # a hand's summary stays until a key: read the table
        state = live.table.state
        if every and state is not None and state.phase in _DRAWN:
            drawn.append((state, screen.screen.dump()))
    state = live.table.state if live.table is not None else None
    if not every and state is not None and state.phase in _DRAWN:
        drawn.append((state, screen.screen.dump()))
    return live, screen, drawn


_DRAWN = (Phase.DISCARD, Phase.RUFF, Phase.TRICKS)


def test_every_hand_shows_face_down_and_every_public_card_shows(
        session: list[bytes], tmp_path: Path) -> None:
    live, screen, drawn = _feed(session, tmp_path)
    assert live.finished and len(drawn) > 50
    names = live.table.roster.names if live.table else ()
    for state, dump in drawn:
        lines = dump.split("\n")
        assert lines[0].startswith(" Gleek, watching · hand ")
        # No hand of its own: no "Hand"/"worth" rows, a row of cards per seat instead.
        assert not any(line.startswith(("Hand ", "worth ")) for line in lines)
        for seat, name in enumerate(names):
            row = next(line for line in lines[10:14] if line.startswith(name))
            cells = row[8:].split()
            # A row too short for every back counts them: ??×18.
            backs = sum(int(c[3:]) if c.startswith("??×") else c == "??" for c in cells)
            held = state.holding[seat]
            known = [c for c in cells if not c.startswith("??")]
            assert len(known) + backs == len(held), (row, held)
            # A card shows only once public (shown in the ruff, declared, ...): the rest
            # are backs, exactly as many as the cards the observer cannot see.
            assert backs == sum(1 for x in held if state.cards[x] < 0), row
            assert f"{len(held):>2} card" in dump
        # The talon and the discards are told face down, never as unknown cards.
        assert "never opened" not in dump
        if state.discards:
            taker = names[state.talon_taker]
            assert re.search(rf"Discard +{taker} discarded {len(state.discards)}\b", dump), dump
        assert lines[-1].startswith(" watching: waiting for ") or "session is over" in dump
    # The narration names every seat (nobody is "you").
    assert not any(text.startswith("You ") for _style, text in screen.screen.log)


def test_a_watchers_keys_show_seats_and_history_and_decide_nothing(
        session: list[bytes], tmp_path: Path) -> None:
    live, screen, _drawn = _feed(session, tmp_path, upto=120, every=False)
    table = live.table
    assert table is not None
    before = screen.screen.dump()
    screen.screen.press("right")
    screen.screen.press("enter")
    assert screen.screen.dump() == before and screen.chooser is None
    assert not any(style == "class:hint" for style, _text in screen.screen.log)
    screen.screen.press("i")
    seats = screen.screen.dump()
    for public in table.roster.publics:
        assert fingerprint(public) in seats
    assert "(you)" not in seats
    screen.screen.press("x")
    screen.screen.press("?")
    shown = screen.screen.dump()
    assert "q          stop watching" in shown and "face down (??)" in shown
    screen.screen.press("x")
    screen.screen.press("q")  # no question: a watcher leaves at once
    assert screen.quit_requested.is_set() and screen.screen.overlay is None


async def test_a_watcher_on_screen_follows_a_live_table_and_one_leaves_with_q(
        tmp_path: Path, pipe: PipeInput) -> None:
    go, at_hand_2, notes = asyncio.Event(), asyncio.Event(), []
    ports, game = await _three(tmp_path, "screen/2", go, at_hand_2, notes)
    await asyncio.wait_for(at_hand_2.wait(), 60)  # hand 1 is over; hand 2 waits
    with create_pipe_input() as quitting:
        leaver = WatcherScreen(input=quitting, output=DummyOutput())
        config = _config(tmp_path, "screen/2", ports[:1], name="quentin")
        kept = watched_log(config)
        left = asyncio.create_task(leaver.run_alongside(watch(
            Identity.generate(b"q" * 32), config, leaver.note, on_event=leaver.follow,
            live=kept)))
        await _until(lambda: leaver.table is not None and leaver.table.hands != [], 60)
        quitting.send_text("q")
        with pytest.raises(UserQuit):
            await asyncio.wait_for(left, 30)
    # What it kept so far is a log gleek verify reads: every event checks out, cut short.
    assert kept.path is not None and kept.records
    stopped = verify_records(kept.records)
    assert stopped.judgement is Judgement.STOPPED and len(stopped.hands) == 1
    follower = WatcherScreen(input=pipe, output=DummyOutput())
    following = asyncio.create_task(follower.run_alongside(watch(
        Identity.generate(b"f" * 32), _config(tmp_path, "screen/2", ports[1:2]),
        follower.note, on_event=follower.follow)))
    await _until(lambda: follower.table is not None and follower.table.hands != [], 60)
    pipe.send_text("x")  # closes hand 1's summary
    pipe.send_text("i")
    await _until(lambda: "Who is at the table" in follower.screen.dump(), 10)
    assert fingerprint(Identity.generate(bytes([1]) * 32).public) in follower.screen.dump()
    pipe.send_text("x")
    go.set()
    await _until(lambda: follower.finished, 90)
    pipe.send_text("x")  # closes hand 2's summary; the end box waited behind it
    await _until(lambda: "The end" in follower.screen.dump(80, 40), 10)
    end = follower.screen.dump(80, 40)
    assert "The end" in end and "Verdict: FAIR" in end and "Totals after 2 hands" in end, end
    pipe.send_text("x")
    result = await asyncio.wait_for(following, 30)
    assert isinstance(result, WatchResult) and result.path is not None
    log = _assert_players_fair(await asyncio.wait_for(game, 90))
    assert result.path.read_bytes() == log
    assert any("quentin" in n and "stopped watching" in n for n in notes)


async def _until(check: object, seconds: float) -> None:
    assert callable(check)
    async with asyncio.timeout(seconds):
        while not check():
            await asyncio.sleep(0.05)


def test_the_watcher_is_told_each_seat_handed_to_a_bot_and_taken_back(
        tmp_path: Path) -> None:
    from gleek_p2p.log.store import read_log_file

    vectors = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "sessions"
    records = read_log_file(vectors / "taken-back.gleeklog")[0]
    live, screen, _drawn = _feed(records, tmp_path)
    assert live.table is not None
    handover, retake = live.table.seat_changes
    told = [text for style, text in screen.screen.log if style == "class:note"]
    assert told == [
        f"From event {handover.seq}, Ben's seat was played by a bot (signed by Ben).",
        f"From event {retake.seq}, Ben took the seat back from the bot (signed by Ben)."]


WORDS = {
    "en": ("Gleek, watching", "watching: waiting for ", "stop watching"),
    "fr": ("Gleek, en spectateur", "spectateur\u00a0: on attend ", "cesser de regarder"),
    "it": ("Gleek, da spettatore", "spettatore: si aspetta ", "smetti di guardare"),
    "pt": ("Gleek, assistindo", "assistindo: esperando ", "parar de assistir"),
    "nl": ("Gleek, als toeschouwer", "toeschouwer: wachten op ", "stoppen met kijken"),
}


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_the_watchers_screen_in_every_language(
        lang: str, session: list[bytes], tmp_path: Path) -> None:
    # The screen draws a no-break space as a space.
    title, status, leave = (w.replace("\u00a0", " ") for w in WORDS[lang])
    i18n.set_language(lang, {})
    try:
        # The screen after the 84th event, drawn once: the last of the first 87 in
        # play (the tricks), the one the test read when every state was drawn
        # (deck v4: three events fewer than v3's, which locked).
        _live, screen, drawn = _feed(session, tmp_path, upto=84, every=False)
        assert drawn, "the 84th event's state is not one the test reads"
        dump = drawn[-1][1]
        assert dump.split("\n")[0].startswith(f" {title} · "), dump
        assert dump.split("\n")[-1].startswith(f" {status}"), dump
        screen.screen.press("?")
        assert leave in screen.screen.dump(80, 30)
    finally:
        i18n.set_language("en", {})
