"""The full-screen prompt_toolkit application shared by the table and the replay.

Shape (80x24; a taller terminal gives the log more rows)::

    header                                     1 row
    table pane          | ledger pane          9 rows
    hand (cards, worth, markers, talon)        4 rows
    prompt and menu (or the network status)    2 rows
    log of what happened, in words             the rest (at least 3)
    status line                                1 row

Keys go to one handler as names ("left", "enter", "pageup", "c-c", or the
character typed). The help overlay (``?``), the leave confirmation (``q``)
and the end-of-session box are handled here for both users of the screen.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from gleek_p2p.base.i18n import N_, _
from gleek_p2p.base.text import printable
from gleek_p2p.ui.rules_summary import rules_summary

from .render import (
    CHOICE_ROWS,
    HAND_ROWS,
    TABLE_ROWS,
    Fragments,
    Scene,
    choice_pane,
    clip,
    hand_pane,
    header,
    join,
    ledger_pane,
    ledger_width,
    table_pane,
)
from .words import wrap_words

__all__ = ["KEY_NAMES", "MIN_SIZE", "STYLE", "Panel", "TableScreen", "color_wanted",
           "make_style"]

MIN_SIZE = (80, 24)
"""Columns and rows the table needs; below that the screen says so."""


@dataclass
class Panel:
    """A box over the table (a hand's summary, the past hands) that stays until a key.

    ``draw(width)`` gives its lines; ``on_key(key)`` handles a key and
    returns True to stay open (any other key closes it).
    """

    title: str
    draw: Callable[[int], list[Fragments]]
    on_key: Callable[[str], bool] = lambda key: False

STYLE: dict[str, str] = {
    "header": "reverse bold",
    "label": "bold ansiblue",
    "turn": "bold ansiyellow",
    "you": "ansicyan",
    "card.red": "ansired",
    "card.black": "",
    "card.unknown": "ansibrightblack",
    "legal": "bold",
    "dim": "ansibrightblack",
    "cursor": "reverse",
    "marked": "underline bold",
    "worth": "ansibrightblack",
    "mark": "bold ansigreen",
    "trump": "ansimagenta",
    "total": "bold",
    "prompt": "bold ansigreen",
    "hint": "ansibrightblack",
    "option": "",
    "status": "ansicyan",
    "note": "ansiyellow",
    "error": "bold ansired",
    "event": "",
    "overlay": "",
    "frame.border": "bold",
}

_ATTRIBUTES = {"bold", "reverse", "underline", "italic", "noreverse", "nobold"}

KEY_NAMES = ("left", "right", "up", "down", "enter", "home", "end", "pageup", "pagedown",
             "backspace", "escape", "c-c", "tab")


def color_wanted(color: bool | None = None) -> bool:
    """Colour unless told otherwise or NO_COLOR is set (https://no-color.org)."""
    if color is not None:
        return color
    return not os.environ.get("NO_COLOR")


def make_style(color: bool) -> Style:
    """The screen's style; without colour only bold and reverse remain."""
    if color:
        return Style.from_dict(STYLE)
    return Style.from_dict(
        {k: " ".join(p for p in v.split() if p in _ATTRIBUTES) for k, v in STYLE.items()}
    )


def _fit_path(path: str, width: int) -> str:
    """A path on one line of ``width`` (never wrapped inside a frame): ~ for home, or a pointer."""
    if len(path) <= width:
        return path
    home = os.path.expanduser("~")
    if home not in ("", "/") and path.startswith(home + os.sep):
        path = "~" + path[len(home):]
    if len(path) <= width:
        return path
    return _("(too long for this box: it is printed when you leave)")[:width]


class TableScreen:
    """The application: a ``Scene`` drawn in panes, a log, a status line and overlays."""

    def __init__(
        self,
        on_key: Callable[[str], None],
        help_lines: Sequence[str],
        *,
        on_leave: Callable[[], None],
        leave_question: Callable[[], str],
        status: Callable[[], str] | None = None,
        confirm_leave: bool = True,
        on_hand_over: Callable[[bool], bool] | None = None,
        input: Input | None = None,
        output: Output | None = None,
        color: bool | None = None,
    ) -> None:
        self.scene = Scene(None, (), None)
        self.log: list[tuple[str, str]] = []
        self._updating: dict[object, tuple[str, str]] = {}
        """The line each ``add_log`` key last wrote (see ``add_log``)."""
        self.overlay: str | None = None
        """None, "help", "leave", "panel" or "end"."""
        self.end_lines: list[tuple[str, str]] = []
        self.panel: Panel | None = None
        self._end_waiting = False
        self._on_key = on_key
        self._on_leave = on_leave
        self._leave_question = leave_question
        self._status = status or (lambda: "")
        self._confirm_leave = confirm_leave
        """False where leaving loses nothing (the replay): q leaves at once."""
        self._on_hand_over = on_hand_over
        """Beside leaving, the leave box offers ``b``: a bot finishes the seat. Called
        to ask whether it is offered now (False) or to choose it (True)."""
        self._help = list(help_lines)
        self.color = color_wanted(color)
        self._dump_width: int | None = None
        self._dump_height: int | None = None
        self._log_rows = 0
        self.app: Application[None] = Application(
            layout=self._layout(),
            key_bindings=self._keys(),
            style=make_style(self.color),
            color_depth=ColorDepth.DEPTH_8_BIT if self.color else ColorDepth.DEPTH_1_BIT,
            full_screen=True,
            mouse_support=False,
            refresh_interval=1.0,
            input=input,
            output=output,
        )

    # ---------------------------------------------------------- layout

    def _width(self) -> int:
        if self._dump_width is not None:
            return self._dump_width
        try:
            return max(20, self.app.output.get_size().columns)
        except Exception:  # pragma: no cover - an output without a size
            return 80

    def _height(self) -> int:
        if self._dump_height is not None:
            return self._dump_height
        try:
            return self.app.output.get_size().rows
        except Exception:  # pragma: no cover - an output without a size
            return 24

    def too_small(self) -> bool:
        """Whether the terminal is smaller than ``MIN_SIZE``."""
        return self._width() < MIN_SIZE[0] or self._height() < MIN_SIZE[1]

    def _pane(self, draw: Callable[[Scene, int], list[Fragments]], width: Callable[[], int]
              ) -> Callable[[], Fragments]:
        return lambda: join(draw(self.scene, width()))

    def _layout(self) -> Layout:
        full = self._width

        def ledger() -> int:
            return ledger_width(self.scene.names, full())

        def left() -> int:
            return max(20, full() - ledger() - 1)

        log_control = FormattedTextControl(
            self._log_text,
            get_cursor_position=lambda: Point(0, max(0, self._log_rows - 1)),
            show_cursor=False,
        )
        body = HSplit([
            Window(FormattedTextControl(lambda: header(self.scene, full())), height=1),
            VSplit([
                Window(FormattedTextControl(self._pane(table_pane, left)),
                       height=TABLE_ROWS),
                Window(width=1, char="│", style="class:hint"),
                Window(FormattedTextControl(self._pane(ledger_pane, ledger)),
                       width=lambda: Dimension.exact(ledger()), height=TABLE_ROWS),
            ]),
            Window(FormattedTextControl(self._pane(hand_pane, full)), height=HAND_ROWS),
            Window(FormattedTextControl(self._pane(choice_pane, full)), height=CHOICE_ROWS),
            Window(log_control, wrap_lines=True, height=Dimension(min=3)),
            Window(FormattedTextControl(self._status_line), height=1),
        ])
        overlay = Frame(
            Window(FormattedTextControl(self._overlay_text), wrap_lines=True,
                   width=lambda: Dimension(max=max(20, min(100, self._width() - 4)))),
            title=self._overlay_title,
            style="class:overlay",
        )
        table = FloatContainer(
            content=body,
            floats=[Float(ConditionalContainer(
                overlay, filter=Condition(lambda: self.overlay is not None)))],
        )
        small = Window(FormattedTextControl(self._small_text), wrap_lines=True)
        return Layout(DynamicContainer(lambda: small if self.too_small() else table))

    def _overlay_inner(self) -> int:
        """Columns inside an overlay's frame."""
        return max(20, min(100, self._width() - 4)) - 2

    def _small_text(self) -> Fragments:
        width, height = MIN_SIZE
        text = _("The table needs a terminal of at least {width}x{height}; this one is "
                 "{columns}x{rows}. Make it larger (q leaves).").format(
            width=width, height=height, columns=self._width(), rows=self._height())
        out: Fragments = [("class:error", "\n".join(wrap_words(text, self._width() - 1, "")))]
        if self.overlay == "leave":
            # The confirmation box would not show in so small a terminal: ask here.
            question = self._leave_question() + " " + self._leave_keys()
            out += [("", "\n\n"),
                    ("class:prompt", "\n".join(wrap_words(question, self._width() - 1, "")))]
        return out

    def _log_text(self) -> Fragments:
        # Wrapped here on words (the window would break words at its edge). The pane
        # shows what peers said (reasons, names): never a raw control character.
        width = self._width()
        lines: list[Fragments] = []
        for style, text in self.log[-500:]:
            lines.extend([[(style or "class:event", row)]
                          for row in wrap_words(printable(text), width - 1)])
        self._log_rows = len(lines)
        return join(lines)

    def _status_line(self) -> Fragments:
        width = self._width()
        keys = _("? help  q leave")
        status = self._status()
        room = width - len(keys) - 2
        text = status if len(status) <= room else status[: max(0, room - 1)] + "…"
        return clip([("class:status", " " + text.ljust(room)), ("class:hint", " " + keys)],
                     width)

    def _bot_offered(self) -> bool:
        return self._on_hand_over is not None and self._on_hand_over(False)

    def _leave_keys(self) -> str:
        if self._bot_offered():
            return _("y: leave   b: let a bot finish my seat   n or Esc: stay")
        return _("y: leave   n or Esc: stay")

    def _overlay_title(self) -> str:
        if self.overlay == "panel" and self.panel is not None:
            return self.panel.title
        titles = {"help": N_("Keys"), "leave": N_("Leave?"), "end": N_("The end")}
        title = titles.get(self.overlay or "")
        return _(title) if title else ""

    def _overlay_text(self) -> Fragments:
        if self.overlay == "help":
            # The lines are marked N_ by their owners; translated here, as they are shown.
            inner = self._overlay_inner()
            lines: list[str] = []
            for line in [*self._help, "", N_("Press any key.")]:
                text = _(line) if line else ""
                # A key's description wraps under its column; a paragraph under itself.
                indent = " " * 14 if text[12:14] == "  " else ""
                lines.extend(wrap_words(text, inner, indent) if text else [""])
            return join([[("", line)] for line in lines])
        if self.overlay == "leave":
            # Wrapped between words: the box alone broke the question anywhere.
            question: list[Fragments] = [
                [("", line)] for line in wrap_words(self._leave_question(),
                                                    self._overlay_inner(), "")]
            return join([*question, [("", "")], [("class:prompt", self._leave_keys())]])
        if self.overlay == "end":
            inner = self._overlay_inner()
            return join([[(style, _fit_path(printable(text), inner) if style == "class:path"
                           else "\n".join(wrap_words(printable(text), inner)))]
                         for style, text in self.end_lines])
        if self.overlay == "panel" and self.panel is not None:
            return join(self.panel.draw(self._overlay_inner()))
        return []

    # ---------------------------------------------------------- keys

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()

        def bind(key: str, name: str) -> None:
            @kb.add(key, eager=True)
            def _(event: KeyPressEvent) -> None:
                self.press(name)

        for name in KEY_NAMES:
            bind(name, name)

        @kb.add("<any>")
        def _(event: KeyPressEvent) -> None:
            data = event.data
            if len(data) == 1 and data.isprintable():
                self.press(data)

        return kb

    def press(self, key: str) -> None:
        """Handle one key (by name): overlays first, then the owner's handler."""
        if self.overlay == "end":
            self.close()
            return
        if self.overlay == "help":
            self.overlay = None
            if key in ("r", "R"):
                self.show_rules()
        elif self.overlay == "panel" and key not in ("q", "Q", "c-c"):
            if self.panel is None or not self.panel.on_key(key):
                self.close_panel()
        elif self.overlay == "leave":
            if key in ("y", "Y"):
                self.overlay = None
                self._on_leave()
            elif key in ("b", "B") and self._bot_offered():
                assert self._on_hand_over is not None
                self.overlay = None
                self._on_hand_over(True)
            elif key in ("n", "N", "escape", "q"):
                self.overlay = "panel" if self.panel is not None else None
        elif key == "?":
            self.overlay = "help"
        elif key in ("q", "Q", "c-c"):
            if self._confirm_leave:
                self.overlay = "leave"
            else:
                self._on_leave()
        elif key in ("r", "R"):
            # Listed in the help: works at once, not only from the help box.
            self.show_rules()
        else:
            self._on_key(key)
        self.app.invalidate()

    # ---------------------------------------------------------- control

    def add_log(self, text: str, style: str = "", key: object = None) -> None:
        """Append a sentence to the log pane.

        With a ``key`` the sentence replaces the line the same key wrote last
        (and moves to the bottom): one updating line, so a stream of them
        never pushes other lines out.
        """
        entry = (style, text)
        if key is not None:
            old = self._updating.get(key)
            if old is not None:
                for i in range(len(self.log) - 1, -1, -1):
                    if self.log[i] is old:
                        del self.log[i]
                        break
            self._updating[key] = entry
        self.log.append(entry)
        if len(self.log) > 2000:
            del self.log[:1000]
        self.app.invalidate()

    def show_end(self, lines: Sequence[tuple[str, str]]) -> None:
        """Show the end box (after an open panel is closed); the next key closes the application."""
        self.end_lines = [*lines, ("", ""), ("class:prompt", _("Press any key to leave."))]
        if self.overlay == "panel":
            self._end_waiting = True
        else:
            self.overlay = "end"
        self.app.invalidate()

    def show_panel(self, panel: Panel) -> None:
        """Open ``panel`` over the table (replacing another panel, not the end box)."""
        if self.overlay == "end":
            return
        self.panel = panel
        self.overlay = "panel"
        self.app.invalidate()

    def show_rules(self) -> None:
        """Open the rules summary in the chosen language, scrolled with the arrows and pages."""
        top = [0]

        def rows() -> int:
            # The frame's two borders, the hint line and a row of the table above.
            return max(3, self._height() - 4)

        def draw(width: int) -> list[Fragments]:
            lines = rules_summary(width)
            top[0] = max(0, min(top[0], len(lines) - rows()))
            shown: list[Fragments] = [[("", line)] for line in lines[top[0]:top[0] + rows()]]
            shown += [[("", "")]] * (rows() - len(shown))
            where = _("lines {first}-{last} of {count}").format(
                first=top[0] + 1, last=min(len(lines), top[0] + rows()), count=len(lines))
            hint = _("↑/↓ PgUp/PgDn scroll, any other key closes")
            text = f"{hint}  ({where})"
            return [*shown, [("class:hint", text if len(text) <= width else hint)]]

        def key(k: str) -> bool:
            step = {"down": 1, "up": -1, "pagedown": rows() - 1, "pageup": 1 - rows(),
                    "home": -10_000, "end": 10_000, " ": rows() - 1}.get(k)
            if step is None:
                return False
            top[0] = max(0, top[0] + step)  # draw() clamps the bottom
            return True

        self.show_panel(Panel(_("The rules"), draw, key))

    def close_panel(self) -> None:
        """Close the open panel; the end box follows if the session ended meanwhile."""
        self.panel = None
        self.overlay = "end" if self._end_waiting else None
        self._end_waiting = False
        self.app.invalidate()

    def close(self) -> None:
        """Leave the application (its ``run_async`` returns)."""
        future = self.app.future
        if self.app.is_running and future is not None and not future.done():
            self.app.exit()

    def refresh(self) -> None:
        self.app.invalidate()

    def dump(self, width: int = 80, height: int = 24) -> str:
        """The screen as plain text at ``width`` x ``height``, drawn by the real layout."""
        screen = Screen()
        self._dump_width = width
        self._dump_height = height
        # Controls cache their text per render; a dump is a render of its own.
        self.app.render_counter += 1
        try:
            with set_app(self.app):
                self.app.layout.container.write_to_screen(
                    screen, MouseHandlers(), WritePosition(0, 0, width, height), "", False, None)
                screen.draw_all_floats()
        finally:
            self._dump_width = None
            self._dump_height = None
        rows = []
        for y in range(height):
            line = screen.data_buffer[y]
            rows.append("".join(line[x].char for x in range(width)).rstrip())
        return "\n".join(rows)
