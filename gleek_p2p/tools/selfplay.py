"""A whole session in one process, through the full table protocol.

Three (or two) seats, each a real ``Table`` with its own identity and
secret, pass every signed event to each other in memory: signatures, the
deck protocol and the hand audits all run, exactly as between peers. Keys
and secrets derive from one seed, so the same seed gives the same log.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gleek_p2p.bots.strategy import Strategy, choose_now
from gleek_p2p.log.envelope import Envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.rules import Variant, seat_view
from gleek_p2p.table.drive import run
from gleek_p2p.table.roster import Roster
from gleek_p2p.table.session import Table


def _derive(seed: bytes, label: str, index: int = 0) -> bytes:
    return hashlib.sha256(b"gleek-p2p/selfplay/" + label.encode() + bytes([index]) + seed).digest()


@dataclass
class SelfplayResult:
    """The signed log (encoded envelopes, in order) and every seat's table."""

    records: list[bytes]
    tables: list[Table]


def make_seats(
    variant: Variant, hands: int, seed: bytes, names: Sequence[str] | None = None
) -> list[Table]:
    """One table per seat, with identities and secrets derived from ``seed``."""
    n = variant.players
    identities = [Identity.generate(_derive(seed, "identity", s)) for s in range(n)]
    roster = Roster(
        variant,
        hands,
        tuple(i.public for i in identities),
        tuple(names) if names else tuple(f"bot-{s}" for s in range(n)),
        _derive(seed, "nonce"),
    )
    return [Table(roster, s, identities[s], _derive(seed, "secret", s)) for s in range(n)]


def selfplay(
    variant: Variant,
    hands: int,
    seed: bytes,
    strategies: Sequence[Strategy],
    on_event: Callable[[int], None] | None = None,
) -> SelfplayResult:
    """Play a whole session between ``strategies`` (one per seat)."""
    names = [f"{s.name}-{seat}" for seat, s in enumerate(strategies)]
    tables = make_seats(variant, hands, seed, names)
    if len(strategies) != len(tables):
        raise ValueError(f"{variant.players} strategies are needed")
    hands_seen = 0
    lead = tables[0]

    def after(_envelope: Envelope, _data: bytes) -> None:
        nonlocal hands_seen
        if on_event is not None:
            on_event(len(lead.envelopes))
        if len(lead.hands) > hands_seen:
            hands_seen = len(lead.hands)
            for seat, strategy in enumerate(strategies):
                state = tables[seat].hands[-1].state
                strategy.on_hand_end(seat_view(state, seat), state.ledgers[-1])

    records = run(tables, lambda d: choose_now(strategies[d.seat], d.view, d.legal),
                  on_event=after)
    return SelfplayResult(records, tables)
