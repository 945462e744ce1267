"""Which deck protocol versions a log of each version holds (SPEC 3, "The log's version").

The log's version (the envelope's, ``log.envelope.PROTOCOL_VERSION``) is raised
whenever a reader of the previous one would refuse a body; deck version 4 did
(its commit names 4, its ``keys`` carry proved strips). So the two are tied: a
log of version 1 holds hands of deck versions 1 to 3 (every log written before
deck version 4, which verifies forever), a log of version 2 holds deck version
4 hands only. A commit naming a deck version its log does not hold is then a
provable downgrade (or a forged upgrade), blamed on its signer.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from gleek_p2p.base.errors import ProtocolError, ViolationCode

__all__ = ["DECK_VERSIONS_OF_LOG", "log_version_for"]

DECK_VERSIONS_OF_LOG: Mapping[int, frozenset[int]] = MappingProxyType({
    1: frozenset({1, 2, 3}),
    2: frozenset({4}),
})
"""For each log version, the deck protocol versions its hands may run."""


def log_version_for(deck_version: int) -> int:
    """The log version a table writes when its seat runs ``deck_version``."""
    for log_version, decks in DECK_VERSIONS_OF_LOG.items():
        if deck_version in decks:
            return log_version
    raise ProtocolError(f"no log version holds deck protocol version {deck_version!r}",
                        code=ViolationCode.LOCAL_MISUSE)
