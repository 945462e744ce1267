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
from gleek_p2p.base.i18n import _
from gleek_p2p.rules import (
    ACTION_FIELDS,  # derived from the event declarations in rules/events.py
    ActionEvent,
    Bid,
    Cut,
    Deal,
    Event,
    Reveal,
    SeatView,
    card_name,
    event_declarations,
    event_from_wire,
    listed_moves,
)

__all__ = ["ACTION_FIELDS", "MalformedMove", "action_from_json", "action_to_json", "legal_to_json",
           "listed_moves"]

_INFORMATIVE = frozenset({"card", "cards", "up_to"})
_NONE_WIRE: dict[str, dict[str, int]] = {
    d.kind: {name: spec.none_wire for name, spec in d.fields if spec.none_wire is not None}
    for d in event_declarations() if d.is_action
}
"""Per move kind, the fields whose ``None`` has a wire stand-in (JSON null)."""
_NONE_DOC: dict[str, dict[str, str]] = {
    d.kind: {name: spec.doc or spec.what for name, spec in d.fields}
    for d in event_declarations() if d.is_action
}


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
    bids = [e for e in legal if isinstance(e, Bid)]
    if len(bids) > 1:
        out[shown.index(bids[0])]["up_to"] = bids[-1].amount
    return out


class MalformedMove(ProtocolError):
    """A move object ``action_from_json`` cannot read; its sentence is in the chosen
    language (it is for the bot's author, on the screen; the bot protocol never carries it)."""


def action_from_json(data: Any) -> ActionEvent:
    """Decode a move object; ``MalformedMove`` (a readable sentence) on anything malformed.

    Structure and ranges are checked here; whether the move is legal now is
    the caller's business (compare with the legal list).
    """
    if not isinstance(data, dict):
        raise MalformedMove(_('a move is a JSON object with a "kind"'))
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in ACTION_FIELDS:
        raise MalformedMove(_("unknown move kind {kind}").format(kind=repr(kind)))
    names = ACTION_FIELDS[kind]
    extra = set(data) - {"kind", *names} - _INFORMATIVE
    if extra:
        raise MalformedMove(_("a {kind} move has no field {field}").format(
            kind=kind, field=repr(sorted(extra)[0])))
    missing = [n for n in names if n not in data]
    if missing:
        raise MalformedMove(_("a {kind} move needs the field {field}").format(
            kind=kind, field=repr(missing[0])))
    wire: list[Any] = [kind]
    for name in names:
        value = data[name]
        if type(value) is bool:
            raise MalformedMove(_("{field} must be a number, not {value}").format(
                field=name, value=repr(value)))
        # A field with a wire stand-in for None (the Kiss's suit) is null in
        # JSON, and only there: each value has one spelling.
        none_wire = _NONE_WIRE[kind].get(name)
        if value is None:
            if none_wire is None:
                raise MalformedMove(_("a {kind} move takes no null {field}").format(
                    kind=kind, field=name))
            value = none_wire
        elif none_wire is not None and value == none_wire:
            raise MalformedMove(_("{field} {value} is written null in a {kind} move ({what})"
                                  ).format(field=name, value=value, kind=kind,
                                           what=_NONE_DOC[kind][name]))
        wire.append(value)
    try:
        event = event_from_wire(wire)
    except ProtocolError as exc:
        # The rules' decoder names the field and its range in English (its code,
        # FORM_EVENT, does not say which field): kept, as the detail.
        raise MalformedMove(_("a {kind} move with a value out of range ({detail})").format(
            kind=kind, detail=exc.message)) from None
    if isinstance(event, Cut | Deal | Reveal):  # cannot happen: kind is a move
        raise MalformedMove(f"a {kind} is not a move")
    return event
