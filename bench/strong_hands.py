"""Strong against strong under the current rulings, in resumable 10-hand sessions.

The figures issue 21 asks for (winning bids, how often the bound is reached, the
taker's mean net after paying, each phase's share of the money), over as many
hands as the machine has time for: each session is saved as it ends, so a run can
be stopped and taken up again::

    nice -n 10 .venv/bin/python bench/strong_hands.py play s21a 10 OUT   # until stopped
    .venv/bin/python bench/strong_hands.py show OUT
"""

from __future__ import annotations

import collections
import os
import pickle
import statistics
import sys
from pathlib import Path

from gleek_p2p.rules import VARIANTS, limits
from gleek_p2p.tools import simulate

SESSION_HANDS = 10


def play(prefix: str, think_ms: float, out: Path) -> None:
    """Play sessions ``PREFIX-0``, ``PREFIX-1``... into ``out`` until stopped."""
    out.mkdir(parents=True, exist_ok=True)
    variant = VARIANTS["standard"].game()
    k = 0
    while True:
        path = out / f"{prefix}-{k:03d}.pkl"
        if not path.exists():
            result = simulate._play(variant, SESSION_HANDS, f"{prefix}-{k}".encode(),
                                    ["strong"] * 3, think_ms=think_ms)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(pickle.dumps(result.hands))
            os.replace(tmp, path)
        k += 1


def show(out: Path) -> None:
    """Print the figures of every session saved in ``out``."""
    hands = []
    for path in sorted(out.glob("*.pkl")):
        hands.extend(pickle.loads(path.read_bytes()))
    variant = VARIANTS["standard"].game()
    result = simulate.SimResult(variant, tuple(hands), (0, 0, 0), None, 0)
    for phase, (mean, share) in simulate.phase_stats(result).items():
        print(f"{phase:<13} {mean:>8.2f} {share:>7.1%}")
    for line in simulate.auction_stats_lines(result):
        print(line)
    sold = [h for h in hands if h.talon_taker is not None]
    bids = sorted(h.bid for h in sold)
    buckets = collections.Counter((b // 20) * 20 for b in bids)
    print("bids by 20:", ", ".join(f"{k}-{k + 19}: {buckets[k]}" for k in sorted(buckets)))
    bound = limits(variant).max_bid
    print(f"at the bound {bound}: {sum(b >= bound for b in bids)} of {len(bids)}")
    nets = [h.ledger.net[h.talon_taker] / 2 for h in sold]
    mean = statistics.mean(nets)
    half = 1.96 * statistics.stdev(nets) / len(nets) ** 0.5
    print(f"taker's net after paying {mean:+.1f} pence, 95% interval "
          f"{mean - half:+.1f} .. {mean + half:+.1f} (n={len(nets)})")


def main() -> None:
    if sys.argv[1:2] == ["play"] and len(sys.argv) == 5:
        play(sys.argv[2], float(sys.argv[3]), Path(sys.argv[4]))
    elif sys.argv[1:2] == ["show"] and len(sys.argv) == 3:
        show(Path(sys.argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
