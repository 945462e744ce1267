"""Fuzzing the log reader: damaged and torn log files, opened for real.

A session log is written with ``LogStore``, then mutated (bit flips, cuts,
splices, zeroed tails, random bytes) and opened again. The store must either
refuse the file with a ``ProtocolError`` (damage in the middle) or recover a
prefix of what was written, never invent or reorder a record, leave the file
so a second open reads the same records, and accept appends afterwards.
"""

from __future__ import annotations

import os
import struct
import tempfile
import tracemalloc
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gleek_p2p.base.errors import GleekError, ProtocolError
from gleek_p2p.log.store import HEADER, LogStore, frame, scan

EXAMPLES = int(os.environ.get("GLEEK_FUZZ_EXAMPLES", "250"))
RECORDS = [bytes([i]) * (1 + 37 * i % 200) for i in range(1, 12)]


@cache
def pristine() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.gleeklog"
        with LogStore.open(path) as store:
            for record in RECORDS:
                store.append(record)
        return path.read_bytes()


@st.composite
def damaged_files(draw: st.DrawFn) -> bytes:
    data = bytearray(pristine())
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["flip", "truncate", "insert", "delete", "zero-tail",
                                   "append", "overwrite"]))
        index = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[index] ^= 1 << draw(st.integers(0, 7))
        elif op == "truncate":
            del data[index:]
        elif op == "insert":
            data[index:index] = draw(st.binary(min_size=1, max_size=16))
        elif op == "delete":
            del data[index : index + draw(st.integers(1, 16))]
        elif op == "zero-tail":
            data[index:] = bytes(len(data) - index + draw(st.integers(0, 64)))
        elif op == "append":
            data += draw(st.binary(min_size=1, max_size=40))
        else:
            chunk = draw(st.binary(min_size=1, max_size=12))
            data[index : index + len(chunk)] = chunk
    return bytes(data)


def is_prefix(records: list[bytes]) -> bool:
    return records == RECORDS[: len(records)]


@given(damaged_files())
@settings(max_examples=EXAMPLES, deadline=1000, suppress_health_check=[HealthCheck.too_slow])
def test_damaged_log_files_are_recovered_or_refused(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.gleeklog"
        path.write_bytes(content)
        try:
            store = LogStore.open(path)
        except ProtocolError as exc:
            assert str(exc).strip()
            assert path.read_bytes() == content  # a refused file is left for a human
            return
        with store:
            records = store.records
            assert is_prefix(records), "the store invented or reordered a record"
            store.append(b"after recovery")
        with LogStore.open(path) as again:
            assert again.records == [*records, b"after recovery"]


@given(st.binary(max_size=400))
@settings(max_examples=EXAMPLES, deadline=500)
def test_random_files_never_crash_the_store(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for content in (data, HEADER + data):
            path = Path(tmp) / "r.gleeklog"
            path.write_bytes(content)
            try:
                with LogStore.open(path) as store:
                    assert all(len(r) > 0 for r in store.records)
            except GleekError as exc:
                assert isinstance(exc, ProtocolError) and str(exc)
            path.unlink()


@given(st.integers(1, 2**32 - 1), st.binary(max_size=64))
@settings(max_examples=100, deadline=500)
def test_a_lying_length_costs_no_memory(length: int, tail: bytes) -> None:
    """A record header claiming up to 4 GiB: scan reads what is there, nothing more."""
    head = struct.pack(">I", length)
    content = HEADER + frame(b"ok") + head + tail
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        try:
            records, end = scan(content)
        except ProtocolError:
            records, end = [b"ok"], -1
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert records == [b"ok"]
    assert end in (-1, len(HEADER) + len(frame(b"ok")))
    assert peak < 16 * len(content) + 64 * 1024
