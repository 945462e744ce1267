"""The move tables of SPEC.md 1.2 and protocol/bot-protocol.md: generated from rules/events.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from gleek_p2p.rules import ACTION_FIELDS, EVENT_TYPES, event_declarations
from gleek_p2p.tools import move_tables
from gleek_p2p.tools.move_tables import BEGIN, DOCUMENTS, END, bot_table, spec_table, splice

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_the_committed_table_is_the_generated_one(name: str) -> None:
    # Regenerate with: python -m gleek_p2p.tools.move_tables
    text = (ROOT / name).read_text()
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    committed = text.split(BEGIN + "\n", 1)[1].split(END, 1)[0]
    assert committed == DOCUMENTS[name]() + "\n"


def test_every_kind_has_its_row_and_every_field_its_range() -> None:
    spec, bots = spec_table(), bot_table()
    for d in event_declarations():
        row = next(line for line in spec.splitlines() if line.startswith(f"| `{d.kind}` |"))
        for name, field in d.fields:
            assert f"`{name}` (" in row and f"{field.hi}" in row, (d.kind, name)
        assert d.sender in row and d.words in row
    assert {line.split("`")[1] for line in spec.splitlines()[2:]} == set(EVENT_TYPES)
    assert {line.split("`")[1] for line in bots.splitlines()[2:]} == set(ACTION_FIELDS)
    kiss = next(line for line in bots.splitlines() if line.startswith("| `name_trump` |"))
    assert "`null`" in kiss and "-1" not in kiss  # JSON has null where the wire has -1


def test_a_changed_declaration_changes_both_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    before = spec_table(), bot_table()
    declared = list(event_declarations())
    play = next(i for i, d in enumerate(declared) if d.kind == "play")
    declared[play] = type(declared[play])(
        "play", declared[play].cls, declared[play].fields, "whoever", "lay a card", "")
    monkeypatch.setattr(move_tables, "event_declarations", lambda: tuple(declared))
    spec, bots = spec_table(), bot_table()
    assert "| `play` | `seat` (0..2), `slot` (0..43) | lay a card | whoever |" in spec
    assert "| `play` | `slot` (0..43) | lay a card |" in bots
    assert (spec, bots) != before


def test_splice_replaces_only_between_the_markers() -> None:
    text = f"head\n{BEGIN}\n| old |\n{END}\ntail\n"
    assert splice(text, "| new |") == f"head\n{BEGIN}\n| new |\n{END}\ntail\n"
    with pytest.raises(ValueError, match="markers"):
        splice("no markers here", "| new |")
