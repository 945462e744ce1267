"""Text from a peer, made safe to show.

Names, abort reasons and anything else a peer signs or sends may hold
control characters: an escape sequence printed raw can move the cursor,
clear the screen and paint a fake "Verdict: FAIR". Everything a peer
provided goes through ``printable`` before it reaches a terminal, the UI or
a report; each control character is shown as a visible, inert escape.
"""

from __future__ import annotations

import unicodedata

_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Direction overrides: they can make text read differently from what it holds."""


def _unsafe(char: str, keep_newlines: bool) -> bool:
    if keep_newlines and char == "\n":
        return False
    code = ord(char)
    if code < 0x20 or 0x7F <= code <= 0x9F:  # C0, DEL, C1 (ESC, CSI, OSC, ...)
        return True
    if char in _BIDI or char in "\u2028\u2029":  # direction overrides, line/para separators
        return True
    return unicodedata.category(char) in ("Cc", "Cs", "Co", "Cn")


def printable(text: object, keep_newlines: bool = False) -> str:
    """``text`` with every control character replaced by a visible escape (``\\x1b``).

    Line breaks are escaped too unless ``keep_newlines`` (for a report made
    of many lines, whose peer-provided parts were already filtered).
    """
    value = str(text)
    if not any(_unsafe(c, keep_newlines) for c in value):
        return value
    out = []
    for char in value:
        if not _unsafe(char, keep_newlines):
            out.append(char)
        elif ord(char) <= 0xFF:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(f"\\u{ord(char):04x}")
    return "".join(out)


_BLANKS = frozenset("\u115f\u1160\u2800\u3164\uffa0")
"""Letters that draw nothing (Hangul fillers, the blank Braille pattern): as good as spaces."""


def one_line(text: object) -> str:
    """``printable(text)`` with every run of blank characters shown as one space.

    For a peer's words set inside a sentence of ours (an abort's reason): a
    run of spaces, or of letters that draw nothing, as wide as the terminal
    would push the rest onto a line of its own, where it could pass for a
    line of the report ("- event 12: seat 1 (Ben) - ...").
    """
    value = printable(text)
    if any(c in _BLANKS for c in value):
        value = "".join(" " if c in _BLANKS else c for c in value)
    return " ".join(value.split())


def display_width(text: str) -> int:
    """How many terminal columns ``text`` takes: two for a wide (East Asian) letter,
    none for a combining mark or a zero-width format character, one for the rest."""
    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def pad(text: str, width: int, right: bool = False) -> str:
    """``text`` padded with spaces to ``width`` terminal columns (on the left with
    ``right``, so that numbers line up on the right)."""
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill
