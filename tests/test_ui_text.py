"""Item 5: no cut text: whole names where there is room, words kept whole, plurals, sizes."""

from __future__ import annotations

from prompt_toolkit.input import DummyInput
from prompt_toolkit.output import DummyOutput
from test_ui_render import _mid_trick

from gleek_p2p.ui.app import end_lines
from gleek_p2p.ui.render import Scene, ledger_pane, plain, table_pane
from gleek_p2p.ui.replay import mask_state
from gleek_p2p.ui.screen import TableScreen
from gleek_p2p.ui.words import pence, points, tricks, wrap_words


def _screen(scene: Scene) -> TableScreen:
    screen = TableScreen(lambda key: None, ["help"], on_leave=lambda: None,
                         leave_question=lambda: "Leave?", input=DummyInput(),
                         output=DummyOutput(), color=False)
    screen.scene = scene
    return screen


def test_the_ledger_header_shows_whole_names_at_80_columns_and_more() -> None:
    s = mask_state(_mid_trick(), 0)
    scene = Scene(s, ("Anne", "Thomas", "Mary"), None)
    assert "Thomas" in plain(ledger_pane(scene, 28)).split("\n")[0]
    long = Scene(s, ("Anne", "Bartholomew", "Mary"), None)
    screen = _screen(long)
    assert "Bartholomew" not in screen.dump(80, 24).split("\n")[1]
    assert "Bartholomew" in screen.dump(120, 30).split("\n")[1]  # the wider ledger
    for width in (80, 100, 120, 160):
        assert all(len(row) <= width for row in screen.dump(width, 24).split("\n"))


def test_plurals_and_halfpence() -> None:
    assert tricks(1) == "1 trick" and tricks(2) == "2 tricks" and points(0) == "0 points"
    assert pence(1, True) == "+½" and pence(-1) == "-½" and pence(3, True) == "+1½"
    assert pence(0, True) == "0"
    s = mask_state(_mid_trick(), 0)
    text = plain(table_pane(Scene(s, ("Anne", "Bob", "Carol"), 0), 60))
    assert " 1 tricks" not in text


def test_log_lines_wrap_between_words() -> None:
    s = mask_state(_mid_trick(), 0)
    screen = _screen(Scene(s, ("Anne", "Bob", "Carol"), 0))
    sentence = ("Hand 3 is over: Bartholomew +12½, Anne -6, Carol -6½. The session "
                "continues with the next deal; Bartholomew speaks first.")
    screen.add_log(sentence)
    text = screen.dump(80, 24)
    for word in sentence.split():
        assert word in text, word
    assert wrap_words(sentence, 30) == [line for line in wrap_words(sentence, 30)
                                        if len(line) <= 30]


def test_the_end_box_never_wraps_the_log_path() -> None:
    from gleek_p2p.rules import Variant
    from gleek_p2p.tools.selfplay import make_seats

    tables = make_seats(Variant(), 1, b"ui-path", ["you", "Bob", "Carol"])
    screen = _screen(Scene(None, (), None))
    for path in ("/tmp/short.gleeklog", "/very/" + "long/" * 20 + "s.gleeklog"):
        screen.show_end(end_lines(tables[0], None, path))
        text = screen.dump(80, 24)
        assert all(len(row) <= 80 for row in text.split("\n"))
        if len(path) < 70:
            assert path in text
        else:
            assert "printed when you leave" in text and "long/long" not in text


def test_below_80x24_the_screen_says_the_minimum() -> None:
    screen = _screen(Scene(None, (), None))
    for width, height in ((79, 24), (80, 23), (60, 15)):
        text = screen.dump(width, height)
        assert "at least 80x24" in text and f"{width}x{height}" in text
    assert "at least 80x24" not in screen.dump(80, 24)


def test_the_end_box_wraps_between_words() -> None:
    screen = _screen(Scene(None, (), None))
    sentence = ("The log, to check any time with gleek verify (its path is printed again "
                "when you leave): a sentence long enough to need two rows here.")
    screen.show_end([("", sentence)])
    text = screen.dump(80, 24)
    for word in sentence.split():
        assert word in text, word
