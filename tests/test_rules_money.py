"""One ``pence()`` (issue 25 step 4): every amount a person reads is written by
``rules.money.pence``, and each screen keeps the form it always showed."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from gleek_p2p.rules.money import pence
from gleek_p2p.tools.report import chart

PACKAGE = Path(__file__).resolve().parent.parent / "gleek_p2p"


def _read(text: str) -> int:
    """Halfpence back from the written form."""
    m = re.fullmatch(r"([+-]?)(\d*)(½?)", text)
    assert m and (m[2] or m[3]), text
    amount = 2 * int(m[2] or 0) + (1 if m[3] else 0)
    return -amount if m[1] == "-" else amount


@given(st.integers(-10**6, 10**6), st.booleans(), st.booleans())
def test_every_amount_reads_back(halfpence: int, signed: bool, leading_zero: bool) -> None:
    text = pence(halfpence, signed, leading_zero=leading_zero)
    assert _read(text) == halfpence
    assert text.startswith("+") == (signed and halfpence > 0)
    if abs(halfpence) == 1:
        assert text.lstrip("+-") == ("0½" if leading_zero else "½")


def test_the_three_forms_of_before_are_kept() -> None:
    # the table, narration and summaries: a lone halfpenny is '½'
    assert [pence(v) for v in (0, 1, -1, 13, -4)] == ["0", "½", "-½", "6½", "-2"]
    assert [pence(v, True) for v in (0, 1, 3)] == ["0", "+½", "+1½"]
    # gleek verify's report and gleek results: '0½', signed where it was
    assert [pence(v, leading_zero=True) for v in (1, -1)] == ["0½", "-0½"]
    assert pence(1, True, leading_zero=True) == "+0½"
    # gleek simulate's columns: always signed, '0½'
    assert [pence(v, True, leading_zero=True) for v in (13, -4, 0)] == ["+6½", "-2", "0"]


def test_the_reports_chart_still_labels_a_halfpenny_0_half() -> None:
    lines = chart([[1, -1, 0]], ["Ann", "Bob", "Cy"], height=3)
    assert [line.split("|")[0].strip() for line in lines[:3]] == ["0½", "0", "-0½"]


def test_pence_is_defined_once_in_the_package() -> None:
    owners = [str(path.relative_to(PACKAGE)) for path in sorted(PACKAGE.rglob("*.py"))
              for node in ast.walk(ast.parse(path.read_text()))
              if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
              and node.name == "pence"]  # (ui/summary's _pence is "{n} pence" in words)
    assert owners == ["rules/money.py"]
