"""The JSON form of moves for bots in other languages (protocol/bot-protocol.md).

A move is one flat JSON object: ``{"kind": "play", "seat": 1, "slot": 17,
"card": "AS"}``. Its fields are the event's own fields under their own
names (``amount``, ``slot``, ``slots``, ``raise_by``, ``suit``). Suits are
0..3 (S, H, D, C) and a Kiss is ``"suit": null``. When the encoder knows the
cards, it adds ``"card"`` (one slot) or ``"cards"`` (several) as ASCII names;
these are for reading only and the decoder ignores them.

An auction's legal list is shown as the pass and the lowest bid, which
carries ``"up_to"``: every amount from its ``amount`` to ``up_to`` is legal
(:func:`legal_to_json`), so an open auction does not list hundreds of bids.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.rules import (
    ACTION_FIELDS,  # derived from the event declarations in rules/events.py
    ActionEvent,
    Cut,
    Deal,
    Event,
    Reveal,
    SeatView,
    card_name,
    event_from_wire,
    listed_moves,
)

__all__ = ["ACTION_FIELDS", "action_from_json", "action_to_json", "legal_to_json",
           "listed_moves"]

_INFORMATIVE = frozenset({"card", "cards", "up_to"})


def _cards_known(view: SeatView | None) -> dict[int, int]:
    if view is None:
        return {}
    known = {x: c for x, c in (*view.hand, *view.talon, *view.discards) if c is not None}
    known.update(view.shown)
    return known


def action_to_json(event: Event, view: SeatView | None = None) -> dict[str, Any]:
    """The JSON object of an action; card names are added where ``view`` shows them."""
    kind = event.KIND
    names = ACTION_FIELDS.get(kind)
    if names is None:
        raise ProtocolError(f"a {kind} event is not a move a bot makes")
    out: dict[str, Any] = {"kind": kind}
    for name in names:
        value = getattr(event, name)
        out[name] = list(value) if isinstance(value, tuple) else value
    known = _cards_known(view)
    if "slot" in out and out["slot"] in known:
        out["card"] = card_name(known[out["slot"]])
    if "slots" in out and all(x in known for x in out["slots"]):
        out["cards"] = [card_name(known[x]) for x in out["slots"]]
    return out


def legal_to_json(legal: Sequence[Event], view: SeatView | None = None) -> list[dict[str, Any]]:
    """The move objects of ``listed_moves(legal)``; a lowest bid standing for more has ``up_to``."""
    shown = listed_moves(legal)
    out = [action_to_json(e, view) for e in shown]
    if len(shown) < len(legal):
        top = legal[-1]
        out[1]["up_to"] = getattr(top, "amount", None)
    return out


def action_from_json(data: Any) -> ActionEvent:
    """Decode a move object; ``ProtocolError`` (a readable sentence) on anything malformed.

    Structure and ranges are checked here; whether the move is legal now is
    the caller's business (compare with the legal list).
    """
    if not isinstance(data, dict):
        raise ProtocolError('a move is a JSON object with a "kind"')
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in ACTION_FIELDS:
        raise ProtocolError(f"unknown move kind {kind!r}")
    names = ACTION_FIELDS[kind]
    extra = set(data) - {"kind", *names} - _INFORMATIVE
    if extra:
        raise ProtocolError(f"a {kind} move has no field {sorted(extra)[0]!r}")
    missing = [n for n in names if n not in data]
    if missing:
        raise ProtocolError(f"a {kind} move needs the field {missing[0]!r}")
    wire: list[Any] = [kind]
    for name in names:
        value = data[name]
        if type(value) is bool:
            raise ProtocolError(f"{name} must be a number, not {value!r}")
        if name == "suit" and value is None:
            if kind != "name_trump":
                raise ProtocolError("only name_trump takes a null suit (Kiss)")
            value = -1
        elif name == "suit" and value == -1:
            raise ProtocolError("a suit is 0..3 (S, H, D, C); Kiss is null")
        wire.append(value)
    event = event_from_wire(wire)
    if isinstance(event, Cut | Deal | Reveal):  # cannot happen: kind is a move
        raise ProtocolError(f"a {kind} is not a move")
    return event
