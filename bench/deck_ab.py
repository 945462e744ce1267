"""Before/after in one process: the v3 hand set-up at an earlier revision against this tree.

Extracts ``gleek_p2p`` at ``--against`` (default HEAD) with ``git archive``,
renamed so that both import side by side, and runs ``bench/deck.py``'s
three-seat v3 set-up (``run_curve``) with each, interleaved round by round
(before, after, after, before...), ``--rounds`` rounds: the set-up in wall
and CPU time, the per-seat critical path (sequential in wall and CPU time,
pipelined as modelled from the CPU time of each step, pipelined in threads),
each side's best, and after/before both as the ratio of the bests and as the
median of each round's own ratio (the load of a shared machine moves within
seconds; the two sides of a round ran next to each other).

    .venv/bin/python bench/deck_ab.py [--against REV] [--rounds 5] [--json]
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

# Run as a script, this directory is on the path: bench/deck.py is ``deck``.
import deck as bench

import gleek_p2p.deck

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "gleek_ab_before"


def load_before(rev: str, into: Path) -> Any:
    """The ``deck`` package of ``gleek_p2p`` at ``rev``, imported as ``gleek_ab_before.deck``."""
    archive = subprocess.run(["git", "archive", rev, "gleek_p2p"], cwd=ROOT,
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    package = into / BEFORE
    (into / "gleek_p2p").rename(package)
    for source in package.rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        source.write_text(text.replace("gleek_p2p", BEFORE), encoding="utf-8")
    sys.path.insert(0, str(into))
    return importlib.import_module(BEFORE + ".deck")


def measure(deck: Any) -> dict[str, float]:
    """One set-up of each kind (sequential, pipelined in threads) with ``deck``: its figures."""
    path: list[tuple[str, float]] = []
    cpu_path: list[tuple[str, float]] = []
    cpu = time.process_time()
    phases = bench.run_curve(3, setup_only=True, path=path, cpu_path=cpu_path, deck=deck)
    figures = {
        "setup_ms": phases["shuffle"] + phases["lock"],
        "setup_cpu_ms": (time.process_time() - cpu) * 1000,
        "path_ms": sum(ms for _, ms in path),
        "path_cpu_ms": sum(ms for _, ms in cpu_path),
        "path_cpu_ms_pipelined_model": bench.pipelined_path(cpu_path),
    }
    threaded: list[tuple[str, float]] = []
    bench.run_curve(3, setup_only=True, path=threaded, pipelined=True, deck=deck)
    figures["path_ms_pipelined_threads"] = sum(ms for _, ms in threaded)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="HEAD", help="the revision measured as before")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (before and after in each)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deck_ab_") as tmp:
        decks = {"before": load_before(args.against, Path(tmp)), "after": gleek_p2p.deck}
        for deck in decks.values():
            bench.run_curve(3, setup_only=True, deck=deck)  # warm up
        rounds: list[dict[str, dict[str, float]]] = []
        for round_ in range(args.rounds):
            # before, after, after, before...: whichever runs first in a
            # round has no edge over the rounds.
            names = ["before", "after"] if round_ % 2 == 0 else ["after", "before"]
            rounds.append({name: measure(decks[name]) for name in names})
    # The load on a shared machine moves from one second to the next: each
    # figure's best of the rounds, and the median of the rounds' own
    # after/before ratios (the two sides of a round ran next to each other).
    result: dict[str, Any] = {"against": args.against, "rounds": args.rounds}
    for name in rounds[0]["before"]:
        before = min(r["before"][name] for r in rounds)
        after = min(r["after"][name] for r in rounds)
        result[name + "_before"] = round(before, 1)
        result[name + "_after"] = round(after, 1)
        result["ratio_" + name] = round(after / before, 3)
        result["ratio_median_" + name] = round(
            statistics.median(r["after"][name] / r["before"][name] for r in rounds), 3)
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return
    print(f"v3 set-up, {args.against} (before) against this tree (after),"
          f" interleaved, {args.rounds} rounds: best before -> best after, ratio of the"
          " bests, median of the rounds' ratios")
    for name in rounds[0]["before"]:
        print(f"  {name:30} {result[name + '_before']:8.1f} -> {result[name + '_after']:8.1f}"
              f"   x{result['ratio_' + name]:.3f}   median x{result['ratio_median_' + name]:.3f}")


if __name__ == "__main__":
    main()
