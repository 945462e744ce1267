"""Conformance vectors: session logs and the verdict ``gleek verify`` must give.

Run ``python -m tests.adversary.vectors protocol/vectors/sessions`` (from the
repository root) to write them; the test suite verifies every file against
``index.json`` and checks that regenerating gives the same bytes.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.envelope import decode_envelope, sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.log.store import LogStore
from gleek_p2p.rules import VARIANTS
from gleek_p2p.selfplay import _derive, selfplay

from .scenarios import SCENARIOS


@dataclass(frozen=True)
class Vector:
    name: str
    records: list[bytes]
    expect: dict[str, Any]


def _valid(variant: str, hands: int, seed: bytes) -> list[bytes]:
    v = VARIANTS[variant]
    return selfplay(v, hands, seed, [RandomStrategy(seed + bytes([s]))
                                     for s in range(v.players)]).records


def build() -> list[Vector]:
    """Every vector, deterministically."""
    base = _valid("standard", 1, b"vector-standard")
    two = _valid("two", 1, b"vector-two")
    from gleek_p2p.table.verify import verify_records

    out = []
    for name, records in (("valid-standard", base), ("valid-two", two)):
        report = verify_records(records)
        out.append(Vector(name, records, {
            "exit_code": 0, "totals": list(report.hands[-1].state.totals)}))
    k = 30  # a mid-hand event to tamper with
    flipped = bytearray(base[k])
    flipped[len(flipped) // 2] ^= 0x01
    def broken(event: int, says: str) -> dict[str, Any]:
        return {"exit_code": 1, "event": event, "seat": None, "says": says}

    out.append(Vector("flipped-byte", [*base[:k], bytes(flipped), *base[k + 1:]],
                      broken(k, "unreadable")))
    out.append(Vector("reordered", [*base[:k], base[k + 1], base[k], *base[k + 2:]],
                      broken(k, "reordered")))
    out.append(Vector("dropped", base[:k] + base[k + 1:], broken(k, "reordered, cut")))
    out.append(Vector("duplicated", [*base[:k + 1], base[k], *base[k + 1:]],
                      broken(k + 1, "padded")))
    out.append(Vector("spliced", [*base[:k], two[k], *base[k + 1:]],
                      broken(k, "another session")))
    # Re-sign an event of seat s with another key: the signature does not verify.
    env = decode_envelope(base[k])
    impostor = Identity.generate(_derive(b"someone else", "identity", 9))
    forged = sign_envelope(impostor, env.session_id, env.seq, env.prev, env.seat, env.kind,
                           env.body)
    out.append(Vector("forged-author", [*base[:k], forged.encode(), *base[k + 1:]],
                      broken(k, "signature")))
    for name, says in (("equivocation", "two different events"), ("revoke", "follow suit"),
                       ("bad-unplayed-key", "commitment"), ("false-ruff", "show all"),
                       ("hidden-combination", "must declare"), ("wrong-deal-key", "key"),
                       ("out-of-turn", "out of turn"), ("illegal-bid", "bid")):
        scenario = SCENARIOS[name]
        result = scenario.run()
        report = verify_records(result.records)
        event = report.violations[0].seq if report.violations else None
        out.append(Vector(name, result.records, {
            "exit_code": 1, "event": event, "seat": scenario.blamed, "says": says}))
    return out


#: Logs kept as they were made by deck protocol version 1 (every seed revealed
#: after the hand, the deal audited then): they must still verify.
FROZEN = [
    {"file": "valid-standard-deck-v1.gleeklog", "exit_code": 0, "totals": [-394, 201, 193]},
    {"file": "valid-two-deck-v1.gleeklog", "exit_code": 0, "totals": [162, -162]},
    {"file": "bad-seed-deck-v1.gleeklog", "exit_code": 1, "event": 89, "seat": 1, "says": "seed"},
]


def write(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    index: list[dict[str, Any]] = list(FROZEN)
    for vector in build():
        path = directory / f"{vector.name}.gleeklog"
        path.unlink(missing_ok=True)
        with LogStore.open(path) as store:
            for record in vector.records:
                store.append(record)
        index.append({"file": path.name, **vector.expect})
    (directory / "index.json").write_text(json.dumps(index, indent=1) + "\n")


if __name__ == "__main__":
    write(Path(sys.argv[1] if len(sys.argv) > 1 else "protocol/vectors/sessions"))
