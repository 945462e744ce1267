"""The examples of protocol/bot-protocol.md agree with the rules they describe."""

from __future__ import annotations

import json
import re
from pathlib import Path

from gleek_p2p.bots.exec_bot import _ledger_json
from gleek_p2p.bots.registry import make_strategies
from gleek_p2p.rules import PHASE_NAMES, VARIANTS, card_points
from gleek_p2p.rules.scoring import LAST_TRICK, TIB, TOM, settle_against_mean
from gleek_p2p.tools.simulate import simulate

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
    assert running["phases"]["tricks"] == list(settle_against_mean(tuple(points), view["eldest"]))
    assert all(sum(running["phases"][p]) == 0 for p in PHASE_NAMES)
    assert running["net"] == [sum(running["phases"][p][i] for p in PHASE_NAMES)
                              for i in range(view["players"])]
    assert view["rulings"] == ["score_sheet_tricks", "optional_declaring",
                               "score_sheet_combinations"]


def test_example_hand_end_and_totals_are_what_the_simulation_gives() -> None:
    seed = b"bot-protocol-2"
    result = simulate(VARIANTS["standard"], 12, seed, make_strategies("heuristic", 3, seed))
    ledger = json.dumps(_ledger_json(result.hands[0].ledger), separators=(",", ":"))
    assert f'"ledger":{ledger}}}' in DOC
    assert re.search(r'"session_end","totals":\[' + ",".join(map(str, result.totals)), DOC)
