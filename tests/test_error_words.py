"""Errors of the shell reach the screen worded from codes, never their English (issue 23).

Each failure is forced for real where it can be on 127.0.0.1 (a port in use,
an address not of this machine, a missing file, a peer we refuse, bytes that
are not a handshake) or through the sans-IO core (formation, the handshake);
in every language the sentence must hold none of the English the system or
the lower layers wrote (that stays in the error's message, for the logs).
"""

from __future__ import annotations

import asyncio
import errno
import os
import socket
import struct
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from test_net_formation import add, hello, ident, reveal_of, table

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import Cheating, IllegalMove, ProtocolError
from gleek_p2p.base.i18n import _
from gleek_p2p.base.os_words import os_error_words
from gleek_p2p.base.violation_codes import ViolationCode
from gleek_p2p.cli import gleek as cli
from gleek_p2p.cli.commands import verify_file
from gleek_p2p.log.keys import Identity
from gleek_p2p.log.store import HEADER, MAGIC, LogFault
from gleek_p2p.net.connection import Limits, Listener, Refused, connect
from gleek_p2p.net.failures import Failure, LinkError
from gleek_p2p.net.formation import (
    MAX_ATTEMPT,
    FormationError,
    FormationFault,
    StartOver,
    TableFormation,
)
from gleek_p2p.net.framing import encode_frame
from gleek_p2p.net.handshake import Offer, RefuseWhy
from gleek_p2p.net.messages import Hello, encode_message
from gleek_p2p.session.error_words import rejection_words
from gleek_p2p.session.formation_words import FAULT_WORDS, formation_words
from gleek_p2p.session.link_words import (
    REFUSAL_WORDS,
    dial_failure,
    handshake_failure,
    refusal_words,
)
from gleek_p2p.tools.report import LOG_FAULT_WORDS, json_report, text_report

LIMITS = Limits(read_timeout=5.0, write_timeout=5.0, ping_interval=None, hello_timeout=2.0,
                connect_timeout=5.0)
OFFER = Offer(version=1, table="oak", variant=(1,), seats=3, name="Alice", listen_port=0)
COMMIT = bytes(32)
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE_LANGUAGE]


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en", {})


def said_everywhere(say: Callable[[], str], english: list[str],
                    translated: list[str] = ()) -> dict[str, str]:  # type: ignore[assignment]
    """``say()`` in every language: each translation differs from the English sentence,
    none of them (English included) holds any of the ``english`` details, and no
    translation holds the ``translated`` ones (words the English sentence shares)."""
    said = {}
    for lang in i18n.LANGUAGES:
        i18n.set_language(lang, {})
        said[lang] = say()
    for lang in TRANSLATED:
        assert said[lang] != said["en"], lang
    for lang, text in said.items():
        for words in [*english, *(translated if lang != "en" else [])]:
            assert words.lower() not in text.lower(), (lang, words, text)
    return said


# --- the operating system's errors, by number -------------------------------------------


def test_a_port_in_use_says_which_and_how_to_choose_another() -> None:
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    port = held.getsockname()[1]
    try:
        with socket.socket() as second, pytest.raises(OSError) as caught:
            second.bind(("127.0.0.1", port))
    finally:
        held.close()
    assert caught.value.errno == errno.EADDRINUSE
    listen = f"127.0.0.1:{port}"
    said = said_everywhere(lambda: os_error_words(caught.value, listen),
                           [os.strerror(errno.EADDRINUSE), "Errno"])
    for text in said.values():
        assert listen in text and "--listen" in text
    assert said["fr"].startswith("l'adresse 127.0.0.1:")


def test_an_address_not_of_this_machine_is_said_without_the_systems_words() -> None:
    with socket.socket() as sock, pytest.raises(OSError) as caught:
        sock.bind(("192.0.2.1", 0))  # TEST-NET-1: never an address here; bind sends nothing
    assert caught.value.errno == errno.EADDRNOTAVAIL
    said = said_everywhere(lambda: os_error_words(caught.value, "192.0.2.1:0"),
                           [os.strerror(errno.EADDRNOTAVAIL), "Errno"])
    assert all("192.0.2.1:0" in text and "--listen" in text for text in said.values())


def test_a_port_forbidden_and_other_numbers_are_worded_by_number() -> None:
    # Run as root here, a low port binds: the error is built as the system raises it.
    denied = OSError(errno.EACCES, os.strerror(errno.EACCES))
    said = said_everywhere(lambda: os_error_words(denied, "0.0.0.0:80"),
                           [os.strerror(errno.EACCES)])
    assert all("1024" in text and "0.0.0.0:80" in text for text in said.values())
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    said = said_everywhere(lambda: os_error_words(full), [os.strerror(errno.ENOSPC)])
    assert all("ENOSPC" in text for text in said.values())


def test_a_missing_file_is_named_in_every_language(tmp_path: object) -> None:
    missing = f"{tmp_path}/nothing-here.log"
    with pytest.raises(OSError) as caught:
        open(missing, "rb")  # noqa: SIM115 - the real error is the point
    said = said_everywhere(lambda: os_error_words(caught.value, "0.0.0.0:0"),
                           [os.strerror(errno.ENOENT), "Errno"])
    assert all(missing in text for text in said.values())


def test_the_command_line_words_an_os_error_by_number(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    port = held.getsockname()[1]

    def dispatch(_args: object) -> int:
        with socket.socket() as second:
            second.bind(("127.0.0.1", port))  # EADDRINUSE, raised as a command would
        return 0

    monkeypatch.setattr(cli, "_dispatch", dispatch)
    monkeypatch.setattr(sys, "argv", ["gleek"])
    try:
        for lang in i18n.LANGUAGES:
            code = cli.main(["--lang", lang, "play", "--name", "Ann", "--listen",
                             f"127.0.0.1:{port}"])
            err = capsys.readouterr().err
            assert code == 1
            assert err.startswith("gleek: ") and f"127.0.0.1:{port}" in err, err
            assert os.strerror(errno.EADDRINUSE).lower() not in err.lower(), (lang, err)
            assert "Errno" not in err
    finally:
        held.close()


# --- a peer we refuse, and what our listener could not take -----------------------------


def _fake_hello(**changes: object) -> Hello:
    hello_ = OFFER.hello(Identity.generate(b"\7" * 32).public, COMMIT, bytes(32))
    return replace(hello_, **changes)  # type: ignore[arg-type]


@pytest.fixture
async def says_hello() -> AsyncIterator[Callable[[Hello], int]]:
    """A server on 127.0.0.1 that answers a dial with the given Hello, then says nothing."""
    servers: list[asyncio.Server] = []

    async def start(hello_: Hello) -> int:
        async def on_accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(encode_frame(encode_message(hello_)))
            await writer.drain()
            await reader.read()  # until the dialler closes
            writer.close()

        server = await asyncio.start_server(on_accept, "127.0.0.1", 0)
        servers.append(server)
        port: int = server.sockets[0].getsockname()[1]
        return port

    yield start  # type: ignore[misc]
    for server in servers:
        server.close()


@pytest.mark.parametrize(("change", "why", "english"), [
    ({"table": "elm"}, RefuseWhy.TABLE, ["you want table", "'elm'"]),
    ({"version": 9}, RefuseWhy.VERSION, ["protocol version 9"]),
    ({"variant": (2,)}, RefuseWhy.VARIANT, ["you play variant", "[2]"]),
    ({"seats": 4}, RefuseWhy.SEATS, ["you want 4 seats"]),
    ({"public": bytes(32)}, RefuseWhy.UNSAFE_KEY, ["unsafe:", "small order"]),
])
async def test_a_peer_we_refuse_is_refused_for_a_reason_in_words(
        says_hello: Callable[[Hello], object], change: dict[str, object], why: RefuseWhy,
        english: list[str]) -> None:
    port = await says_hello(_fake_hello(**change))  # type: ignore[misc]
    with pytest.raises(Refused) as caught:
        await connect("127.0.0.1", port, identity=Identity.generate(b"\1" * 32), offer=OFFER,
                      nonce_commit=COMMIT, limits=LIMITS)
    refused = caught.value
    assert not refused.by_peer and refused.why is why, refused.message
    said = said_everywhere(lambda: dial_failure(refused), english)
    assert said["en"] == "this program refused the peer: " + REFUSAL_WORDS[why]


async def test_a_connection_to_ourselves_is_refused_in_words(
        says_hello: Callable[[Hello], object]) -> None:
    me = Identity.generate(b"\1" * 32)
    port = await says_hello(_fake_hello(public=me.public))  # type: ignore[misc]
    with pytest.raises(Refused) as caught:
        await connect("127.0.0.1", port, identity=me, offer=OFFER, nonce_commit=COMMIT,
                      limits=LIMITS)
    assert caught.value.why is RefuseWhy.OURSELVES
    said_everywhere(lambda: dial_failure(caught.value), ["same public key", "ourselves"])


def test_every_refusal_code_has_words_in_every_language() -> None:
    assert set(REFUSAL_WORDS) == set(RefuseWhy)
    for why in RefuseWhy:
        said_everywhere(lambda why=why: refusal_words(why), [])


async def test_our_listener_reports_a_broken_handshake_by_code() -> None:
    failures: list[ProtocolError | None] = []
    seen = asyncio.Event()

    def on_failure(exc: ProtocolError | None) -> None:
        failures.append(exc)
        seen.set()

    async def on_connection(_conn: object) -> None:
        raise AssertionError("no handshake can succeed here")

    listener = Listener(identity=Identity.generate(b"\2" * 32), offer=OFFER,
                        nonce_commit=COMMIT, on_connection=on_connection,  # type: ignore[arg-type]
                        on_failure=on_failure, limits=LIMITS)
    await listener.start("127.0.0.1", 0)
    try:
        _reader, writer = await asyncio.open_connection("127.0.0.1", listener.port)
        writer.write(b"\xff" * 16)  # a frame length far past the limit
        await writer.drain()
        await asyncio.wait_for(seen.wait(), 10)
        writer.close()
    finally:
        await listener.close()
    (exc,) = failures
    assert isinstance(exc, LinkError) and exc.failure is Failure.BAD_FRAME
    said_everywhere(lambda: handshake_failure(exc), [exc.message, "broke the protocol"])
    said_everywhere(lambda: handshake_failure(None), ["too many connections from"])


# --- formation ---------------------------------------------------------------------------


def test_a_forged_reveal_is_ignored_in_words() -> None:
    t = table(0)
    add(t, 0, 1)
    add(t, 0, 2)
    good = reveal_of(1, 0, 2)
    forged = replace(good, signature=ident(2).sign(good.signed_bytes()))
    with pytest.raises(FormationError) as caught:
        t.receive_reveal(ident(1).public, forged)
    assert caught.value.fault is FormationFault.BAD_SIGNATURE
    said = said_everywhere(lambda: formation_words(caught.value),
                           ["whose signature does not verify", "a Reveal of"])
    assert all("p1" in text for text in said.values())  # the peer's name, as it gave it


def test_a_nonce_that_does_not_open_is_said_in_words() -> None:
    t = table(0)
    add(t, 0, 1)
    add(t, 0, 2)
    lie = replace(reveal_of(1, 0, 2), nonce=bytes(32))
    lie = replace(lie, signature=ident(1).sign(lie.signed_bytes()))
    with pytest.raises(FormationError) as caught:
        t.receive_reveal(ident(1).public, lie)
    assert caught.value.fault is FormationFault.BAD_NONCE
    said_everywhere(lambda: formation_words(caught.value), [],
                    ["revealed a nonce that does"])


def test_a_restart_after_our_reveal_starts_over_in_words() -> None:
    t = table(0)
    add(t, 0, 1)
    assert add(t, 0, 2) is not None  # revealed
    with pytest.raises(StartOver) as caught:
        add(t, 0, 1, hello(1, commit=bytes([9]) * 32))
    assert caught.value.fault is FormationFault.NEW_COMMITMENT
    said_everywhere(lambda: formation_words(caught.value), [],
                    ["came back with a new commitment"])


def test_no_attempt_left_is_said_with_its_cause() -> None:
    t = TableFormation(ident(0).public, "p0", bytes(32), 3, MAX_ATTEMPT, ident(0).sign)
    add(t, 0, 1, hello(1, attempt=MAX_ATTEMPT))
    assert add(t, 0, 2, hello(2, attempt=MAX_ATTEMPT)) is not None
    with pytest.raises(FormationError) as caught:
        add(t, 0, 1, hello(1, commit=bytes([9]) * 32, attempt=MAX_ATTEMPT))
    exc = caught.value
    assert exc.fault is FormationFault.NO_ATTEMPT_LEFT
    assert exc.cause is FormationFault.NEW_COMMITMENT
    said = said_everywhere(lambda: formation_words(exc), [], ["no formation attempt is left",
                                                              "came back with"])
    assert "p1" in said["nl"]
    # The shell's own words (already translated) carry through.
    with pytest.raises(FormationError) as ours:
        t.next_attempt("WORDS OF THE SHELL")
    assert formation_words(ours.value).startswith("WORDS OF THE SHELL, ")


def test_every_formation_fault_has_words() -> None:
    assert set(FAULT_WORDS) == set(FormationFault) - {FormationFault.NO_ATTEMPT_LEFT}
    for fault in FAULT_WORDS:
        exc = FormationError("English detail", fault, hello(1))
        said = said_everywhere(lambda exc=exc: formation_words(exc), ["English detail"])
        assert all("p1" in text for text in said.values())


# --- a message the session runner did not take --------------------------------------------


def test_a_rejected_message_is_said_by_its_code() -> None:
    coded = ProtocolError("event 7 names the wrong previous hash",
                          ViolationCode.CHAIN_WRONG_PREV)
    said = said_everywhere(lambda: rejection_words(coded), ["wrong previous hash"])
    assert all("chain.wrong-prev" in text for text in said.values())
    caught = Cheating(1, "a proof that does not verify", code=ViolationCode.CHAIN_BAD_SIGNATURE)
    said_everywhere(lambda: rejection_words(caught), ["does not verify", "cheated"])
    said_everywhere(lambda: rejection_words(ProtocolError("raw English")), ["raw English"])
    said_everywhere(lambda: rejection_words(IllegalMove("not your turn")), ["not your turn"])


# --- a file that is not a session log ------------------------------------------------------


@pytest.mark.parametrize(("content", "fault"), [
    (None, LogFault.NOT_A_FILE),
    (b"hello, world\n", LogFault.NOT_A_LOG),
    (MAGIC + struct.pack(">I", 9), LogFault.BAD_VERSION),
    (HEADER + b"\xff" * 8 + b"more data", LogFault.CORRUPT),
])
def test_an_unreadable_log_is_said_by_its_fault(tmp_path: Path, content: bytes | None,
                                                  fault: LogFault) -> None:
    path = tmp_path / "session.log"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    report = verify_file(path)
    assert not report.readable and report.log_fault is fault
    assert str(path) in report.error  # English, with the path: for --json and the logs
    # The English words of a fault ("not a regular file") are for translations to lose.
    said_everywhere(lambda: text_report(report), [report.error, "is corrupt", "format version 9"],
                    ["not a regular file", "gleek-p2p log file"])
    i18n.set_language("fr", {})
    assert _(LOG_FAULT_WORDS[fault]) in text_report(report)
    assert json_report(report)["error"] == report.error  # machine output: never translated


def test_a_seat_caught_cheating_is_named_with_its_code_on_this_screen() -> None:
    from gleek_p2p.session.abort_words import code_words

    caught = Cheating(1, "the shuffle proof of pass 2 does not verify",
                      code=ViolationCode.CHAIN_BAD_SIGNATURE)
    # The runner's note and the abort's words, from the code the abort carries.
    said = said_everywhere(lambda: code_words(caught.code.value, caught.seat,  # type: ignore[return-value]
                                              ("ann", "ben", "cat")),
                           ["shuffle proof", "does not verify", "seat 1"])
    assert all(text.startswith("ben ") and "chain.bad-signature" in text
               for text in said.values())
