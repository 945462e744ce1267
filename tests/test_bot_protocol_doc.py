"""The examples of protocol/bot-protocol.md agree with the rules they describe."""

from __future__ import annotations

import json
import re
from pathlib import Path

from gleek_p2p.bots.exec_bot import _ledger_json
from gleek_p2p.bots.json_codec import legal_to_json
from gleek_p2p.bots.registry import make_strategies
from gleek_p2p.rules import PHASE_NAMES, VARIANTS, card_points
from gleek_p2p.rules.scoring import LAST_TRICK, TIB, TOM, settle_received
from gleek_p2p.tools.simulate import Simulation, simulate

DOC = (Path(__file__).resolve().parent.parent / "protocol" / "bot-protocol.md").read_text()


def _example() -> dict[str, object]:
    block = DOC.split("```json\n", 1)[1].split("```", 1)[0]
    data: dict[str, object] = json.loads(block)
    return data


def test_example_trick_points_follow_from_its_tricks() -> None:
    view = _example()["view"]
    assert isinstance(view, dict)
    shown = {int(k): v for k, v in view["shown"].items()}
    trump = view["trump"]
    points = [0] * view["players"]
    for _leader, slots, winner in view["tricks"]:
        for slot in slots:
            c = shown[slot]
            points[winner] += card_points(c, trump)
            points[winner] += TIB if c == trump * 11 else TOM if c == trump * 11 + 3 else 0
    if len(view["tricks"]) == 12:
        points[view["tricks"][-1][2]] += LAST_TRICK
    running = view["running"]
    assert running["trick_points"] == points
    assert running["phases"]["tricks"] == list(settle_received(tuple(points)))
    assert all(sum(running["phases"][p]) == 0 for p in PHASE_NAMES)
    assert running["net"] == [sum(running["phases"][p][i] for p in PHASE_NAMES)
                              for i in range(view["players"])]
    assert view["rulings"] == ["score_sheet_tricks", "optional_declaring",
                               "score_sheet_combinations", "open_auction", "received_scores"]
    assert view["max_bid"] == 448


def test_example_hand_end_and_totals_are_what_the_simulation_gives() -> None:
    seed = b"bot-protocol-2"
    result = simulate(VARIANTS["standard"], 12, seed, make_strategies("heuristic", 3, seed))
    ledger = json.dumps(_ledger_json(result.hands[0].ledger), separators=(",", ":"))
    assert f'"ledger":{ledger}}}' in DOC
    assert re.search(r'"session_end","totals":\[' + ",".join(map(str, result.totals)), DOC)


def test_example_move_message_is_what_the_simulation_sends() -> None:
    # The full move message is regenerated: the first decision of the first
    # hand where seat 0 follows a lead after four tricks, in the same session.
    seed = b"bot-protocol-2"
    sim = Simulation(VARIANTS["standard"], 12, seed)
    bots = make_strategies("heuristic", 3, seed)
    while (d := sim.decision()) is not None:
        seat, view, legal = d
        assert view is not None
        if (view.phase == "tricks" and view.hand_no == 0 and len(view.tricks) >= 4
                and len(view.trick) == 1 and len(legal) >= 3):
            break
        sim.act(seat, bots[seat].choose(view, legal))
    else:
        raise AssertionError("the session has no such decision")
    assert _example() == json.loads(json.dumps(
        {"type": "move", "view": view.to_json(), "legal": legal_to_json(legal, view)}))
