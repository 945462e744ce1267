"""What a newcomer and a player met in a session of ``gleek local`` (s30): the words and
numbers of the screens, the per-hand lines and the commands' help, in every language."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from prepared import aces_to_declare

from gleek_p2p.base import i18n
from gleek_p2p.rules import Variant
from gleek_p2p.rules.simulate import random_session
from gleek_p2p.rules.summary import hand_summary

LANGS = i18n.LANGUAGES


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en", {})


def _a_hand_with_a_ruff(seed: int = 2) -> object:
    for s in range(seed, seed + 50):
        final, _events = random_session(Variant(), 1, random.Random(s))
        if hand_summary(final).ruff is not None:
            return final
    raise AssertionError("no hand with a ruff winner in 50 seeds")


@pytest.mark.parametrize("lang", LANGS)
def test_the_hand_line_gives_the_ruff_pot_in_whole_pence(lang: str) -> None:
    # gleek bot's line per hand (and the seat a bot finishes) said "Mary won 11½"
    # for a pot of 23 pence: the pot, in pence, was read as halfpence.
    from gleek_p2p.ui.narrate import hand_line

    final = _a_hand_with_a_ruff()
    winner, pot, _suit = hand_summary(final).ruff  # type: ignore[attr-defined,misc]
    i18n.set_language(lang, {})
    names = ["Anne", "Ben", "Cat"]
    line = hand_line(final, names)  # type: ignore[arg-type]
    ruff = next(p for p in line.split(";") if names[winner] in p and "ruff" in p.lower())
    assert f" {pot} " in ruff or ruff.rstrip().endswith(f" {pot}"), (pot, ruff)
    assert "½" not in ruff, ruff


def _moment_after(kind: type, seed: int = 0) -> tuple[object, int]:
    """The state just after the first event of ``kind`` in a random hand, and its seat."""
    from gleek_p2p.rules import apply, new_session

    for s in range(seed, seed + 200):
        _final, events = random_session(Variant(), 1, random.Random(s))
        state = new_session(Variant(), 1)
        for e in events:
            state = apply(state, e)
            if isinstance(e, kind):
                return state, e.seat  # type: ignore[attr-defined]
    raise AssertionError(f"no {kind.__name__} in 200 hands")


# (you, another) for a see on the ruff and a pass in the auction, as the table says them
PANE_MOVES = {
    "en": (("you see", "{n} sees"), ("you pass", "{n} passes")),
    "fr": (("vous voyez", "{n} voit"), ("vous passez", "{n} passe")),
    "it": (("tu vedi", "{n} vede"), ("tu passi", "{n} passa")),
    "pt": (("você vê", "{n} vê"), ("você passa", "{n} passa")),
    "nl": (("jij ziet", "{n} ziet"), ("jij past", "{n} past")),
}


@pytest.mark.parametrize("lang", LANGS)
def test_the_table_says_each_ruff_and_auction_move_with_its_person(lang: str) -> None:
    # The ruff line glued one verb after every name: "vous voit", "vous passe",
    # "tu vede", "Mary see", "Mary vie 4" (4 was the stake, not her raise).
    from gleek_p2p.rules import PassBid, See, Vie
    from gleek_p2p.ui.render import Scene, plain, table_pane

    names = ("Anne", "Ben", "Cat")
    i18n.set_language(lang, {})
    (see_you, see_other), (pass_you, pass_other) = PANE_MOVES[lang]
    for kind, you, other in ((See, see_you, see_other), (PassBid, pass_you, pass_other)):
        state, seat = _moment_after(kind)
        mine = plain(table_pane(Scene(state, names, seat), 51))  # type: ignore[arg-type]
        assert you in mine, (kind, mine)
        theirs = plain(table_pane(Scene(state, names, (seat + 1) % 3), 51))  # type: ignore[arg-type]
        assert other.format(n=names[seat]) in theirs, (kind, theirs)
    state, seat = _moment_after(Vie)
    you, other = VIES[lang]
    assert you in plain(table_pane(Scene(state, names, seat), 51))  # type: ignore[arg-type]
    text = plain(table_pane(Scene(state, names, (seat + 1) % 3), 51))  # type: ignore[arg-type]
    line = next(x for x in text.splitlines() if x.startswith("Ruff"))
    assert line.endswith(other.format(n=names[seat])), line  # no number read as a raise


VIES = {"en": ("you vie", "{n} vies"), "fr": ("vous viez", "{n} vie"),
        "it": ("tu rilanci", "{n} rilancia"), "pt": ("você disputa", "{n} disputa"),
        "nl": ("jij wedijvert", "{n} wedijvert")}


SEE_WORDS = {"en": "see", "fr": "voir|voyez", "it": "vedi", "pt": "ver|veja", "nl": "zien|zie"}


@pytest.mark.parametrize("lang", LANGS)
def test_the_ruff_prompt_offers_see_only_when_see_is_a_choice(lang: str) -> None:
    # At stake 0 the prompt said "vie (type 1-5), see or pass" above only pass and vie.
    import re

    from gleek_p2p.rules import Phase, See, apply, legal_actions, new_session, to_act
    from gleek_p2p.ui.choices import Chooser

    i18n.set_language(lang, {})
    word = re.compile(rf"\b({SEE_WORDS[lang]})\b")
    seen = {True: 0, False: 0}
    for seed in range(20):
        _final, events = random_session(Variant(), 1, random.Random(seed))
        state = new_session(Variant(), 1)
        for e in events:
            state = apply(state, e)
            if state.phase is not Phase.RUFF:
                continue
            seat = to_act(state)
            chooser = Chooser(legal_actions(state, seat), state, seat)
            offered = any(isinstance(o.event, See) for o in chooser.options)
            assert bool(word.search(chooser.prompt)) is offered, (chooser.prompt, offered)
            seen[offered] += 1
    assert seen[True] and seen[False], seen


GLEEK_OF_ACES = {"en": "gleek of Aces", "fr": "gleek d'As", "it": "gleek di Assi",
                 "pt": "gleek de Ases", "nl": "gleek van Azen"}
A_GLEEK = {"en": "a", "fr": "un", "it": "un", "pt": "um", "nl": "een"}
COMBOS = {"en": "Combos  ", "fr": "Combis   ", "it": "Combin.  ", "pt": "Combos  ",
          "nl": "Meldingen "}
"""The table pane's combinations label, as wide as its label column in each language."""
YOU = {"en": "you", "fr": "vous", "it": "tu", "pt": "você", "nl": "jij"}


@pytest.mark.parametrize("lang", LANGS)
def test_the_table_and_the_hand_summary_say_a_gleek_of_aces_as_the_narration_does(
        lang: str) -> None:
    # The narration said "un gleek d'As" and the table beside it "Bob gleek de As",
    # the hand's summary "un gleek de As (Bob)".
    from gleek_p2p.rules import Declare, Phase, apply, legal_actions, to_act
    from gleek_p2p.ui.render import Scene, plain, table_pane
    from gleek_p2p.ui.summary import summary_lines

    s, aces = aces_to_declare()
    s = apply(s, Declare(1, aces))
    names = ("Anne", "Bob", "Carol")
    i18n.set_language(lang, {})
    pane = plain(table_pane(Scene(s, names, 0), 51))
    assert f"{COMBOS[lang]}{GLEEK_OF_ACES[lang]} (Bob)" in pane.split("\n"), pane
    # Bob's own screen: "Combis vous gleek d'As" read as a verb; his gleek is his in brackets.
    pane = plain(table_pane(Scene(s, names, 1), 51))
    assert f"{COMBOS[lang]}{GLEEK_OF_ACES[lang]} ({YOU[lang]})" in pane.split("\n"), pane
    rng = random.Random(0)
    while s.phase not in (Phase.HAND_OVER, Phase.SESSION_OVER):
        seat = to_act(s)
        assert seat is not None, s.phase
        s = apply(s, rng.choice(legal_actions(s, seat)))
    summary = " ".join(plain(summary_lines(s, names, 0, 76)).split())
    assert f"{A_GLEEK[lang]} {GLEEK_OF_ACES[lang]} (Bob)" in summary, summary


@pytest.mark.parametrize("lang", LANGS)
def test_verify_help_wraps_each_exit_code_as_one_paragraph(
        lang: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # At 80 columns "gleek verify --help" left "is" (or "session", "ou") alone on a
    # line and indented the rest of a code's text by 8.
    from gleek_p2p.cli.gleek import main

    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main(["--lang", lang, "verify", "--help"])
    text = capsys.readouterr().out
    codes = text[text.index("\n  0  "):].splitlines()[1:]
    assert codes and all(len(line) <= 80 for line in codes), codes
    for line, after in zip(codes, [*codes[1:], ""], strict=True):
        if line and not line[2].isdigit():
            assert line.startswith("     ") and not line.startswith("      "), line
        if after.startswith("     "):
            # Filled: the next line's first word would not have fitted on this one.
            assert len(line) + 1 + len(after.split()[0]) > 78, (line, after)


@pytest.mark.parametrize("command", [["verify", "valid-standard-deck-v1.gleeklog"],
                                     ["simulate", "--hands", "2"]])
def test_a_reader_that_stops_reading_gets_no_error_sentence(command: list[str]) -> None:
    # "gleek verify LOG | head" printed "gleek: the system refused the operation
    # (error EPIPE)" and exited 1, verify's code for "unfair".
    import os
    import subprocess
    import sys
    from pathlib import Path

    vectors = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "sessions"
    argv = [str(vectors / a) if a.endswith(".gleeklog") else a for a in command]
    read, write = os.pipe()
    os.close(read)  # the reader has gone before the first line
    try:
        done = subprocess.run([sys.executable, "-m", "gleek_p2p", *argv], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        os.close(write)
    assert done.stderr == "", done.stderr
    assert done.returncode == 141


@pytest.mark.parametrize("lang", LANGS)
def test_a_ruff_show_is_told_in_rank_order(lang: str) -> None:
    # "Mary shows spades: 7♠ A♠ J♠ 5♠ 8♠": the cards came in the deal's order.
    from gleek_p2p.rules import ShowRuff, apply, new_session
    from gleek_p2p.ui.narrate import narrate
    from gleek_p2p.ui.words import card_label

    i18n.set_language(lang, {})
    told = 0
    for seed in range(40):
        _final, events = random_session(Variant(), 1, random.Random(seed))
        state = new_session(Variant(), 1)
        for e in events:
            after = apply(state, e)
            if isinstance(e, ShowRuff) and len(e.slots) > 1:
                cards = [after.cards[x] for x in e.slots]
                said = narrate(e, state, after, ("Anne", "Ben", "Cat"))
                assert " ".join(card_label(c) for c in sorted(cards)) in said, said
                told += cards != sorted(cards)
            state = after
    assert told, "no show dealt out of rank order in 40 hands"


LAST_TRICK_WORDS = {"en": "with the last trick's 4", "fr": "avec les 4 du dernier pli",
                    "it": "con i 4 dell'ultima presa", "pt": "com os 4 da última vaza",
                    "nl": "met de 4 van de laatste slag"}


@pytest.mark.parametrize("lang", LANGS)
def test_the_points_told_per_trick_add_up_to_the_hands_trick_points(lang: str) -> None:
    # "Mary takes trick 12 (13 points)" left out the last trick's 4, while the
    # summary's trick points counted them (and each trick's Tib and Tom).
    import re

    from gleek_p2p.rules import Play, apply, new_session
    from gleek_p2p.ui.narrate import narrate

    i18n.set_language(lang, {})
    final, events = random_session(Variant(), 1, random.Random(5))
    state = new_session(Variant(), 1)
    told = [0, 0, 0]
    last = ""
    for e in events:
        after = apply(state, e)
        if isinstance(e, Play) and len(after.tricks) > len(state.tricks):
            said = narrate(e, state, after, ("Anne", "Ben", "Cat"))
            found = re.search(r"\((\d+) ", said)
            assert found, said
            told[after.tricks[-1][2]] += int(found.group(1))
            last = said
        state = after
    assert tuple(told) == hand_summary(final).trick_points, (told, last)
    assert LAST_TRICK_WORDS[lang] in last, last


@pytest.mark.parametrize("lang", LANGS)
def test_the_ruff_winner_line_fits_the_table_at_80_columns(lang: str) -> None:
    # In French: "Ruff     Thomas a gagné le pot de 31 avec ♣ (mise …".
    from gleek_p2p.rules import Phase, apply, new_session
    from gleek_p2p.rules.cards import SUIT_SYMBOLS
    from gleek_p2p.ui.render import Scene, plain, table_pane

    i18n.set_language(lang, {})
    names = ("Thomas", "Anne", "Mary")
    checked = 0
    for seed in range(60):
        _final, events = random_session(Variant(), 1, random.Random(seed))
        state = new_session(Variant(), 1)
        for e in events:
            state = apply(state, e)
            if state.phase is Phase.DECLARE and state.ruff_shows and state.ruff_winner >= 0:
                break
        else:
            continue
        winner = state.ruff_winner
        suit = next(s for seat, s, _x in state.ruff_shows if seat == winner)
        for viewer in range(3):
            pane = plain(table_pane(Scene(state, names, viewer), 51))
            line = next(x for x in pane.splitlines() if x.startswith("Ruff"))
            assert "…" not in line and SUIT_SYMBOLS[suit] in line, line
        checked += 1
    assert checked, "no ruff showdown in 60 hands"


@pytest.mark.parametrize("lang", LANGS)
def test_every_row_of_the_hand_summary_has_its_own_label(lang: str) -> None:
    # In Dutch the money row "slagen" and the count row under it were both "slagen".
    import re

    from gleek_p2p.ui.render import plain
    from gleek_p2p.ui.summary import summary_lines

    final, _events = random_session(Variant(), 1, random.Random(3))
    i18n.set_language(lang, {})
    lines = plain(summary_lines(final, ("Anne", "Ben", "Cat"), 0, 76)).splitlines()
    rows = [m.group(1) for line in lines if (m := re.match(r"(\S.*?)\s{2,}[-+]?\d", line))]
    assert len(rows) >= 9, lines
    assert len(rows) == len(set(rows)), rows


@pytest.mark.parametrize("lang", LANGS)
def test_the_forming_table_is_told_whole_at_80_columns(lang: str) -> None:
    # "Table 'gleek' (12 hands): waiting for 2 more playe…" was cut at the pane's edge.
    from gleek_p2p.session.lobby_status import LobbyStatus, PeerStatus
    from gleek_p2p.ui.render import Scene, plain, table_pane

    i18n.set_language(lang, {})
    status = LobbyStatus("gleek/12", 3, PeerStatus("Bob", "18b1-1ee5-675b-93eb"), (),
                         port=36901)
    pane = plain(table_pane(Scene(None, (), None, lobby=status), 51))
    assert "…" not in pane, pane
    text = " ".join(pane.split())
    head = i18n.ngettext("Table {table}: waiting for {n} more player.",
                         "Table {table}: waiting for {n} more players.", 2)
    assert head.split("{table}")[1].format(n=2).strip() in text, text
    assert "36901" in text


LEFT_FORMING = {
    "en": ("You left before the table formed; no session was started.",
           "the others were told"),
    "fr": ("Vous êtes parti avant que la table soit formée\xa0; aucune session n'a commencé.",
           "les autres"),
    "it": ("Sei uscito prima che il tavolo fosse formato; nessuna sessione è iniziata.",
           "gli altri"),
    "pt": ("Você saiu antes de a mesa se formar; nenhuma sessão foi iniciada.", "os outros"),
    "nl": ("Je ging weg voordat de tafel compleet was; er is geen sessie begonnen.",
           "de anderen"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_leaving_a_table_still_forming_tells_no_others(
        lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Alone at a forming table, 'q' then 'y' ended on "You left the table; the others
    # were told at once." with nobody there to tell.
    from types import SimpleNamespace

    from gleek_p2p.cli.peer import _left_the_table
    from gleek_p2p.ui.app import UserQuit

    i18n.set_language(lang, {})
    said, others = LEFT_FORMING[lang]
    assert _left_the_table(UserQuit(), SimpleNamespace(table=None, log_path=None)) == 0
    out = capsys.readouterr()
    assert said in out.err.splitlines(), out.err
    assert others not in out.err and out.out == ""


@pytest.mark.parametrize("lang", LANGS)
def test_the_leave_question_with_a_bot_offered_wraps_between_words(lang: str) -> None:
    # Italian: "...la sessione finisce; oppure" / " un bot finisce il tuo posto": the box
    # broke the long question (a bot may finish the seat) wherever its edge fell.
    from prompt_toolkit.input import DummyInput
    from prompt_toolkit.output import DummyOutput

    from gleek_p2p.ui.app import HumanPlayer
    from gleek_p2p.ui.render import Scene

    i18n.set_language(lang, {})
    names = ("Anne", "Thomas", "Mary")
    final, _events = random_session(Variant(), 1, random.Random(1))
    human = HumanPlayer(input=DummyInput(), output=DummyOutput(), names=names)
    human.seat = 0
    human._state = final
    human._bot_finishes = lambda choose: not choose  # type: ignore[method-assign]
    human.screen._on_hand_over = human._bot_finishes
    human.screen.scene = Scene(final, names, 0)
    human.screen.press("q")
    assert human.screen.overlay == "leave"
    human.screen._dump_width, human.screen._dump_height = 80, 24
    inner = human.screen._overlay_inner()
    lines = "".join(f[1] for f in human.screen._overlay_text()).split("\n")
    question = " ".join(human._leave_question().split())
    assert len(question) > inner  # the long question, which needs a wrap
    assert all(len(line) <= inner and not line.startswith(" ") for line in lines), lines
    assert question in " ".join(" ".join(lines).split())


NO_LOG = {"en": "No session log found.", "fr": "Aucun journal de partie trouvé.",
          "it": "Nessun registro di partita trovato.",
          "pt": "Nenhum registro de partida encontrado.", "nl": "Geen spellogboek gevonden."}


@pytest.mark.parametrize("lang", LANGS)
def test_results_before_any_session_says_there_is_none(
        lang: str, tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    # A newcomer's first "gleek results" answered "gleek: no such file or folder:
    # .../sessions", a folder only a first session makes.
    from gleek_p2p.cli.gleek import main

    assert main(["--lang", lang, "results", "--data-dir", str(tmp_path)]) == 1
    out = capsys.readouterr()
    assert out.out.strip() == NO_LOG[lang] and out.err == "", out
    # A folder named on the command line that is not there is still an error.
    assert main(["--lang", lang, "results", str(tmp_path) + "/nowhere"]) == 1
    assert "nowhere" in capsys.readouterr().err


@pytest.mark.parametrize("lang", LANGS)
def test_watch_help_says_hands_and_variant_are_the_watched_tables(
        lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    # "gleek watch --help" offered "--hands: hands in the session (a dealer's turn
    # each)" as if a watcher chose them; they only name the table's, without records.
    from gleek_p2p.cli.gleek import main

    with pytest.raises(SystemExit):
        main(["--lang", lang, "watch", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    hands = text[text.index("--hands HANDS "):text.index("--variant NAME ")]
    variant = text[text.index("--variant NAME "):]
    for said in (hands, variant):
        assert "--peer" in said and "--no-mdns" in said, said
