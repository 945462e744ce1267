"""The choice pane: the prompt of the decision being made, and its menu."""

from __future__ import annotations

from gleek_p2p.base.i18n import _

from ..choices import Chooser
from .scene import CHOICE_ROWS, Fragments, Scene, _pad, clip


def choice_pane(scene: Scene, width: int) -> list[Fragments]:
    """The prompt of the decision being made, and its menu (or the keys to use)."""
    chooser = scene.chooser
    if chooser is None:
        return _pad([clip([("class:status", scene.status)], width)], CHOICE_ROWS)
    typed = ("  " + _("[typed {typed}, Enter commits it]").format(typed=chooser.typed)
             if chooser.typed else "")
    below = ""
    if len(chooser.prompt) + 2 + len(typed) > width:
        # No room after a long prompt: the typed amount opens the menu line instead.
        typed, below = "", typed.strip()
    prompt = clip([("class:prompt", "▶ " + chooser.prompt + typed)], width)
    if below and not chooser.message and not chooser.cards:
        menu = menu_line(chooser, width - len(below) - 1)
        return [prompt, [("class:prompt", below + " "), *menu]]
    if chooser.message:
        return [prompt, clip([("class:error", "  " + chooser.message)], width)]
    if chooser.picks:
        hint = _("←/→ a card, Space/Enter mark it (X), t came from the talon, Esc unmark all")
        return [prompt, clip([("class:hint", "  " + hint)], width)]
    if chooser.cards:
        hint = _("←/→ choose a card (s h d c: suit), Enter to confirm, ? help")
        return [prompt, clip([("class:hint", "  " + hint)], width)]
    return [prompt, menu_line(chooser, width)]


def menu_line(chooser: Chooser, width: int) -> Fragments:
    """The options on one line, scrolled so the cursor stays in view."""
    labels = [o.label for o in chooser.options]
    cells = [f" {label} " for label in labels]
    start = 0
    # Scroll right until the cursor's cell fits, leaving room for the arrows.
    while sum(len(c) + 1 for c in cells[start: chooser.cursor + 1]) + 4 > width:
        start += 1
    line: Fragments = [("class:hint", "« " if start else "  ")]
    used = 2
    for i in range(start, len(cells)):
        cell = f"[{labels[i]}]" if i == chooser.cursor else cells[i]
        if used + len(cell) + 3 > width and i > chooser.cursor:
            line.append(("class:hint", " »"))
            break
        style = "class:cursor class:option" if i == chooser.cursor else "class:option"
        line.append((style, cell))
        line.append(("", " "))
        used += len(cell) + 1
    return clip(line, width)
