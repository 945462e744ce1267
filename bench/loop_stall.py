"""How long a peer's event loop stalls during a hand set-up and deal, checks inline or in a worker.

One seat's ``DeckProtocol`` in an asyncio loop takes a three-seat hand's
set-up and deal (the other seats' passes and deal keys, made beforehand with
the same seeds) and makes its own, of the deck version given (default the
current one, 4, whose deal keys are proved strips, checked on the loop),
while a ticker beside it wakes every millisecond and records how late it is.
Run once with every proof checked on the loop, once with the pass checks in a
worker thread (``DeckProtocol.precheck`` through ``asyncio.to_thread``, as
the peer does with ``check_in_worker``; that job also makes this seat's next
pass when its turn comes right after). Its own passes are otherwise made on
the loop. Prints the longest stall of each (goal: no stall over 50 ms on a
check) and their ratio, same run.

    .venv/bin/python bench/loop_stall.py [--json] [--rounds 3] [--version 4]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import time
from typing import Any

from gleek_p2p.deck import DeckProtocol, Keys
from gleek_p2p.deck.harness import LocalHand, deal_layout
from gleek_p2p.deck.messages import CURRENT_VERSION

CARDS = list(range(44))
HAND_ID = b"loop stall hand"
SEEDS = [hashlib.sha256(b"loop stall seed %d" % s).digest() for s in range(3)]
ORDER = [0, 1, 2]
ME = 0


class Ticker:
    """Wakes every millisecond; keeps the worst lateness, split by what the loop did."""

    def __init__(self) -> None:
        self.worst = {"check": 0.0, "prove": 0.0}
        self.doing = "check"
        self.running = True

    async def run(self) -> None:
        while self.running:
            start = time.perf_counter()
            await asyncio.sleep(0.001)
            late = (time.perf_counter() - start - 0.001) * 1000
            self.worst[self.doing] = max(self.worst[self.doing], late)


async def one_setup(log: list[Any], in_worker: bool, version: int) -> dict[str, float]:
    seat = DeckProtocol(ME, 3, CARDS, HAND_ID, ORDER, SEEDS[ME], version)
    ticker = Ticker()
    task = asyncio.create_task(ticker.run())
    await asyncio.sleep(0.005)
    for message in log:
        step = seat.expected()
        if message.seat == ME:
            ticker.doing = "prove"
            if isinstance(message, Keys):
                made = seat.make_keys([slot for slot, _ in message.keys])
            else:
                assert step is not None
                made = getattr(seat, f"make_{step[0]}")()
            # Long enough for the ticker to wake while this is still "prove"
            # (after sleep(0) this task ran first and the stall counted as a check).
            await asyncio.sleep(0.002)
            ticker.doing = "check"
            seat.receive(made)
        else:
            if in_worker:
                job = seat.precheck(message)
                if job is not None:
                    await asyncio.to_thread(job)
            seat.receive(message)
        await asyncio.sleep(0.002)  # the network: the ticker gets its turn
    ticker.running = False
    await task
    return ticker.worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--version", type=int, default=CURRENT_VERSION, choices=(2, 3, 4))
    args = parser.parse_args()
    hand = LocalHand.new(SEEDS, CARDS, HAND_ID, ORDER, version=args.version)
    hand.run_setup()
    for giver in ORDER:  # the deal keys, each seat in turn, as the table sends them
        slots = sorted(s for taker, own in deal_layout(3, len(CARDS)).items()
                       if taker != giver for s in own)
        hand.broadcast(hand.seats[giver].make_keys(slots))
    log = list(hand.log)
    worst: dict[str, dict[str, float]] = {
        "inline": {"check": float("inf"), "prove": float("inf")},
        "worker": {"check": float("inf"), "prove": float("inf")},
    }
    for _ in range(args.rounds):
        for name, in_worker in (("inline", False), ("worker", True)):
            got = asyncio.run(one_setup(log, in_worker, args.version))
            for k, v in got.items():
                worst[name][k] = min(worst[name][k], v)
    result: dict[str, Any] = {
        "deck_version": args.version,
        "stall_ms_check_inline": round(worst["inline"]["check"], 1),
        "stall_ms_check_in_worker": round(worst["worker"]["check"], 1),
        "stall_ms_own_proof": round(worst["inline"]["prove"], 1),
        # With the worker, a seat's pass that follows another seat's is made in
        # the precheck job (beside the check): only its first shuffle (seat 0
        # shuffles first) is still made on the loop.
        "stall_ms_own_proof_worker": round(worst["worker"]["prove"], 1),
        "ratio_stall_worker_vs_inline": round(
            worst["worker"]["check"] / max(worst["inline"]["check"], 1e-9), 3),
    }
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return
    print(f"longest loop stall during a v{args.version} hand set-up and deal (best of rounds),"
          " one seat of three:")
    print(f"  checking the others' proofs on the loop:  {result['stall_ms_check_inline']} ms")
    print(f"  checking them in a worker thread:         {result['stall_ms_check_in_worker']} ms"
          f" (goal <= 50; ratio {result['ratio_stall_worker_vs_inline']})")
    print(f"  making its own proof (on the loop):       {result['stall_ms_own_proof']} ms")
    print(f"  its own, the later ones made in the job:  {result['stall_ms_own_proof_worker']} ms")


if __name__ == "__main__":
    main()
