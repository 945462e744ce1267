"""Bots in any language: a program that reads JSON lines and answers with moves.

``ExecStrategy`` starts the program once (no shell: the command is split
with ``shlex``), writes one JSON object per line on its stdin and reads one
line per move from its stdout, as described in protocol/bot-protocol.md.
A slow answer costs the move (the first legal move is played and a note
goes to stderr); a program that dies or answers garbage stops the game with
a one-sentence ``GleekError``, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shlex
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from gleek_p2p.base.errors import GleekError, IllegalMove, ProtocolError
from gleek_p2p.base.i18n import _
from gleek_p2p.base.os_words import os_error_words
from gleek_p2p.base.terminal import put
from gleek_p2p.base.timeouts import within
from gleek_p2p.bots.json_codec import (
    MalformedMove,
    action_from_json,
    action_to_json,
    legal_to_json,
    listed_moves,
)
from gleek_p2p.bots.strategy import Strategy
from gleek_p2p.rules import Event, HandLedger, SeatView

__all__ = ["PROTOCOL_VERSION", "ExecStrategy", "parse_reply"]

PROTOCOL_VERSION = 1
_LINE_LIMIT = 1 << 20


def _unquote(command: str) -> str:
    """``'prog args'`` -> ``prog args``: one level of quotes a shell would have removed."""
    c = command.strip()
    if len(c) >= 2 and c[0] == c[-1] and c[0] in "'\"":
        return c[1:-1]
    return c


def parse_reply(line: str, legal: Sequence[Event], who: str | None = None) -> Event:
    """The move a reply line names: an index into the moves shown or a move object.

    The moves shown are ``listed_moves(legal)`` (an auction's bids by the
    lowest); a move object may be any move of ``legal``. Raises
    ``ProtocolError`` for a line that is neither, ``IllegalMove`` for a
    well-formed move that is not in ``legal``.
    """
    shown = listed_moves(legal)
    text = line.strip()
    # The sentences are for the bot's author, on the screen: in the chosen language.
    who = _("the bot") if who is None else who
    unreadable = _("{bot} answered {text}: expected the index of a legal move or a move object")
    try:
        data: Any = json.loads(text)
    except ValueError:
        raise ProtocolError(unreadable.format(bot=who, text=repr(text[:60]))) from None
    if type(data) is int:
        if not 0 <= data < len(shown):
            raise ProtocolError(_("{bot} chose move {index}, but only 0..{last} are legal").format(
                bot=who, index=data, last=len(shown) - 1))
        return shown[data]
    if not isinstance(data, dict):
        raise ProtocolError(unreadable.format(bot=who, text=repr(text[:60])))
    try:
        move = action_from_json(data)
    except MalformedMove as exc:
        raise ProtocolError(_("{bot} sent a malformed move: {detail}").format(
            bot=who, detail=exc)) from None
    if move not in legal:
        raise IllegalMove(_("{bot} chose {move}, which is not a legal move now").format(
            bot=who, move=text[:80]), move.seat)
    return move


def _ledger_json(ledger: HandLedger) -> dict[str, Any]:
    return {
        "hand": ledger.hand,
        "dealer": ledger.dealer,
        "phases": {k: list(v) for k, v in ledger.phases.items()},
        "trick_points": list(ledger.trick_points),
        "net": list(ledger.net),
    }


class ExecStrategy(Strategy):
    """An async strategy backed by an external program speaking JSON lines."""

    name = "exec"

    def __init__(self, command: str, move_timeout: float = 10.0, log: TextIO | None = None) -> None:
        self.command = _unquote(command)
        try:
            self.argv = shlex.split(self.command)
        except ValueError:
            # shlex's only complaints: an open quote, or a backslash with nothing after it.
            raise GleekError(_("cannot parse the bot command {command}: a quote is not "
                               "closed, or it ends with a backslash").format(
                command=repr(self.command))) from None
        if not self.argv:
            raise GleekError(_("the exec bot command is empty: use exec:'PROGRAM ARGS'"))
        self.move_timeout = move_timeout
        self._log = log
        self._proc: asyncio.subprocess.Process | None = None
        self._stale = 0  # answers still owed for moves that timed out
        self.timeouts = 0

    @property
    def _who(self) -> str:
        return _("bot program {command}").format(command=repr(self.command))

    def _note(self, text: str) -> None:
        put(f"gleek: {text}", self._log or sys.stderr)

    async def _process(self) -> asyncio.subprocess.Process:
        if self._proc is None:
            try:
                self._proc = await asyncio.create_subprocess_exec(
                    *self.argv,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    limit=_LINE_LIMIT,
                )
            except OSError as exc:
                # Worded by its number: the system's strerror is English.
                raise GleekError(_("cannot start {bot}: {error}").format(
                    bot=self._who, error=os_error_words(exc))) from None
        return self._proc

    def _died(self, proc: asyncio.subprocess.Process) -> GleekError:
        code = proc.returncode
        if code is None:
            return GleekError(_("{bot} stopped answering: it closed its output").format(
                bot=self._who))
        return GleekError(_("{bot} stopped answering: it closed its output (exit code {code})"
                            ).format(bot=self._who, code=code))

    def _write(self, message: dict[str, Any]) -> bool:
        """Queue one line for the program; False if it can no longer read."""
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdin.is_closing():
            return False
        proc.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        return True

    async def choose(self, view: SeatView, legal: Sequence[Event]) -> Event:
        proc = await self._process()
        assert proc.stdin is not None and proc.stdout is not None
        message = {
            "type": "move",
            "view": view.to_json(),
            "legal": legal_to_json(legal, view),
        }
        if not self._write(message):
            raise self._died(proc)
        try:
            await proc.stdin.drain()
        except (ConnectionError, BrokenPipeError):
            await _settle(proc)
            raise self._died(proc) from None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.move_timeout
        while True:
            try:
                line = await within(proc.stdout.readline(), deadline - loop.time())
            except TimeoutError:
                self._stale += 1
                self.timeouts += 1
                self._note(_("{bot} took more than {seconds} s; playing its first legal move "
                             "{move}").format(bot=self._who, seconds=f"{self.move_timeout:g}",
                                              move=action_to_json(legal[0], view)))
                return legal[0]
            except (ValueError, asyncio.LimitOverrunError):
                raise ProtocolError(_("{bot} sent a line longer than 1 MiB").format(
                    bot=self._who)) from None
            if not line:
                await _settle(proc)
                raise self._died(proc)
            if self._stale:
                self._stale -= 1  # the late answer to a move already played
                continue
            try:
                text = line.decode()
            except UnicodeDecodeError:
                raise ProtocolError(_("{bot} sent a line that is not UTF-8").format(
                    bot=self._who)) from None
            return parse_reply(text, legal, self._who)

    def on_hand_end(self, view: SeatView, ledger: HandLedger) -> None:
        self._write({"type": "hand_end", "view": view.to_json(), "ledger": _ledger_json(ledger)})

    def on_session_end(self, totals: Sequence[int]) -> None:
        if self._write({"type": "session_end", "totals": list(totals)}):
            assert self._proc is not None and self._proc.stdin is not None
            self._proc.stdin.close()  # end of input: the program should exit

    async def aclose(self, grace: float = 2.0) -> None:
        """Close the program's input and wait for it to exit (killed after ``grace`` s)."""
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
        try:
            await within(proc.wait(), grace)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()


async def _settle(proc: asyncio.subprocess.Process) -> None:
    """Give a dying program a moment so its exit code can be reported."""
    with contextlib.suppress(TimeoutError):
        await within(proc.wait(), 1.0)
