"""Reading envelopes from a byte stream, sans-IO.

Canonical msgpack is self-delimiting, so envelopes can be sent back to back.
After one decode error the reader refuses everything that follows: once a
stream has lost sync, no later byte can be trusted to start an envelope, and
guessing would let a peer smuggle in bytes that different readers split
differently.
"""

from __future__ import annotations

import msgpack

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log.envelope import (
    MAX_ENVELOPE_BYTES,
    MAX_ENVELOPE_ITEMS,
    Envelope,
    decode_envelope,
)


class EnvelopeReader:
    """Feed bytes in with ``feed``, take envelopes out with ``next_envelope``."""

    __slots__ = ("_buffer", "_error", "_max")

    def __init__(self, max_envelope: int = MAX_ENVELOPE_BYTES) -> None:
        self._buffer = bytearray()
        self._error: ProtocolError | None = None
        self._max = max_envelope

    @property
    def failed(self) -> bool:
        """True once a decode error has been raised; the stream is then dead."""
        return self._error is not None

    def _fail(self, message: str) -> ProtocolError:
        self._error = ProtocolError(message)
        self._buffer.clear()
        return self._error

    def feed(self, data: bytes) -> None:
        """Add received bytes. Raises ProtocolError if the stream already failed."""
        if self._error is not None:
            raise ProtocolError(
                f"the stream was abandoned after a decode error ({self._error.message})"
            )
        self._buffer += data

    def _next_size(self) -> int | None:
        """Length of the first complete msgpack object in the buffer, or None."""
        # The limits must not depend on how much has arrived yet (an array
        # header comes before its items), so they are the envelope bounds.
        limit = self._max
        unpacker = msgpack.Unpacker(
            raw=False,
            use_list=True,
            strict_map_key=True,
            max_buffer_size=limit,
            max_str_len=limit,
            max_bin_len=limit,
            max_array_len=min(limit, MAX_ENVELOPE_ITEMS),
            max_map_len=0,
            max_ext_len=0,
            timestamp=0,
        )
        # An envelope is at most ``limit`` bytes: look no further than that.
        unpacker.feed(bytes(self._buffer[:limit]))
        try:
            unpacker.unpack()
        except msgpack.OutOfData:
            return None
        except Exception as exc:
            raise self._fail(f"the stream holds a malformed envelope ({exc})") from exc
        size: int = unpacker.tell()
        return size

    def next_envelope(self) -> Envelope | None:
        """The next whole envelope (not yet signature-checked), or None if more bytes are needed.

        Raises ProtocolError on a malformed or non-canonical envelope, or one
        larger than the limit; from then on ``feed`` and ``next_envelope``
        raise too.
        """
        if self._error is not None:
            raise ProtocolError(
                f"the stream was abandoned after a decode error ({self._error.message})"
            )
        if not self._buffer:
            return None
        size = self._next_size()
        if size is None:
            if len(self._buffer) >= self._max:
                raise self._fail(f"an envelope in the stream is larger than {self._max} bytes")
            return None
        if size > self._max:
            raise self._fail(f"an envelope in the stream is larger than {self._max} bytes")
        try:
            env = decode_envelope(bytes(self._buffer[:size]))
        except ProtocolError as exc:
            raise self._fail(exc.message) from exc
        del self._buffer[:size]
        return env
