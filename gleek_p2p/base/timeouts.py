"""A timeout that never loses a cancellation.

Python 3.11's ``asyncio.wait_for`` can swallow a cancellation that arrives as
its awaitable finishes (fixed in 3.12), leaving a "stopped" peer running and
holding its log. ``asyncio.timeout`` does not have that race.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def within(awaitable: Awaitable[T], seconds: float | None) -> T:
    """Await ``awaitable``, raising ``TimeoutError`` after ``seconds`` (None: never)."""
    async with asyncio.timeout(seconds):
        return await awaitable
