"""The strong bot at ten times the arena's default search budget.

How much strength the default budget leaves on the table (issue 21)::

    PYTHONPATH=bench gleek arena --bots strong,strong10x:Strong10x --seed s21 --hands 126
"""

from __future__ import annotations

from gleek_p2p.bots.search import SearchStrategy, budget_for
from gleek_p2p.tools.arena import ARENA_THINK_MS


class Strong10x(SearchStrategy):
    """``strong`` with ten times ``ARENA_THINK_MS`` to think."""

    name = "strong10x"

    def __init__(self) -> None:
        super().__init__(b"strong10x", budget_for(10 * ARENA_THINK_MS, True))
