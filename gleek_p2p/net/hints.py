"""Where discovery says to dial: a bounded book of hints (sans-IO, time passed in as ``now``).

An mDNS record costs nothing to forge, so a hint earns its place by what
dialling it gives. The book keeps at most ``capacity`` hints and at most
``per_host`` on one announced address (a forger must use many addresses
to fill it). A hint whose dial completed a handshake is *verified*: it is
dialled first and never pushed out by an unverified one. A hint that fails
is backed off exponentially (bounded), and the failures of hints that left
the book are remembered in a bounded LRU, so a forged record heard again
does not come back as new. Hints that keep failing and are no longer heard
age out (discovery repeats the records that still stand, see
``ZeroconfDiscovery.refresh``); hints never tried yet stay until tried.

The book is also the queue of the dials to come: the lobby dials at most
``HintLimits.dials`` hints at once (``MAX_DIALS``) and takes them in the
order ``due`` gives (the oldest and the newest in turn), so a flood of
records waits its turn in a bounded book instead of opening a socket each.
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

__all__ = ["MAX_DIALS", "Address", "HintBook", "HintLimits"]

Address = tuple[str, int]

MAX_DIALS: Final[int] = 16
"""Most dials of discovery hints in flight at once, on one peer.

As many as a listener runs handshakes (``connection.Limits.max_pending_handshakes``):
a peer opens no more connections on a stranger's word than it would take from
strangers. A table needs two peers, each announcing a few addresses, so every
hint of an honest table is dialled at once; a flood of records waits in the
book, and a full book (``HintLimits.capacity``) is tried within four dials'
timeouts."""


@dataclass(frozen=True)
class HintLimits:
    """The bounds of a ``HintBook`` (times in seconds)."""

    capacity: int = 64
    """Most hints kept."""
    per_host: int = 4
    """Most hints kept on one announced address."""
    max_age: float = 120.0
    """An unverified hint that failed and was not heard of for this long is dropped."""
    verified_age: float = 900.0
    """A verified hint neither heard of nor verified again for this long is dropped."""
    backoff_max: float = 30.0
    """The longest wait before a failed hint is dialled again."""
    memory: int = 256
    """Failure records kept for hints no longer in the book."""
    dials: int = MAX_DIALS
    """Most dials of hints in flight at once (the lobby's, counting those of hints
    that left the book meanwhile); at most half of them of hints that failed before,
    so a fresh hint never waits behind the tarpits only."""


@dataclass
class _Hint:
    heard: float
    first: float
    """When it came into the book: dials are taken first come, first served."""
    failures: int = 0
    due: float = 0.0
    """Not dialled again before this time."""
    verified: float | None = None
    """When a dial of it (or a peer listening there) last completed a handshake."""

    def worth(self) -> tuple[bool, int]:
        """Higher is more worth keeping: verified first, then fewer failures."""
        return (self.verified is not None, -self.failures)


class HintBook:
    """Discovery hints, bounded, aged, verified and backed off.

    ``first_backoff`` is the wait after a first failure; each further
    failure doubles it, up to ``limits.backoff_max``.
    """

    def __init__(self, limits: HintLimits = HintLimits(), first_backoff: float = 1.0) -> None:
        self.limits = limits
        self.first_backoff = first_backoff
        self._hints: dict[Address, _Hint] = {}
        self._memory: collections.OrderedDict[Address, tuple[int, float]] = (
            collections.OrderedDict())
        """Failures and due time of hints that left the book, oldest first."""

    def __len__(self) -> int:
        return len(self._hints)

    def __contains__(self, address: object) -> bool:
        return address in self._hints

    def __iter__(self) -> Iterator[Address]:
        return iter(self._hints)

    def failures(self, address: Address) -> int:
        """How many dials of ``address`` failed in a row (0 if unknown)."""
        hint = self._hints.get(address)
        return hint.failures if hint is not None else 0

    def verified(self, address: Address) -> bool:
        """True if a handshake completed at ``address`` and it is still in the book."""
        hint = self._hints.get(address)
        return hint is not None and hint.verified is not None

    def heard(self, address: Address, now: float) -> bool:
        """Discovery named ``address`` again; True if it is in the book now.

        When its host or the book is full, a new hint takes the place of the
        worst there (unverified before verified, more failures before fewer,
        then heard longest ago), unless that one is worth more.
        """
        self.expire(now)
        hint = self._hints.get(address)
        if hint is not None:
            hint.heard = now
            return True
        failures, due = self._memory.pop(address, (0, 0.0))
        new = _Hint(now, now, failures, due)
        host = address[0]
        same_host = [a for a in self._hints if a[0] == host]
        if len(same_host) >= self.limits.per_host and not self._make_room(same_host, new):
            self._remember(address, new)
            return False
        if len(self._hints) >= self.limits.capacity and not self._make_room(
                list(self._hints), new):
            self._remember(address, new)
            return False
        self._hints[address] = new
        return True

    def _make_room(self, among: list[Address], new: _Hint) -> bool:
        """Drop the worst of ``among`` unless it is worth more than ``new``; whether it did.

        Of equals the one heard longest ago goes: discovery repeats the
        records that still stand, so it is the likeliest gone (one that
        stands comes back when heard again), while a hint turned away might
        not be heard again for a while.
        """
        worst = min(among, key=lambda a: (self._hints[a].worth(), self._hints[a].heard))
        if self._hints[worst].worth() > new.worth():
            return False
        self._drop(worst)
        return True

    def due(self, now: float) -> list[Address]:
        """The hints to dial at ``now``, best first.

        Verified ones, then by fewest failures; of equals, the oldest and the
        newest in turn (first, last, second, second to last...). The oldest
        half is first come, first served: a record heard again (discovery
        repeats standing records) keeps its place, so no hint waits for good
        behind a flood that goes on. The newest half is a record heard after
        a flood (a player arriving on a LAN a stranger filled beforehand):
        dialled at once, not after every forged one.
        """
        self.expire(now)
        ready = [(a, h) for a, h in self._hints.items() if h.due <= now]
        ready.sort(key=lambda ah: (ah[1].verified is None, ah[1].failures, ah[1].first))
        out: list[Address] = []
        for _rank, group in itertools.groupby(
                ready, key=lambda ah: (ah[1].verified is None, ah[1].failures)):
            equals = [a for a, _ in group]
            while equals:
                out.append(equals.pop(0))
                if equals:
                    out.append(equals.pop())
        return out

    def succeeded(self, address: Address, now: float) -> None:
        """A handshake completed at ``address``: it is verified, its failures forgotten."""
        hint = self._hints.get(address)
        if hint is None:
            return
        hint.failures = 0
        hint.due = 0.0
        hint.verified = now

    def failed(self, address: Address, now: float) -> None:
        """A dial of ``address`` failed: wait longer before the next one."""
        hint = self._hints.get(address)
        if hint is None:
            return
        hint.failures += 1
        wait = self.first_backoff * 2.0 ** min(hint.failures - 1, 32)
        hint.due = now + min(wait, self.limits.backoff_max)

    def expire(self, now: float) -> None:
        """Drop the hints that aged out at ``now``."""
        old = [a for a, h in self._hints.items() if self._aged(h, now)]
        for address in old:
            self._drop(address)

    def _aged(self, hint: _Hint, now: float) -> bool:
        if hint.verified is not None:
            return now - max(hint.heard, hint.verified) > self.limits.verified_age
        return hint.failures > 0 and now - hint.heard > self.limits.max_age

    def _drop(self, address: Address) -> None:
        self._remember(address, self._hints.pop(address))

    def _remember(self, address: Address, hint: _Hint) -> None:
        if hint.failures == 0 or self.limits.memory <= 0:
            return
        self._memory[address] = (hint.failures, hint.due)
        self._memory.move_to_end(address)
        while len(self._memory) > self.limits.memory:
            self._memory.popitem(last=False)
