"""The bot scripting API: one method that picks a move.

A strategy sees exactly what its seat may know (a ``SeatView``) and the list
of legal moves, and returns one of them, like an OpenSpiel policy or a
python-chess engine's ``play``. It may be synchronous or ``async``. The
hooks let a bot keep statistics over a session; they do nothing by default.
A peer's session knows a bot only by this shape (``session.peer.Strategy``,
a protocol), so that the session never imports the bots.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gleek_p2p.rules import Event, HandLedger, SeatView


@dataclass(frozen=True)
class Work:
    """The CPU-heavy part of one decision, to be run away from the event loop.

    ``run`` is a module-level function and ``args`` pickle, so a peer can run
    ``run(*args)`` in another process (a thread would share the GIL with the
    loop); ``finish`` turns its result into the move, back in the caller.
    """

    run: Callable[..., Any]
    args: tuple[Any, ...]
    finish: Callable[[Any], Event]


class Strategy:
    """Subclass this and override ``choose``; the hooks are optional."""

    name = "strategy"

    def offload(self, view: SeatView, legal: Sequence[Event]) -> Work | Event | None:
        """The heavy part of this decision as :class:`Work`, the move if it is cheap,
        or None to call ``choose``.

        A peer runs the work in a worker so its event loop keeps ticking; an
        in-process simulation calls ``choose``, which must pick the same move.
        """
        return None

    def choose(self, view: SeatView, legal: Sequence[Event]) -> Event | Awaitable[Event]:
        """Return one element of ``legal`` (or an awaitable that gives one)."""
        raise NotImplementedError

    def on_hand_end(self, view: SeatView, ledger: HandLedger) -> None:
        """Called once a hand has been scored and audited."""

    def on_session_end(self, totals: Sequence[int]) -> None:
        """Called once the session is over, with every seat's total in halfpence."""


class RandomStrategy(Strategy):
    """Plays a uniformly random legal move; the seed comes in as data."""

    name = "random"

    def __init__(self, seed: int | str | bytes = 0) -> None:
        self._random = random.Random(seed)

    def choose(self, view: SeatView, legal: Sequence[Event]) -> Event:
        return legal[self._random.randrange(len(legal))]


def choose_now(strategy: Strategy, view: SeatView, legal: Sequence[Event]) -> Event:
    """Call a synchronous strategy (in-process simulations have no event loop)."""
    choice = strategy.choose(view, legal)
    if inspect.isawaitable(choice):
        if inspect.iscoroutine(choice):
            choice.close()  # never awaited: say so once, not as a warning at exit
        raise TypeError(f"strategy {strategy.name!r} is async; run it in a peer")
    return choice


async def choose_async(strategy: Strategy, view: SeatView, legal: Sequence[Event]) -> Event:
    """Call a strategy that may be sync or async."""
    choice = strategy.choose(view, legal)
    if inspect.isawaitable(choice):
        return await choice
    return choice
