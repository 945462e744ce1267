"""Length-prefixed framing: the sans-IO decoder and the asyncio reader."""

from __future__ import annotations

import asyncio
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.net.framing import FrameDecoder, FrameError, encode_frame, read_frame

MAX = 64
payloads = st.lists(st.binary(min_size=1, max_size=MAX), max_size=12)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    pieces, last = [], 0
    for p in [*points, len(data)]:
        pieces.append(data[last:p])
        last = p
    return pieces


@given(payloads, st.lists(st.integers(min_value=0, max_value=10_000), max_size=30))
def test_any_split_decodes_to_the_same_frames(frames: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(encode_frame(f, MAX) for f in frames)
    decoder = FrameDecoder(MAX)
    out: list[bytes] = []
    for piece in split(stream, cuts):
        out.extend(decoder.feed(piece))
    assert out == frames
    assert decoder.buffered == 0


@given(payloads)
def test_byte_by_byte(frames: list[bytes]) -> None:
    stream = b"".join(encode_frame(f, MAX) for f in frames)
    decoder = FrameDecoder(MAX)
    out: list[bytes] = []
    for i in range(len(stream)):
        out.extend(decoder.feed(stream[i : i + 1]))
        assert decoder.buffered <= MAX + 4
    assert out == frames


def test_oversized_prefix_rejected_before_body() -> None:
    decoder = FrameDecoder(MAX)
    # Only the prefix: the error comes before a single body byte is there.
    with pytest.raises(ProtocolError, match="65-byte frame"):
        decoder.feed(struct.pack(">I", MAX + 1))
    assert decoder.failed
    assert decoder.buffered == 0


def test_huge_prefix_then_garbage_buffers_nothing() -> None:
    decoder = FrameDecoder(MAX)
    with pytest.raises(ProtocolError):
        decoder.feed(struct.pack(">I", 0xFFFFFFFF) + b"x" * 1000)
    assert decoder.buffered == 0


def test_zero_length_rejected() -> None:
    decoder = FrameDecoder(MAX)
    with pytest.raises(ProtocolError, match="empty frame"):
        decoder.feed(b"\0\0\0\0")


def test_frames_before_the_fault_are_kept() -> None:
    decoder = FrameDecoder(MAX)
    stream = encode_frame(b"one", MAX) + encode_frame(b"two", MAX) + b"\0\0\0\0"
    with pytest.raises(FrameError) as info:
        decoder.feed(stream)
    assert info.value.frames == (b"one", b"two")


def test_dead_after_error() -> None:
    decoder = FrameDecoder(MAX)
    with pytest.raises(ProtocolError):
        decoder.feed(b"\0\0\0\0")
    with pytest.raises(ProtocolError, match="already broken"):
        decoder.feed(encode_frame(b"fine", MAX))


@settings(max_examples=300)
@given(st.lists(st.binary(max_size=80), max_size=10))
def test_fuzz_only_protocol_errors(chunks: list[bytes]) -> None:
    decoder = FrameDecoder(MAX)
    for chunk in chunks:
        try:
            frames = decoder.feed(chunk)
        except ProtocolError:
            assert decoder.failed
            return
        assert all(1 <= len(f) <= MAX for f in frames)
        assert decoder.buffered <= MAX + 4


def test_encode_rejects_empty_and_oversized() -> None:
    with pytest.raises(ProtocolError):
        encode_frame(b"", MAX)
    with pytest.raises(ProtocolError):
        encode_frame(b"x" * (MAX + 1), MAX)
    assert encode_frame(b"ab", MAX) == b"\0\0\0\x02ab"


def reader_with(data: bytes, eof: bool = True) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    if eof:
        reader.feed_eof()
    return reader


async def test_read_frame_reads_frames_then_none() -> None:
    reader = reader_with(encode_frame(b"a", MAX) + encode_frame(b"bc", MAX))
    assert await read_frame(reader, MAX, 1.0) == b"a"
    assert await read_frame(reader, MAX, 1.0) == b"bc"
    assert await read_frame(reader, MAX, 1.0) is None


async def test_read_frame_checks_prefix_before_reading_body() -> None:
    # The body never arrives (no EOF): a too-large prefix must fail at once,
    # not wait for (or buffer) the announced body.
    reader = reader_with(struct.pack(">I", MAX + 1), eof=False)
    with pytest.raises(ProtocolError, match="limit"):
        await read_frame(reader, MAX, 5.0)


async def test_read_frame_truncated() -> None:
    with pytest.raises(ProtocolError, match="inside a frame"):
        await read_frame(reader_with(b"\0\0\0\x05ab"), MAX, 1.0)
    with pytest.raises(ProtocolError, match="prefix"):
        await read_frame(reader_with(b"\0\0"), MAX, 1.0)


async def test_read_frame_timeout() -> None:
    reader = reader_with(b"\0\0\0\x05ab", eof=False)
    with pytest.raises(TimeoutError):
        await read_frame(reader, MAX, 0.05)
