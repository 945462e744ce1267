"""The draw for the first dealer: a commit-reveal coin every seat shares.

Each seat commits to a nonce, then all reveal; the cards each seat "cuts"
come from a deterministic shuffle keyed by all the nonces together, so no
seat can choose its card unless all the others collude with it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence


class _Stream:
    """SHA-256 in counter mode: unbiased integers below a bound."""

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._counter = 0
        self._buffer = b""

    def _bytes(self, n: int) -> bytes:
        while len(self._buffer) < n:
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._buffer += block
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def below(self, bound: int) -> int:
        # Rejection sampling keeps every index equally likely.
        limit = (1 << 32) - ((1 << 32) % bound)
        while True:
            value = int.from_bytes(self._bytes(4), "big")
            if value < limit:
                return value % bound


def cut_cards(session_id: bytes, nonces: Sequence[bytes], pack: Sequence[int]) -> tuple[int, ...]:
    """One distinct card of ``pack`` per seat, drawn from all seats' nonces."""
    key = hashlib.sha256(b"gleek-p2p/cut/v1\x00" + session_id + b"".join(nonces)).digest()
    stream = _Stream(key)
    cards = list(pack)
    for i in range(len(cards) - 1, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards[: len(nonces)])
