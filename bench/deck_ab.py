"""Before/after in one process: the v3 hand set-up at an earlier revision against this tree.

Extracts ``gleek_p2p`` at ``--against`` (default HEAD) with ``git archive``,
renamed so that both import side by side, and runs ``bench/deck.py``'s
three-seat v3 set-up (``run_curve``) with each, interleaved round by round
(before, after, before, after...), best of ``--rounds``: the set-up in wall
and CPU time, the per-seat critical path (sequential in wall and CPU time,
pipelined as modelled from the CPU time of each step, pipelined in threads),
and each figure after/before. The machine's load moves both sides alike, so
the ratios compare where the absolute times do not.

    .venv/bin/python bench/deck_ab.py [--against REV] [--rounds 5] [--json]
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
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


def measure(deck: Any, best: dict[str, float]) -> None:
    """One set-up of each kind with ``deck``, keeping the best of each figure in ``best``."""
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
    for name, value in figures.items():
        best[name] = min(best.get(name, float("inf")), value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="HEAD", help="the revision measured as before")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, best of")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deck_ab_") as tmp:
        before_deck = load_before(args.against, Path(tmp))
        sides: dict[str, tuple[Any, dict[str, float]]] = {
            "before": (before_deck, {}), "after": (gleek_p2p.deck, {})}
        for deck, _ in sides.values():
            bench.run_curve(3, setup_only=True, deck=deck)  # warm up
        for _ in range(args.rounds):
            for deck, best in sides.values():
                measure(deck, best)
    before, after = sides["before"][1], sides["after"][1]
    result: dict[str, Any] = {"against": args.against, "rounds": args.rounds}
    for name in before:
        result[name + "_before"] = round(before[name], 1)
        result[name + "_after"] = round(after[name], 1)
        result["ratio_" + name] = round(after[name] / before[name], 3)
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return
    print(f"v3 set-up, {args.against} (before) against this tree (after),"
          f" interleaved, best of {args.rounds}:")
    for name in before:
        print(f"  {name:30} {before[name]:8.1f} -> {after[name]:8.1f}"
              f"   x{after[name] / before[name]:.3f}")


if __name__ == "__main__":
    main()
