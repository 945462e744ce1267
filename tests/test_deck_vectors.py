"""Fixed seeds give fixed messages: the vectors under protocol/vectors/ hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gleek_p2p.deck import audit_transcript, message_from_wire
from gleek_p2p.deck.vectors import SCENARIOS, build_vector, from_jsonable

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_vector_file_matches_a_fresh_run(name: str) -> None:
    stored = json.loads((VECTORS / f"{name}.json").read_text())
    assert build_vector(name) == stored


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_vector_transcript_audits_to_its_deal(name: str) -> None:
    stored = json.loads((VECTORS / f"{name}.json").read_text())
    messages = [message_from_wire(from_jsonable(m)) for m in stored["messages"]]
    deal = audit_transcript(
        stored["n_seats"],
        stored["cards"],
        bytes.fromhex(stored["hand_id"]["hex"]),
        stored["order"],
        messages,
    )
    kinds = [m.to_wire()[0] for m in messages]
    n = stored["n_seats"]
    if stored["version"] == 1:
        assert {str(k): v for k, v in deal.items()} == stored["deal"]
        assert kinds[: 3 * n - 1] == ["commit"] * n + ["shuffle"] * n + ["lock"] * (n - 1)
        assert kinds[-n:] == ["seed"] * n
    else:
        # No seed is revealed: the transcript checks, and nothing more is learnt.
        assert deal and {str(k): v for k, v in deal.items()}.items() <= stored["deal"].items()
        # Version 4 has no lock pass (SPEC 2.8b).
        locks = [] if stored["version"] == 4 else ["lock"] * n
        setup = ["commit"] * n + ["shuffle"] * n + locks
        assert kinds[: len(setup)] == setup and kinds[len(setup)] == "keys"
        assert "seed" not in kinds
