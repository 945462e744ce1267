"""Canonical encoding: round trips, and every non-canonical spelling refused."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log.canonical import INT_MAX, INT_MIN, decode, encode

scalars = (
    st.integers(min_value=INT_MIN, max_value=INT_MAX)
    | st.binary(max_size=300)
    | st.text(max_size=300)
    | st.booleans()
    | st.none()
)
values = st.recursive(scalars, lambda children: st.lists(children, max_size=20), max_leaves=60)


def shape(v: Any) -> Any:
    """``v`` with the type of every value in it: ``1 == True`` and ``[1] == (1,)`` in Python."""
    if isinstance(v, list):
        return ("list", [shape(c) for c in v])
    return (type(v).__name__, v)


@given(values)
def test_round_trip_keeps_the_bytes_the_lists_and_the_types(value: Any) -> None:
    # One property over one strategy (the generation of these nested values is most of
    # the cost): the value comes back equal, re-encodes to the same bytes, and every
    # list comes back a list and every value its own type.
    data = encode(value)
    assert decode(data) == value
    assert encode(decode(data)) == data
    assert shape(decode(data)) == shape(value)


def test_tuples_encode_as_lists() -> None:
    assert encode((1, (b"x", "y"))) == encode([1, [b"x", "y"]])
    assert decode(encode((1, 2))) == [1, 2]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, "00"),
        (127, "7f"),
        (128, "cc80"),
        (256, "cd0100"),
        (65536, "ce00010000"),
        (2**32, "cf0000000100000000"),
        (-1, "ff"),
        (-32, "e0"),
        (-33, "d0df"),
        (-129, "d1ff7f"),
        (INT_MIN, "d38000000000000000"),
        (True, "c3"),
        (False, "c2"),
        (None, "c0"),
        (b"", "c400"),
        (b"\x01\x02", "c4020102"),
        ("", "a0"),
        ("é", "a2c3a9"),
        ("a" * 32, "d920" + "61" * 32),
        ([], "90"),
        ([1, [b"a"]], "920191c40161"),
    ],
)
def test_known_encodings(value: Any, expected: str) -> None:
    assert encode(value).hex() == expected
    assert decode(bytes.fromhex(expected)) == value


@pytest.mark.parametrize(
    "hex_data",
    [
        "cc05",  # 5 as uint8 instead of positive fixint
        "cd0080",  # 128 as uint16
        "ce00000080",  # 128 as uint32
        "cf0000000000000080",  # 128 as uint64
        "d005",  # positive value in a signed form
        "d0ff",  # -1 as int8 instead of negative fixint
        "d2ffffff7f",  # -129 as int32
        "d3ffffffffffffff7f",  # -129 as int64
        "d90161",  # "a" as str8 instead of fixstr
        "da000161",  # "a" as str16
        "c5000161",  # b"a" as bin16 instead of bin8
        "dc000101",  # [1] as array16 instead of fixarray
        "dd0000000101",  # [1] as array32
    ],
)
def test_wider_forms_refused(hex_data: str) -> None:
    with pytest.raises(ProtocolError, match="not canonical"):
        decode(bytes.fromhex(hex_data))


@pytest.mark.parametrize(
    ("hex_data", "reason"),
    [
        ("80", "maps"),  # empty map
        ("8101", "malformed"),  # truncated map
        ("81a161a162", "malformed"),  # map {"a": "b"}
        ("ca3f800000", "float"),  # float32 1.0
        ("cb3ff0000000000000", "float"),  # float64 1.0
        ("d40100", "malformed"),  # fixext1
        ("d6ff00000000", "malformed"),  # timestamp32
        ("c1", "malformed"),  # never-used type byte
        ("0000", "trailing"),  # trailing byte
        ("9201", "malformed"),  # truncated array
        ("a2c3", "malformed"),  # truncated str
        ("a1ff", "UTF-8"),  # invalid UTF-8
        ("a3eda080", "UTF-8"),  # encoded lone surrogate
        ("cf8000000000000000", "64 signed bits"),  # 2**63
        ("cfffffffffffffffff", "64 signed bits"),  # 2**64 - 1
        ("", "empty"),
    ],
)
def test_malformed_refused(hex_data: str, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        decode(bytes.fromhex(hex_data))


def test_str_and_bin_are_distinct_types() -> None:
    # A bin where a str was meant decodes as bytes, never as str (and back).
    assert decode(bytes.fromhex("c40161")) == b"a"
    assert decode(bytes.fromhex("a161")) == "a"
    assert decode(bytes.fromhex("c40161")) != decode(bytes.fromhex("a161"))


@pytest.mark.parametrize(
    "header",
    [
        "dbffffffff",  # str32 of 4 GiB
        "c6ffffffff",  # bin32 of 4 GiB
        "ddffffffff",  # array32 of 4 G items
        "dcffff",  # array16 of 65535 items
    ],
)
def test_huge_length_headers_refused_without_allocating(header: str) -> None:
    with pytest.raises(ProtocolError):
        decode(bytes.fromhex(header) + b"\x00" * 10)


def test_depth_limit() -> None:
    nested: Any = 1
    for _ in range(5):
        nested = [nested]
    data = encode(nested)
    assert decode(data, max_depth=5) == nested
    with pytest.raises(ProtocolError, match="deeper"):
        decode(data, max_depth=4)


def test_hostile_nesting_refused() -> None:
    with pytest.raises(ProtocolError):
        decode(b"\x91" * 100_000 + b"\x00", max_len=200_000)
    with pytest.raises(ProtocolError):
        decode(b"\x91" * 40 + b"\x00")


def test_item_and_length_limits() -> None:
    data = encode(list(range(100)))
    assert len(decode(data)) == 100  # type: ignore[arg-type]
    with pytest.raises(ProtocolError):
        decode(data, max_items=50)
    with pytest.raises(ProtocolError, match="more than"):
        decode(data, max_len=len(data) - 1)


@pytest.mark.parametrize(
    "value",
    [
        1.5,
        {"a": 1},
        [1, {}],
        2**63,
        INT_MIN - 1,
        {1, 2},
        object(),
        "\ud800",
    ],
)
def test_encode_refuses_values_outside_the_model(value: Any) -> None:
    with pytest.raises(ProtocolError):
        encode(value)


def test_encode_refuses_cycles() -> None:
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(ProtocolError, match="deeper"):
        encode(cycle)


def test_decode_refuses_non_bytes() -> None:
    with pytest.raises(ProtocolError):
        decode("c0")  # type: ignore[arg-type]


def test_int_boundaries() -> None:
    for n in (INT_MAX, INT_MIN, 2**31, -(2**31) - 1, 2**16, -(2**15) - 1):
        data = encode(n)
        assert decode(data) == n
        # The canonical form is never longer than the int64 form.
        assert len(data) <= len(b"\xd3" + struct.pack(">q", n))
