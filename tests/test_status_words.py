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
