"""Deck messages on the wire: round trips and malformed input."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.deck import (
    Commit,
    Keys,
    LockPass,
    SeedReveal,
    ShufflePass,
    message_from_wire,
)

b32 = st.binary(min_size=32, max_size=32)
seat = st.integers(0, 2)
messages = st.one_of(
    st.builds(Commit, seat, b32),
    st.builds(ShufflePass, seat, st.lists(b32, max_size=44).map(tuple)),
    st.builds(LockPass, seat, st.lists(b32, max_size=44).map(tuple)),
    st.builds(Keys, seat, st.lists(st.tuples(st.integers(0, 43), b32), max_size=44).map(tuple)),
    st.builds(SeedReveal, seat, b32),
)


@given(messages)
def test_round_trip(msg: Any) -> None:
    wire = msg.to_wire()
    assert message_from_wire(wire) == msg
    assert isinstance(wire, list)


P = bytes(32)


@pytest.mark.parametrize(
    "wire",
    [
        None,
        "commit",
        [],
        ["commit", 0],
        ["commit", 0, P, 1],
        [1, 0, P],
        ["nonsense", 0, P],
        ["commit", -1, P],
        ["commit", True, P],
        ["commit", "0", P],
        ["commit", 0, P[:31]],
        ["commit", 0, bytearray(P)],
        ["seed", 0, P + b"x"],
        ["shuffle", 0, P],
        ["shuffle", 0, [P, P[:31]]],
        ["shuffle", 0, [P] * 45],
        ["lock", 0, [P, 5]],
        ["keys", 0, [[0, P, 1]]],
        ["keys", 0, [(0, P)]],
        ["keys", 0, [[-1, P]]],
        ["keys", 0, [[False, P]]],
        ["keys", 0, [[0, P[:5]]]],
        ["keys", 0, [[0, P]] * 45],
    ],
)
def test_malformed_wire_is_rejected(wire: Any) -> None:
    with pytest.raises(ProtocolError):
        message_from_wire(wire)


def test_wire_uses_only_lists_ints_bytes_str() -> None:
    def plain(value: Any) -> bool:
        if isinstance(value, list):
            return all(plain(v) for v in value)
        return type(value) in (int, bytes, str)

    msg = Keys(1, ((3, P), (4, P)))
    assert plain(msg.to_wire())
    assert plain(ShufflePass(0, (P, P)).to_wire())
