"""The screen as formatted text: pure functions from a ``Scene`` to styled lines.

Each pane is a list of lines; a line is a list of ``(style, text)``
fragments, prompt_toolkit's formatted text. Every function takes the width
it may use and never returns a longer line, so the screen fits an 80x24
terminal. Colour is only ever a second cue: legal cards, the cursor and
whose turn it is are also marked with characters, so NO_COLOR loses nothing.
"""

from __future__ import annotations

from .panes.choice import choice_pane, menu_line
from .panes.hand import hand_pane
from .panes.header import header
from .panes.ledger import LEDGER_WIDTH, ledger_pane, ledger_width
from .panes.lobby import lobby_lines
from .panes.scene import (
    CHOICE_ROWS,
    HAND_ROWS,
    TABLE_ROWS,
    Fragments,
    Scene,
    clip,
    fit,
    join,
    phase_words,
    plain,
)
from .panes.table import table_pane

__all__ = [
    "CHOICE_ROWS",
    "HAND_ROWS",
    "LEDGER_WIDTH",
    "TABLE_ROWS",
    "Fragments",
    "Scene",
    "choice_pane",
    "clip",
    "fit",
    "hand_pane",
    "header",
    "join",
    "ledger_pane",
    "ledger_width",
    "lobby_lines",
    "menu_line",
    "phase_words",
    "plain",
    "table_pane",
]
