"""The lobby's inbox: messages from peers waiting for the session, bounded per peer.

Each peer has a budget of messages and bytes held at once. A peer over its
budget is not read from until the session takes some of its messages (so TCP
pushes back on it and a flood costs the sender, not us); a fast honest peer
only waits. Notices the lobby itself produces (a link came up, a verified
leave) are tiny and bypass the budget.
"""

from __future__ import annotations

import asyncio
import collections
from dataclasses import dataclass

from gleek_p2p.net.messages import Event
from gleek_p2p.session.peer import CheckedEvent, Incoming

__all__ = ["Inbox", "InboxLimits"]

_SMALL = 64
"""What a message other than an Event is charged (all are at most a few dozen bytes)."""


@dataclass(frozen=True)
class InboxLimits:
    """How much one peer may have waiting in the inbox at once."""

    max_messages: int = 4096
    max_bytes: int = 8 << 20


def _size(message: Incoming) -> int:
    if isinstance(message, Event | CheckedEvent):
        return len(message.data) + _SMALL
    return _SMALL


class Inbox:
    """A FIFO of ``(peer public key, message)`` with a budget per peer."""

    def __init__(self, limits: InboxLimits = InboxLimits()) -> None:
        self.limits = limits
        self._items: collections.deque[tuple[bytes, Incoming, int]] = collections.deque()
        self._used: dict[bytes, tuple[int, int]] = {}
        self._ready = asyncio.Event()
        self._freed = asyncio.Event()

    def qsize(self) -> int:
        """Messages waiting."""
        return len(self._items)

    def held(self, public: bytes) -> tuple[int, int]:
        """``(messages, bytes)`` waiting from ``public``."""
        return self._used.get(public, (0, 0))

    def _fits(self, public: bytes, size: int) -> bool:
        count, used = self.held(public)
        return count < self.limits.max_messages and used + size <= self.limits.max_bytes

    def notice(self, public: bytes, message: Incoming) -> None:
        """Queue a notice the lobby produced itself (not charged to the peer)."""
        self._append(public, message, 0)

    async def put(self, public: bytes, message: Incoming) -> None:
        """Queue a peer's message, waiting while that peer is over its budget."""
        size = _size(message)
        while not self._fits(public, size) and self.held(public)[0] > 0:
            self._freed.clear()
            await self._freed.wait()
        count, used = self.held(public)
        self._used[public] = (count + 1, used + size)
        self._append(public, message, size)

    def _append(self, public: bytes, message: Incoming, size: int) -> None:
        self._items.append((public, message, size))
        self._ready.set()

    async def get(self) -> tuple[bytes, Incoming]:
        """The oldest waiting message and who sent it."""
        while not self._items:
            self._ready.clear()
            await self._ready.wait()
        public, message, size = self._items.popleft()
        if size:
            count, used = self._used[public]
            if count == 1:
                del self._used[public]
            else:
                self._used[public] = (count - 1, used - size)
            self._freed.set()
        return public, message
