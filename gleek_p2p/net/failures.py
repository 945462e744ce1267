"""What went wrong on a link or a dial, as codes: the shell words them, never the OS's English.

A socket error's text (``[Errno 104] Connection reset by peer``) and a
malformed message's (``a Hello's name must be a string``) are English for a
developer's log. A person reads a ``Failure`` put in their own language
(``session/link_words.py``); the English stays in ``Connection.close_reason``
and in the error's message, for the logs and the Bye sent to the peer.
"""

from __future__ import annotations

import enum
import errno
import socket

from gleek_p2p.base.errors import ProtocolError

__all__ = ["Failure", "LinkError", "os_failure"]


class Failure(enum.Enum):
    """Why a link failed or a dial did not become one."""

    REFUSED = "refused"
    """Nothing listens at that address (the host said so)."""
    RESET = "reset"
    """The other end dropped the connection (reset, broken pipe, aborted)."""
    UNREACHABLE = "unreachable"
    """No route to that network or host, or this machine's network is down."""
    TIMED_OUT = "timed-out"
    """Nothing answered in time (the system's timeout or ours)."""
    BAD_ADDRESS = "bad-address"
    """The address cannot be used from here (not a local address, unknown name...)."""
    OS_ERROR = "os-error"
    """Another error of the operating system (its number goes with it)."""
    BAD_FRAME = "bad-frame"
    """The peer's bytes break the framing (an empty, oversized or cut frame)."""
    UNSEALED = "unsealed"
    """A frame that does not open under the link's keys (corrupted or forged)."""
    MALFORMED = "malformed"
    """A message that does not decode, or does not fit its kind."""
    OUT_OF_PLACE = "out-of-place"
    """A handshake message where none belongs (after the handshake)."""
    NO_HELLO = "no-hello"
    """The peer said no Hello in time."""
    CUT_IN_HANDSHAKE = "cut-in-handshake"
    """The connection closed during the handshake."""
    SLOW_HANDSHAKE = "slow-handshake"
    """The handshake did not finish in time."""


_BY_ERRNO = {
    errno.ECONNREFUSED: Failure.REFUSED,
    errno.ECONNRESET: Failure.RESET,
    errno.EPIPE: Failure.RESET,
    errno.ECONNABORTED: Failure.RESET,
    errno.ENETUNREACH: Failure.UNREACHABLE,
    errno.EHOSTUNREACH: Failure.UNREACHABLE,
    errno.ENETDOWN: Failure.UNREACHABLE,
    errno.EHOSTDOWN: Failure.UNREACHABLE,
    errno.ETIMEDOUT: Failure.TIMED_OUT,
    errno.EADDRNOTAVAIL: Failure.BAD_ADDRESS,
    errno.EAFNOSUPPORT: Failure.BAD_ADDRESS,
    errno.EINVAL: Failure.BAD_ADDRESS,
}


def os_failure(exc: OSError) -> Failure:
    """The ``Failure`` an operating system error stands for (by its number, not its words)."""
    if isinstance(exc, socket.gaierror):
        return Failure.BAD_ADDRESS
    if isinstance(exc, TimeoutError) and exc.errno is None:
        return Failure.TIMED_OUT
    if isinstance(exc, ConnectionResetError | BrokenPipeError | ConnectionAbortedError) \
            and exc.errno is None:
        return Failure.RESET
    if isinstance(exc, ConnectionRefusedError) and exc.errno is None:
        return Failure.REFUSED
    return _BY_ERRNO.get(exc.errno or 0, Failure.OS_ERROR)


class LinkError(ProtocolError):
    """A dial or handshake that failed for a reason of the transport, not of the peer's offer.

    ``failure`` is what the shell words; ``os_errno`` the system's error
    number when it is ``OS_ERROR`` (a number reads the same in every
    language); the message stays English, for the logs.
    """

    def __init__(self, message: str, failure: Failure, os_errno: int | None = None) -> None:
        super().__init__(message)
        self.failure = failure
        self.os_errno = os_errno
