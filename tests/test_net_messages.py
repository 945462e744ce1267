"""Peer wire messages: round trips and rejection of malformed input."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log import canonical
from gleek_p2p.net.messages import (
    MAX_EVENT_SIZE,
    Addresses,
    Bye,
    ByeCode,
    Event,
    Hello,
    Message,
    Ping,
    Pong,
    Proof,
    Refuse,
    RefuseCode,
    Reveal,
    Sync,
    decode_message,
    encode_message,
)

text = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=16)
b32 = st.binary(min_size=32, max_size=32)
K, N, S = b"k" * 32, b"n" * 32, b"s" * 64
u63 = st.integers(min_value=0, max_value=2**63 - 1)

messages: st.SearchStrategy[Message] = st.one_of(
    st.builds(
        Hello,
        st.integers(0, 0xFFFF),
        text,
        st.lists(st.integers(0, 0xFFFF), max_size=16).map(tuple),
        st.integers(2, 8),
        b32,
        text,
        b32,
        st.integers(0, 0xFFFF),
        b32,
    ),
    st.builds(Proof, st.binary(min_size=64, max_size=64)),
    st.builds(Refuse, text, st.integers(0, 0xFFFF)),
    st.integers(0, 8).flatmap(lambda n: st.builds(
        Reveal, b32, b32, st.integers(0, 2**32 - 1),
        st.lists(b32, min_size=n, max_size=n).map(tuple),
        *(st.lists(st.binary(max_size=m), min_size=n, max_size=n).map(tuple)
          for m in (300, 300, 64)),
        st.binary(min_size=64, max_size=64))),
    st.builds(Event, st.binary(min_size=1, max_size=300)),
    st.builds(Sync, u63),
    st.builds(Bye, st.one_of(st.just(""), text), st.integers(0, 0xFFFF)),
    st.builds(Ping, u63),
    st.builds(Pong, u63),
    st.lists(st.tuples(b32, st.ip_addresses().map(str), st.integers(1, 0xFFFF)),
             max_size=8).map(lambda es: Addresses(*(tuple(c) for c in zip(*es, strict=True)))
                             if es else Addresses((), (), ())),
)


@given(messages)
def test_round_trip(msg: Message) -> None:
    data = encode_message(msg)
    assert decode_message(data) == msg
    assert encode_message(decode_message(data)) == data


def hello_wire(**changes: Any) -> list[Any]:
    fields = {
        "version": 1,
        "table": "oak",
        "variant": [1, 2],
        "seats": 3,
        "public": b"k" * 32,
        "name": "Alice",
        "nonce_commit": b"c" * 32,
        "listen_port": 4000,
        "challenge": b"r" * 32,
        "attempt": 0,
    }
    fields.update(changes)
    return [1, *fields.values()]


def test_a_refusal_code_is_typed_and_an_unknown_one_means_nothing() -> None:
    full = Refuse("table full", RefuseCode.TABLE_FULL)
    assert full == Refuse("table full", 1) and full.meaning is RefuseCode.TABLE_FULL
    assert decode_message(encode_message(full)) == full
    # Code 0 keeps the one-field form older peers send.
    assert encode_message(Refuse("no")) == canonical.encode([3, "no"])
    assert decode_message(canonical.encode([3, "no"])).meaning is RefuseCode.NONE  # type: ignore[union-attr]
    assert Refuse("from a newer peer", 999).meaning is RefuseCode.NONE
    left = Bye("ann left the table", ByeCode.LEFT_THE_TABLE)
    assert decode_message(encode_message(left)) == left
    assert left.meaning is ByeCode.LEFT_THE_TABLE and Bye("x", 77).meaning is ByeCode.NONE


def test_a_signed_refusal_names_its_table_and_is_canonical() -> None:
    keys = sorted((b"a" * 32, b"b" * 32, b"c" * 32))
    full = Refuse("table full", RefuseCode.TABLE_FULL, tuple(keys),
                  ("10.0.0.2", "", "::1"), (4000, 0, 4001), b"s" * 64)
    wire = encode_message(full)
    assert wire == canonical.encode([3, "table full", 1, keys, ["10.0.0.2", "", "::1"],
                                     [4000, 0, 4001], b"s" * 64])
    assert decode_message(wire) == full
    assert full.where() == [(keys[0], ("10.0.0.2", 4000)), (keys[2], ("::1", 4001))]
    # A signed refusal may carry code 0 explicitly (its form has every field).
    plain = Refuse("wrong table", RefuseCode.NONE, signature=b"s" * 64)
    assert decode_message(encode_message(plain)) == plain
    # The signed bytes cover every field but the signature.
    assert full.signed_bytes(b"h" * 32) != replace(full, code=0).signed_bytes(b"h" * 32)
    assert full.signed_bytes(b"h" * 32) != replace(full, ports=(4000, 0, 4002)).signed_bytes(
        b"h" * 32)
    bad = [
        [3, "x", 1, [keys[1], keys[0]], ["", ""], [0, 0], b"s" * 64],  # not sorted
        [3, "x", 1, [keys[0], keys[0]], ["", ""], [0, 0], b"s" * 64],  # twice
        [3, "x", 1, [keys[0]], ["", ""], [0, 0], b"s" * 64],  # lengths differ
        [3, "x", 1, [keys[0]], ["10.0.0.1"], [0], b"s" * 64],  # host without port
        [3, "x", 1, [keys[0]], [""], [5], b"s" * 64],  # port without host
        [3, "x", 1, [keys[0]], ["oak.local"], [5], b"s" * 64],  # not an IP address
        [3, "x", 1, [], [], [], b"s" * 63],  # short signature
        [3, "x", 1, [], [], [], b""],  # the signed form without a signature
        [3, "x", 1, [b"a" * 32] * 9, [""] * 9, [0] * 9, b"s" * 64],  # too many seats
    ]
    for fields in bad:
        with pytest.raises(ProtocolError):
            decode_message(canonical.encode(fields))


def test_hello_wire_is_accepted() -> None:
    msg = decode_message(canonical.encode(hello_wire()))
    assert isinstance(msg, Hello)
    assert msg.variant == (1, 2)
    assert msg.name == "Alice"


@pytest.mark.parametrize(
    ("wire", "match"),
    [
        (hello_wire(version=True), "version must be an integer"),
        (hello_wire(version=-1), "version must be between"),
        (hello_wire(table=""), "table name must not be empty"),
        (hello_wire(table="x" * 65), "at most 64 bytes"),
        (hello_wire(table=b"oak"), "table name must be a string"),
        (hello_wire(variant=[1] * 17), "at most 16 items"),
        (hello_wire(variant=[70000]), "variant option"),
        (hello_wire(variant=3), "variant must be a list"),
        (hello_wire(seats=1), "seat count"),
        (hello_wire(seats=9), "seat count"),
        (hello_wire(public=b"k" * 31), "public key must be 32 bytes"),
        (hello_wire(name="Al\x1b[2Jice"), "control characters"),
        (hello_wire(name="\u0085"), "control characters"),
        (hello_wire(nonce_commit=b""), "nonce commitment"),
        (hello_wire(listen_port=70000), "listen port"),
        (hello_wire(challenge=None), "challenge must be bytes"),
        (hello_wire()[:-1], "10 fields"),
        # An 11th field is a watcher's mark (wire.md §6): 1 and nothing else.
        ([*hello_wire(), 0], "watcher mark must be 1"),
        ([*hello_wire(), True], "watcher mark must be 1"),
        ([*hello_wire(), 1, 0], "10 fields"),
        (hello_wire(attempt=-1), "formation attempt"),
        (hello_wire(attempt=1 << 32), "formation attempt"),
        ([2, b"s" * 63], "signature must be 64 bytes"),
        ([3, ""], "reason must not be empty"),
        ([3, "x" * 513], "at most 512"),
        ([3, "full", 0], "code 0 only by leaving it out"),
        ([3, "full", 70000], "Refuse code"),
        ([3, "full", True], "Refuse code must be an integer"),
        ([7, "bye", 0], "code 0 only by leaving it out"),
        ([7, "bye", -1], "Bye code"),
        ([3, "full", 1, 2], "1 fields"),
        ([10, [b"k" * 32], ["10.0.0.1"], []], "as many keys, hosts and ports"),
        ([10, [b"k" * 32], ["bob.local"], [7000]], "not an IP address"),
        ([10, [b"k" * 32], ["10.0.0.1"], [0]], "listen port"),
        ([10, [b"k" * 31], ["10.0.0.1"], [7000]], "peer key must be 32 bytes"),
        ([10, [b"k" * 32] * 9, ["10.0.0.1"] * 9, [7000] * 9], "at most 8 items"),
        ([10, [], []], "3 fields"),
        ([4, K, N, 0, [K] * 9, [b""] * 9, [b""] * 9, [b""] * 9, S], "at most 8 items"),
        ([4, K, N, 0, [b"k" * 31], [b""], [b""], [b""], S], "peer key must be 32 bytes"),
        ([4, K, N, 0, [K], [b""], [b""], [b""]], "8 fields"),
        ([4, K, N, True, [K], [b""], [b""], [b""], S], "formation attempt must be an integer"),
        ([4, K, N, 2**32, [K], [b""], [b""], [b""], S], "formation attempt must be between"),
        ([4, K, N, 0, [K], [b""], [], [b""], S], "as many mine as peers"),
        ([4, K, N, 0, [K], [b"h" * 1025], [b""], [b""], S], "at most 1024 bytes"),
        ([4, K, N, 0, [K], [b""], [b""], [b"p" * 65], S], "at most 64 bytes"),
        ([4, K, N, 0, [K], [b""], [b""], [b""], b"s"], "signature must be 64 bytes"),
        ([5, b""], "event must not be empty"),
        ([6, -1], "sync start"),
        ([8, True], "ping token must be an integer"),
        ([99], "unknown message tag"),
        ([True, 1], "unknown message tag"),
        ([], "non-empty list"),
        ("hello", "non-empty list"),
    ],
)
def test_malformed_rejected(wire: Any, match: str) -> None:
    with pytest.raises(ProtocolError, match=match):
        decode_message(canonical.encode(wire))


def test_oversized_event_rejected_on_build_and_decode() -> None:
    with pytest.raises(ProtocolError):
        Event(b"x" * (MAX_EVENT_SIZE + 1))
    with pytest.raises(ProtocolError):
        decode_message(canonical.encode([5, b"x" * (MAX_EVENT_SIZE + 1)]))


def test_constructor_checks_too() -> None:
    with pytest.raises(ProtocolError):
        Proof(b"short")
    with pytest.raises(ProtocolError):
        Reveal(b"k" * 32, b"n" * 32, 0, (b"k",), (b"",), (b"",), (b"",), b"s" * 64)


def test_non_canonical_encoding_rejected() -> None:
    # Sync(5) with the int in a wider form than needed (uint16 instead of fixint).
    with pytest.raises(ProtocolError):
        decode_message(b"\x92\x06\xcd\x00\x05")


def test_deep_nesting_rejected() -> None:
    with pytest.raises(ProtocolError):
        decode_message(canonical.encode([4, b"n" * 32, [[b"k" * 32]]]))


@settings(max_examples=500)
@given(st.binary(max_size=200))
def test_fuzz_only_protocol_errors(data: bytes) -> None:
    with contextlib.suppress(ProtocolError):
        decode_message(data)


@settings(max_examples=300)
@given(messages, st.integers(min_value=0), st.integers(min_value=0, max_value=255))
def test_flipped_byte_decodes_to_valid_or_errors(msg: Message, pos: int, value: int) -> None:
    data = bytearray(encode_message(msg))
    data[pos % len(data)] = value
    try:
        out = decode_message(bytes(data))
    except ProtocolError:
        return
    assert encode_message(out) == bytes(data)
