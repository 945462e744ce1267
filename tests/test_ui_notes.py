"""Bad news is shown as an error because its maker said so, in any language."""

from __future__ import annotations

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from gleek_p2p.session.notes import Note, Severity, severity_of
from gleek_p2p.ui.app import HumanPlayer


def _styles(notes: list[str]) -> list[str]:
    with create_pipe_input() as inp:
        human = HumanPlayer(input=inp, output=DummyOutput())
        for note in notes:
            human.note(note)
        return [style for style, _ in human.screen.log[-len(notes):]]


def test_the_severity_decides_not_the_words() -> None:
    styles = _styles([
        Note("fin de la session : le délai est écoulé", Severity.BAD_NEWS),  # no English keyword
        "Bob left a message: error-free game so far",  # English "error", but ordinary news
        Note("waiting for 1 more player"),
    ])
    assert styles == ["class:error", "class:note", "class:note"]


def test_a_note_is_a_string_that_keeps_its_severity() -> None:
    note = Note("ending the session: timeout", Severity.BAD_NEWS)
    assert note == "ending the session: timeout" and isinstance(note, str)
    assert severity_of(note) is Severity.BAD_NEWS
    assert severity_of("plain text") is Severity.INFO
    assert severity_of(note.upper()) is Severity.INFO  # a new string is a new note
