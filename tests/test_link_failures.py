"""Network failures reach the screen as typed codes in the reader's language (issue 23).

Each failure is forced for real on 127.0.0.1 (nothing listening, a reset,
bytes that are not a frame, a message out of place, a silent peer, a bad
message in the handshake); its sentence, in every language, must carry
none of the English that the operating system or the decoder wrote (that
stays in ``close_reason`` and the error's message, for the logs).
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import socket
import struct
from collections.abc import AsyncIterator, Iterator

import pytest

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, Limits, LinkDown, Unreachable, connect
from gleek_p2p.net.failures import Failure, LinkError, os_failure
from gleek_p2p.net.framing import encode_frame
from gleek_p2p.net.handshake import Offer
from gleek_p2p.net.messages import encode_message
from gleek_p2p.session.link_words import FAILURE_WORDS, dial_failure, failure_words, link_down

LIMITS = Limits(read_timeout=5.0, write_timeout=5.0, ping_interval=None, hello_timeout=0.3,
                connect_timeout=5.0)
OFFER = Offer(version=1, table="oak", variant=(1,), seats=3, name="Alice", listen_port=0)
HELLO = OFFER.hello(b"k" * 32, b"c" * 32, b"r" * 32)
COMMIT = hashlib.sha256(b"nonce").digest()
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE_LANGUAGE]

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en", {})


@pytest.fixture
async def streams() -> AsyncIterator[tuple[Streams, Streams]]:
    """Two ends of a real TCP connection on 127.0.0.1."""
    accepted: asyncio.Queue[Streams] = asyncio.Queue()

    async def on_accept(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await accepted.put((r, w))

    server = await asyncio.start_server(on_accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = await asyncio.open_connection("127.0.0.1", port)
    other = await accepted.get()
    yield client, other
    for _, w in (client, other):
        w.close()
    server.close()
    await server.wait_closed()


def _conn(end: Streams) -> Connection:
    return Connection(end[0], end[1], HELLO, dialled=True, limits=LIMITS, channel=None)


def _said_everywhere(say: object, english: list[str]) -> dict[str, str]:
    """``say()`` in every language; no translated one holds any of the ``english`` words,
    and each differs from the English sentence."""
    assert callable(say)
    said = {}
    for lang in i18n.LANGUAGES:
        i18n.set_language(lang, {})
        said[lang] = say()
    for lang in TRANSLATED:
        assert said[lang] != said["en"], lang
        for words in english:
            assert words.lower() not in said[lang].lower(), (lang, words, said[lang])
    for words in english:  # nor in English: the system's words are for the logs
        assert words.lower() not in said["en"].lower(), (words, said["en"])
    return said


def test_os_errors_are_typed_by_number_not_by_words() -> None:
    assert os_failure(ConnectionRefusedError(errno.ECONNREFUSED, "x")) is Failure.REFUSED
    assert os_failure(OSError(errno.ECONNRESET, "x")) is Failure.RESET
    assert os_failure(BrokenPipeError()) is Failure.RESET
    assert os_failure(OSError(errno.EHOSTUNREACH, "x")) is Failure.UNREACHABLE
    assert os_failure(OSError(errno.ENETUNREACH, "x")) is Failure.UNREACHABLE
    assert os_failure(TimeoutError()) is Failure.TIMED_OUT
    assert os_failure(socket.gaierror(-2, "Name or service not known")) is Failure.BAD_ADDRESS
    assert os_failure(OSError(errno.ENOSPC, "No space left on device")) is Failure.OS_ERROR
    # Every code has its words (the system's number for the rest), in every language.
    assert set(FAILURE_WORDS) == set(Failure) - {Failure.OS_ERROR}
    for lang in TRANSLATED:
        i18n.set_language(lang, {})
        for failure in Failure:
            words = failure_words(failure, errno.ENOSPC)
            i18n.set_language("en", {})
            assert words != failure_words(failure, errno.ENOSPC), (lang, failure)
            i18n.set_language(lang, {})
    assert str(errno.ENOSPC) in failure_words(Failure.OS_ERROR, errno.ENOSPC)


async def test_nobody_listening_is_said_in_every_language() -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # bound once, never listening: the host refuses at once
    with pytest.raises(Unreachable) as caught:
        await connect("127.0.0.1", port, identity=Identity.generate(b"\1" * 32), offer=OFFER,
                      nonce_commit=COMMIT, limits=LIMITS)
    assert caught.value.failure is Failure.REFUSED
    # The system's English ("Connect call failed", "Connection refused"), for the logs.
    assert f"could not reach 127.0.0.1:{port}: " in caught.value.message
    said = _said_everywhere(lambda: dial_failure(caught.value),
                            ["Connect call failed", "Connection refused", "Errno",
                             "could not reach", "127.0.0.1"])
    assert said["en"] == "the connection failed (nothing listens at that address)"
    assert said["fr"] == "la connexion a échoué (rien n'écoute à cette adresse)"


async def test_a_reset_link_is_said_in_every_language(
        streams: tuple[Streams, Streams]) -> None:
    a = _conn(streams[0])
    sock = streams[1][1].get_extra_info("socket")
    # SO_LINGER 0: closing sends a reset, as a killed peer's kernel may.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    streams[1][1].transport.abort()
    async for _message in a:
        pass
    assert a.close_why is LinkDown.FAILED
    assert a.close_failure is Failure.RESET
    assert "reset" in (a.close_reason or "").lower()  # the English, kept for the logs
    said = _said_everywhere(lambda: link_down("Thomas", a),
                            ["Connection reset", "Errno", "by peer"])
    assert said["en"] == ("The link to Thomas is down: the network failed (the other end "
                          "dropped the connection).")
    assert said["nl"] == ("De verbinding met Thomas is weg: het netwerk faalde (de andere "
                          "kant verbrak de verbinding).")


@pytest.mark.parametrize(("sent", "failure", "english"), [
    (b"\x00\x00\x00\x00", Failure.BAD_FRAME, ["empty frame"]),
    (encode_frame(b"\x93\x01\x02"), Failure.MALFORMED, ["unknown message tag", "tag"]),
    (encode_frame(encode_message(HELLO)), Failure.OUT_OF_PLACE, ["Hello after handshake"]),
])
async def test_bytes_that_break_the_protocol_are_said_in_every_language(
        streams: tuple[Streams, Streams], sent: bytes, failure: Failure,
        english: list[str]) -> None:
    a = _conn(streams[0])
    streams[1][1].write(sent)
    await streams[1][1].drain()
    async for _message in a:
        pass
    assert a.close_why is LinkDown.BROKE_PROTOCOL
    assert a.close_failure is failure, a.close_reason
    said = _said_everywhere(lambda: link_down("Thomas", a), english)
    assert said["en"] == ("The link to Thomas is down: Thomas sent something malformed ("
                          + FAILURE_WORDS[failure] + ").")


async def test_a_silent_or_garbled_handshake_is_said_in_every_language() -> None:
    async def silent(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await asyncio.sleep(2)
        w.close()

    async def garbled(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        w.write(encode_frame(b"\x93\x01\x02"))
        await w.drain()
        await asyncio.sleep(2)
        w.close()

    for handler, failure, english in ((silent, Failure.NO_HELLO, ["said no Hello within"]),
                                      (garbled, Failure.MALFORMED, ["unknown message tag"])):
        server = await asyncio.start_server(handler, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            with pytest.raises(LinkError) as caught:
                await connect("127.0.0.1", port, identity=Identity.generate(b"\1" * 32),
                              offer=OFFER, nonce_commit=COMMIT, limits=LIMITS)
        finally:
            server.close()
        assert caught.value.failure is failure, caught.value.message
        _said_everywhere(lambda exc=caught.value: dial_failure(exc), english)


def test_a_refusal_quotes_the_refusing_peers_words_and_says_the_rest() -> None:
    from gleek_p2p.net.connection import Refused
    from gleek_p2p.net.messages import Refuse

    theirs = Refused("the peer refused the connection: go away", Refuse("go away"),
                     by_peer=True, peer=None)
    ours = Refused("refused the peer: you are us", Refuse("you are us"), by_peer=False,
                   peer=None)
    said = _said_everywhere(lambda: dial_failure(theirs), ["refused the connection: "])
    assert all("go away" in s for s in said.values())  # the peer's own words, quoted
    _said_everywhere(lambda: dial_failure(ours), ["you are us"])
    _said_everywhere(lambda: dial_failure(ProtocolError("some English")), ["some English"])
