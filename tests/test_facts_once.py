"""Issue 25 step 4: a game fact lives in rules/; the bots, the screen and the engine ask it.

Two kinds of test: the source of the rooms that used to copy facts holds no
copy of a rules table or of a rules constant (read with ``ast``, so comments
and docstrings may still explain them), and the bots' own sums agree with the
rules' for every card under every trump.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from gleek_p2p.bots.heuristic import _TrickPlanner
from gleek_p2p.rules import VARIANTS, Event, Phase, State, apply, new_session, seat_view
from gleek_p2p.rules.cards import (
    RANK_LABELS,
    RANK_LETTERS,
    RANK_PLURALS,
    RANKS_PER_SUIT,
    SUIT_LETTERS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
)
from gleek_p2p.rules.limits import OPENING_BID
from gleek_p2p.rules.scoring import TIB, _trick_table, combination_value, ruff_points
from gleek_p2p.rules.simulate import random_session
from gleek_p2p.ui import words

PACKAGE = Path(__file__).resolve().parent.parent / "gleek_p2p"
ASKERS = ("bots/heuristic.py", "bots/search.py", "ui/render.py", "ui/rules_summary.py",
          "ui/words.py", "rules/engine.py", "rules/summary.py",
          *(f"ui/panes/{name}.py" for name in ("scene", "header", "table", "ledger", "hand",
                                                "choice", "lobby")))
"""The modules issue 25 found copying facts of rules/ (engine.py: the rank names; ui/render.py
split into ui/panes/)."""

TABLES = {
    "ruff points by rank": tuple(ruff_points(r) for r in range(RANKS_PER_SUIT)),
    "gleek values by rank": tuple(combination_value(r, 3) for r in range(RANKS_PER_SUIT)),
    "rank plurals": RANK_PLURALS,
    "rank labels": RANK_LABELS,
    "rank letters": RANK_LETTERS,
    "suit names": SUIT_NAMES,
    "suit symbols": SUIT_SYMBOLS,
    "suit letters": SUIT_LETTERS,
}


def _code(path: str) -> ast.Module:
    tree = ast.parse((PACKAGE / path).read_text())
    # Docstrings explain the rules in words; only code must not restate them.
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
                body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            body[0] = ast.Pass()
    return tree


@pytest.mark.parametrize("path", ASKERS)
def test_no_copy_of_a_rules_table(path: str) -> None:
    for node in ast.walk(_code(path)):
        if isinstance(node, ast.Tuple | ast.List) and node.elts and all(
                isinstance(x, ast.Constant) for x in node.elts):
            values = tuple(x.value for x in node.elts)  # type: ignore[attr-defined]
            copied = [name for name, table in TABLES.items() if values == table]
            assert not copied, f"{path}:{node.lineno} copies the {copied[0]} of rules/"


@pytest.mark.parametrize("path", ASKERS)
def test_no_bare_ranks_per_suit_tib_or_opening_bid(path: str) -> None:
    """11 (ranks per suit), 15 (Tib) and 13 (the opening bid) appear in no code nor shown text."""
    facts = {RANKS_PER_SUIT: "ranks per suit", TIB: "Tib", OPENING_BID: "the opening bid"}
    for node in ast.walk(_code(path)):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            assert node.value not in facts, f"{path}:{node.lineno} writes {facts[node.value]}"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            words = node.value.replace("(", " ").replace(")", " ").split()
            said = [w for w in words if w.isdigit() and int(w) in facts]
            assert not said, f"{path}:{node.lineno} says {said} in {node.value!r}"


def test_the_catalogs_names_are_the_rules_names() -> None:
    """ui/words marks the names for the catalog (they must be literals there): the rules' own."""
    assert words.RANK_PLURALS == RANK_PLURALS
    assert words.SUIT_NAMES == SUIT_NAMES
    assert words.SUIT_SYMBOLS is SUIT_SYMBOLS


def _first_trick_states(variant_name: str, seeds: range) -> list[State]:
    """Each session's state once its first trump is named, as the tricks begin."""
    out = []
    for seed in seeds:
        _final, log = random_session(VARIANTS[variant_name], 1, random.Random(seed))
        s: State = new_session(VARIANTS[variant_name], 1)
        e: Event
        for e in log:
            s = apply(s, e)
            if s.phase is Phase.TRICKS:
                out.append(s)
                break
    return out


@pytest.mark.parametrize("variant", ["standard", "whist"])
def test_the_heuristic_bot_counts_a_trick_as_the_rules_do(variant: str) -> None:
    states = _first_trick_states(variant, range(40))
    trumps = {s.trump for s in states}
    assert {0, 1, 2, 3, None} <= trumps, trumps  # every suit and Kiss came up
    for s in states:
        table = _trick_table(s.trump, s.variant.whist_ranking)
        planner = _TrickPlanner(seat_view(s, s.turn))
        assert [planner.points(c) for c in range(4 * RANKS_PER_SUIT)] == list(table)
