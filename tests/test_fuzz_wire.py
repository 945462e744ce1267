"""Fuzzing the wire path: bytes -> frames -> peer messages -> envelopes.

Every layer takes random and mutated input and must answer with a
``ProtocolError`` (a ``GleekError``) carrying a sentence, never another
exception. Hypothesis' deadline bounds the time per input (no hang), and
tracemalloc bounds what hostile length headers can make a decoder allocate.
"""

from __future__ import annotations

import contextlib
import os
import struct
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gleek_p2p.base.errors import GleekError, ProtocolError
from gleek_p2p.log.canonical import decode, encode
from gleek_p2p.log.envelope import ZERO_HASH, decode_envelope, sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.framing import FrameDecoder, FrameError, encode_frame
from gleek_p2p.net.messages import (
    Bye,
    Event,
    Ping,
    Pong,
    Refuse,
    Sync,
    decode_message,
    encode_message,
)

EXAMPLES = int(os.environ.get("GLEEK_FUZZ_EXAMPLES", "300"))
"""Examples per property; raise it for a deeper run (e.g. 20000)."""
FUZZ = settings(max_examples=EXAMPLES, deadline=500, suppress_health_check=[HealthCheck.too_slow])
IDENT = Identity.generate(bytes([7]) * 32)
ENVELOPE = sign_envelope(
    IDENT, bytes(range(32)), 3, bytes(32 * [9]), 1, "act", [[4, 1, 17], []]
).encode()
FIRST = sign_envelope(IDENT, bytes(32), 0, ZERO_HASH, 0, "roster", [b"r" * 40, "x", 3]).encode()
MESSAGES = [
    encode_message(m)
    for m in (Event(ENVELOPE), Sync(12), Bye("leaving now"), Ping(7), Pong(7), Refuse("full"))
]
STREAM = b"".join(encode_frame(m) for m in MESSAGES)


def mutate(data: bytes, draw: st.DrawFn) -> bytes:
    """One to four byte-level edits of ``data``: flips, magic bytes, cuts and splices."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "set", "insert", "delete", "truncate", "append"]))
        index = draw(st.integers(0, max(len(out) - 1, 0)))
        if op == "flip" and out:
            out[index] ^= 1 << draw(st.integers(0, 7))
        elif op == "set" and out:
            out[index] = draw(st.sampled_from([0x00, 0x01, 0x7F, 0x80, 0xC0, 0xC1, 0xC4, 0xC6,
                                               0xCF, 0xD3, 0xDB, 0xDD, 0xFF]))
        elif op == "insert":
            out[index:index] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete" and out:
            del out[index : index + draw(st.integers(1, 6))]
        elif op == "truncate":
            del out[index:]
        else:
            out += draw(st.binary(min_size=1, max_size=8))
    return bytes(out)


@st.composite
def mutated(draw: st.DrawFn, corpus: list[bytes]) -> bytes:
    return mutate(draw(st.sampled_from(corpus)), draw)


def must_reject_cleanly(fn: Callable[[bytes], Any], data: bytes) -> Any:
    """Run ``fn``; a rejection must be a GleekError with a sentence. Returns the result or None."""
    try:
        return fn(data)
    except GleekError as exc:
        assert isinstance(exc, ProtocolError), f"{type(exc).__name__}: {exc}"
        assert str(exc).strip(), "an error without a message"
        return None


def peak_bytes(fn: Callable[[], object]) -> int:
    """Peak traced allocation while ``fn`` runs (errors are swallowed: only memory matters)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        with contextlib.suppress(GleekError):
            fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


# ----------------------------------------------------------------- frames


def feed_all(
    decoder: FrameDecoder, chunks: list[bytes]
) -> tuple[list[bytes], ProtocolError | None]:
    frames: list[bytes] = []
    for chunk in chunks:
        try:
            frames += decoder.feed(chunk)
        except FrameError as exc:
            frames += exc.frames
            return frames, exc
        assert decoder.buffered <= decoder.max_size + 4
    return frames, None


def chunked(data: bytes, sizes: list[int]) -> list[bytes]:
    chunks, pos = [], 0
    for size in sizes:
        chunks.append(data[pos : pos + size])
        pos += size
    chunks.append(data[pos:])
    return chunks


@given(st.binary(max_size=600), st.lists(st.integers(0, 64), max_size=20),
       st.integers(1, 300))
@FUZZ
def test_frame_decoder_on_random_bytes(data: bytes, sizes: list[int], max_size: int) -> None:
    decoder = FrameDecoder(max_size)
    frames, error = feed_all(decoder, chunked(data, sizes))
    assert all(1 <= len(f) <= max_size for f in frames)
    # Whatever came out is exactly a prefix of the input, reframed.
    prefix = b"".join(encode_frame(f, max_size) for f in frames)
    assert data.startswith(prefix)
    if error is not None:
        assert str(error)
        assert decoder.failed and decoder.buffered == 0
        with pytest.raises(ProtocolError, match="already broken"):
            decoder.feed(b"\x00\x00\x00\x01x")


@given(mutated([STREAM]), st.lists(st.integers(0, 40), max_size=30))
@FUZZ
def test_mutated_frame_stream_never_crashes_the_message_decoder(
    stream: bytes, sizes: list[int]
) -> None:
    frames, _ = feed_all(FrameDecoder(), chunked(stream, sizes))
    for frame in frames:
        message = must_reject_cleanly(decode_message, frame)
        if message is not None:
            assert encode_message(message) == frame  # one wire form per message
            if isinstance(message, Event):
                must_reject_cleanly(decode_envelope, message.data)


def test_a_huge_announced_frame_costs_nothing() -> None:
    decoder = FrameDecoder(1 << 20)

    def hostile() -> None:
        with pytest.raises(FrameError, match="more than the"):
            decoder.feed(struct.pack(">I", 0xFFFFFFFF) + b"x" * 1000)

    assert peak_bytes(hostile) < 64 * 1024
    assert decoder.failed


def test_a_slow_frame_is_buffered_up_to_its_size_only() -> None:
    decoder = FrameDecoder(4096)
    decoder.feed(struct.pack(">I", 4096))
    for _ in range(4095):
        assert decoder.feed(b"y") == []
    assert decoder.buffered == 4095
    # The last byte completes the frame; what follows starts the next prefix.
    assert decoder.feed(b"y\x00\x00") == [b"y" * 4096]
    assert decoder.buffered == 2


# --------------------------------------------------------------- messages


@given(st.binary(max_size=300))
@FUZZ
def test_decode_message_on_random_bytes(data: bytes) -> None:
    message = must_reject_cleanly(decode_message, data)
    if message is not None:
        assert encode_message(message) == data


@given(mutated(MESSAGES))
@FUZZ
def test_decode_message_on_mutated_messages(data: bytes) -> None:
    message = must_reject_cleanly(decode_message, data)
    if message is not None:
        assert encode_message(message) == data


canonical_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.binary(max_size=70)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=6),
    max_leaves=20,
)


@given(st.integers(0, 12), st.lists(canonical_values, max_size=6))
@FUZZ
def test_decode_message_on_well_encoded_nonsense(tag: int, fields: list[Any]) -> None:
    """Canonical lists with a plausible tag: every field check must hold."""
    data = encode([tag, *fields])
    message = must_reject_cleanly(decode_message, data)
    if message is not None:
        assert encode_message(message) == data


# -------------------------------------------------------------- envelopes


@given(mutated([ENVELOPE, FIRST]))
@FUZZ
def test_decode_envelope_on_mutated_envelopes(data: bytes) -> None:
    envelope = must_reject_cleanly(decode_envelope, data)
    if envelope is not None:
        assert envelope.encode() == data


@given(st.lists(canonical_values, min_size=8, max_size=8))
@FUZZ
def test_decode_envelope_on_eight_random_fields(fields: list[Any]) -> None:
    data = encode(fields)
    envelope = must_reject_cleanly(decode_envelope, data)
    if envelope is not None:
        assert envelope.encode() == data


HOSTILE_HEADERS = [
    b"\xdb\xff\xff\xff\xff",  # str32 of 4 GiB
    b"\xc6\xff\xff\xff\xff",  # bin32 of 4 GiB
    b"\xdd\xff\xff\xff\xff",  # array32 of 4 G items
    b"\x98" + b"\xdd\x00\x01\x00\x00" * 7,  # nested big arrays
    b"\x91" * 5000,  # deep nesting
    b"\xdc\xff\xff" + b"\xc0" * 3000,  # many items, each tiny
]


@pytest.mark.parametrize("header", HOSTILE_HEADERS)
@pytest.mark.parametrize("decoder", [decode, decode_envelope, decode_message])
def test_hostile_length_headers_allocate_little(
    header: bytes, decoder: Callable[[bytes], Any]
) -> None:
    data = header + b"\x00" * 64
    peak = peak_bytes(lambda: must_reject_cleanly(decoder, data))
    # The input itself plus bookkeeping: nothing near what the headers claim.
    assert peak < 200 * len(data) + 256 * 1024, peak
