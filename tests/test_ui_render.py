"""The screen: what a mid-hand state shows, that it fits 80x24, and NO_COLOR."""

from __future__ import annotations

import random

import pytest
from prompt_toolkit.input import DummyInput
from prompt_toolkit.output import ColorDepth, DummyOutput

from gleek_p2p.rules import (
    Event,
    Phase,
    State,
    Variant,
    apply,
    card_label,
    legal_actions,
    new_session,
    shown_slots,
    to_act,
)
from gleek_p2p.rules.simulate import random_session
from gleek_p2p.ui.choices import Chooser
from gleek_p2p.ui.render import (
    CHOICE_ROWS,
    HAND_ROWS,
    LEDGER_WIDTH,
    TABLE_ROWS,
    Scene,
    choice_pane,
    hand_pane,
    header,
    ledger_pane,
    table_pane,
)
from gleek_p2p.ui.replay import mask_state
from gleek_p2p.ui.screen import TableScreen, make_style

NAMES = ("Anne", "Bartholomew-the-long-named", "Carol")


def _session_states(variant: Variant, seed: int) -> list[State]:
    _final, events = random_session(variant, 2, random.Random(seed))
    s = new_session(variant, 2)
    out = [s]
    for e in events:
        s = apply(s, e)
        out.append(s)
    return out


def _mid_trick(seed: int = 3) -> State:
    for s in _session_states(Variant(), seed):
        if s.phase is Phase.TRICKS and len(s.tricks) >= 3 and len(s.trick_plays) == 2 \
                and s.turn == 0:
            return s
    pytest.skip("no such moment in this random session")


def _screen(scene: Scene, color: bool | None = None) -> TableScreen:
    screen = TableScreen(lambda key: None, ["help"], on_leave=lambda: None,
                         leave_question=lambda: "Leave?", input=DummyInput(),
                         output=DummyOutput(), color=color)
    screen.scene = scene
    return screen


def _scene(full: State, seat: int = 0) -> Scene:
    s = mask_state(full, seat)
    chooser = None
    if to_act(s) == seat:
        legal: list[Event] = legal_actions(s, seat)
        chooser = Chooser(legal, s, seat)
    return Scene(s, NAMES, seat, chooser, status="waiting for Carol: a move (tricks)")


def test_a_mid_hand_screen_shows_hand_trick_trump_ledger_and_status() -> None:
    full = _mid_trick()
    scene = _scene(full)
    screen = _screen(scene)
    screen.log = [("", "Bob plays K♥."), ("class:note", "Carol joined.")]
    text = screen.dump(80, 24)
    rows = text.split("\n")
    assert len(rows) == 24
    assert "hand 1/2" in rows[0] and "tricks" in rows[0] and "YOUR TURN" in rows[0]
    for slot in full.holding[0]:
        assert card_label(full.cards[slot]) in rows[10]  # the hand row
    for slot in full.trick_plays:
        assert card_label(full.cards[slot]) in text
    assert f"Trick {len(full.tricks) + 1}" in text
    assert "Trump" in text and "Tib" in text and "Tom" in text
    assert "session" in text and "auction" in text and "pence" in text
    assert "Play a card" in text  # the prompt
    assert "^" in rows[12]  # the cursor marker under the hand
    assert "Carol joined." in text
    assert rows[-1].rstrip().endswith("? help  q leave")


def test_others_hidden_cards_never_reach_the_screen() -> None:
    full = _mid_trick()
    s = mask_state(full, 0)
    public = shown_slots(full)
    hidden = [x for seat in (1, 2) for x in full.holding[seat] if x not in public]
    assert hidden
    for slot in hidden:
        assert s.cards[slot] == -1
    screen = _screen(Scene(s, NAMES, 0))
    text = screen.dump(80, 24)
    for slot in hidden:
        assert card_label(full.cards[slot]) not in text


@pytest.mark.parametrize("variant", [Variant(), Variant(players=2), Variant(discard_all=True),
                                     Variant(post_and_pair=True), Variant(simplified=True)])
def test_every_pane_fits_80_columns_at_every_step(variant: Variant) -> None:
    names = NAMES[: variant.players]
    left = 80 - LEDGER_WIDTH - 1
    for full in _session_states(variant, 11):
        for viewer in (0, None):
            s = full if viewer is None else mask_state(full, viewer)
            actor = to_act(s)
            chooser = None
            if viewer is not None and actor == viewer:
                chooser = Chooser(legal_actions(s, viewer), s, viewer)
            scene = Scene(s, names, viewer, chooser, status="x" * 200)
            for pane, width, rows in ((table_pane, left, TABLE_ROWS),
                                      (ledger_pane, LEDGER_WIDTH, TABLE_ROWS),
                                      (hand_pane, 80, HAND_ROWS),
                                      (choice_pane, 80, CHOICE_ROWS)):
                lines = pane(scene, width)
                assert len(lines) == rows
                for line in lines:
                    assert sum(len(f[1]) for f in line) <= width, (pane.__name__, line)
            assert sum(len(f[1]) for f in header(scene, 80)) <= 80


def test_the_whole_screen_fits_80x24_in_every_phase() -> None:
    seen = set()
    for full in _session_states(Variant(), 4):
        if full.phase in seen or full.hand_no < 0:
            continue
        seen.add(full.phase)
        screen = _screen(_scene(full))
        screen.log = [("", f"line {i} " + "words " * 30) for i in range(40)]
        rows = screen.dump(80, 24).split("\n")
        assert rows[-1].rstrip().endswith("q leave"), full.phase
        assert "line 39" in "\n".join(rows[-8:])  # the log shows its newest lines
    assert {Phase.AUCTION, Phase.RUFF, Phase.TRICKS} <= seen


def test_no_color_env_gives_a_monochrome_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    screen = _screen(_scene(_mid_trick()))
    assert not screen.color
    assert screen.app.color_depth == ColorDepth.DEPTH_1_BIT
    rules = " ".join(v for _k, v in make_style(False).style_rules)
    assert "ansi" not in rules and "#" not in rules
    assert "reverse" in rules  # the cursor still shows
    text = screen.dump(80, 24)
    assert ("^" in text and "·" in text) or "^" in text  # markers carry what colour would
    monkeypatch.delenv("NO_COLOR")
    coloured = _screen(_scene(_mid_trick()))
    assert coloured.color
    assert "ansired" in " ".join(v for _k, v in make_style(True).style_rules)


def test_help_and_leave_overlays() -> None:
    left = []
    screen = TableScreen(lambda key: None, ["←/→ move"], on_leave=lambda: left.append(1),
                         leave_question=lambda: "Leave the table?", input=DummyInput(),
                         output=DummyOutput())
    screen.press("?")
    assert "←/→ move" in screen.dump()
    screen.press("x")
    assert screen.overlay is None
    screen.press("q")
    assert "Leave the table?" in screen.dump()
    screen.press("n")
    assert screen.overlay is None and not left
    screen.press("q")
    screen.press("y")
    assert left == [1]


def test_r_in_the_help_opens_the_rules_and_the_arrows_scroll_them() -> None:
    from gleek_p2p.base.i18n import set_language
    from gleek_p2p.ui.rules_summary import rules_summary

    set_language("it")
    try:
        screen = _screen(_scene(_mid_trick()))
        screen.press("?")
        screen.press("r")
        assert screen.overlay == "panel"
        first = screen.dump(80, 24)
        assert "Asta" in first and "briscola" not in first.split("\n")[0]
        lines = rules_summary(74)
        assert lines[0] in first and lines[-1] not in first  # longer than a screen
        screen.press("end")
        last = screen.dump(80, 24)
        assert lines[-1] in last and lines[0] not in last
        screen.press("pageup")
        assert screen.dump(80, 24) not in (first, last)
        screen.press("x")
        assert screen.overlay is None
    finally:
        set_language("en")
