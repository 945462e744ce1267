"""Issue 23: endings, link news, keys, card letters and the smaller wording, in every language.

Headless: the real layout drawn by ``TableScreen.dump``, prompt_toolkit with
a dummy input and output; the network tests bind 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from prompt_toolkit.input import DummyInput
from prompt_toolkit.output import DummyOutput

from gleek_p2p.base import i18n
from gleek_p2p.base.i18n import _, ngettext
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, Limits, LinkDown
from gleek_p2p.net.handshake import Offer
from gleek_p2p.net.messages import Bye, ByeCode
from gleek_p2p.rules import (
    Discard,
    PassRuff,
    Phase,
    See,
    Variant,
    Vie,
    apply,
    legal_actions,
    new_session,
    to_act,
)
from gleek_p2p.rules.simulate import random_session
from gleek_p2p.table.session import Table
from gleek_p2p.ui import render
from gleek_p2p.ui.app import HELP, HumanPlayer
from gleek_p2p.ui.choices import Chooser
from gleek_p2p.ui.narrate import narrate
from gleek_p2p.ui.panes.hand import _card_cells
from gleek_p2p.ui.render import Scene
from gleek_p2p.ui.replay import Replay, mask_state
from gleek_p2p.ui.words import card_label, tricks

LANGS = i18n.LANGUAGES
NAMES = ("Anne", "Thomas", "Mary")
ENGLISH = ("link", "the peer left", "goodbye", "is down", "closed the table")


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en", {})


def _human() -> HumanPlayer:
    human = HumanPlayer(input=DummyInput(), output=DummyOutput(), names=NAMES)
    human.seat = 0
    return human


def _moment(phase: Phase, busy: bool = True) -> Any:
    for seed in range(60):
        _final, events = random_session(Variant(), 2, random.Random(seed))
        s = new_session(Variant(), 2)
        for e in events:
            s = apply(s, e)
            ready = not busy or s.phase is not Phase.TRICKS or len(s.trick_plays) == 2
            if s.phase is phase and to_act(s) is not None and ready:
                return s
    raise AssertionError(phase)


# ---------------------------------------------------------------- 1, 2: link news


async def _closed_pair(bye: Bye | None) -> Connection:
    """The receiving end of a real 127.0.0.1 connection the other end closed (with ``bye``)."""
    accepted: asyncio.Queue[Any] = asyncio.Queue()

    async def on_accept(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await accepted.put((r, w))

    server = await asyncio.start_server(on_accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = await asyncio.open_connection("127.0.0.1", port)
    other = await accepted.get()
    hello = Offer(1, "oak/2", (), 3, "Thomas").hello(b"k" * 32, b"c" * 32, b"r" * 32)
    limits = Limits(read_timeout=5.0, write_timeout=2.0, ping_interval=None)
    a = Connection(*client, hello, dialled=True, limits=limits, channel=None)
    b = Connection(*other, hello, dialled=False, limits=limits, channel=None)
    if bye is not None:
        a.send(bye)
        await a.close("")
    else:
        a.writer.close()
    async for _message in b:
        pass
    server.close()
    return b


@pytest.mark.parametrize("lang", LANGS)
async def test_a_finished_session_reads_as_a_normal_ending(lang: str) -> None:
    """Item 2: a peer closing after the last hand says so, in words, in every language."""
    from gleek_p2p.session.link_words import link_down

    i18n.set_language(lang, {})
    conn = await _closed_pair(Bye("the session is over", ByeCode.SESSION_OVER))
    assert conn.close_why is LinkDown.PEER_BYE
    said = link_down("Thomas", conn)
    assert said == _("{name} closed the table after the last hand.").format(name="Thomas")
    if lang == "en":
        assert said == "Thomas closed the table after the last hand."
    else:
        assert not any(word in said for word in ENGLISH), said
    human = _human()
    human.note(said)
    assert said in " ".join(human.screen.dump(80, 24).split())


@pytest.mark.parametrize("lang", LANGS)
async def test_link_news_is_in_the_chosen_language(lang: str) -> None:
    """Item 1: no English from net/ reaches the screen for the usual ways a link goes."""
    from gleek_p2p.session.link_words import link_down

    i18n.set_language(lang, {})
    left = await _closed_pair(Bye("Thomas left the table", ByeCode.LEFT_THE_TABLE))
    gone = await _closed_pair(None)
    assert gone.close_why is LinkDown.PEER_CLOSED
    for conn in (left, gone):
        said = link_down("Thomas", conn)
        assert "Thomas" in said
        if lang != "en":
            assert not any(word in said for word in ENGLISH), said
    assert link_down("Thomas", left) == _("{name} left the table.").format(name="Thomas")


@pytest.mark.parametrize("lang", LANGS)
def test_the_end_box_path_pointer_is_translated(lang: str) -> None:
    from gleek_p2p.ui.screen import _fit_path

    i18n.set_language(lang, {})
    pointer = _fit_path("/x" * 80, 76)
    assert pointer == _("(too long for this box: it is printed when you leave)")
    assert (pointer.startswith("(too long")) == (lang == "en")


# ---------------------------------------------------------------- 5: LAN messages


def _offer(table: str, name: str = "Anne") -> Offer:
    return Offer(1, table, tuple(Variant().to_wire()), 3, name)


def test_different_hands_are_said_as_hands_from_the_readers_side() -> None:
    from gleek_p2p.session.link_words import mismatch

    theirs = _offer("mm/12", "Thomas").hello(b"k" * 32, b"c" * 32, b"r" * 32)
    said = mismatch(_offer("mm/1"), theirs)
    assert said == ("Thomas plays 12 hands, you asked for 1 (--hands): start with the same "
                    "--hands.")
    other = _offer("oak/1", "Thomas").hello(b"k" * 32, b"c" * 32, b"r" * 32)
    assert mismatch(_offer("mm/1"), other) == (
        "Thomas is at table 'oak', you asked for table 'mm' (--table).")
    assert mismatch(_offer("mm/1"), _offer("mm/1", "T").hello(b"k" * 32, b"c" * 32,
                                                               b"r" * 32)) is None


@pytest.mark.parametrize(("lang", "said"), [("en", "'lan' (2 hands)"), ("fr", "'lan' (2 manches)"),
                                           ("it", "'lan' (2 mani)"), ("pt", "'lan' (2 mãos)"),
                                           ("nl", "'lan' (2 handen)")])
def test_a_table_is_named_with_its_hands_in_words(lang: str, said: str) -> None:
    """The shell's 'lan/2' is never shown as a name: the hands are said as hands."""
    from gleek_p2p.session.link_words import table_words

    i18n.set_language(lang, {})
    assert table_words("lan/2") == said
    assert table_words("plain") == "'plain'"


async def _lobby(hands: int, peers: tuple[tuple[str, int], ...], notes: list[str]) -> Any:
    from gleek_p2p.session.lobby import Lobby, LobbyConfig

    identity = Identity.generate(os.urandom(32))
    config = LobbyConfig(name=f"P{hands}", table=f"mm/{hands}", variant=Variant(),
                         listen=("127.0.0.1", 0), peers=peers, dial_interval=0.2,
                         searching_note_after=60.0)
    lobby = Lobby(identity, config, notes=lambda text: notes.append(str(text)))
    await lobby.start()
    return lobby


async def test_peers_with_different_hands_are_told_the_hands() -> None:
    """Item 5: the dialler reads what differs, from its side, not a reversed table name."""
    told_a: list[str] = []
    told_b: list[str] = []
    a = await _lobby(12, (), told_a)
    b = await _lobby(1, (("127.0.0.1", a.port),), told_b)
    try:
        for _tick in range(100):
            if any("hands" in t for t in told_b):
                break
            await asyncio.sleep(0.05)
        said = [t for t in told_b if "hands" in t]
        assert said and "P12 plays 12 hands, you asked for 1 (--hands)" in said[0], told_b
        assert not any("you want table" in t for t in told_a + told_b)
    finally:
        await b.close()
        await a.close()


async def test_no_mdns_with_a_peer_says_it_dials_that_peer() -> None:
    told: list[str] = []
    lobby = await _lobby(2, (("127.0.0.1", 9),), told)
    try:
        sentence = lobby._searching_sentence()
        assert "dialling 127.0.0.1:9" in sentence
        assert "no --peer was given" not in sentence
    finally:
        await lobby.close()


# ---------------------------------------------------------------- 6: keys


def test_r_opens_the_rules_at_the_table() -> None:
    human = _human()
    state = _moment(Phase.TRICKS)
    human.screen.scene = Scene(state, NAMES, 0)
    human.screen.press("r")
    assert human.screen.overlay == "panel"
    assert human.screen.panel is not None and human.screen.panel.title == "The rules"
    assert "The key r does nothing" not in " ".join(t for _s, t in human.screen.log)


def test_the_help_says_a_hot_key_then_enter() -> None:
    line = next(h for h in HELP if h.startswith("s h d c"))
    assert "p pass" in line and "then Enter" in line


def test_q_leaves_the_replay_without_asking() -> None:
    from gleek_p2p.bots import RandomStrategy
    from gleek_p2p.tools.selfplay import selfplay
    from gleek_p2p.ui.replay import Replay, ReplayScreen

    strategies = [RandomStrategy(bytes([seat])) for seat in range(3)]
    replay = Replay.load(selfplay(Variant(), 1, b"q-replay", strategies).records)
    shown = ReplayScreen(replay, input=DummyInput(), output=DummyOutput())
    closed: list[bool] = []
    shown.screen.close = lambda: closed.append(True)  # type: ignore[method-assign]
    shown.screen.press("q")
    assert closed == [True] and shown.screen.overlay is None


@pytest.mark.parametrize("lang", LANGS)
def test_the_leave_question_shows_in_a_small_terminal(lang: str) -> None:
    i18n.set_language(lang, {})
    human = _human()
    human.screen.scene = Scene(_moment(Phase.TRICKS), NAMES, 0)
    human._state = human.screen.scene.state
    human.screen.press("q")
    text = " ".join(human.screen.dump(60, 20).split())
    assert human.screen.overlay == "leave"
    question = _("Leave the table? The others will be told and the session ends.")
    assert " ".join(question.split()) in text
    assert " ".join(_("y: leave   n or Esc: stay").split()) in text


# ---------------------------------------------------------------- 7: --lang after the command


def test_lang_after_the_command_is_accepted(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    from gleek_p2p.cli.gleek import build_parser, main

    assert build_parser().parse_args(["local", "--lang", "nl"]).lang == "nl"
    assert build_parser().parse_args(["--lang", "fr", "local"]).lang == "fr"
    assert main(["verify", str(tmp_path / "x"), "--lang", "fr"]) == 2
    assert "fichier introuvable" in capsys.readouterr().err


# ---------------------------------------------------------------- 8: card letters

LETTERS = {"en": "AKQJ", "fr": "ARDV", "it": "AKQJ", "pt": "AKQJ", "nl": "AHVB"}


@pytest.mark.parametrize("lang", LANGS)
def test_the_table_shows_each_texts_card_letters(lang: str) -> None:
    i18n.set_language(lang, {})
    assert [card_label(rank)[0] for rank in range(4)] == list(LETTERS[lang])
    assert card_label(4) == "10♠" and card_label(11 + 1)[0] == LETTERS[lang][1]
    state = _moment(Phase.TRICKS)
    seat = to_act(state)
    masked = mask_state(state, seat)
    human = _human()
    human.screen.scene = Scene(masked, NAMES, seat, Chooser(legal_actions(masked, seat),
                                                            masked, seat))
    hand = render.plain(render.hand_pane(human.screen.scene, 80))
    court = [masked.cards[x] for x in masked.holding[seat] if masked.cards[x] % 11 in (1, 2, 3)]
    for c in court:
        assert card_label(c) in hand
    others = set("KQJRDVHB") - set(LETTERS[lang])
    assert not any(f"{letter}{suit}" in hand for letter in others for suit in "♠♥♦♣")


# ---------------------------------------------------------------- 9: the smaller things

ZERO = {"en": ("0 cards", "0 tricks"), "fr": ("0 carte", "0 pli"), "it": ("0 carte", "0 prese"),
        "pt": ("0 cartas", "0 vazas"), "nl": ("0 kaarten", "0 slagen")}


@pytest.mark.parametrize("lang", LANGS)
def test_zero_cards_and_tricks(lang: str) -> None:
    i18n.set_language(lang, {})
    assert ngettext("{n} card", "{n} cards", 0).format(n=0) == ZERO[lang][0]
    assert tricks(0) == ZERO[lang][1]


def test_the_led_suit_prompt_in_italian() -> None:
    i18n.set_language("it", {})
    state = _moment(Phase.TRICKS)
    seat = to_act(state)
    prompt = Chooser(legal_actions(state, seat), state, seat).prompt
    assert prompt.startswith("Gioca una carta (uscita a ") and "di mano" not in prompt


@pytest.mark.parametrize("lang", LANGS)
def test_one_possible_raise_is_not_a_range(lang: str) -> None:
    i18n.set_language(lang, {})
    state = _moment(Phase.RUFF)
    seat = to_act(state)
    legal = legal_actions(state, seat)
    vies = sorted((e for e in legal if isinstance(e, Vie)), key=lambda e: e.raise_by)
    assert vies
    low = vies[0].raise_by
    one = [e for e in legal if isinstance(e, PassRuff | See)] + [vies[0]]
    prompt = Chooser(one, state, seat).prompt
    assert f"{low}-{low}" not in prompt and str(low) in prompt
    if len(vies) > 1:
        assert f"{low}-{vies[-1].raise_by}" in Chooser(legal, state, seat).prompt


def test_a_marked_talon_card_keeps_its_t_and_the_cursor() -> None:
    state = _moment(Phase.DISCARD, busy=False)
    seat = to_act(state)
    chooser = Chooser(legal_actions(state, seat), state, seat)
    index = next(i for i, o in enumerate(chooser.options) if o.slots[0] in state.talon)
    chooser.cursor = index
    chooser.press(" ")
    slot = chooser.options[index].slots[0]
    _cards, _worth, marks = _card_cells(state, [slot], chooser, 4)
    assert marks[0][1].strip() == "t^X"


@pytest.mark.parametrize("lang", LANGS)
def test_the_typed_amount_is_never_cut(lang: str) -> None:
    i18n.set_language(lang, {})
    for phase in (Phase.RUFF, Phase.AUCTION):
        state = _moment(phase)
        seat = to_act(state)
        chooser = Chooser(legal_actions(state, seat), state, seat)
        amount = max(o.number for o in chooser.options if o.number is not None)
        for digit in str(amount):
            chooser.press(digit)
        lines = render.choice_pane(Scene(state, NAMES, seat, chooser), 80)
        text = [render.plain([line]) for line in lines]
        hint = _("[typed {typed}, Enter commits it]").format(typed=amount)
        assert any(hint in line for line in text), text
        assert all(len(line) <= 80 and not line.endswith("…") for line in text), text


@pytest.mark.parametrize("lang", LANGS)
def test_the_status_line_words_the_shuffle_once(lang: str) -> None:
    from gleek_p2p.table import events as ev
    from gleek_p2p.table.drive import step
    from gleek_p2p.tools.selfplay import make_seats

    i18n.set_language(lang, {})
    tables = make_seats(Variant(), 1, b"i23-status", list(NAMES))
    human = _human()
    for _step in range(200):
        exp = tables[0].expected()
        assert exp is not None
        human.update(tables[1], (), None)
        if exp.kinds == (ev.SHUFFLE,) and exp.seat != 1:
            status = human._status_text()
            assert _("the shuffle (mixing the deck)") in status
            assert "shuffle step of the shuffle" not in status
            return
        step(tables, lambda decision: decision.legal[0])
    raise AssertionError("no shuffle step seen")


@pytest.mark.parametrize("lang", LANGS)
def test_the_discards_are_one_line_of_the_log(lang: str) -> None:
    i18n.set_language(lang, {})
    for seed in range(20):
        final, events = random_session(Variant(), 1, random.Random(seed))
        if any(isinstance(e, Discard) for e in events):
            break
    human = _human()
    roster = SimpleNamespace(names=NAMES, publics=[bytes([s]) * 32 for s in range(3)],
                             variant=Variant(), hands=1)
    table = SimpleNamespace(state=final, roster=roster, seat=0, finished=True,
                            expected=lambda: None)
    human.update(table, events, None)  # type: ignore[arg-type]
    discards = [i for i, e in enumerate(events) if isinstance(e, Discard)]
    s = new_session(Variant(), 1)
    said = []
    for i, e in enumerate(events):
        after = apply(s, e)
        if i in discards:
            said.append(narrate(e, s, after, NAMES, 0))
        s = after
    log = [text for _style, text in human.screen.log]
    assert said[-1] in log and not any(t in log for t in said[:-1])


@pytest.fixture(scope="module")
def discards_replay() -> Replay:
    """A 1-hand session in the replay, played and loaded once for every language (the
    replay holds states; it words them when drawn)."""
    from gleek_p2p.bots import RandomStrategy
    from gleek_p2p.tools.selfplay import selfplay

    strategies = [RandomStrategy(bytes([seat])) for seat in range(3)]
    return Replay.load(selfplay(Variant(), 1, b"i23-replay", strategies).records)


@pytest.mark.parametrize("lang", LANGS)
def test_the_replay_says_why_discards_stay_hidden(lang: str, discards_replay: Replay) -> None:
    i18n.set_language(lang, {})
    replay = discards_replay
    found = [i for i, step in enumerate(replay.steps) if step.after.discards
             and any(step.after.cards[x] < 0 for x in step.after.discards)]
    if not found:
        pytest.skip("every discard was opened in this session")
    scene = Scene(replay.state(found[-1], None), NAMES, None)
    # Wide enough for the whole sentence (at 80 columns it gives way to a shorter one:
    # tests/test_ui_polish.py).
    text = render.plain(render.hand_pane(scene, 160))
    assert "??" in text and _("?? never opened: the discards stay secret") in text


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_gleek_local_again_says_the_old_session_is_not_resumed(lang: str,
                                                               tmp_path: Path) -> None:
    from gleek_p2p.cli.peer import _say_if_left_unfinished

    i18n.set_language(lang, {})
    (tmp_path / "tables").mkdir()
    marker = tmp_path / "tables" / "local-0a1b2c3d_2.current"
    marker.write_text("/data/sessions/abc.gleeklog\n00\n")
    told: list[str] = []
    _say_if_left_unfinished(tmp_path, told.append)
    assert len(told) == 1 and "/data/sessions/abc.gleeklog" in told[0]
    assert ("new session" in told[0]) == (lang == "en")
    assert not marker.exists()
    _say_if_left_unfinished(tmp_path, told.append)
    assert len(told) == 1


# ---------------------------------------------------------------- 3, 4: results in words


@pytest.fixture(scope="module")
def finished_table() -> Table:
    """Seat 1's table at the end of a 2-hand session (played once for every language)."""
    from gleek_p2p.bots import RandomStrategy
    from gleek_p2p.tools.selfplay import selfplay

    strategies = [RandomStrategy(bytes([seat])) for seat in range(3)]
    return selfplay(Variant(), 2, b"i23-result", strategies).tables[1]


@pytest.mark.parametrize("lang", LANGS)
def test_the_result_printed_when_the_screen_closes(lang: str, finished_table: Table,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Item 3 for gleek play and gleek local: each total and the winner, on stderr."""
    from gleek_p2p.cli.peer import print_result
    from gleek_p2p.rules import session_winner
    from gleek_p2p.ui.words import pence

    i18n.set_language(lang, {})
    table = finished_table
    print_result(table)
    lines = capsys.readouterr().err.splitlines()
    state = table.hands[-1].state
    assert lines[0] == ngettext("The result after {n} hand, in pence:",
                                "The result after {n} hands, in pence:", 2).format(n=2)
    names = table.roster.names
    for seat, total in enumerate(state.totals):
        row = lines[1 + seat].split()
        assert row[0] == names[seat] and row[-1] == pence(total, True)
    assert _("{name} (you)").format(name=names[1]) in lines[2]
    best = session_winner(state)
    assert lines[4] in (_("A tie for first place.") if best is None else
                        _("You win the session.") if best == 1 else
                        _("{name} wins the session.").format(name=names[best]))


@pytest.mark.parametrize("variant", [Variant(), Variant(players=2), Variant(post_and_pair=True),
                                     Variant(simplified=True), Variant(modern_combinations=True)])
def test_the_hand_line_words_every_variant(variant: Variant) -> None:
    from gleek_p2p.ui.narrate import hand_line
    from gleek_p2p.ui.words import pence

    for seed in range(3):
        _final, events = random_session(variant, 2, random.Random(seed))
        s = new_session(variant, 2)
        for e in events:
            after = apply(s, e)
            if after.phase in (Phase.HAND_OVER, Phase.SESSION_OVER) and s.phase is not after.phase:
                line = hand_line(after, NAMES[: variant.players])
                money = ", ".join(f"{NAMES[i]} {pence(v, True)}"
                                  for i, v in enumerate(after.ledgers[-1].net))
                assert line.startswith(f"Hand {after.ledgers[-1].hand + 1}/2: ")
                assert line.endswith(f"money: {money}.") and "??" not in line
                assert ("auction: " in line) == variant.has_auction
            s = after
