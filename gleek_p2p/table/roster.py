"""Who sits at the table: the first event of every session log.

The session id is a hash of the roster, so every later envelope (which
carries the session id) is bound to these players, this variant and this
number of hands: an event cannot be spliced in from another session.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import Any

from gleek_p2p.base.errors import ProtocolError, ViolationCode
from gleek_p2p.log import canonical
from gleek_p2p.log.keys import check_public_key
from gleek_p2p.rules import Variant

SESSION_TAG = b"gleek-p2p/session/v1\x00"
MAX_HANDS = 120
MAX_NAME = 40


def fits_roster(name: str) -> bool:
    """Whether a roster can name a player ``name``: 1 to ``MAX_NAME`` printable characters.

    A Hello's name is looser (64 bytes, no control character): the lobby refuses
    a player whose name a roster cannot take, or the table would form and every
    seat would fail to make its roster.
    """
    return 0 < len(name) <= MAX_NAME and name.isprintable()


@dataclass(frozen=True)
class Roster:
    """The players (by seat), the variant and the length of the session."""

    variant: Variant
    hands: int
    publics: tuple[bytes, ...]
    names: tuple[str, ...]
    nonce: bytes

    def __post_init__(self) -> None:
        n = self.variant.players
        if len(self.publics) != n or len(self.names) != n:
            raise ProtocolError(f"the roster must name exactly {n} players",
                                code=ViolationCode.FORM_ROSTER)
        if len(set(self.publics)) != n:
            raise ProtocolError("the roster names the same key twice",
                                code=ViolationCode.FORM_ROSTER)
        for public in self.publics:
            check_public_key(public)
        if not 1 <= self.hands <= MAX_HANDS:
            raise ProtocolError(f"a session has 1 to {MAX_HANDS} hands, not {self.hands}",
                                code=ViolationCode.FORM_ROSTER)
        for name in self.names:
            if not fits_roster(name):
                raise ProtocolError(
                    f"player name {name!r} is not 1-{MAX_NAME} printable characters",
                    code=ViolationCode.FORM_ROSTER,
                )
        if not 16 <= len(self.nonce) <= 64:
            raise ProtocolError("the roster nonce must be 16 to 64 bytes",
                                code=ViolationCode.FORM_ROSTER)

    @property
    def seats(self) -> int:
        return self.variant.players

    def to_body(self) -> list[Any]:
        return [
            self.variant.to_wire(),
            self.hands,
            list(self.publics),
            list(self.names),
            self.nonce,
        ]

    @classmethod
    def from_body(cls, body: list[Any]) -> Roster:
        try:
            variant_wire, hands, publics, names, nonce = body
            if not (
                isinstance(hands, int)
                and isinstance(publics, list)
                and isinstance(names, list)
                and isinstance(nonce, bytes)
                and all(isinstance(p, bytes) for p in publics)
                and all(isinstance(s, str) for s in names)
            ):
                raise TypeError
            variant = Variant.from_wire(variant_wire)
        except (TypeError, ValueError) as exc:
            raise ProtocolError("the roster event is malformed",
                                code=ViolationCode.FORM_ROSTER) from exc
        return cls(variant, hands, tuple(publics), tuple(names), nonce)

    @functools.cached_property
    def session_id(self) -> bytes:
        """SHA-256 of the tagged roster body (derived once: a roster never changes, and
        every event a peer takes names it)."""
        return hashlib.sha256(SESSION_TAG + canonical.encode(self.to_body())).digest()

    def seat_of(self, public: bytes) -> int | None:
        try:
            return self.publics.index(public)
        except ValueError:
            return None
