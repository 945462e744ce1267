"""Every conformance vector in protocol/vectors/sessions gets its verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from adversary.vectors import build

from gleek_p2p.commands import read_log, verify_file

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "sessions"
INDEX = json.loads((VECTORS / "index.json").read_text())


@pytest.mark.parametrize("entry", INDEX, ids=[e["file"] for e in INDEX])
def test_vector_verdict(entry: dict[str, object]) -> None:
    report = verify_file(VECTORS / str(entry["file"]))
    assert report.exit_code == entry["exit_code"]
    if entry["exit_code"] == 0:
        assert report.fair and report.complete
        assert list(report.hands[-1].state.totals) == entry["totals"]
        return
    first = report.violations[0]
    assert first.seq == entry["event"]
    assert first.seat == entry["seat"]
    assert str(entry["says"]) in first.reason


def test_vectors_match_the_code() -> None:
    # Fixed seeds give fixed logs: the vectors on disk are what the code makes.
    for vector in build():
        records, tail = read_log(VECTORS / f"{vector.name}.gleeklog")
        assert records == vector.records and not tail, vector.name
