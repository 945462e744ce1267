"""atheris harness: `python fuzz/fuzz_table.py [libFuzzer flags, e.g. -max_total_time=60]`."""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["gleek_p2p"]):
    import targets


def test_one_input(data: bytes) -> None:
    targets.table(data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
