"""The JSON form of moves for exec bots: round trips and rejections."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.bots.json_codec import ACTION_FIELDS, action_from_json, action_to_json
from gleek_p2p.rules import (
    MOVE_KINDS,
    VARIANTS,
    Bid,
    FieldSpec,
    NameTrump,
    PassBid,
    event_declarations,
)
from gleek_p2p.tools.simulate import Simulation


def _field(spec: FieldSpec) -> st.SearchStrategy[Any]:
    """Any value the field's declared wire form admits (None where it has a stand-in)."""
    ints = st.integers(spec.lo, spec.hi)
    if spec.type == "list":
        if spec.ascending:
            return st.sets(ints, min_size=spec.min_len, max_size=spec.max_len).map(
                lambda s: tuple(sorted(s)))
        return st.lists(ints, min_size=spec.min_len, max_size=spec.max_len).map(tuple)
    if spec.none_wire is not None:
        none_wire = spec.none_wire
        return st.none() | ints.filter(lambda x: x != none_wire)
    return ints


# Every action kind declared, from its declaration: a new kind is covered unlisted.
actions = st.one_of(*(
    st.builds(d.cls, *(_field(spec) for _name, spec in d.fields))
    for d in event_declarations() if d.is_action
))


def test_every_kind_is_covered() -> None:
    declared = {d.kind for d in event_declarations() if d.is_action}
    assert declared == set(ACTION_FIELDS) == {k.kind for k in MOVE_KINDS}


@given(actions)
def test_round_trip_through_json_text(move: Any) -> None:
    data = json.loads(json.dumps(action_to_json(move)))
    assert data["kind"] == move.KIND
    assert action_from_json(data) == move


def test_kiss_is_a_null_suit() -> None:
    assert action_to_json(NameTrump(1, None)) == {"kind": "name_trump", "seat": 1, "suit": None}
    assert action_from_json({"kind": "name_trump", "seat": 1, "suit": None}) == NameTrump(1, None)


def test_card_names_come_from_the_view_and_are_ignored_on_input() -> None:
    sim = Simulation(VARIANTS["standard"], 1, b"codec")
    seen: dict[str, Any] = {}
    while (d := sim.decision()) is not None:
        seat, view, legal = d
        assert view is not None
        for move in legal:
            data = action_to_json(move, view)
            assert action_from_json(data) == move
            if "slot" in data:
                seen.setdefault("card", data)
                assert isinstance(data["card"], str) and len(data["card"]) == 2
            if "slots" in data:
                assert len(data["cards"]) == len(data["slots"])
        sim.act(seat, legal[0])
    assert "card" in seen
    play = seen["card"]
    assert action_from_json({**play, "card": "??"}) == action_from_json(play)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ([], "JSON object"),
        ({"kind": "resign", "seat": 0}, "unknown move kind"),
        ({"seat": 0}, "unknown move kind"),
        ({"kind": "play", "seat": 0}, "needs the field 'slot'"),
        ({"kind": "play", "seat": 0, "slot": 3, "why": 1}, "no field 'why'"),
        ({"kind": "play", "seat": 3, "slot": 3}, "seat"),
        ({"kind": "play", "seat": 0, "slot": 44}, "slot"),
        ({"kind": "play", "seat": 0, "slot": "3"}, "slot"),
        ({"kind": "play", "seat": True, "slot": 3}, "number"),
        ({"kind": "bid", "seat": 0, "amount": 1000}, "bid"),
        ({"kind": "declare", "seat": 0, "slots": [5, 3, 4]}, "ascending"),
        ({"kind": "declare", "seat": 0, "slots": [1, 2]}, "slots"),
        ({"kind": "show_ruff", "seat": 0, "suit": None, "slots": [1]}, "null suit"),
        ({"kind": "name_trump", "seat": 0, "suit": -1}, "written null.*Kiss"),
        ({"kind": "name_trump", "seat": 0, "suit": 4}, "suit"),
    ],
)
def test_malformed_moves_are_rejected_with_a_sentence(data: Any, words: str) -> None:
    with pytest.raises(ProtocolError, match=words):
        action_from_json(data)


def test_an_open_auction_is_shown_as_the_pass_and_the_lowest_bid_up_to_the_bound() -> None:
    from gleek_p2p.base.errors import IllegalMove
    from gleek_p2p.bots.exec_bot import parse_reply
    from gleek_p2p.bots.json_codec import legal_to_json
    from gleek_p2p.rules import max_bid

    sim = Simulation(VARIANTS["standard"], 1, b"open-auction")
    d = sim.decision()
    assert d is not None
    seat, view, legal = d
    assert view is not None and isinstance(legal[0], PassBid)
    high = max_bid(VARIANTS["standard"])
    assert len(legal) == 2 + high - 13  # the engine lists every bid
    shown = legal_to_json(legal, view)
    assert shown == [{"kind": "pass_bid", "seat": seat},
                     {"kind": "bid", "seat": seat, "amount": 13, "up_to": high}]
    as_json = view.to_json()
    assert as_json["legal"] == [["pass_bid", seat], ["bid", seat, 13]]
    assert as_json["max_bid"] == high
    # An index names a move shown; a move object any amount in the range.
    assert parse_reply("1", legal) == Bid(seat, 13)
    assert parse_reply(json.dumps({"kind": "bid", "seat": seat, "amount": 321}), legal) == Bid(
        seat, 321)
    assert parse_reply(json.dumps(shown[1]), legal) == Bid(seat, 13)  # up_to is for reading
    with pytest.raises(ProtocolError, match=r"only 0\.\.1"):
        parse_reply("2", legal)
    with pytest.raises(IllegalMove):
        parse_reply(json.dumps({"kind": "bid", "seat": seat, "amount": high + 1}), legal)
    with pytest.raises(IllegalMove):
        parse_reply(json.dumps({"kind": "bid", "seat": seat, "amount": 12}), legal)
    # Under the rulings of issue 12 the auction stops at 99.
    old = Simulation(VARIANTS["standard"].rulings_of(12), 1, b"open-auction").decision()
    assert old is not None and old[1] is not None
    assert legal_to_json(old[2], old[1])[1]["up_to"] == 99
    assert old[1].to_json()["max_bid"] == 99
