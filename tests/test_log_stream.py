"""Envelopes read from a byte stream; a decode error ends the stream."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log.canonical import encode
from gleek_p2p.log.envelope import ZERO_HASH, Envelope, sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.log.stream import EnvelopeReader

IDENT = Identity.generate(bytes([4]) * 32)
ENVS = [
    sign_envelope(
        IDENT, bytes(32), seq, ZERO_HASH if seq == 0 else bytes([seq]) * 32, 0, "k", [seq]
    )
    for seq in range(4)
]
STREAM = b"".join(e.encode() for e in ENVS)


def drain(reader: EnvelopeReader) -> list[Envelope]:
    out = []
    while (env := reader.next_envelope()) is not None:
        out.append(env)
    return out


@given(st.lists(st.integers(0, len(STREAM)), max_size=6))
def test_any_chunking_yields_the_same_envelopes(cuts: list[int]) -> None:
    reader = EnvelopeReader()
    got: list[Envelope] = []
    bounds = [0, *sorted(cuts), len(STREAM)]
    for a, b in itertools.pairwise(bounds):
        reader.feed(STREAM[a:b])
        got += drain(reader)
    assert got == ENVS and not reader.failed


@pytest.mark.parametrize(
    "garbage",
    [
        bytes.fromhex("cc05"),  # non-canonical int
        encode([1, 2, 3]),  # canonical, but not an envelope
        bytes.fromhex("80"),  # a map
        bytes.fromhex("c1"),  # invalid type byte
    ],
)
def test_decode_error_ends_the_stream(garbage: bytes) -> None:
    reader = EnvelopeReader()
    reader.feed(ENVS[0].encode() + garbage + ENVS[1].encode())
    assert reader.next_envelope() == ENVS[0]
    with pytest.raises(ProtocolError):
        reader.next_envelope()
    assert reader.failed
    with pytest.raises(ProtocolError, match="abandoned"):
        reader.next_envelope()
    with pytest.raises(ProtocolError, match="abandoned"):
        reader.feed(ENVS[2].encode())


def test_oversized_envelope_refused() -> None:
    reader = EnvelopeReader(max_envelope=100)
    reader.feed(bytes.fromhex("98") + b"\xc4\x60" + bytes(60))  # incomplete, growing
    assert reader.next_envelope() is None
    reader.feed(bytes(60))
    with pytest.raises(ProtocolError, match="larger"):
        reader.next_envelope()
    assert reader.failed
