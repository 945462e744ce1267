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
from gleek_p2p.errors import ProtocolError
from gleek_p2p.log.keys import Identity
from gleek_p2p.rules import Variant, seat_view
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
    records: list[bytes] = []
    hands_seen = 0
    lead = tables[0]
    while not lead.finished:
        expected = lead.expected()
        if expected is None:
            failure = lead.audit_failure
            raise ProtocolError(f"the session stopped: {failure}" if failure else "stuck")
        seat_table = tables[expected.seat]
        envelope = seat_table.auto_event()
        if envelope is None:
            decision = seat_table.decision()
            assert decision is not None
            envelope = seat_table.act(choose_now(strategies[expected.seat], decision.view,
                                                 decision.legal))
        data = envelope.encode()
        for table in tables:
            table.receive(envelope, data)
        records.append(data)
        if on_event is not None:
            on_event(len(records))
        if len(lead.hands) > hands_seen:
            hands_seen = len(lead.hands)
            for seat, strategy in enumerate(strategies):
                state = tables[seat].hands[-1].state
                strategy.on_hand_end(seat_view(state, seat), state.ledgers[-1])
    return SelfplayResult(records, tables)
