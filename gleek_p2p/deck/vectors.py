"""Test vectors: fixed seeds in, every message out (``protocol/vectors/deck-*.json``).

Regenerate with ``python -m gleek_p2p.deck.vectors protocol/vectors``. In the
JSON a byte string is written ``{"hex": "..."}``; everything else is as on
the wire.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from .harness import LocalHand, deal_layout, talon_slots

Scenario = tuple[int, list[int], list[int], int, list[tuple[int, list[int]]]]

#: name -> (n_seats, cards, order, talon taker, shows as (seat, slots)); the
#: deck protocol version is 1 for these (kept: old logs must still verify).
_V1: dict[str, Scenario] = {
    # Gleek: 44 cards, three seats, eldest (seat 1) first.
    "deck-3seats": (3, list(range(44)), [1, 2, 0], 2, [(0, [0]), (2, [40, 24])]),
    # Gleek for two: no 4s or 5s (ranks 9 and 10 of each suit).
    "deck-2seats": (
        2,
        [c for c in range(44) if c % 11 < 9],
        [1, 0],
        0,
        [(1, [12])],
    ),
}

#: Every vector: the version 1 ones, and the same scenarios in version 2
#: (every pass proved; no seed is revealed after the hand), in version 3
#: (version 2 on secp256k1) and in version 4 (no lock pass; each seat's keys
#: proved strips of its shuffle key, SPEC.md §2.8b).
SCENARIOS: dict[str, tuple[int, Scenario]] = {
    **{name: (1, scenario) for name, scenario in _V1.items()},
    **{name.replace("deck-", "deck-v2-"): (2, scenario) for name, scenario in _V1.items()},
    **{name.replace("deck-", "deck-v3-"): (3, scenario) for name, scenario in _V1.items()},
    **{name.replace("deck-", "deck-v4-"): (4, scenario) for name, scenario in _V1.items()},
}


def vector_seed(name: str, seat: int) -> bytes:
    """The fixed seed of a seat in a vector: SHA-256 of a readable label."""
    return hashlib.sha256(f"gleek-p2p test vector {name} seat {seat}".encode()).digest()


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"hex": value.hex()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def build_vector(name: str) -> dict[str, Any]:
    """Run a scenario and return its vector (inputs, every message, the deal)."""
    version, (n, cards, order, taker, shows) = SCENARIOS[name]
    hand_id = f"gleek-p2p test vector {name}".encode()
    seeds = [vector_seed(name, s) for s in range(n)]
    hand = LocalHand.new(seeds, cards, hand_id, order, version)
    hand.run_setup()
    layout = deal_layout(n, len(cards))
    hand.deal(layout)
    talon = talon_slots(n, len(cards))
    hand.give(talon, taker)
    for seat, slots in shows:
        hand.show(seat, slots)
    if version == 1:
        hand.reveal_seeds()
        deal = hand.observer.audit()
    else:
        # Nothing is revealed: the deal is what the seats' own full knowledge gives.
        deal = hand.full_deal()
    vector: dict[str, Any] = _jsonable(
        {
            "name": name,
            "version": version,
            "n_seats": n,
            "cards": cards,
            "hand_id": hand_id,
            "order": order,
            "seeds": seeds,
            "layout": {str(s): slots for s, slots in layout.items()},
            "talon": talon,
            "talon_taker": taker,
            "shows": [[seat, slots] for seat, slots in shows],
            "messages": [m.to_wire() for m in hand.log],
            "deal": {str(slot): card for slot, card in sorted(deal.items())},
        }
    )
    return vector


def vector_text(name: str) -> str:
    """A vector as its file holds it, byte for byte (what ``main`` writes)."""
    return json.dumps(build_vector(name), indent=1, sort_keys=True) + "\n"


def from_jsonable(value: Any) -> Any:
    """Undo ``_jsonable`` for message lists (``{"hex": ...}`` back to bytes)."""
    if isinstance(value, dict) and set(value) == {"hex"}:
        return bytes.fromhex(value["hex"])
    if isinstance(value, list):
        return [from_jsonable(v) for v in value]
    return value


def main(argv: list[str]) -> None:
    out = Path(argv[0] if argv else "protocol/vectors")
    out.mkdir(parents=True, exist_ok=True)
    for name in SCENARIOS:
        (out / f"{name}.json").write_text(vector_text(name))


if __name__ == "__main__":
    main(sys.argv[1:])
