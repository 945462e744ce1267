"""Lines printed straight to a terminal (not through the full screen), wrapped between words.

A terminal breaks a line too long for it at its last column, inside a word
("loo|king on the local network"). What the commands print (a peer's notes,
``gleek bot``'s lines, the verify report) is wrapped here first, at the
terminal's width and only between words; piped or redirected, it is left as
written, one line per line, for whatever reads it.
"""

from __future__ import annotations

import os
import sys
import textwrap
from typing import TextIO

__all__ = ["fill", "put", "terminal_width"]


def fill(text: str, width: int) -> str:
    """``text`` with each line longer than ``width`` broken between words.

    A continued line is indented two more than the line it continues (a bullet's
    text stays aligned after "- "). A word longer than the width (a path, a key) is
    never broken: it overflows its line instead.
    """
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        lead = line[: len(line) - len(line.lstrip(" "))]
        out.extend(textwrap.wrap(line, width=width, subsequent_indent=lead + "  ",
                                 break_long_words=False, break_on_hyphens=False)
                   or [line])
    return "\n".join(out)


def terminal_width(stream: TextIO) -> int | None:
    """How many columns ``stream``'s terminal has; None when it is not a terminal.

    ``COLUMNS`` wins when set (as for ``shutil.get_terminal_size``), but only for a
    terminal: a pipe's reader wants whole lines.
    """
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):  # closed, or no file behind it
        return None
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(stream.fileno()).columns or None
    except (AttributeError, ValueError, OSError):
        return None


def put(text: str, stream: TextIO | None = None) -> None:
    """Print ``text`` to ``stream`` (stdout), wrapped between words to its terminal's width."""
    stream = sys.stdout if stream is None else stream
    width = terminal_width(stream)
    # One column spare: a line as wide as the terminal makes some of them add a blank one.
    print(text if width is None else fill(text, max(20, width - 1)), file=stream, flush=True)
