"""Run every benchmark and print one table (``python -m bench`` or ``bench/run_all.py``).

Each benchmark runs in its own process with ``--json``, one after the other
so they do not compete for the CPU. Every figure is shown beside the
baseline its script measured in the same run.

    .venv/bin/python bench/run_all.py [--json] [--only engine,deck,...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BENCHES = ("engine", "deck", "verify", "session", "memory")


def run(name: str) -> dict[str, Any]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, str(HERE / f"{name}.py"), "--json"],
                          capture_output=True, text=True, timeout=900)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout).strip()[-800:], "took_s": took}
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {"error": "no JSON object in the output", "took_s": took}
    result: dict[str, Any] = json.loads(lines[-1])
    result["took_s"] = round(took, 1)
    return result


def _phases(deck: dict[str, Any], key: str) -> float:
    phases = deck[key]
    return float(sum(phases[p] for p in ("shuffle", "lock", "deal") if p in phases))


def summary(results: dict[str, dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(what, figure, against its baseline) rows; a failed benchmark says why."""
    rows: list[tuple[str, str, str]] = []

    def row(name: str, make: Any) -> None:
        r = results.get(name)
        if r is None:
            return
        if "error" in r:
            rows.append((name, "FAILED", r["error"].splitlines()[-1][:70] if r["error"] else ""))
            return
        try:
            rows.extend(make(r))
        except (KeyError, TypeError, ZeroDivisionError) as exc:
            rows.append((name, "?", f"unexpected output ({exc!r})"))

    row("engine", lambda r: [(
        "engine hands/s", f"{r['hands_per_s']:.0f}",
        f"{r['ratio_vs_bare_engine']:.2f} x bare engine "
        f"({r['baseline_bare_engine_hands_per_s']:.0f})",
    )])
    row("deck", lambda r: [(
        "deck set-up ms (shuffle+lock+deal)", f"{_phases(r, 'ms_per_phase'):.1f}",
        f"prime-field baseline {_phases(r, 'baseline_ms'):.0f} ms: "
        f"{_phases(r, 'baseline_ms') / _phases(r, 'ms_per_phase'):.0f} x faster",
    ), (
        "deck whole hand ms (with audit)", f"{r['ms_total']:.1f}",
        f"{r['ratio_vs_baseline']:.0f} x faster than the baseline",
    )])
    row("verify", lambda r: [(
        f"verify {r['hands']}-hand session s", f"{r['verify_s_12_hands']:.3f}",
        f"{r['ratio_verify_vs_selfplay']:.2f} x selfplay ({r['selfplay_s_12_hands']:.2f} s); "
        f"{r['events_per_s']:.0f} events/s",
    )])
    row("session", lambda r: [(
        f"session wall s, {r['hands']} hands, loopback TCP", f"{r['tcp_wall_s']:.2f}",
        f"{r['ratio_wall_tcp_vs_selfplay']:.2f} x selfplay ({r['selfplay_wall_s']:.2f} s)",
    ), (
        "  of which crypto / engine / storage / waiting / other", "",
        " / ".join(f"{r[f'tcp_{p}_s']:.2f}"
                   for p in ("crypto", "engine", "storage", "waiting", "other")) + " s",
    ), (
        "hand set-up ms over TCP (median)", f"{r['tcp_setup_ms_median']:.0f}",
        f"{r['ratio_setup_tcp_vs_selfplay']:.2f} x selfplay "
        f"({r['selfplay_setup_ms_median']:.0f} ms)",
    )])
    row("memory", lambda r: [(
        "peak memory per peer MiB (ru_maxrss)", f"{r['peak_maxrss_mb']:.1f}",
        f"{r['ratio_maxrss_vs_baseline']:.2f} x idle process ({r['baseline_maxrss_mb']:.1f});"
        f" tracemalloc peak {r['peak_tracemalloc_mb']:.1f}",
    )])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only", default=",".join(BENCHES),
                        help="comma-separated subset of " + ",".join(BENCHES))
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n]
    unknown = set(names) - set(BENCHES)
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    results = {}
    for name in names:
        if not args.json:
            print(f"running {name} ...", file=sys.stderr, flush=True)
        results[name] = run(name)
    rows = summary(results)
    if args.json:
        print(json.dumps({"results": results,
                          "table": [dict(zip(("what", "figure", "baseline"), r, strict=True))
                                    for r in rows]}))
    else:
        width = max(len(r[0]) for r in rows)
        fig = max(len(r[1]) for r in rows)
        print(f"{'benchmark':<{width}}  {'figure':>{fig}}  against the baseline (same run)")
        for what, figure, baseline in rows:
            print(f"{what:<{width}}  {figure:>{fig}}  {baseline}")
    return 0 if all("error" not in r for r in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
