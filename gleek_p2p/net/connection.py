"""Authenticated, encrypted peer connections over asyncio streams.

``connect`` dials, ``listen`` accepts; both run the handshake (handshake.py)
within ``Limits.handshake_timeout`` and yield a ``Connection`` whose ``peer``
is the authenticated Hello and whose frames are sealed by the handshake's
channel (channel.py). A Connection has a bounded outbound queue drained
by one writer task (each drain bounded by ``Limits.write_timeout``), answers
pings itself, and closes on the first bad frame, frame that fails
authentication, malformed message, read timeout or queue overflow, with a
reason sentence for the user. Nothing from a frame that fails is acted on.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from gleek_p2p.base.errors import GleekError, ProtocolError
from gleek_p2p.base.timeouts import within

from .channel import TAG_SIZE, Channel, ChannelError
from .failures import Failure, LinkError, os_failure
from .framing import encode_frame, read_frame
from .handshake import Handshake, Offer, RefuseWhy, Signer
from .messages import (
    CHALLENGE_SIZE,
    MAX_MESSAGE_SIZE,
    Bye,
    ByeCode,
    Hello,
    Message,
    Ping,
    Pong,
    Proof,
    Refuse,
    decode_message,
    encode_message,
)
from .slots import HandshakeSlots

__all__ = [
    "Connection",
    "ConnectionClosed",
    "Limits",
    "LinkDown",
    "Listener",
    "Refused",
    "Unreachable",
    "connect",
    "handshake_over",
    "listen",
]


@dataclass(frozen=True)
class Limits:
    """Every timeout (seconds) and bound of the transport, in one place."""

    connect_timeout: float = 5.0
    handshake_timeout: float = 10.0
    hello_timeout: float = 3.0
    """Close a connection, accepted or dialled, whose Hello has not arrived within this long."""
    read_timeout: float | None = 60.0
    """Close if no frame arrives for this long (pings keep a live peer in)."""
    write_timeout: float = 10.0
    """Close if the peer does not take our bytes for this long."""
    ping_interval: float | None = 15.0
    """Send a Ping after this long with nothing to send (None: never)."""
    max_frame: int = MAX_MESSAGE_SIZE + TAG_SIZE
    queue_size: int = 1024
    """Most messages waiting to be sent; one more closes the connection."""
    max_pending_handshakes: int = 16
    """Listener: at most this many handshakes at once; a new connection beyond
    it pushes out the handshake of the most blamed address (slots.py), or is
    turned away if its own address is the most blamed."""
    max_handshakes_per_address: int = 4
    """Listener: at most this many handshakes at once from one address; a new
    connection beyond it pushes out that address's oldest handshake."""
    blame_half_life: float = 30.0
    """Listener: seconds for an address's blame (handshakes it lost) to halve."""
    blame_memory: int = 1024
    """Listener: most addresses whose blame is remembered."""


class LinkDown(enum.Enum):
    """Why a connection closed, for the shell to put in the person's words.

    ``Connection.close_reason`` stays an English sentence for logs and for
    the Bye sent to the peer; a screen words ``close_why`` (with
    ``close_detail``: seconds, or a technical detail) in its own language.
    """

    PEER_BYE = "peer-bye"
    """The peer said goodbye: ``Connection.farewell`` holds its Bye (code and words)."""
    PEER_CLOSED = "peer-closed"
    """The peer's end closed without a goodbye (a crash, a kill, a network cut)."""
    PEER_REFUSED = "peer-refused"
    """The peer refused the connection after the handshake."""
    SILENT = "silent"
    """Nothing heard for ``close_detail`` seconds."""
    STALLED = "stalled"
    """The peer took none of our bytes for ``close_detail`` seconds."""
    OVERFLOW = "overflow"
    """Too many messages waiting for a peer that does not read them."""
    BROKE_PROTOCOL = "broke-protocol"
    """A bad frame or message from the peer (``close_failure`` says which kind)."""
    FAILED = "failed"
    """The operating system reported an error on the socket (``close_failure``)."""
    CLOSED_HERE = "closed-here"
    """This program closed it (``close_reason`` says why, e.g. a newer connection)."""


_BYE_CODES = {LinkDown.SILENT: ByeCode.SILENT, LinkDown.STALLED: ByeCode.NOT_READING,
              LinkDown.OVERFLOW: ByeCode.NOT_READING, LinkDown.BROKE_PROTOCOL: ByeCode.MALFORMED}
"""The goodbye's code for a link this end closes at once, by why it closed."""


class ConnectionClosed(GleekError):
    """The connection is closed; ``reason`` says why, for the user."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Refused(ProtocolError):
    """A handshake ended by a ``Refuse``: ``by_peer`` if the peer sent it, else we did.

    ``peer`` is the peer's Hello when one arrived: unauthenticated, unless
    ``proven`` (the peer's refusal is signed over this handshake by that
    Hello's key, so that key's holder did refuse us; handshake.py).
    """

    def __init__(self, message: str, refusal: Refuse, *, by_peer: bool,
                 peer: Hello | None, proven: bool = False, why: RefuseWhy | None = None) -> None:
        super().__init__(message)
        self.why = why
        """Why we refused (None when the peer refused us): what the screen words."""
        self.refusal = refusal
        self.by_peer = by_peer
        self.peer = peer
        self.proven = proven and by_peer and peer is not None


class Unreachable(LinkError):
    """Nothing answered at the address dialled (no listener, no route, timeout)."""


_STOP = object()


class Connection:
    """An authenticated connection to ``peer``; one task calls ``recv``.

    ``send`` never blocks: it queues, and a full queue closes the connection
    (a peer that does not read must not make us hold unbounded memory).
    ``channel`` seals every frame; None (plain frames) is only for tests of
    the framing and closing logic.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        peer: Hello,
        *,
        dialled: bool,
        limits: Limits,
        channel: Channel | None,
        own_hello: Hello | None = None,
        peer_proof: bytes | None = None,
    ) -> None:
        self.reader = reader
        self.channel = channel
        self.writer = writer
        self.peer = peer
        self.dialled = dialled
        """True if we dialled this connection (see formation.keep_connection)."""
        self.own_hello = own_hello
        """The Hello we sent on this connection (None for plain test connections)."""
        self.peer_proof = peer_proof
        """The peer's handshake Proof signature: with both Hellos, it proves what the peer said."""
        self.limits = limits
        self.close_reason: str | None = None
        self.close_why: LinkDown | None = None
        """Why it closed, as a code (see ``LinkDown``)."""
        self.close_detail = ""
        """Seconds, the peer's words, or a technical detail (English, for the logs) that
        goes with ``close_why``."""
        self.close_failure: Failure | None = None
        """What failed, as a code, when ``close_why`` is FAILED or BROKE_PROTOCOL."""
        self.close_errno: int | None = None
        """The system's error number when ``close_failure`` is ``Failure.OS_ERROR``."""
        self.farewell: Bye | None = None
        """The peer's Bye, if it closed the connection with one."""
        self.refusal: Refuse | None = None
        """The peer's Refuse, if it refused us once the handshake was done."""
        self._queue: asyncio.Queue[object] = asyncio.Queue()
        self._writer_task = asyncio.create_task(self._write_loop())
        self._closed_event = asyncio.Event()

    @property
    def closed(self) -> bool:
        """True once the connection is closing or closed."""
        return self.close_reason is not None

    @property
    def backlog(self) -> int:
        """Messages queued and not yet written (a feeder keeps this bounded)."""
        return self._queue.qsize()

    def send(self, msg: Message) -> None:
        """Queue ``msg``; ConnectionClosed if closed, or if the queue overflows."""
        if self.close_reason is not None:
            raise ConnectionClosed(self.close_reason)
        if self._queue.qsize() >= self.limits.queue_size:
            self._abort(
                f"more than {self.limits.queue_size} messages waiting: the peer is not keeping up",
                LinkDown.OVERFLOW, str(self.limits.queue_size))
            raise ConnectionClosed(self.close_reason or "closed")
        self._queue.put_nowait(msg)

    async def recv(self) -> Message:
        """The next message (never Ping/Pong/Bye); ConnectionClosed once closed.

        A bad frame, malformed message, unexpected handshake message or
        ``read_timeout`` without a frame closes the connection. A peer's Bye
        or Refuse closes it with the peer's reason.
        """
        while True:
            if self.close_reason is not None:
                raise ConnectionClosed(self.close_reason)
            # Which step failed says what kind of breach it was, for the screen.
            step = Failure.BAD_FRAME
            try:
                payload = await read_frame(
                    self.reader, self.limits.max_frame, self.limits.read_timeout
                )
                if payload is None:
                    self._abort("the peer closed the connection", LinkDown.PEER_CLOSED)
                    continue
                if self.channel is not None:
                    step = Failure.UNSEALED
                    payload = self.channel.open(payload)
                step = Failure.MALFORMED
                msg = decode_message(payload)
            except TimeoutError:
                self._abort(f"nothing heard from the peer for {self.limits.read_timeout} s",
                            LinkDown.SILENT, f"{self.limits.read_timeout:g}")
                continue
            except ProtocolError as exc:
                if isinstance(exc, ChannelError):
                    step = Failure.UNSEALED
                self._abort(f"the peer broke the protocol: {exc.message}",
                            LinkDown.BROKE_PROTOCOL, exc.message, step)
                continue
            except OSError as exc:
                self._failed(f"the connection failed: {exc}", exc)
                continue
            if isinstance(msg, Ping):
                with contextlib.suppress(ConnectionClosed):
                    self.send(Pong(msg.token))
            elif isinstance(msg, Pong):
                pass
            elif isinstance(msg, Bye):
                self.farewell = msg
                self._abort(f"the peer left: {msg.reason}" if msg.reason else "the peer left",
                            LinkDown.PEER_BYE, msg.reason)
            elif isinstance(msg, Refuse):
                self.refusal = msg
                self._abort(f"the peer refused the connection: {msg.reason}",
                            LinkDown.PEER_REFUSED, msg.reason)
            elif isinstance(msg, Hello | Proof):
                self._abort(f"the peer broke the protocol: {type(msg).__name__} after handshake",
                            LinkDown.BROKE_PROTOCOL, f"{type(msg).__name__} after handshake",
                            Failure.OUT_OF_PLACE)
            else:
                return msg

    def __aiter__(self) -> AsyncIterator[Message]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Message]:
        while True:
            try:
                yield await self.recv()
            except ConnectionClosed:
                return

    async def close(self, reason: str = "", code: int = 0) -> None:
        """Send what is queued, then ``Bye(reason, code)``, then close (within write_timeout)."""
        await self._close_with(Bye(reason, code), reason or "closed")

    async def refuse(self, reason: str) -> None:
        """Like ``close`` but the last message is ``Refuse(reason)`` (e.g. "table full")."""
        await self._close_with(Refuse(reason), f"refused the peer: {reason}")

    async def _close_with(self, last: Message, reason: str) -> None:
        if self.close_reason is None:
            self.close_reason = reason
            self.close_why, self.close_detail = LinkDown.CLOSED_HERE, reason
            self._queue.put_nowait(last)
            self._queue.put_nowait(_STOP)
            try:
                await within(asyncio.shield(self._writer_task), self.limits.write_timeout)
            except TimeoutError:
                pass
            except asyncio.CancelledError:
                self._finish()
                if not self._writer_task.cancelled():
                    # The task closing us was cancelled, not our writer: swallowing
                    # that would let a cancelled task run on (a lobby closing waits
                    # for its tasks before it closes their connections: a deadlock).
                    raise
            self._finish()
        await self.wait_closed()

    async def wait_closed(self) -> None:
        """Wait until the connection is closed."""
        await self._closed_event.wait()

    def _failed(self, reason: str, exc: OSError) -> None:
        """Close at once on an error of the operating system, kept as a code."""
        failure = os_failure(exc)
        self._abort(reason, LinkDown.FAILED, str(exc), failure,
                    exc.errno if failure is Failure.OS_ERROR else None)

    def _abort(self, reason: str, why: LinkDown = LinkDown.CLOSED_HERE, detail: str = "",
               failure: Failure | None = None, os_errno: int | None = None) -> None:
        """Close at once: a best-effort Bye, no flush."""
        if self.close_reason is not None:
            return
        self.close_reason = reason
        self.close_why, self.close_detail = why, detail
        self.close_failure, self.close_errno = failure, os_errno
        with contextlib.suppress(Exception):
            # The code lets the peer word it in its reader's language; the English
            # reason is for its logs.
            bye = Bye(reason[:200], _BYE_CODES.get(why, ByeCode.NONE))
            if not self.writer.is_closing():
                self.writer.write(self._frame(bye))
        self._finish()

    def _frame(self, msg: Message) -> bytes:
        return _frame(msg, self.channel, self.limits.max_frame)

    def _finish(self) -> None:
        if not self._writer_task.done():
            self._writer_task.cancel()
        with contextlib.suppress(Exception):
            self.writer.close()
        self._closed_event.set()

    async def _write_loop(self) -> None:
        try:
            while True:
                try:
                    item = await within(self._queue.get(), self.limits.ping_interval)
                except TimeoutError:
                    item = Ping(int.from_bytes(os.urandom(4), "big"))
                if item is _STOP:
                    return
                assert isinstance(item, Message)
                self.writer.write(self._frame(item))
                await within(self.writer.drain(), self.limits.write_timeout)
        except TimeoutError:
            self._abort(f"the peer took nothing for {self.limits.write_timeout} s",
                        LinkDown.STALLED, f"{self.limits.write_timeout:g}")
        except OSError as exc:
            self._failed(f"sending failed: {exc}", exc)
        except ProtocolError as exc:  # a message we cannot frame: ours, not the network's
            self._abort(f"sending failed: {exc}", LinkDown.FAILED, str(exc), Failure.MALFORMED)


def _frame(msg: Message, channel: Channel | None, max_frame: int) -> bytes:
    """One frame for ``msg``: its body sealed by ``channel`` (None: in the clear)."""
    payload = encode_message(msg)
    if channel is not None:
        payload = channel.seal(payload)
    return encode_frame(payload, max_frame)


async def _send_now(
    writer: asyncio.StreamWriter, msgs: list[Message], limits: Limits, channel: Channel | None
) -> None:
    for msg in msgs:
        writer.write(_frame(msg, channel, limits.max_frame))
    await within(writer.drain(), limits.write_timeout)


async def handshake_over(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    handshake: Handshake,
    *,
    dialled: bool,
    limits: Limits,
) -> Connection:
    """Run ``handshake`` over a stream; the authenticated Connection, or ProtocolError.

    On failure the Refuse (if any) is sent, the stream closed, and the
    ProtocolError carries the reason sentence for the user.
    """
    try:
        async with asyncio.timeout(limits.handshake_timeout):
            await _send_now(writer, handshake.initial(), limits, None)
            while not handshake.done:
                try:
                    # A socket that never says Hello holds a slot (ours, or the
                    # dial of a forged hint at a silent "tarpit"): keep that short.
                    first = handshake.peer is None
                    payload = await read_frame(
                        reader, limits.max_frame, limits.hello_timeout if first else None
                    )
                except TimeoutError:
                    if not first:
                        raise
                    raise LinkError(
                        f"the peer said no Hello within {limits.hello_timeout} s",
                        Failure.NO_HELLO) from None
                except LinkError:
                    raise
                except ProtocolError as exc:
                    raise LinkError(f"the peer broke the protocol: {exc.message}",
                                    Failure.BAD_FRAME) from None
                if payload is None:
                    raise LinkError("the peer closed the connection during the handshake",
                                    Failure.CUT_IN_HANDSHAKE)
                try:
                    msg = decode_message(payload)
                except ProtocolError as exc:
                    raise LinkError(f"the peer broke the protocol: {exc.message}",
                                    Failure.MALFORMED) from None
                out = handshake.receive(msg)
                if out:
                    with contextlib.suppress(OSError, TimeoutError):
                        # After the peer's Proof (a late Refuse) the channel seals it.
                        await _send_now(writer, out, limits, handshake.channel)
                if handshake.failed:
                    error = handshake.error or "the handshake failed"
                    if handshake.refusal is not None:
                        raise Refused(error, handshake.refusal,
                                      by_peer=handshake.refused_by_peer, peer=handshake.peer,
                                      proven=handshake.refusal_proven,
                                      why=handshake.refused_for)
                    raise ProtocolError(error)
    except TimeoutError:
        writer.close()
        raise LinkError(
            f"the handshake did not finish within {limits.handshake_timeout} s",
            Failure.SLOW_HANDSHAKE) from None
    except (ProtocolError, asyncio.CancelledError):
        # Cancelled: a race of dials (net/race.py) that another dial won; the
        # socket must not stay open until the collector finds it.
        writer.close()
        raise
    except OSError as exc:
        writer.close()
        failure = os_failure(exc)
        raise LinkError(f"the connection failed during the handshake: {exc}", failure,
                        exc.errno if failure is Failure.OS_ERROR else None) from None
    assert handshake.peer is not None and handshake.channel is not None
    return Connection(
        reader, writer, handshake.peer, dialled=dialled, limits=limits, channel=handshake.channel,
        own_hello=handshake.hello, peer_proof=handshake.peer_proof,
    )


def _ephemeral(ephemeral: bytes | None) -> bytes:
    return os.urandom(CHALLENGE_SIZE) if ephemeral is None else ephemeral


async def connect(
    host: str,
    port: int,
    *,
    identity: Signer,
    offer: Offer,
    nonce_commit: bytes,
    admit: Callable[[Hello], str | Refuse | None] | None = None,
    limits: Limits = Limits(),
    ephemeral: bytes | None = None,
    attempt: int = 0,
) -> Connection:
    """Dial ``host:port`` and authenticate; ProtocolError (with the reason) on failure.

    ``ephemeral`` is this connection's X25519 private key (drawn from the OS
    if None; tests pass their own).
    """
    try:
        reader, writer = await within(
            asyncio.open_connection(host, port, limit=limits.max_frame + 8),
            limits.connect_timeout,
        )
    except TimeoutError:
        raise Unreachable(
            f"could not reach {host}:{port} within {limits.connect_timeout} s",
            Failure.TIMED_OUT) from None
    except OSError as exc:
        failure = os_failure(exc)
        raise Unreachable(f"could not reach {host}:{port}: {exc.strerror or exc}", failure,
                          exc.errno if failure is Failure.OS_ERROR else None) from None
    handshake = Handshake(identity, offer, nonce_commit, _ephemeral(ephemeral), admit, attempt)
    return await handshake_over(reader, writer, handshake, dialled=True, limits=limits)


class Listener:
    """Accepts connections, authenticates them, hands them to ``on_connection``.

    ``nonce_commit`` and ``attempt`` may be replaced between formation
    attempts. A failed handshake is reported to ``on_error`` (reason
    sentence) and the stream closed; a handshake ended by a refusal goes to
    ``on_refused`` instead, when given. ``on_failure``, when given, takes the
    place of ``on_error`` with what a screen can word: the handshake's error
    (a ``LinkError`` carries its ``Failure``), or None for a handshake pushed
    out for want of a slot.
    """

    def __init__(
        self,
        *,
        identity: Signer,
        offer: Offer,
        nonce_commit: bytes,
        on_connection: Callable[[Connection], Awaitable[None]],
        admit: Callable[[Hello], str | Refuse | None] | None = None,
        on_error: Callable[[str], None] | None = None,
        limits: Limits = Limits(),
        on_refused: Callable[[Refused], None] | None = None,
        on_failure: Callable[[ProtocolError | None], None] | None = None,
    ) -> None:
        self.identity = identity
        self.offer = offer
        self.nonce_commit = nonce_commit
        self.attempt = 0
        self.on_connection = on_connection
        self.admit = admit
        self.on_error = on_error
        self.on_refused = on_refused
        self.on_failure = on_failure
        self.limits = limits
        self.server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.slots: HandshakeSlots[asyncio.Task[None]] = HandshakeSlots(
            limits.max_pending_handshakes, limits.max_handshakes_per_address,
            memory=limits.blame_memory, half_life=limits.blame_half_life)

    @property
    def _handshaking(self) -> dict[asyncio.Task[None], str]:
        """Tasks still handshaking, oldest first, with the address they came from."""
        return self.slots.held

    @property
    def port(self) -> int:
        """The port actually bound (useful after binding port 0)."""
        assert self.server is not None, "the listener is not started"
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def start(self, host: str, port: int = 0) -> None:
        """Bind ``host:port`` and start accepting."""
        self.server = await asyncio.start_server(
            self._handle, host, port, limit=self.limits.max_frame + 8
        )

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        loop = asyncio.get_running_loop()
        completed = False
        try:
            peer = writer.get_extra_info("peername")
            if not self._take_slot(task, str(peer[0]) if peer else "", loop.time()):
                writer.close()
                return
            try:
                handshake = Handshake(
                    self.identity, self.offer, self.nonce_commit, _ephemeral(None), self.admit,
                    self.attempt,
                )
                conn = await handshake_over(
                    reader, writer, handshake, dialled=False, limits=self.limits
                )
                completed = True
            except Refused as exc:
                if self.on_refused is not None:
                    self.on_refused(exc)
                else:
                    self._report(exc.message, exc)
                return
            except ProtocolError as exc:
                self._report(exc.message, exc)
                return
            finally:
                self.slots.leave(task, loop.time(), completed=completed)
            try:
                await self.on_connection(conn)
            except Exception as exc:
                await conn.close(f"internal error: {exc}")
                raise
        except asyncio.CancelledError:
            # ``close`` cancels us. In Python 3.11 a cancelled client task makes
            # asyncio's stream callback report a spurious "Exception in callback"
            # (printed over a full-screen UI), so the task ends normally instead.
            writer.close()
        finally:
            self._tasks.discard(task)

    def _take_slot(self, task: asyncio.Task[None], address: str, now: float) -> bool:
        """Make room for the handshake from ``address``; False if it is turned away.

        Refusing every newcomer would let a few idle sockets renewed in time
        hold every slot, and pushing out the oldest lets a fast enough burst
        push out an honest peer too: the slots go by blame (slots.py).
        """
        admitted = True
        for ticket, why in self.slots.arrive(task, address, now):
            if ticket is task:
                admitted = False
            else:
                ticket.cancel()
            self._report(why, None)
        return admitted

    def _report(self, reason: str, exc: ProtocolError | None) -> None:
        if self.on_failure is not None:
            self.on_failure(exc)
        elif self.on_error is not None:
            self.on_error(reason)

    async def close(self) -> None:
        """Stop accepting and cancel handshakes and handlers still running."""
        if self.server is not None:
            self.server.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.server is not None:
            await self.server.wait_closed()


async def listen(
    host: str,
    port: int,
    *,
    identity: Signer,
    offer: Offer,
    nonce_commit: bytes,
    on_connection: Callable[[Connection], Awaitable[None]],
    admit: Callable[[Hello], str | Refuse | None] | None = None,
    on_error: Callable[[str], None] | None = None,
    limits: Limits = Limits(),
) -> Listener:
    """Start a Listener on ``host:port`` (0: any free port, see ``Listener.port``)."""
    listener = Listener(
        identity=identity,
        offer=offer,
        nonce_commit=nonce_commit,
        on_connection=on_connection,
        admit=admit,
        on_error=on_error,
        limits=limits,
    )
    await listener.start(host, port)
    return listener
