"""Run every atheris harness in fuzz/ for a bounded time (skipped without atheris).

The harnesses run side by side as subprocesses, each for
``GLEEK_ATHERIS_SECONDS`` (10 by default) with a per-input timeout and an
RSS cap, so a crash, a hang or runaway memory in any decoder fails here with
libFuzzer's report and the crashing input left in the temporary directory.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

FUZZ_DIR = Path(__file__).resolve().parent.parent / "fuzz"
HARNESSES = sorted(p.name for p in FUZZ_DIR.glob("fuzz_*.py"))
SECONDS = int(os.environ.get("GLEEK_ATHERIS_SECONDS", "10"))

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("atheris") is None,
    reason="atheris is not installed (pip install atheris to run the coverage-guided fuzzers)",
)


def test_there_are_harnesses() -> None:
    assert {"fuzz_wire.py", "fuzz_table.py", "fuzz_store.py"} <= set(HARNESSES)


@pytest.mark.timeout(SECONDS * 6 + 60)
def test_every_harness_runs_clean(tmp_path: Path) -> None:
    procs = {}
    for name in HARNESSES:
        out = tmp_path / f"{name}.out"
        procs[name] = (out, subprocess.Popen(
            [sys.executable, str(FUZZ_DIR / name), f"-max_total_time={SECONDS}",
             "-timeout=10", "-rss_limit_mb=1536", f"-artifact_prefix={tmp_path}/{name}-",
             "-print_final_stats=1"],
            cwd=tmp_path, stdout=out.open("wb"), stderr=subprocess.STDOUT,
        ))
    failures = []
    for name, (out, proc) in procs.items():
        try:
            code = proc.wait(timeout=SECONDS * 5 + 60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            code = -1
        text = out.read_text(errors="replace")
        runs = [line for line in text.splitlines()
                if line.startswith("stat::number_of_executed_units")]
        if code != 0 or not runs:
            failures.append(f"{name} exited {code}:\n{text[-3000:]}")
    assert not failures, "\n\n".join(failures)
