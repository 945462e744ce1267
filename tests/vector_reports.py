"""The conformance vectors' verify reports, each made once per test run.

Several tests read ``gleek verify``'s report of the same vector files
(tests/test_table_vectors.py, tests/test_violation_codes.py): verifying a
vector replays its whole session and checks every proof in it, so each file
is verified once and its report shared. A report is only read: a test that
needs to change one works on a copy.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from gleek_p2p.cli.commands import verify_file
from gleek_p2p.table.verify import VerifyReport

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "sessions"


@cache
def vector_report(name: str) -> VerifyReport:
    """``verify_file`` of the vector file ``name`` (in protocol/vectors/sessions)."""
    return verify_file(VECTORS / name)
