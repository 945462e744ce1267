"""The strong bot's estimate of the talon against what taking it realised, strong vs strong.

Plays ``--hands`` hands of strong bots (``--think`` as in ``gleek simulate``)
and, for each talon sold, compares the taker's own estimate at its last
bid (the search's own mean net for taking at the lowest bid, moved to
the price it paid, before the bot's correction) with the net it
realised. A positive shortfall means the search prices the talon short
(``bots.search.TALON_UNDERVALUED``). Slow: strong bots at every seat.

    .venv/bin/python bench/talon_worth.py [--hands 90] [--seed v1] [--think 10] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Sequence
from typing import Any

from gleek_p2p.bots import search
from gleek_p2p.bots.registry import make_strategies
from gleek_p2p.rules import VARIANTS, Bid, Event, PassBid, SeatView
from gleek_p2p.tools.simulate import simulate


def measure(hands: int, seed: str, think: float) -> dict[str, Any]:
    seen: list[tuple[int, int, int, list[float], Event]] = []
    finish = search.SearchStrategy._finish

    def spy(self: search.SearchStrategy, view: SeatView, legal: Sequence[Event],
            candidates: list[Event], done: search.Searched) -> Event:
        move = finish(self, view, legal, candidates, done)
        if isinstance(candidates[0], PassBid) and isinstance(candidates[-1], Bid):
            seen.append((view.hand_no, view.seat, candidates[-1].amount, done.means, move))
        return move

    search.SearchStrategy._finish = spy  # type: ignore[method-assign]
    try:
        result = simulate(VARIANTS["standard"], hands, seed.encode(),
                          make_strategies("strong", 3, seed.encode(), think))
    finally:
        search.SearchStrategy._finish = finish  # type: ignore[method-assign]
    predicted, realised, prices = [], [], []
    for i, h in enumerate(result.hands):
        taker = h.talon_taker
        last = [x for x in seen if x[0] == i and x[1] == taker and isinstance(x[4], Bid)]
        if taker is None or not last:
            continue
        _hand, _seat, lowest, means, _move = last[-1]
        predicted.append(means[1] / 2 - (h.bid - lowest))
        realised.append(h.ledger.net[taker] / 2)
        prices.append(h.bid)
    short = [r - p for r, p in zip(realised, predicted, strict=True)]
    return {
        "talons": len(prices),
        "price_mean": statistics.mean(prices),
        "taker_predicted_net": statistics.mean(predicted),
        "taker_realised_net": statistics.mean(realised),
        "shortfall": statistics.mean(short),
        "shortfall_95": 1.96 * statistics.stdev(short) / len(short) ** 0.5,
        "talon_undervalued": search.TALON_UNDERVALUED,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=90)
    parser.add_argument("--seed", default="v1")
    parser.add_argument("--think", type=float, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    r = measure(args.hands, args.seed, args.think)
    if args.json:
        print(json.dumps({k: round(v, 2) for k, v in r.items()}))
        return
    print(f"talons sold                 {r['talons']:8d}  (mean price {r['price_mean']:.1f})")
    print(f"taker's own estimate of net {r['taker_predicted_net']:+8.1f} pence at its price")
    print(f"taker's realised net        {r['taker_realised_net']:+8.1f} pence")
    print(f"shortfall of the estimate   {r['shortfall']:+8.1f} +- {r['shortfall_95']:.1f} pence"
          f"  (the search's own means; its bids add TALON_UNDERVALUED = "
          f"{r['talon_undervalued']} to the worth)")


if __name__ == "__main__":
    main()
