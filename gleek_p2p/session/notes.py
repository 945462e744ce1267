"""A note for the user, with how it should be shown, decided where it is made.

The screen colours bad news; it must not guess that from the words (which
are in the player's language). A ``Note`` is a ``str``, so every callback
typed ``Callable[[str], None]`` passes it on unchanged; a plain string is
ordinary news.

A note also has a ``kind``. Every kind but ``NEWS`` is noise a stranger can
make for free (a refused Hello, a failed handshake, an ignored Reveal): the
maker passes such notes through a ``NoteLimiter`` (a few per kind and window,
then one count), and the screen keeps one updating line per noise kind, so
noise never pushes real news (a table formed, a player left, a violation)
off the screen.
"""

from __future__ import annotations

from collections import Counter
from enum import Enum

from gleek_p2p.base.i18n import ngettext


class Severity(Enum):
    """How a note is shown."""

    INFO = "info"
    """Ordinary news: a player joined, the table is waiting."""
    BAD_NEWS = "bad-news"
    """Something went wrong: an abort, a rejected event, a lost peer."""


class NoteKind(Enum):
    """What a note is about, for limiting and showing it (never read from its words)."""

    NEWS = "news"
    """Real news: never limited, never collapsed."""
    REFUSED = "refused"
    """A peer's Hello was refused (another table, a full table, a bad offer)."""
    HANDSHAKE_FAILED = "handshake-failed"
    """A connection ended before its handshake completed (failed, timed out, pushed out)."""
    REVEAL_IGNORED = "reveal-ignored"
    """A formation Reveal that does not fit was ignored."""
    REFUSED_US = "refused-us"
    """A peer refused us (a "table full" not believed: unproven, or one seat's word alone)."""
    WATCHER = "watcher"
    """A watcher came or went (anyone may watch, as often as it likes)."""

    @property
    def noise(self) -> bool:
        """Whether a stranger can make notes of this kind at will."""
        return self is not NoteKind.NEWS


class Note(str):
    """A sentence for the user that knows its own ``severity`` and ``kind``."""

    severity: Severity
    kind: NoteKind

    def __new__(cls, text: str, severity: Severity = Severity.INFO,
                kind: NoteKind = NoteKind.NEWS) -> Note:
        note = super().__new__(cls, text)
        note.severity = severity
        note.kind = kind
        return note


def severity_of(text: str) -> Severity:
    """A note's severity; a plain string is ordinary news."""
    return text.severity if isinstance(text, Note) else Severity.INFO


def kind_of(text: str) -> NoteKind:
    """A note's kind; a plain string is news."""
    return text.kind if isinstance(text, Note) else NoteKind.NEWS


def more_of(kind: NoteKind, count: int) -> str:
    """"… and 2300 more connections refused": the count of notes of ``kind`` held back."""
    if kind is NoteKind.REFUSED:
        text = ngettext("… and {n} more connection refused",
                        "… and {n} more connections refused", count)
    elif kind is NoteKind.HANDSHAKE_FAILED:
        text = ngettext("… and {n} more connection failed before its handshake",
                        "… and {n} more connections failed before their handshake", count)
    elif kind is NoteKind.REVEAL_IGNORED:
        text = ngettext("… and {n} more Reveal ignored", "… and {n} more Reveals ignored",
                        count)
    elif kind is NoteKind.REFUSED_US:
        text = ngettext("… and {n} more refusal of this peer",
                        "… and {n} more refusals of this peer", count)
    elif kind is NoteKind.WATCHER:
        text = ngettext("… and {n} more watcher came or went",
                        "… and {n} more watchers came or went", count)
    else:
        text = ngettext("… and {n} more note", "… and {n} more notes", count)
    return text.format(n=count)


class NoteLimiter:
    """At most ``burst`` notes of each noise kind per ``window`` seconds; the rest counted.

    ``offer`` returns what to show now; ``flush`` (called at least every
    ``window`` seconds, and at the end) closes the windows that are over and
    returns one note per kind saying how many were held back. Whatever a
    stranger sends, a kind costs at most ``burst + 1`` lines a window and
    three counters. News passes untouched. Time comes in as ``now``.
    """

    def __init__(self, burst: int = 3, window: float = 60.0) -> None:
        self.burst = burst
        self.window = window
        self._opened: dict[NoteKind, float] = {}
        self._shown: Counter[NoteKind] = Counter()
        self._held: Counter[NoteKind] = Counter()
        self.held_back: Counter[NoteKind] = Counter()
        """Every note held back so far, by kind (for tests and benchmarks)."""

    def offer(self, note: str, now: float) -> list[str]:
        """What to show now for ``note`` (maybe a count of earlier ones first)."""
        kind = kind_of(note)
        if not kind.noise:
            return [note]
        out = self.flush(now)
        self._opened.setdefault(kind, now)
        if self._shown[kind] < self.burst:
            self._shown[kind] += 1
            out.append(note)
        else:
            self._held[kind] += 1
            self.held_back[kind] += 1
        return out

    def flush(self, now: float, *, everything: bool = False) -> list[str]:
        """Close the windows over by ``now`` (all if ``everything``): their counts, as notes."""
        out: list[str] = []
        for kind, opened in list(self._opened.items()):
            if everything or now - opened >= self.window:
                held = self._held.pop(kind, 0)
                if held:
                    out.append(Note(more_of(kind, held), Severity.INFO, kind))
                del self._opened[kind]
                self._shown[kind] = 0
        return out
