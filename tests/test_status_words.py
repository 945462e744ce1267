"""The status line names what the table really waits for, at each stage, in every language:
the keys of the deal when the cards are dealt, of the talon when it is taken, of the cards
never played while the hand's audit opens them (it said "the keys of the deal" there)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from prepared import SESSIONS, verified
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from gleek_p2p.base import i18n
from gleek_p2p.log.envelope import decode_envelope
from gleek_p2p.log.store import read_log_file
from gleek_p2p.table import events as ev
from gleek_p2p.table.session import Stage, Table
from gleek_p2p.ui.app import HumanPlayer


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


KEYS = {
    "en": ("waiting for {name}: ", "the keys of the deal", "the keys of the talon",
           "the keys of the cards left unplayed"),
    "fr": ("on attend {name}\u00a0: ", "les clés de la donne", "les clés du talon",
           "les clés des cartes non jouées"),
    "it": ("si aspetta {name}: ", "le chiavi della distribuzione", "le chiavi del tallone",
           "le chiavi delle carte non giocate"),
    "pt": ("esperando {name}: ", "as chaves da distribuição", "as chaves do monte",
           "as chaves das cartas não jogadas"),
    "nl": ("wachten op {name}: ", "de sleutels van het delen", "de sleutels van de stok",
           "de sleutels van de niet gespeelde kaarten"),
}
STAGES = (Stage.DEAL_KEYS, Stage.PLAY, Stage.UNPLAYED)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_status_line_names_the_keys_awaited_at_each_stage(lang: str) -> None:
    """A watcher's screen (no seat of its own) follows a whole hand, the unplayed cards'
    audit included (torn-last-record stops there), and reads its status line each time
    keys are due."""
    name = "torn-last-record"
    records = read_log_file(SESSIONS / f"{name}.gleeklog")[0]
    roster = verified(name).roster
    assert roster is not None
    table = Table(roster)
    i18n.set_language(lang, {})
    waiting, *words = KEYS[lang]
    seen: dict[Stage, set[str]] = {}
    with create_pipe_input() as inp:
        human = HumanPlayer(input=inp, output=DummyOutput())
        for record in records:
            table.receive(decode_envelope(record), record)
            exp = table.expected()
            if exp is None:
                break
            human.update(table, (), None)
            if exp.kinds == (ev.KEYS,):
                line = waiting.format(name=roster.names[exp.seat])
                status = human._status_text()
                assert status.startswith(line), status
                seen.setdefault(table.stage, set()).add(status.removeprefix(line))
    assert seen == {stage: {w} for stage, w in zip(STAGES, words, strict=True)}


FORMING = {
    "en": ("waiting for 2 more players to take a seat", "waiting for 1 more player to take a seat",
           "every player is here: agreeing on the seats…", "seated: starting the session…"),
    "fr": ("on attend encore 2 joueurs à la table", "on attend encore 1 joueur à la table",
           "tous les joueurs sont là\u00a0: on s'accorde sur les places…",
           "tout le monde est assis\u00a0: la session commence…"),
    "it": ("si aspettano ancora 2 giocatori al tavolo", "si aspetta ancora 1 giocatore al tavolo",
           "ci sono tutti i giocatori: si concordano i posti…",
           "tutti seduti: la sessione comincia…"),
    "pt": ("esperando mais 2 jogadores sentarem à mesa", "esperando mais 1 jogador sentar à mesa",
           "todos os jogadores chegaram: combinando os lugares…",
           "todos sentados: a sessão está começando…"),
    "nl": ("wacht nog op 2 spelers aan tafel", "wacht nog op 1 speler aan tafel",
           "alle spelers zijn er: de plaatsen worden afgesproken…",
           "iedereen zit: de sessie begint…"),
}
"""The status line while a table forms: nobody else yet, one missing, all here, seated."""


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_forming_table_says_it_waits_for_players_not_connecting(lang: str) -> None:
    """Before the first deal the status line said "connecting…" while the table waited for
    players to take the free seats: it says what the lobby knows, on the 80x24 screen."""
    from gleek_p2p.session.lobby_status import LobbyStatus, PeerStatus

    me = PeerStatus("Anne", "a1b2-c471-3acc-4299")
    tom = PeerStatus("Thomas", "048b-5668-7f86-8fa5")
    mary = PeerStatus("Mary", "9c0d-1e2f-3a4b-5c6d")
    stages = (LobbyStatus("gleek", 3, me, ()),
              LobbyStatus("gleek", 3, me, (tom, PeerStatus("Mary", mary.fingerprint,
                                                           connected=False))),
              LobbyStatus("gleek", 3, me, (tom, mary)),
              LobbyStatus("gleek", 3, PeerStatus("Anne", me.fingerprint, seat=0),
                          (PeerStatus("Thomas", tom.fingerprint, seat=1),
                           PeerStatus("Mary", mary.fingerprint, seat=2)), formed=True))
    i18n.set_language(lang, {})
    with create_pipe_input() as inp:
        human = HumanPlayer(input=inp, output=DummyOutput())
        said = []
        for status in stages:
            human.show_lobby(status)
            bar = human.screen.dump(80, 24).split("\n")[-1]
            said.append(human._status_text())
            # The screen draws the no-break space as a space.
            assert bar.startswith(" " + said[-1].replace("\u00a0", " ") + " "), bar
    assert tuple(said) == FORMING[lang]
