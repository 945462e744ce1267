"""Violation codes: one enum, documented in protocol/violations.md, carried by every raise."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from vector_reports import vector_report

from gleek_p2p.base.violation_codes import ViolationCode
from gleek_p2p.cli.commands import verify_file
from gleek_p2p.tools.report import json_report

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "protocol" / "vectors" / "sessions"


def test_the_document_lists_exactly_the_enum() -> None:
    text = (ROOT / "protocol" / "violations.md").read_text()
    documented = re.findall(r"^\| `([a-z]+\.[a-z-]+)` \|", text, flags=re.M)
    assert len(documented) == len(set(documented)), "a code is listed twice"
    assert set(documented) == {c.value for c in ViolationCode}


@pytest.mark.parametrize("layer", ["rules", "deck", "table"])
def test_every_raise_in_the_core_layers_names_its_code(layer: str) -> None:
    missing = []
    for path in sorted((ROOT / "gleek_p2p" / layer).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("ProtocolError", "Cheating")
                    and not any(k.arg == "code" for k in node.keywords)):
                missing.append(f"{path.name}:{node.lineno}")
    assert not missing


def test_every_vector_reports_its_code_in_json() -> None:
    # protocol/vectors/sessions/index.json names the code a second implementation
    # must report for each vector (the reason's words may change; codes may not).
    index = json.loads((VECTORS / "index.json").read_text())
    for entry in index:
        data = json_report(vector_report(entry["file"]))
        if entry["exit_code"] == 0:
            assert data["violations"] == [] and "code" not in data, entry["file"]
        elif entry.get("verdict") == "stopped":
            # Nothing proven: a whole-log code (cut short, or a claim), no violation.
            assert data["violations"] == [], entry["file"]
            assert data["code"] == entry["code"] in ("log.incomplete", "abort.claim")
        else:
            assert data["violations"][0]["code"] == entry["code"], entry["file"]
            assert entry["code"] in {c.value for c in ViolationCode}


def test_an_unreadable_file_has_a_code(tmp_path: Path) -> None:
    junk = tmp_path / "junk.gleeklog"
    junk.write_bytes(b"not a log at all")
    data = json_report(verify_file(junk))
    assert data["readable"] is False and data["code"] == "log.not-a-log"


def test_live_table_errors_carry_codes() -> None:
    # The out-of-turn event, as the abort's evidence holds it, refused live by a
    # table at the abort's position: the code is the one verify documents.
    from gleek_p2p.base.errors import Cheating
    from gleek_p2p.cli.commands import read_log
    from gleek_p2p.log.envelope import decode_envelope
    from gleek_p2p.table.roster import Roster
    from gleek_p2p.table.session import Table

    records, _ = read_log(VECTORS / "out-of-turn.gleeklog")
    table = Table(Roster.from_body(decode_envelope(records[0]).body))
    for record in records[:-1]:
        table.receive(decode_envelope(record), record)
    abort = decode_envelope(records[-1])
    evidence = decode_envelope(abort.body[2][0])
    with pytest.raises(Cheating) as info:
        table.receive(evidence)
    assert info.value.code is ViolationCode.TURN_OUT_OF_TURN
    assert len(table.envelopes) == len(records) - 1
