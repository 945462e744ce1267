"""What every pane shares: the ``Scene`` drawn, the rows, and the line helpers.

A line is a list of ``(style, text)`` fragments, prompt_toolkit's formatted
text; ``clip`` and ``fit`` keep a line within the width a pane may use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from prompt_toolkit.formatted_text import StyleAndTextTuples

from gleek_p2p.base.i18n import N_, _
from gleek_p2p.rules import Phase, State, card_suit
from gleek_p2p.session.lobby_status import LobbyStatus

from ..choices import Chooser
from ..words import Namer

Fragments = StyleAndTextTuples

TABLE_ROWS = 9
HAND_ROWS = 4
CHOICE_ROWS = 2
_LABEL = 8


_PHASE_WORDS = {
    Phase.CUT: N_("the cut"),
    Phase.DEAL: N_("shuffling"),
    Phase.AUCTION: N_("auction"),
    Phase.DISCARD: N_("discard"),
    Phase.RUFF: N_("ruff: vying"),
    Phase.RUFF_SHOW: N_("ruff: showdown"),
    Phase.DECLARE: N_("combinations"),
    Phase.TRUMP: N_("trump"),
    Phase.TIDDY: N_("Tiddy"),
    Phase.TRICKS: N_("tricks"),
    Phase.HAND_OVER: N_("hand over"),
    Phase.SESSION_OVER: N_("session over"),
}


@dataclass
class Scene:
    """Everything the screen shows at one moment.

    ``state`` is the engine state as the viewer knows it (a seat's own
    state has -1 for every card it may not see); ``viewer`` is the seat at
    the screen, or None to show every hand (the replay with all cards).
    """

    state: State | None
    names: tuple[str, ...]
    viewer: int | None
    chooser: Chooser | None = None
    status: str = ""
    log: Sequence[tuple[str, str]] = field(default_factory=list)
    title: str = "Gleek"
    named: bool = False
    """Call every seat by its name, the viewer too (a replay from one seat's view)."""
    lobby: LobbyStatus | None = None
    """Who is at the table (names, fingerprints) as the lobby last said."""
    public: bool = False
    """Nobody's view (a watcher's, with ``viewer`` None): the talon and the discards
    are told face down as to any player, never shown as unknown cards."""

    @property
    def who(self) -> Namer:
        return Namer(self.names, None if self.named else self.viewer)


def phase_words(state: State | None) -> str:
    """A short name for where the hand stands."""
    if state is None:
        return _("joining")
    return _(_PHASE_WORDS[state.phase])


# ------------------------------------------------------------------ helpers


def clip(line: Fragments, width: int) -> Fragments:
    """``line`` cut to ``width`` characters (an ellipsis marks the cut)."""
    out: Fragments = []
    used = 0
    total = sum(len(f[1]) for f in line)
    if total <= width:
        return list(line)
    for style, text, *_rest in line:
        room = width - 1 - used
        if room <= 0:
            break
        piece = text[:room]
        out.append((style, piece))
        used += len(piece)
    out.append(("", "…"))
    return out


def fit(head: str, items: Sequence[str], tail: str, width: int) -> str:
    """``head`` + items joined by ", " + ``tail``, dropping the oldest items to fit."""
    shown = list(items)
    while True:
        body = ", ".join(shown)
        if len(shown) < len(items):
            body = "…, " + body if shown else "…"
        text = head + body + tail
        if len(text) <= width or not shown:
            return text if len(text) <= width else text[: width - 1] + "…"
        shown.pop(0)


def join(lines: Sequence[Fragments]) -> Fragments:
    """Lines as one piece of formatted text, newline separated."""
    out: Fragments = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def plain(lines: Sequence[Fragments]) -> str:
    """The text of some lines without styles (for tests and the replay's dump)."""
    return "\n".join("".join(f[1] for f in line) for line in lines)


def _pad(lines: list[Fragments], rows: int) -> list[Fragments]:
    return lines[:rows] + [[] for _row in range(rows - len(lines))]


def _card_style(c: int | None) -> str:
    if c is None or c < 0:
        return "class:card.unknown"
    return "class:card.red" if card_suit(c) in (1, 2) else "class:card.black"


def _known(state: State, slot: int) -> int | None:
    c = state.cards[slot] if 0 <= slot < len(state.cards) else -1
    return c if c >= 0 else None


def _label_width(labels: Sequence[str]) -> int:
    """The label column: 8 wide, or one more than the longest label in this language."""
    return max(_LABEL, 1 + max(len(_(label)) for label in labels))


def _label(text: str, width: int) -> Fragments:
    return [("class:label", _(text).ljust(width))]
