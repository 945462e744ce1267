"""A note for the user, with how it should be shown, decided where it is made.

The screen colours bad news; it must not guess that from the words (which
are in the player's language). A ``Note`` is a ``str``, so every callback
typed ``Callable[[str], None]`` passes it on unchanged; a plain string is
ordinary news.
"""

from __future__ import annotations

from enum import Enum


class Severity(Enum):
    """How a note is shown."""

    INFO = "info"
    """Ordinary news: a player joined, the table is waiting."""
    BAD_NEWS = "bad-news"
    """Something went wrong: an abort, a rejected event, a lost peer."""


class Note(str):
    """A sentence for the user that knows its own ``severity``."""

    severity: Severity

    def __new__(cls, text: str, severity: Severity = Severity.INFO) -> Note:
        note = super().__new__(cls, text)
        note.severity = severity
        return note


def severity_of(text: str) -> Severity:
    """A note's severity; a plain string is ordinary news."""
    return text.severity if isinstance(text, Note) else Severity.INFO
