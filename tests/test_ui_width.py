"""Every screen kind, in every language, fits 80x24 without a cut word.

A cut shows up two ways: a pane line shortened by ``clip``/``fit`` (they
end it with "…"), or an overlay line longer than its box (prompt_toolkit
would break it inside a word). Both are caught here while the real layout
draws each screen headless (``TableScreen.dump``); the names are ordinary
ones, so no cut is a long name's.
"""

from __future__ import annotations

import copy
import functools
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from prompt_toolkit.input import DummyInput
from prompt_toolkit.output import DummyOutput

from gleek_p2p.base import i18n
from gleek_p2p.bots import RandomStrategy
from gleek_p2p.rules import Phase, State, Variant, apply, legal_actions, new_session, to_act
from gleek_p2p.rules.cards import SUIT_SYMBOLS
from gleek_p2p.rules.simulate import random_session
from gleek_p2p.session.lobby_status import LobbyStatus, PeerStatus
from gleek_p2p.session.peer import Outcome
from gleek_p2p.tools.selfplay import selfplay
from gleek_p2p.ui import render, screen
from gleek_p2p.ui.app import HumanPlayer, end_lines
from gleek_p2p.ui.choices import Chooser
from gleek_p2p.ui.panes import choice, hand, header, ledger, table
from gleek_p2p.ui.render import Scene
from gleek_p2p.ui.replay import mask_state

NAMES = ("Anne", "Thomas", "Mary")
ACTING = (Phase.AUCTION, Phase.DISCARD, Phase.RUFF, Phase.RUFF_SHOW, Phase.DECLARE,
          Phase.TRUMP, Phase.TIDDY, Phase.TRICKS)


def _moments() -> tuple[dict[Phase, State], list[State]]:
    """A state of each phase where someone decides, and the ends of finished hands."""
    found: dict[Phase, State] = {}
    ends: list[State] = []
    for seed in range(40):
        _final, events = random_session(Variant(), 2, random.Random(seed))
        s = new_session(Variant(), 2)
        for e in events:
            after = apply(s, e)
            if after.phase is Phase.HAND_OVER and s.phase is not Phase.HAND_OVER and not ends:
                ends.append(after)
            s = after
            busy = s.phase is not Phase.TRICKS or len(s.trick_plays) == 2
            if s.phase in ACTING and s.phase not in found and to_act(s) is not None and busy:
                found[s.phase] = s
        if len(found) == len(ACTING) and ends:
            return found, ends
    raise AssertionError(f"no session reached {set(ACTING) - set(found)}")


MOMENTS, HAND_ENDS = _moments()


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en", {})


@pytest.fixture
def cuts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every line ``clip`` or ``fit`` had to shorten while drawing."""
    found: list[str] = []
    real_clip, real_fit = render.clip, render.fit

    def clip(line: Any, width: int) -> Any:
        text = "".join(f[1] for f in line)
        if len(text) > width:
            found.append(text)
        return real_clip(line, width)

    def fit(head: str, items: Any, tail: str, width: int) -> str:
        text = real_fit(head, items, tail, width)
        if text.endswith("…"):
            found.append(head + ", ".join(items) + tail)
        return text

    # Each pane's module looks its helpers up by its own name for them.
    for module in (header, table, ledger, hand, choice, screen):
        monkeypatch.setattr(module, "clip", clip)
    monkeypatch.setattr(table, "fit", fit)
    yield found


def _human() -> HumanPlayer:
    human = HumanPlayer(input=DummyInput(), output=DummyOutput(), names=NAMES)
    human.seat = 0
    return human


def _table(human: HumanPlayer, phase: Phase) -> None:
    full = MOMENTS[phase]
    seat = to_act(full)
    assert seat is not None
    s = mask_state(full, seat)
    human.screen.scene = Scene(s, NAMES, seat, Chooser(legal_actions(s, seat), s, seat),
                               status="")
    human.screen.log = [("", "x")]


def _at_table(human: HumanPlayer) -> None:
    _table(human, Phase.TRICKS)


def _summary(human: HumanPlayer) -> None:
    _at_table(human)
    human.past_hands = list(HAND_ENDS)
    human.show_summary(0)


def _history(human: HumanPlayer) -> None:
    _summary(human)
    human.show_history()


def _help(human: HumanPlayer) -> None:
    _at_table(human)
    human.screen.press("?")


def _rules(human: HumanPlayer) -> None:
    _help(human)
    human.screen.press("r")


def _rules_end(human: HumanPlayer) -> None:
    _rules(human)
    human.screen.press("end")


def _seats(human: HumanPlayer) -> None:
    human.lobby = [("Thomas", "a1b2-c471-3acc-4299"), ("Mary", "048b-5668-7f86-8fa5")]
    human.show_seats()


def _lobby(human: HumanPlayer, formed: bool = False) -> None:
    me = PeerStatus("Anne", "a1b2-c471-3acc-4299", seat=0 if formed else None)
    peers = (PeerStatus("Thomas", "048b-5668-7f86-8fa5", connected=False,
                        seat=1 if formed else None),)
    human.screen.scene.lobby = LobbyStatus("gleek", 3, me, peers, formed=formed, port=41234)


def _typed(human: HumanPlayer, phase: Phase) -> None:
    """A decision with the highest amount typed (the hint must not push past 80 columns)."""
    _table(human, phase)
    chooser = human.screen.scene.chooser
    assert chooser is not None
    for digit in str(max(o.number for o in chooser.options if o.number is not None)):
        chooser.press(digit)


def _marked(human: HumanPlayer) -> None:
    """The discard with its first cards marked (X beside ^ and t)."""
    _table(human, Phase.DISCARD)
    chooser = human.screen.scene.chooser
    assert chooser is not None
    for key in (" ", "right", " ", "right"):
        chooser.press(key)


def _leave(human: HumanPlayer) -> None:
    _at_table(human)
    human.screen.press("q")


@pytest.fixture(scope="module")
def played() -> Any:
    strategies = [RandomStrategy(bytes([seat])) for seat in range(3)]
    return selfplay(Variant(), 1, b"i18n-width", strategies).tables[0]


SCREENS: dict[str, Callable[[HumanPlayer], None]] = {
    **{f"table:{p.name.lower()}": (lambda human, p=p: _table(human, p)) for p in ACTING},
    "summary": _summary, "past hands": _history, "help": _help, "rules": _rules,
    "rules, scrolled": _rules_end, "seats": _seats, "lobby": _lobby,
    "lobby formed": lambda human: _lobby(human, True), "leave": _leave,
    "auction typed": lambda human: _typed(human, Phase.AUCTION),
    "ruff typed": lambda human: _typed(human, Phase.RUFF), "discard marked": _marked,
}


def _check(human: HumanPlayer, cuts: list[str], what: str, width: int = 80,
           height: int = 24) -> str:
    text = human.screen.dump(width, height)
    rows = text.split("\n")
    assert len(rows) == height and all(len(row) <= width for row in rows), what
    assert cuts == [], f"{what}: cut {cuts}"
    ends = [row for row in rows if row.rstrip().endswith("…") or "…│" in row]
    assert ends == [], f"{what}: rows end in a cut word: {ends}"
    if human.screen.overlay is not None and not human.screen.too_small():
        human.screen._dump_width, human.screen._dump_height = width, height
        inner = human.screen._overlay_inner()
        lines = "".join(f[1] for f in human.screen._overlay_text()).split("\n")
        human.screen._dump_width = human.screen._dump_height = None
        long = [line for line in lines if len(line) > inner]
        assert long == [], f"{what}: broken inside a word by the box: {long}"
    return text


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("kind", list(SCREENS))
def test_every_screen_fits_80x24_in_every_language(lang: str, kind: str,
                                                   cuts: list[str]) -> None:
    i18n.set_language(lang, {})
    human = _human()
    SCREENS[kind](human)
    text = _check(human, cuts, f"{lang} {kind}")
    if lang != "en" and kind.startswith("table"):
        assert "YOUR TURN" not in text and "? help" not in text  # it is translated


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_end_box_fits_in_every_language(lang: str, played: Any, cuts: list[str]) -> None:
    i18n.set_language(lang, {})
    human = _human()
    _at_table(human)
    outcome = Outcome(True, False, "", 100)
    human.screen.show_end(end_lines(played, outcome, "/tmp/gleek/session.gleeklog"))
    text = _check(human, cuts, f"{lang} end box")
    assert "session.gleeklog" in text


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_too_small_message_wraps_between_words(lang: str, cuts: list[str]) -> None:
    i18n.set_language(lang, {})
    human = _human()
    _at_table(human)
    for width, height in ((60, 20), (79, 24), (40, 10)):
        text = _check(human, cuts, f"{lang} {width}x{height}", width, height)
        words = " ".join(text.split()).split(" ")
        said = i18n._("The table needs a terminal of at least {width}x{height}; this one is "
                      "{columns}x{rows}. Make it larger (q leaves).").format(
            width=80, height=24, columns=width, rows=height)
        assert words == said.split(), (lang, width)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_summarys_row_labels_fit_their_column(lang: str) -> None:
    """The summary's label column is fixed; a longer label would be cut mid-word."""
    from gleek_p2p.ui import summary

    i18n.set_language(lang, {})
    labels = [i18n._(label) for label in (*summary.ROW_LABELS,
                                          *summary._PHASE_LABELS.values())]
    labels.append(i18n.pgettext("ledger", "session"))
    assert [label for label in labels if len(label) >= summary._LABEL] == []


@functools.cache
def _waits() -> tuple[tuple[Any, Any], ...]:
    """Seat 1's table and what it awaits, at each step up to the first act (one session,
    stepped once per run: the steps are the same in every language, and a screen only
    reads the table)."""
    from gleek_p2p.table.drive import step
    from gleek_p2p.tools.selfplay import make_seats

    tables = make_seats(Variant(), 1, b"i18n-status", list(NAMES))
    moments = []
    while True:
        exp = tables[0].expected()
        assert exp is not None
        moments.append((copy.deepcopy(tables[1]), exp))
        if exp.kinds == ("act",):
            return tuple(moments)
        step(tables, lambda decision: decision.legal[0])


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_what_the_table_waits_for_is_worded_from_its_kind(lang: str) -> None:
    """The status line names the awaited step in the chosen language, never the table's English."""
    i18n.set_language(lang, {})
    seen = set()
    human = _human()
    for seat1, exp in _waits():
        human.update(seat1, (), None)
        status = human._status_text()
        seen.add(exp.kinds)
        if lang != "en":
            assert exp.what not in status, status
        assert status
    assert len(seen) >= 6


TRUMP_WORDS = {"en": ("Trump", ("spades", "hearts", "diamonds", "clubs")),
               "fr": ("Atout", ("pique", "cœur", "carreau", "trèfle")),
               "it": ("Briscola", ("picche", "cuori", "quadri", "fiori")),
               "pt": ("Trunfo", ("espadas", "copas", "ouros", "paus")),
               "nl": ("Troef", ("schoppen", "harten", "ruiten", "klaveren"))}
"""The trump line's label and the suits' names, as each language reads them."""


@functools.cache
def _tiddy_claimed() -> tuple[State, int, dict[str, int]]:
    """A hand at its tricks where another seat than the one to play claimed Tiddy, and
    Tib and Tom fell to others than that player too: every honour named on the trump
    line is a name, not "you"."""
    from gleek_p2p.rules import ClaimTiddy
    from gleek_p2p.ui.words import honours

    for seed in range(400):
        _final, events = random_session(Variant(), 1, random.Random(seed))
        s = new_session(Variant(), 1)
        claimant = None
        for e in events:
            claimant = e.seat if isinstance(e, ClaimTiddy) else claimant
            s = apply(s, e)
            seat = to_act(s)
            if claimant is None or s.phase is not Phase.TRICKS or seat in (None, claimant):
                continue
            took = honours(s)
            if all(t is not None and t != seat for t in took.values()):
                assert seat is not None and took["Tiddy"] == claimant
                return s, seat, {h: t for h, t in took.items() if t is not None}
    raise AssertionError("no session had Tiddy claimed with every honour taken")


def _name_or_cut(name: str) -> str:
    """The whole name, or its first 5 characters or more and an ellipsis."""
    return "(?:" + "|".join(re.escape(name[:k]) + "…" for k in range(5, len(name))) + \
        "|" + re.escape(name) + ")"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_trump_line_names_every_honours_taker_at_80x24(lang: str, cuts: list[str]) -> None:
    """Long names taking Tib, Tom and Tiddy: the line used to be cut at 80 columns, on the
    last honour's taker ("Tiddy Ali…"). Each taker stays named (a long name shortened)."""
    full, seat, took = _tiddy_claimed()
    others = iter(("Bartholomew", "Alexandria"))
    names = tuple("Ali Mohammed" if i == took["Tiddy"] else next(others) for i in range(3))
    i18n.set_language(lang, {})
    human = HumanPlayer(input=DummyInput(), output=DummyOutput(), names=names)
    human.seat = seat
    s = mask_state(full, seat)
    human.screen.scene = Scene(s, names, seat, Chooser(legal_actions(s, seat), s, seat),
                               status="")
    human.screen.log = [("", "x")]
    text = human.screen.dump(80, 24)
    assert len(text.split("\n")) == 24 and max(len(row) for row in text.split("\n")) <= 80
    # No line cut (a long name is shortened where it stands: the ledger's "Ali M…" is no cut).
    assert cuts == []
    label, suits = TRUMP_WORDS[lang]
    rows = [row.split("│")[0].rstrip() for row in text.split("\n") if row.startswith(label)]
    assert len(rows) == 1
    assert full.trump is not None
    suit = SUIT_SYMBOLS[full.trump]
    honours = "  ".join(f"{h} {_name_or_cut(names[took[h]])}" for h in ("Tib", "Tom", "Tiddy"))
    assert re.fullmatch(rf"{label} +{suit}(?: {suits[full.trump]})?  {honours}", rows[0]), rows
