"""Amounts as a person reads them: the rules count halfpence, people read pence and ½.

The one ``pence()`` of the package: the table, the verify report, the
evening's results and ``gleek simulate`` all write amounts with it, each
with the options its columns have always used.
"""

from __future__ import annotations

HALFPENCE_PER_PENNY = 2
"""Every amount in the rules is a whole number of halfpence (scoring.py)."""


def pence(halfpence: int, signed: bool = False, *, leading_zero: bool = False) -> str:
    """13 -> '6½', 1 -> '½', -4 -> '-2', 0 -> '0'.

    ``signed`` puts a '+' on gains; ``leading_zero`` writes a lone halfpenny
    '0½' (the report's and simulate's columns) rather than '½' (the table's).
    """
    sign = "-" if halfpence < 0 else ("+" if signed and halfpence > 0 else "")
    whole, half = divmod(abs(halfpence), HALFPENCE_PER_PENNY)
    if whole == 0 and half and not leading_zero:
        return f"{sign}½"
    return f"{sign}{whole}{'½' if half else ''}"
