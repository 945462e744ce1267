"""A bot that keeps statistics over a session through the strategy hooks.

It plays like the built-in heuristic bot and counts, hand by hand, what it
won: money, tricks, the talon, the ruff, combinations, the Tiddy, Tib and
Tom. It prints the table when the session ends.

    python examples/stats_bot.py --simulate 12        # in-process, no network
    python examples/stats_bot.py --peer HOST:PORT ...  # a real peer on the LAN
    cd examples && python -m gleek_p2p simulate --bots stats_bot:StatsBot,random,heuristic
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence

from gleek_p2p.bots.heuristic import HeuristicStrategy
from gleek_p2p.rules import HandLedger, SeatView

RANKS = 11  # card = suit * 11 + rank; rank 0 is the Ace, 3 the Jack


class StatsBot(HeuristicStrategy):
    name = "stats"

    def __init__(self, seed: int | str | bytes = 0) -> None:
        super().__init__(seed)
        self.stats: Counter[str] = Counter()
        self.money = 0

    def on_hand_end(self, view: SeatView, ledger: HandLedger) -> None:
        me, s = view.seat, self.stats
        net = ledger.net[me]
        self.money += net
        s["hands"] += 1
        s["hands in profit"] += net > 0
        s["tricks"] += view.tricks_won[me]
        s["talons bought"] += view.talon_taker == me
        s["ruffs won"] += view.ruff_winner == me
        s["combinations"] += sum(1 for seat, _slots in view.declarations if seat == me)
        s["Tiddies"] += view.tiddy is not None and view.tiddy[0] == me
        if view.trump is not None:
            honours = {view.trump * RANKS: "Tib captured", view.trump * RANKS + 3: "Tom captured"}
            for _leader, slots, winner in view.tricks:
                for slot in slots:
                    if winner == me and view.shown.get(slot) in honours:
                        s[honours[view.shown[slot]]] += 1

    def on_session_end(self, totals: Sequence[int]) -> None:
        out = sys.stderr  # stdout may carry `gleek simulate --json`
        print(f"{self.name}: session over", file=out)
        for key in (
            "hands",
            "hands in profit",
            "tricks",
            "talons bought",
            "ruffs won",
            "combinations",
            "Tiddies",
            "Tib captured",
            "Tom captured",
        ):
            print(f"  {key:<16} {self.stats[key]:5d}", file=out)
        print(
            f"  {'net (pence)':<16} {self.money / 2:7.1f}   totals {list(totals)} halfpence",
            file=out,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description="A heuristic bot that keeps statistics.")
    parser.add_argument("--simulate", type=int, metavar="HANDS", help="play in-process instead")
    parser.add_argument("--peer", action="append", default=[], metavar="HOST:PORT")
    parser.add_argument("--name", default="stats")
    args = parser.parse_args()
    if args.simulate:
        from gleek_p2p.rules import VARIANTS
        from gleek_p2p.tools.simulate import simulate

        bots = [StatsBot(b"me"), HeuristicStrategy(b"a"), HeuristicStrategy(b"b")]
        simulate(VARIANTS["standard"], args.simulate, b"stats", bots)
        return
    from gleek_p2p.bots import run_peer

    outcome = run_peer(StatsBot(), name=args.name, peers=tuple(args.peer), mdns=not args.peer)
    print(outcome.reason)


if __name__ == "__main__":
    main()
