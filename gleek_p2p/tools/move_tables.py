"""The move tables of SPEC.md 1.2 and protocol/bot-protocol.md, generated.

Both are made from the event declarations in ``rules/events.py`` (each
kind's fields with their wire ranges and notes, who sends it, its words),
like ``protocol/events.json``, so neither document can drift from the
decoder. Each table sits in its document between :data:`BEGIN` and
:data:`END`; ``python -m gleek_p2p.tools.move_tables`` rewrites them in
place and a test checks the committed text is what this makes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gleek_p2p.rules import EventDeclaration, FieldSpec, event_declarations

__all__ = ["BEGIN", "DOCUMENTS", "END", "bot_table", "refresh", "spec_table", "splice"]

BEGIN = ("<!-- The table below is generated from gleek_p2p/rules/events.py by "
         "`python -m gleek_p2p.tools.move_tables`: edit the declarations, not it. -->")
END = "<!-- End of the generated table. -->"


def _field(name: str, spec: FieldSpec, json: bool) -> str:
    """A field and its range; a ``None`` is the wire's integer, or JSON's ``null``."""
    if spec.type == "list":
        order = ", strictly ascending" if spec.ascending else ""
        shape = f"{spec.min_len} to {spec.max_len} of {spec.lo}..{spec.hi}{order}"
    elif spec.none_wire is None:
        shape = f"{spec.lo}..{spec.hi}"
    else:
        lo = spec.lo + 1 if spec.lo == spec.none_wire else spec.lo
        shape = f"{lo}..{spec.hi} or {_none(spec, json)}"
    return f"`{name}` ({shape})"


def _notes(d: EventDeclaration, json: bool) -> str:
    """The fields' notes, a ``None`` written as the document writes it (``null`` in JSON)."""
    def note(spec: FieldSpec) -> str:
        assert spec.doc is not None
        if spec.none_wire is None:
            return spec.doc
        return spec.doc.replace(f"{spec.none_wire} = ", _none(spec, json) + " = ")

    return "; ".join(note(spec) for _name, spec in d.fields if spec.doc)


def _none(spec: FieldSpec, json: bool) -> str:
    return "`null`" if json else f"`{spec.none_wire}`"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def spec_table() -> str:
    """SPEC.md 1.2: every event kind, its wire fields, what it is and who sends it."""
    lines = [_row(["kind", "fields (wire ranges)", "what", "who"]), "|---|---|---|---|"]
    for d in event_declarations():
        fields = ", ".join(_field(name, spec, json=False) for name, spec in d.fields)
        notes = _notes(d, json=False)
        what = f"{d.words} ({notes})" if notes else d.words
        lines.append(_row([f"`{d.kind}`", fields or "–", what, d.sender]))
    return "\n".join(lines)


def bot_table() -> str:
    """protocol/bot-protocol.md: every move object's fields past ``seat``, in JSON terms."""
    lines = [_row(["`kind`", "fields", "meaning"]), "|---|---|---|"]
    for d in event_declarations():
        if not d.is_action:
            continue
        fields = ", ".join(_field(name, spec, json=True) for name, spec in d.fields[1:])
        notes = _notes(d, json=True)
        meaning = f"{d.words} ({notes})" if notes else d.words
        lines.append(_row([f"`{d.kind}`", fields, meaning]))
    return "\n".join(lines)


DOCUMENTS = {"SPEC.md": spec_table, "protocol/bot-protocol.md": bot_table}
"""Each document (from the repository's root) and the table it holds."""


def splice(text: str, table: str) -> str:
    """``text`` with what stands between its markers replaced by ``table``."""
    head, sep, rest = text.partition(BEGIN + "\n")
    _old, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError("the document has no generated table's markers")
    return head + sep + table + "\n" + sep2 + tail


def refresh(root: Path) -> None:
    """Rewrite each document's table under ``root``."""
    for name, make in DOCUMENTS.items():
        path = root / name
        path.write_text(splice(path.read_text(), make()))


if __name__ == "__main__":
    refresh(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
