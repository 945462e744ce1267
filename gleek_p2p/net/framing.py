"""Length-prefixed frames: a sans-IO decoder and an asyncio reader.

A frame is a 4-byte big-endian length ``L`` followed by ``L`` payload bytes,
``1 <= L <= max_size``. The length is checked against the maximum as soon as
its four bytes are in, before a single byte of the body is kept, so a peer
cannot make us buffer more than ``max_size + 4`` bytes by announcing a huge
frame.
"""

from __future__ import annotations

import asyncio
import struct

from gleek_p2p.base.errors import ProtocolError

PREFIX_SIZE = 4
DEFAULT_MAX_FRAME = 1 << 20  # 1 MiB: far above any event, far below a memory problem
_LENGTH = struct.Struct(">I")

__all__ = [
    "DEFAULT_MAX_FRAME",
    "PREFIX_SIZE",
    "FrameDecoder",
    "FrameError",
    "check_length",
    "encode_frame",
    "read_frame",
]


class FrameError(ProtocolError):
    """A bad length prefix; ``frames`` are the whole frames that came before it.

    Raised by :meth:`FrameDecoder.feed`: the frames decoded from the same
    ``feed`` call before the fault are handed over here so nothing is lost.
    """

    def __init__(self, message: str, frames: tuple[bytes, ...] = ()) -> None:
        super().__init__(message)
        self.frames = frames


def check_length(length: int, max_size: int) -> None:
    """Raise ProtocolError unless ``1 <= length <= max_size``."""
    if length == 0:
        raise ProtocolError("the peer sent an empty frame")
    if length > max_size:
        raise ProtocolError(
            f"the peer announced a {length}-byte frame, more than the {max_size}-byte limit"
        )


def encode_frame(payload: bytes, max_size: int = DEFAULT_MAX_FRAME) -> bytes:
    """Return ``payload`` with its length prefix; ProtocolError if empty or too large."""
    check_length(len(payload), max_size)
    return _LENGTH.pack(len(payload)) + payload


class FrameDecoder:
    """Feed it bytes as they arrive; it returns the whole frames they complete.

    After the first error the decoder is dead: every later ``feed`` raises
    ProtocolError, because the stream has lost its framing and nothing after
    the fault can be trusted.
    """

    def __init__(self, max_size: int = DEFAULT_MAX_FRAME) -> None:
        if max_size < 1 or max_size > 0xFFFFFFFF:
            raise ValueError("max_size must be between 1 and 2**32 - 1")
        self.max_size = max_size
        self._buffer = bytearray()
        self._need: int | None = None  # body length once the prefix is in
        self._error: str | None = None

    @property
    def failed(self) -> bool:
        """True once a bad prefix was seen."""
        return self._error is not None

    @property
    def buffered(self) -> int:
        """Bytes held for an incomplete frame (never more than ``max_size + 4``)."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        """Take ``data`` and return the frames it completes, in order.

        Raises FrameError (a ProtocolError) on a zero or too-large length; the
        frames completed before the bad prefix are in its ``frames``.
        """
        if self._error is not None:
            raise ProtocolError(f"the stream is already broken: {self._error}")
        frames: list[bytes] = []
        view = memoryview(data)
        pos = 0
        while True:
            if self._need is None:
                take = min(PREFIX_SIZE - len(self._buffer), len(view) - pos)
                self._buffer += view[pos : pos + take]
                pos += take
                if len(self._buffer) < PREFIX_SIZE:
                    break
                (length,) = _LENGTH.unpack(self._buffer)
                try:
                    check_length(length, self.max_size)
                except ProtocolError as exc:
                    self._error = exc.message
                    self._buffer.clear()
                    raise FrameError(exc.message, tuple(frames)) from None
                self._need = length
                self._buffer.clear()
            take = min(self._need - len(self._buffer), len(view) - pos)
            self._buffer += view[pos : pos + take]
            pos += take
            if len(self._buffer) < self._need:
                break
            frames.append(bytes(self._buffer))
            self._buffer.clear()
            self._need = None
        return frames


async def read_frame(
    reader: asyncio.StreamReader, max_size: int, timeout: float | None
) -> bytes | None:
    """Read one frame; None on a clean end of stream between frames.

    The whole frame must arrive within ``timeout`` seconds (TimeoutError
    otherwise). ``StreamReader``'s own limit does not bound ``readexactly``,
    so the prefix is checked before the body is read. A stream cut inside a
    frame raises ProtocolError.
    """
    async with asyncio.timeout(timeout):
        try:
            prefix = await reader.readexactly(PREFIX_SIZE)
        except asyncio.IncompleteReadError as exc:
            if not exc.partial:
                return None
            raise ProtocolError("the stream ended inside a frame prefix") from None
        (length,) = _LENGTH.unpack(prefix)
        check_length(length, max_size)
        try:
            return await reader.readexactly(length)
        except asyncio.IncompleteReadError:
            raise ProtocolError("the stream ended inside a frame") from None
