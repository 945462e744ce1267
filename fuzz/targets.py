"""What the atheris harnesses fuzz: one function per input surface.

Every target takes untrusted input and may only raise ``GleekError`` (which
the harness treats as a clean refusal); anything else is a crash to report.
Kept apart from the harnesses so ``tests/test_fuzz_atheris.py`` and a human
running ``python fuzz/fuzz_wire.py`` exercise the same code.
"""

from __future__ import annotations

import contextlib
import copy
import random
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from gleek_p2p.base.errors import Cheating, ProtocolError
from gleek_p2p.log.canonical import decode
from gleek_p2p.log.envelope import Envelope, decode_envelope, sign_envelope
from gleek_p2p.log.keys import Identity
from gleek_p2p.log.store import HEADER, LogStore, scan
from gleek_p2p.net.framing import FrameDecoder, FrameError
from gleek_p2p.net.messages import Event, decode_message, encode_message
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table import events as ev
from gleek_p2p.table.drive import step
from gleek_p2p.table.session import Table
from gleek_p2p.tools.selfplay import _derive, make_seats

SEED = b"fuzz-atheris"


def wire(data: bytes) -> None:
    """Bytes off a socket: frames (cut where the input says), messages, envelopes."""
    if not data:
        return
    decoder = FrameDecoder(max_size=1 + data[0] * 16)
    frames: list[bytes] = []
    cut = 1 + data[0] % 7
    try:
        for start in range(1, len(data), cut):
            frames += decoder.feed(data[start : start + cut])
            assert decoder.buffered <= decoder.max_size + 4
    except FrameError as exc:
        frames += exc.frames
    for frame in [*frames, data[1:]]:
        try:
            message = decode_message(frame)
        except ProtocolError:
            continue
        assert encode_message(message) == frame
        if isinstance(message, Event):
            with contextlib.suppress(ProtocolError):
                decode_envelope(message.data)
    try:
        envelope = decode_envelope(data)
    except ProtocolError:
        return
    assert envelope.encode() == data
    try:
        decode(data)
    except ProtocolError as exc:  # pragma: no cover - decode_envelope succeeded
        raise AssertionError("an envelope that is not canonical msgpack") from exc


def log_file(data: bytes) -> None:
    """A log file as found on disk after a crash or tampering."""
    for content in (data, HEADER + data):
        try:
            records, end = scan(content)
        except ProtocolError:
            continue
        assert end <= len(content) and all(records)
    if data[:1] == b"\x00":
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "f.gleeklog"
            path.write_bytes(HEADER + data[1:])
            try:
                with LogStore.open(path) as store:
                    store.append(b"x")
            except ProtocolError:
                pass


# ------------------------------------------------------------------ the table


def play_one_hand(
    seed: bytes, choice_seed: int
) -> tuple[list[Envelope], dict[tuple[int, int | None], Table]]:
    """A one-hand session, and every viewpoint's table before every event.

    Also used by ``tests/test_fuzz_table.py`` (with its own seed).
    """
    tables = make_seats(VARIANTS["standard"], 1, seed)
    observer = Table(tables[0].roster)
    views: dict[int | None, Table] = {None: observer, 0: tables[0], 1: tables[1], 2: tables[2]}
    choose = random.Random(choice_seed)
    log: list[Envelope] = []
    snapshots: dict[tuple[int, int | None], Table] = {}
    while True:
        for seat, table in views.items():
            snapshots[(len(log), seat)] = copy.deepcopy(table)
        if observer.finished:
            return log, snapshots
        envelope, _ = step(tables, lambda d: choose.choice(d.legal), [observer])
        log.append(envelope)


@cache
def session() -> tuple[list[Envelope], dict[tuple[int, int | None], Table]]:
    """The harness's one-hand session (see ``play_one_hand``)."""
    return play_one_hand(SEED, 2)


IDENTITIES = [Identity.generate(_derive(SEED, "identity", s)) for s in range(3)]


class Bytes:
    """A cursor over the fuzzer's bytes (zeros once they run out)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        value = self.data[self.pos] if self.pos < len(self.data) else 0
        self.pos += 1
        return value

    def take(self, n: int) -> bytes:
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk.ljust(n, b"\x00")


def value(src: Bytes, depth: int = 0) -> Any:
    """A canonical value shaped by the fuzzer's bytes."""
    tag = src.byte() % 10
    if tag == 0 or (tag == 9 and depth >= 6):
        return src.byte() - 8
    if tag == 1:
        return int.from_bytes(src.take(8), "big", signed=True)
    if tag == 2:
        return src.take(32)
    if tag == 3:
        return src.take(src.byte() % 70)
    if tag == 4:
        return ["bid", "play", "pass", "discard", "keys", "shuffle", "lock", ""][src.byte() % 8]
    if tag == 5:
        return None
    if tag == 6:
        return bool(src.byte() & 1)
    if tag == 7:
        return src.take(src.byte() % 12).decode("latin-1")
    if tag == 8:
        return src.byte() % 50
    return [value(src, depth + 1) for _ in range(src.byte() % 7)]


def mutate(body: Any, src: Bytes) -> Any:
    """Replace, nudge or drop one spot of a genuine body."""
    if isinstance(body, list) and body and src.byte() % 4:
        body = list(body)
        i = src.byte() % len(body)
        op = src.byte() % 5
        if op == 0:
            del body[i]
        elif op == 1:
            body.insert(i, value(src))
        else:
            body[i] = mutate(body[i], src)
        return body
    if isinstance(body, bool):
        return not body
    if isinstance(body, int):
        return body + src.byte() - 128
    if isinstance(body, bytes) and body:
        flipped = bytearray(body)
        flipped[src.byte() % len(body)] ^= 1 << (src.byte() % 8)
        return bytes(flipped)
    return value(src)


def table(data: bytes) -> None:
    """A validly signed event with a fuzzed body, at the right place in a real session."""
    log, snapshots = session()
    src = Bytes(data)
    position = src.byte() % (len(log) + 1)
    viewpoint = (None, 0, 1, 2)[src.byte() % 4]
    genuine = log[min(position, len(log) - 1)]
    signer = genuine.seat if src.byte() % 8 else src.byte() % 3
    kind = genuine.kind if src.byte() % 16 else ev.KINDS[src.byte() % len(ev.KINDS)]
    body = mutate(genuine.body, src) if src.byte() % 4 else [value(src)]
    target = copy.deepcopy(snapshots[(position, viewpoint)])
    try:
        envelope = sign_envelope(IDENTITIES[signer], target.session_id, position, target.head,
                                 signer, kind, body)
    except ProtocolError:
        return
    before = (len(target.envelopes), target.head, target.stage, target.state, target.expected())
    try:
        target.receive(envelope)
    except (ProtocolError, Cheating) as exc:
        assert str(exc)
        after = (len(target.envelopes), target.head, target.stage, target.state,
                 target.expected())
        assert after == before, "a refused event changed the table"
        if position < len(log):
            target.receive(log[position])
