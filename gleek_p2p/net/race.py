"""Dial one table's candidate addresses at once, with staggered starts (RFC 8305 style).

Any stranger on the LAN can announce a table with addresses that accept a
connection and then say nothing: dialled in turn, each held the dialler for
its whole handshake timeout. ``race`` starts the attempts in the order
given, the next one ``stagger`` seconds after the last (or at once when one
fails), takes the first that succeeds and cancels the rest, so an address
that stalls costs the others at most its stagger. Time comes from the
event loop's clock: nothing here sleeps.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["DIAL_STAGGER", "RaceOutcome", "race"]

C = TypeVar("C")
T = TypeVar("T")

DIAL_STAGGER = 0.25
"""Seconds between the starts of two dials of one table's addresses (RFC 8305's 250 ms)."""


@dataclass(frozen=True)
class RaceOutcome(Generic[C, T]):
    """What a race gave: the winner (None if every attempt failed) and the failures seen."""

    won: tuple[C, T] | None
    failures: tuple[tuple[C, Exception], ...]
    """Attempts that ended in an expected error before the race ended, in start order
    (attempts cancelled because another won are not failures)."""


async def race(candidates: Sequence[C], attempt: Callable[[C], Awaitable[T]], *,
               stagger: float, discard: Callable[[T], Awaitable[None]],
               expected: type[Exception] | tuple[type[Exception], ...] = Exception,
               ) -> RaceOutcome[C, T]:
    """Run ``attempt`` on each candidate, in order, staggered; the first success wins.

    The next attempt starts ``stagger`` seconds after the previous one, or at
    once when one fails. The first attempt to succeed wins (of several done
    at the same moment, the earliest started); every other is cancelled and
    awaited, and any result it produced anyway is given to ``discard`` (which
    closes it). An attempt failing with an error that is not ``expected`` is
    a bug, not an address's fault: the race stops and it propagates. When
    the race itself is cancelled, or raises, every attempt is cancelled and
    awaited, and every result (the winner's too) discarded: nothing is left
    running or open.
    """
    tasks: list[asyncio.Task[T]] = []
    started = 0
    winner: asyncio.Task[T] | None = None
    failed: set[asyncio.Task[T]] = set()
    try:
        while winner is None:
            if started < len(candidates):
                tasks.append(asyncio.ensure_future(attempt(candidates[started])))
                started += 1
            running = [t for t in tasks if not t.done()]
            if not running:
                break  # every candidate started, every attempt failed
            more = started < len(candidates)
            done, _pending = await asyncio.wait(
                running, timeout=stagger if more else None,
                return_when=asyncio.FIRST_COMPLETED)
            for task in (t for t in tasks if t in done):  # start order
                if task.cancelled():
                    failed.add(task)
                    continue
                error = task.exception()
                if error is None:
                    winner = task
                    break
                if not isinstance(error, expected):
                    raise error
                failed.add(task)
        # The winner is handed out below, once the losers are closed.
        outcome: RaceOutcome[C, T] = RaceOutcome(
            None if winner is None else (candidates[tasks.index(winner)], winner.result()),
            tuple((candidates[i], e) for i, t in enumerate(tasks) if t in failed
                  and not t.cancelled() and isinstance(e := t.exception(), Exception)))
    except BaseException:
        winner = None  # nobody takes it: closed below with the rest
        raise
    finally:
        for task in tasks:
            if task is not winner:
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for task in tasks:
            if task is not winner and not task.cancelled() and task.exception() is None:
                await discard(task.result())
    return outcome
