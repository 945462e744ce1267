"""Fuzzing the decoders: hostile bytes raise ProtocolError and nothing else.

Hypothesis' per-example deadline (default 200 ms) bounds the time each
input may take, so a decoder that blew up on some input would fail here too.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log.canonical import decode, encode
from gleek_p2p.log.envelope import ZERO_HASH, decode_envelope, sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.log.store import scan

IDENT = Identity.generate(bytes([3]) * 32)
VALID = [
    encode([1, b"abc", "déf", [True, None, -70000, [2**40]]]),
    sign_envelope(IDENT, bytes(32), 0, ZERO_HASH, 2, "deal", [[b"x" * 32] * 5, 17]).encode(),
]


def _decode_all(data: bytes) -> None:
    for decoder in (decode, decode_envelope):
        try:
            value: Any = decoder(data)
        except ProtocolError as exc:
            assert str(exc)  # a sentence, not an empty message
            continue
        if decoder is decode:
            assert encode(value) == data  # whatever is accepted is canonical


@given(st.binary(max_size=400))
@settings(max_examples=400)
def test_random_bytes(data: bytes) -> None:
    _decode_all(data)


@st.composite
def mutations(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "set", "insert", "delete", "truncate", "append"]))
        index = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[index] ^= 1 << draw(st.integers(0, 7))
        elif op == "set" and data:
            data[index] = draw(st.sampled_from([0x00, 0x7F, 0xC0, 0xC1, 0xCA, 0xDC, 0xDD, 0xFF]))
        elif op == "insert":
            data[index:index] = draw(st.binary(min_size=1, max_size=6))
        elif op == "delete" and data:
            del data[index : index + draw(st.integers(1, 5))]
        elif op == "truncate":
            del data[index:]
        else:
            data += draw(st.binary(min_size=1, max_size=6))
    return bytes(data)


@given(mutations())
@settings(max_examples=500)
def test_mutated_valid_encodings(data: bytes) -> None:
    _decode_all(data)


@given(st.binary(max_size=300))
@settings(max_examples=300)
def test_store_scan_random_bytes(data: bytes) -> None:
    for content in (data, b"GLEEKLOG\x00\x00\x00\x01" + data):
        try:
            _records, end = scan(content)
        except ProtocolError:
            continue
        assert end <= len(content)


def test_large_hostile_inputs_are_refused() -> None:
    mib = 1 << 20
    for hostile in (
        b"\x91" * mib,  # a million nested lists
        b"\xdd\x00\x01\x00\x00" * (mib // 5),  # nested 65536-item arrays
        b"\xdf\xff\xff\xff\xff" + bytes(100),  # map32 header
        b"\xc6\xff\xff\xff\xff",  # bin32 header with no data
        b"\x90" * mib,  # a million top-level values (trailing data)
    ):
        for decoder in (decode, decode_envelope):
            try:
                decoder(hostile)
            except ProtocolError:
                pass
            else:
                raise AssertionError("hostile input accepted")
