#!/usr/bin/env python3
"""A stand-alone Gleek bot speaking protocol/bot-protocol.md on stdin/stdout.

No gleek_p2p import: any language that reads and writes JSON lines can do
the same. Try it with

    gleek simulate --hands 3 --bots "exec:python3 examples/exec_bot.py,heuristic,heuristic"

It always declares, claims the Tiddy, never bids or vies, and plays its
lowest card (by rank) unless it leads, when it plays its highest.
"""

import json
import sys

RANKS = "AKQJT987654"  # high to low, as in card names like "AS", "TH", "4C"


def rank(move):
    """0 for an Ace ... 10 for a Four; None for a move without a card."""
    card = move.get("card")
    return None if card is None else RANKS.index(card[0])


def choose(view, legal):
    kinds = [m["kind"] for m in legal]
    for wanted in ("declare", "claim_tiddy", "pass_bid", "pass_ruff"):
        if wanted in kinds:
            return kinds.index(wanted)
    if kinds[0] == "play":
        ranked = sorted(range(len(legal)), key=lambda i: rank(legal[i]))
        return ranked[0] if not view["trick"] else ranked[-1]
    return 0


def main():
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "move":
            print(choose(message["view"], message["legal"]), flush=True)
        elif message["type"] == "session_end":
            print(f"exec_bot: session over, totals {message['totals']}", file=sys.stderr)
            break


if __name__ == "__main__":
    main()
