"""Small things a newcomer saw on screen (s30 polish), each in every language: the
auction's range said once, the separators of the talon line, the replay's discard line at
80 columns and in its transcript, one Dutch word for a vie, verify's exit code 141."""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_french_typography import misplaced

from gleek_p2p.base import i18n
from gleek_p2p.base.i18n import _, pgettext
from gleek_p2p.rules import (
    MAX_RAISE,
    VARIANTS,
    Deal,
    Discard,
    Phase,
    State,
    Variant,
    Vie,
    apply,
    legal_actions,
    max_bid,
    new_session,
    to_act,
)
from gleek_p2p.rules.simulate import random_cut, random_deal_reveals, random_session
from gleek_p2p.ui.choices import Chooser
from gleek_p2p.ui.replay import Replay

LANGS = i18n.LANGUAGES
NAMES = ("Mary", "Ben", "Cat")


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en", {})


def _walk(seed: int) -> Iterator[tuple[State, int]]:
    """Every decision point of a random hand with full knowledge."""
    variant = VARIANTS["standard"]
    rng = random.Random(seed)
    s = apply(new_session(variant, 1), random_cut(variant, rng))
    s = apply(s, Deal())
    for r in random_deal_reveals(variant, rng):
        s = apply(s, r)
    while (seat := to_act(s)) is not None:
        yield s, seat
        s = apply(s, rng.choice(legal_actions(s, seat)))


# ------------------------------------------------------- 1. the range said once

@pytest.mark.parametrize("lang", LANGS)
def test_the_bid_range_names_its_bound_once(lang: str) -> None:
    # "bids go from 105 to 448 pence (at most 448)": the bound twice.
    i18n.set_language(lang, {})
    s, seat = next((s, seat) for s, seat in _walk(21) if s.phase is Phase.AUCTION)
    high = max_bid(s.variant)
    chooser = Chooser(legal_actions(s, seat), s, seat)
    for key in "999":
        chooser.press(key)
    words = chooser.message
    assert "999" in words and words.count(str(high)) == 1, (lang, words)


@pytest.mark.parametrize("lang", LANGS)
def test_a_raise_range_at_its_bound_names_it_once(lang: str) -> None:
    i18n.set_language(lang, {})
    for seed in range(60):
        found = [(s, seat) for s, seat in _walk(seed) if any(
            isinstance(e, Vie) and e.raise_by == MAX_RAISE for e in legal_actions(s, seat))]
        if found:
            break
    else:
        pytest.skip("no random hand offered a full raise")
    s, seat = found[0]
    chooser = Chooser(legal_actions(s, seat), s, seat)
    chooser.press("9")
    words = chooser.message
    assert "9" in words and words.count(str(MAX_RAISE)) == 1, (lang, words)


# ---------------------------------------------- 2. the talon line's separators

def _after_the_discard() -> State:
    for seed in range(40):
        _final, events = random_session(Variant(), 1, random.Random(seed))
        s = new_session(Variant(), 1)
        for e in events:
            s = apply(s, e)
            if s.phase is Phase.TRICKS and s.talon_taker >= 0:
                return s
    raise AssertionError("no hand reached the tricks with a talon taker")


@pytest.mark.parametrize("lang", LANGS)
def test_the_others_discard_line_joins_its_note_with_the_languages_separator(
        lang: str) -> None:
    # French: "Mary a écarté 7; une carte…": the ";" was glued in code.
    from gleek_p2p.ui.render import Scene, hand_pane, plain

    i18n.set_language(lang, {})
    s = _after_the_discard()
    other = (s.talon_taker + 1) % 3
    text = plain(hand_pane(Scene(s, NAMES, other), 80))
    line = next(x for x in text.splitlines() if NAMES[s.talon_taker] in x)
    assert pgettext("list", "; ") in line, (lang, line)
    assert "…" not in line, line
    if lang == "fr":
        assert misplaced(line) == [], line


PANES = Path(__file__).resolve().parent.parent / "gleek_p2p" / "ui" / "panes"
_WORDS = {"_", "N_", "ngettext", "pgettext"}


def test_no_pane_glues_a_semicolon_or_colon_in_code() -> None:
    # Punctuation people read is a word: French wants a no-break space before it.
    glued = []
    for path in sorted(PANES.glob("*.py")):
        tree = ast.parse(path.read_text())
        inside: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in _WORDS:
                inside.update(id(a) for a in ast.walk(node))
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                inside.add(id(node.value))  # a docstring
            if isinstance(node, ast.Dict):
                inside.update(id(k) for k in node.keys)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in inside and "class:" not in node.value
                    and any(mark in node.value for mark in ";:")):
                glued.append(f"{path.name}:{node.lineno}: {node.value!r}")
    assert glued == []


# -------------------------------------------------- 3. and 4. the replay's discards

@pytest.fixture(scope="module")
def replay() -> Replay:
    from gleek_p2p.bots import RandomStrategy
    from gleek_p2p.tools.selfplay import selfplay

    strategies = [RandomStrategy(bytes([seat])) for seat in range(3)]
    return Replay.load(selfplay(Variant(), 1, b"i23-replay", strategies).records)


@pytest.mark.parametrize("lang", LANGS)
def test_the_replays_secret_discard_line_fits_80_columns(lang: str, replay: Replay) -> None:
    # "?? never opened: the discards stay secret  one …": cut at 80 columns.
    from gleek_p2p.ui.panes.hand import _unplayed_note
    from gleek_p2p.ui.render import Scene, hand_pane, plain

    i18n.set_language(lang, {})
    found = [i for i, step in enumerate(replay.steps) if step.after.discards
             and all(step.after.cards[x] < 0 for x in step.after.discards)]
    assert found, "every discard was opened in this session"
    noted = 0
    for i in (found[0], found[-1]):
        s = replay.state(i, None)
        lines = plain(hand_pane(Scene(s, NAMES, None), 80)).splitlines()
        line = next(x for x in lines if x.startswith(_("Discard")))
        assert "…" not in line and len(line) <= 80, (lang, line)
        assert f"??×{len(s.discards)}" in line or line.count("??") >= len(s.discards), line
        note = _unplayed_note(s).strip()
        assert note in line, (lang, line)
        noted += bool(note)
    assert noted, "the last step shows the card never played"
    # Wide enough, the whole sentence still says why.
    wide = plain(hand_pane(Scene(replay.state(found[-1], None), NAMES, None), 160))
    assert _("?? never opened: the discards stay secret") in wide


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("viewer", [None, 0, 1])
def test_the_replays_transcript_tells_a_discard_in_one_line(
        lang: str, viewer: int | None, replay: Replay) -> None:
    # It printed "Mary discards 1 of 7" ... "7 of 7": seven lines for one discard.
    i18n.set_language(lang, {})
    discards = [i for i, step in enumerate(replay.steps) if isinstance(step.event, Discard)]
    said = [replay.said(i, viewer) for i in discards]
    assert len(said) == 7 and len(set(said)) == 7
    lines = replay.transcript(viewer)
    assert lines.count(said[-1]) == 1 and not any(t in lines for t in said[:-1])
    assert "7" in (said[-1] or "")


# ------------------------------------------------------------ 5. Dutch: one word

def test_dutch_calls_a_vie_wedijveren_everywhere() -> None:
    # The table and narration said "verhoogt", the verify report "wedijvert"; the Dutch
    # rules text (/work/shared/rules/) names the move "wedijveren".
    from gleek_p2p.tools.report import RUFF_MOVES
    from gleek_p2p.ui.narrate import narrate
    from gleek_p2p.ui.render import Scene, plain, table_pane

    i18n.set_language("nl", {})
    for seed in range(60):
        _final, events = random_session(Variant(), 1, random.Random(seed))
        if any(isinstance(e, Vie) for e in events):
            break
    s = new_session(Variant(), 1)
    for e in events:
        after = apply(s, e)
        if isinstance(e, Vie):
            break
        s = after
    told = narrate(e, s, after, NAMES, None)
    assert told is not None and f"{NAMES[e.seat]} wedijvert" in told, told
    assert "Jij wedijvert" in narrate(e, s, after, NAMES, e.seat)  # type: ignore[operator]
    table = plain(table_pane(Scene(after, NAMES, (e.seat + 1) % 3), 51))
    assert f"{NAMES[e.seat]} wedijvert" in table, table
    assert "jij wedijvert" in plain(table_pane(Scene(after, NAMES, e.seat), 51))
    assert _(RUFF_MOVES["vie"]).startswith("{name} wedijvert")
    prompt = Chooser(legal_actions(after, to_act(after)), after,  # type: ignore[arg-type]
                     to_act(after)).prompt  # type: ignore[arg-type]
    words = [_(m) for m in ("ruff: vying", "vie +{amount}", prompt)]
    for text in words:
        assert "wedijver" in text and "verhoog" not in text and "biedt" not in text, text


# ---------------------------------------------------------- 6. verify's code 141

@pytest.mark.parametrize("lang", LANGS)
def test_verify_help_lists_141_for_a_reader_that_stopped(
        lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    from gleek_p2p.cli.gleek import main

    with pytest.raises(SystemExit):
        main(["--lang", lang, "verify", "--help"])
    text = capsys.readouterr().out
    line = next((x for x in text.splitlines() if x.startswith("  141  ")), "")
    assert "gleek verify LOG | head" in line, text
    assert ("reader" in line) == (lang == "en"), line
    if lang == "fr":
        assert misplaced(line) == [], line
