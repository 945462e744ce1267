"""The console table headless: a scripted human plays whole hands against two bots.

Keys go in through prompt_toolkit's pipe input, the screen goes to a
``DummyOutput`` (and is read back with ``TableScreen.dump``); the three seats
run the real table protocol over an in-memory mesh, and every log verifies.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from prepared import seated
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.base.seat_names import distinct_names
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.keys import fingerprint
from gleek_p2p.log.store import LogStore
from gleek_p2p.rules import (
    Bid,
    NameTrump,
    PassBid,
    PassRuff,
    Play,
    See,
    Variant,
    Vie,
    max_bid,
)
from gleek_p2p.session.notes import Note, Severity
from gleek_p2p.session.peer import BotPlayer, MemoryMesh, Outcome, Player, SessionRunner
from gleek_p2p.table.session import Table
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import make_seats
from gleek_p2p.ui.app import HumanPlayer, UserQuit, end_lines, run_with_ui
from gleek_p2p.ui.choices import FAR_ABOVE, Chooser

RIGHT = "\x1b[C"
ENTER = "\r"


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp:
        yield inp


def _keys_for(chooser: Chooser, bid: str) -> str:
    """What the scripted human types for a decision."""
    first = chooser.options[0].event
    if isinstance(first, Bid | PassBid):
        low = min(o.number for o in chooser.options if o.number is not None)
        far = bid.isdigit() and int(bid) >= low + FAR_ABOVE
        return bid + ENTER + (ENTER if far else "")  # a far bid is confirmed once
    if isinstance(first, Vie | See | PassRuff):
        return "1" + ENTER
    if isinstance(first, NameTrump):
        return "h" + ENTER
    if isinstance(first, Play):
        return RIGHT + ENTER
    if chooser.picks:  # the discard: mark that many cards, then confirm once
        return (" " + RIGHT) * chooser.picks + ENTER
    return ENTER  # shows, declares and Tiddy: the cursor's default


class Table3:
    """Three runners over a memory mesh: seat 0 a HumanPlayer, seats 1-2 random bots."""

    def __init__(self, tmp: Path, inp: PipeInput, seed: bytes, hands: int = 1) -> None:
        self.tables = make_seats(Variant(), hands, seed, ["you", "Bob", "Carol"])
        meshes = MemoryMesh.create(3)
        self.stores = [LogStore.open(tmp / f"seat{i}.log") for i in range(3)]
        self.human = HumanPlayer(input=inp, output=DummyOutput())
        players: list[Player] = [self.human, BotPlayer(RandomStrategy(1)),
                                 BotPlayer(RandomStrategy(2))]
        self.runners = [SessionRunner(t, s, m, p, timeout=20)
                        for t, s, m, p in zip(self.tables, self.stores, meshes, players,
                                              strict=True)]
        self.screens: dict[str, str] = {}

    async def drive(self, inp: PipeInput, keys: Callable[[Chooser], str]) -> None:
        """Answer every decision with ``keys``; close the end box; keep one screen per kind."""
        human = self.human
        while True:
            await asyncio.sleep(0.002)
            if human.screen.overlay == "panel":
                self.screens.setdefault("summary", human.screen.dump())
                inp.send_text("x")
                while human.screen.overlay == "panel":
                    await asyncio.sleep(0.002)
                continue
            if human.finished:
                self.screens["end"] = human.screen.dump()
                inp.send_text("x")
                return
            chooser = human.chooser
            if chooser is not None:
                kind = type(chooser.options[0].event).__name__
                self.screens.setdefault(kind, human.screen.dump())
                inp.send_text(keys(chooser))
                while human.chooser is chooser:
                    await asyncio.sleep(0.002)

    def close(self) -> None:
        for store in self.stores:
            store.close()


async def _play(tmp: Path, inp: PipeInput, seed: bytes, bid: str,
                first: Callable[[Table3], Awaitable[None]] | None = None,
                ) -> tuple[Table3, Outcome]:
    t = Table3(tmp, inp, seed)
    bots = [asyncio.ensure_future(r.run()) for r in t.runners[1:]]

    async def script() -> None:
        if first is not None:
            await first(t)  # at the first decision, before any key answers it
        await t.drive(inp, lambda c: _keys_for(c, bid))

    driver = asyncio.ensure_future(script())
    outcome = await asyncio.wait_for(
        run_with_ui(t.runners[0], t.human, log_path=t.stores[0].path), 60)
    await asyncio.wait_for(asyncio.gather(*bots, driver), 20)
    return t, outcome


async def test_a_scripted_human_plays_a_full_hand_and_the_log_verifies(
    tmp_path: Path, pipe: PipeInput
) -> None:
    """The help overlay opened at the first decision plays no move; then the hand is played
    out (one hand proves both: the help's own session was a second whole hand)."""

    async def help_first(t: Table3) -> None:
        while t.human.chooser is None:
            await asyncio.sleep(0.002)
        chooser = t.human.chooser
        pipe.send_text("?")
        await asyncio.sleep(0.05)
        assert "Keys" in t.human.screen.dump() and "Enter" in t.human.screen.dump()
        pipe.send_text(ENTER)  # closes the help only
        await asyncio.sleep(0.05)
        assert t.human.chooser is chooser and t.human.screen.overlay is None

    t, outcome = await _play(tmp_path, pipe, b"ui-seed-1", bid="p", first=help_first)
    try:
        assert outcome.finished and not outcome.aborted
        for store in t.stores:
            report = verify_records(store.records)
            assert report.fair, report.violations
        log = "\n".join(text for _style, text in t.human.screen.log)
        assert "You pass." in log
        assert "You play" in log and "Hand 1 is over" in log
        assert "Play" in t.screens and "PassBid" in t.screens
        end = t.screens["end"]
        assert "The session is over." in end and "Totals after 1 hand" in end
        assert str(t.stores[0].path)[:20] in end
        final = t.tables[0].hands[-1].state
        assert final.totals == t.tables[1].hands[-1].state.totals
    finally:
        t.close()


async def test_the_human_wins_the_talon_discards_by_keys_and_names_trump(
    tmp_path: Path, pipe: PipeInput
) -> None:
    for seed in (b"ui-seed-2", b"ui-seed-3", b"ui-seed-4", b"ui-seed-5"):
        sub = tmp_path / seed.decode()
        sub.mkdir()
        top = max_bid(Variant())  # the open auction's bound: three digits typed
        t, outcome = await _play(sub, pipe, seed, bid=str(top))
        try:
            log = "\n".join(text for _style, text in t.human.screen.log)
            if f"You bid {top}." not in log or "You take the talon" not in log:
                continue
            assert outcome.finished
            # The discards are one line, told again as each card goes: it ends
            # naming all seven.
            told = [text for text in log.split("\n") if text.startswith("You discard")]
            total = Variant().discard_count
            assert len(told) == 1 and f"({total} of {total})" in told[0]
            assert len(told[0].split("(")[0].split()) == 2 + total  # "You discard" + 7 cards
            assert "Discard" in t.screens
            # The whole hand of 20 is drawn (two rows), the talon's cards marked t.
            discard = t.screens["Discard"]
            hand = discard.split("\n")[10:14]
            assert "…" not in "".join(hand) and "Mark 7 cards" in discard
            assert sum(line.count("t") for line in discard.split("\n")
                       if line.startswith(("t: talon", "        "))) >= 8
            if "NameTrump" in t.screens:
                assert "You name hearts ♥ trump." in log
            assert verify_records(t.stores[0].records).fair
            return
        finally:
            t.close()
    pytest.skip("a bot bid the bound first in every seeded deal")


async def test_leaving_mid_hand_raises_user_quit(tmp_path: Path, pipe: PipeInput) -> None:
    t = Table3(tmp_path, pipe, b"ui-seed-quit")
    bots = [asyncio.ensure_future(r.run()) for r in t.runners[1:]]

    async def leave() -> None:
        while t.human.chooser is None:
            await asyncio.sleep(0.002)
        pipe.send_text("q")
        await asyncio.sleep(0.05)
        assert "Leave the table?" in t.human.screen.dump()
        pipe.send_text("y")

    driver = asyncio.ensure_future(leave())
    ended: list[str] = []

    async def session() -> Outcome:
        try:
            return await t.runners[0].run()
        except asyncio.CancelledError:
            ended.append("cancelled")  # the shell then says goodbye as a leaver
            raise
        except BaseException as exc:
            ended.append(f"failed: {exc!r}")
            raise

    try:
        with pytest.raises(UserQuit):
            await asyncio.wait_for(t.human.run_alongside(session()), 30)
        await driver
        assert t.human.quit_requested.is_set()
        assert not t.tables[0].finished
        # Leaving while a decision waits cancels the session; it is not an error.
        assert ended == ["cancelled"]
    finally:
        for bot in bots:
            bot.cancel()
        await asyncio.gather(*bots, return_exceptions=True)
        t.close()


async def test_a_network_error_is_a_sentence_then_reraised(pipe: PipeInput) -> None:
    human = HumanPlayer(input=pipe, output=DummyOutput())

    async def failing() -> Outcome:
        await asyncio.sleep(0.01)
        raise ProtocolError("the connection to Bob was lost")

    async def close_box() -> None:
        while not human.finished:
            await asyncio.sleep(0.002)
        text = human.screen.dump()
        assert "The session stopped: the connection to Bob was lost" in text
        assert "Traceback" not in text
        pipe.send_text("x")

    closer = asyncio.ensure_future(close_box())
    with pytest.raises(ProtocolError):
        await asyncio.wait_for(human.run_alongside(failing()), 10)
    await closer


def test_notes_and_the_waiting_line() -> None:
    tables = make_seats(Variant(), 1, b"ui-notes", ["you", "Bob", "Carol"])
    with create_pipe_input() as inp:
        human = HumanPlayer(input=inp, output=DummyOutput())
        roster_event = tables[0].roster_event()
        for table in tables:
            table.receive(roster_event)
        # Bad news is marked so where it is made (the session runner), not guessed from words.
        human.update(tables[0], (), Note("Bob did not send the cut within 120 s",
                                         Severity.BAD_NEWS))
        human.update(tables[0], (), "Carol joined, key ab:cd")
        styles = dict((text, style) for style, text in human.screen.log)
        assert styles["Bob did not send the cut within 120 s"] == "class:error"
        assert styles["Carol joined, key ab:cd"] == "class:note"
        text = human.screen.dump()
        assert "waiting for you" not in text
        assert "Carol joined" in text


def _started() -> list[Table]:
    """Three seats 12 events in: the roster, cut commits and reveals, the start of the
    shuffle (built once per run, a copy for each test)."""
    return seated(b"ui-end-box")


def test_the_end_box_tells_an_abort_as_its_signers_words() -> None:
    tables = _started()
    lead = tables[0]
    abort = tables[1].abort_event(2, "Carol did not send the lock step within 120 s")
    for table in tables:
        table.receive(abort)
    lines = end_lines(lead, Outcome(False, True, "Bob ended the session: Carol did not send "
                                            "the lock step within 120 s", 13), "/tmp/x.log")
    text = "\n".join(t for _s, t in lines)
    # Bob's words, not a verdict: the box never says anyone is to blame.
    assert "Bob ended the session: Carol did not send the lock step" in text
    assert "blaming" not in text
    assert "gleek verify" in text and ("class:path", "/tmp/x.log") in lines
    assert "fair" not in text


def test_the_end_box_says_who_left() -> None:
    tables = _started()
    leave = tables[2].leave_event()
    for table in tables:
        table.receive(leave)
    text = "\n".join(t for _s, t in end_lines(tables[0], Outcome(False, True, "x", 13)))
    assert "Carol left the table." in text and "blaming" not in text
    mine = "\n".join(t for _s, t in end_lines(tables[2], Outcome(False, True, "x", 13)))
    assert "You left the table." in mine


def test_two_seats_with_one_name_are_told_apart_by_their_keys() -> None:
    """Two friends both called Bob: every sentence and column named them alike."""
    tables = seated(b"ui-same-names", ("Ann", "Bob", "Bob"))
    prints = [fingerprint(p) for p in tables[0].roster.publics]
    first, second = f"Bob {prints[1][:4]}", f"Bob {prints[2][:4]}"
    with create_pipe_input() as inp:
        human = HumanPlayer(input=inp, output=DummyOutput())
        human.update(tables[0], (), None)
        assert human.names == ("Ann", first, second)
    leave = tables[2].leave_event()
    for table in tables:
        table.receive(leave)
    text = "\n".join(t for _s, t in end_lines(tables[0], Outcome(False, True, "x", 13)))
    assert f"{second} left the table." in text


def test_a_name_made_to_look_like_another_seats_label_is_still_told_apart() -> None:
    publics = [bytes([n]) * 32 for n in range(3)]
    prints = [fingerprint(p) for p in publics]
    mimic = f"Bob {prints[1][:4]}"
    labels = distinct_names(["Bob", "Bob", mimic], prints)
    assert len(set(labels)) == 3 and labels[2] == mimic
    assert distinct_names(["Ann", "Bob", "Cat"], prints) == ("Ann", "Bob", "Cat")
