"""The handshake: in memory (sans-IO) and over real TCP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import hashlib
import re
from dataclasses import replace

import pytest

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Connection, ConnectionClosed, Limits, Listener, connect, listen
from gleek_p2p.net.framing import encode_frame, read_frame
from gleek_p2p.net.handshake import Handshake, Offer, State, transcript, transcript_hash
from gleek_p2p.net.messages import (
    Hello,
    Message,
    Proof,
    Refuse,
    RefuseCode,
    Sync,
    decode_message,
    encode_message,
)

OFFER = Offer(version=1, table="oak", variant=(1,), seats=3, name="Alice", listen_port=0)
COMMIT = hashlib.sha256(b"nonce").digest()
# The neutral element of Ed25519: a small-order point.
SMALL_ORDER = bytes([1]) + bytes(31)


def ident(n: int) -> Identity:
    return Identity.generate(bytes([n]) * 32)


def challenge(n: int) -> bytes:
    return bytes([n]) * 32


def pump(a: Handshake, b: Handshake) -> None:
    """Deliver messages both ways until neither has anything to say."""
    to_b: list[Message] = a.initial()
    to_a: list[Message] = b.initial()
    while to_a or to_b:
        next_a: list[Message] = []
        next_b: list[Message] = []
        for m in to_b:
            if b.state not in (State.DONE, State.FAILED):
                next_a += b.receive(m)
        for m in to_a:
            if a.state not in (State.DONE, State.FAILED):
                next_b += a.receive(m)
        to_a, to_b = next_a, next_b


def pair(
    offer_a: Offer = OFFER, offer_b: Offer = OFFER, ia: int = 1, ib: int = 2
) -> tuple[Handshake, Handshake]:
    a = Handshake(ident(ia), offer_a, COMMIT, challenge(10 + ia))
    b = Handshake(ident(ib), replace(offer_b, name="Bob"), COMMIT, challenge(10 + ib))
    return a, b


def test_good_handshake() -> None:
    a, b = pair()
    pump(a, b)
    assert a.done and b.done
    assert a.peer is not None and a.peer.public == ident(2).public
    assert b.peer is not None and b.peer.name == "Alice"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"version": 2}, "protocol version 2, this peer speaks 1"),
        ({"table": "elm"}, "table 'elm', this peer is at table 'oak'"),
        ({"variant": (1, 2)}, r"variant \[1, 2\], this table plays \[1\]"),
        ({"seats": 4}, "4 seats, this table has 3"),
    ],
)
def test_mismatched_offer_refused(change: dict[str, object], reason: str) -> None:
    a, b = pair(offer_b=replace(OFFER, **change))  # type: ignore[arg-type]
    pump(a, b)
    assert a.failed and b.failed
    assert a.error is not None and b.error is not None
    # Both sides refuse; each learns why in a sentence.
    assert "refused" in a.error and "refused" in b.error
    assert any(re.search(reason, e) for e in (a.error, b.error))


def test_self_connection_refused() -> None:
    a, b = pair(ia=1, ib=1)
    pump(a, b)
    assert a.failed and a.error is not None and "ourselves" in a.error


def test_small_order_key_refused() -> None:
    b = Handshake(ident(2), OFFER, COMMIT, challenge(2))
    bad = OFFER.hello(SMALL_ORDER, COMMIT, challenge(9))
    out = b.receive(bad)
    assert b.failed
    assert len(out) == 1 and isinstance(out[0], Refuse)
    assert "public key is unsafe" in out[0].reason


def test_forged_proof_refused() -> None:
    # Mallory claims Alice's key but can only sign with her own.
    alice, mallory = ident(1), ident(7)
    b = Handshake(ident(2), OFFER, COMMIT, challenge(2))
    fake_hello = OFFER.hello(alice.public, COMMIT, challenge(9))
    [proof] = b.receive(fake_hello)
    assert isinstance(proof, Proof)
    assert b.h is not None
    out = b.receive(Proof(mallory.sign(transcript(b.h))))
    assert b.failed and b.peer is not None
    assert isinstance(out[0], Refuse) and "does not verify" in out[0].reason


def test_replayed_proof_refused() -> None:
    # A recorded Alice-Bob handshake is replayed to Bob on a new connection:
    # Bob's fresh challenge changes the transcript, so the old proof fails.
    a, b = pair()
    recorded_hello, recorded_proof = a.initial()[0], None
    out = a.receive(b.initial()[0])
    recorded_proof = out[0]
    b2 = Handshake(ident(2), replace(OFFER, name="Bob"), COMMIT, challenge(99))
    b2.receive(recorded_hello)
    out = b2.receive(recorded_proof)
    assert b2.failed and isinstance(out[0], Refuse)
    # Same bytes, fresh challenge: only the challenge differs, and it is enough.
    b3 = Handshake(ident(2), replace(OFFER, name="Bob"), COMMIT, challenge(12))
    b3.receive(recorded_hello)
    b3.receive(recorded_proof)
    assert b3.done  # sanity: with Bob's original challenge the proof is valid


def test_proof_before_hello_refused() -> None:
    b = Handshake(ident(2), OFFER, COMMIT, challenge(2))
    out = b.receive(Proof(bytes(64)))
    assert b.failed and isinstance(out[0], Refuse) and "expected Hello" in out[0].reason


def test_peer_refusal_is_reported() -> None:
    b = Handshake(ident(2), OFFER, COMMIT, challenge(2))
    assert b.receive(Refuse("table full")) == []
    assert b.failed and b.refused_by_peer
    assert b.error == "the peer refused the connection: table full"


def test_admit_refusal() -> None:
    a = Handshake(ident(1), OFFER, COMMIT, challenge(1))
    b = Handshake(ident(2), OFFER, COMMIT, challenge(2), admit=lambda h: "table full")
    pump(a, b)
    assert b.failed and b.error == "refused the peer: table full"
    assert a.failed and a.error == "the peer refused the connection: table full"


def test_a_typed_refusal_reaches_the_peer_with_its_code() -> None:
    full = Refuse("table full: the table has formed", RefuseCode.TABLE_FULL)
    a = Handshake(ident(1), OFFER, COMMIT, challenge(1))
    b = Handshake(ident(2), OFFER, COMMIT, challenge(2), admit=lambda h: full)
    pump(a, b)
    assert b.failed and not b.refused_by_peer and b.refusal is not None
    assert replace(b.refusal, signature=b"") == full  # what admit said, now signed
    assert a.failed and a.refused_by_peer and a.refusal == b.refusal
    assert a.refusal.meaning is RefuseCode.TABLE_FULL
    # Signed over this handshake by the key of b's Hello: a believes who refused it.
    assert a.refusal_proven
    # Whom b refused, for the lobby to mention once (its key is not proven).
    assert b.peer is not None and b.peer.public == ident(1).public


def _refused_by(message: Refuse, hello_first: bool = True) -> Handshake:
    """a, having heard b's Hello (or not), then ``message`` in its place."""
    a = Handshake(ident(1), OFFER, COMMIT, challenge(1))
    b = Handshake(ident(2), OFFER, COMMIT, challenge(2))
    if hello_first:
        a.receive(b.initial()[0])
    a.receive(message)
    assert a.failed and a.refused_by_peer
    return a


def test_a_refusal_is_proven_only_when_signed_over_this_handshake_by_the_refuser() -> None:
    full = Refuse("table full", RefuseCode.TABLE_FULL)
    b_key, a_hello = ident(2), Handshake(ident(1), OFFER, COMMIT, challenge(1)).hello
    b_hello = Handshake(ident(2), OFFER, COMMIT, challenge(2)).hello
    h = transcript_hash(a_hello, b_hello)
    good = replace(full, signature=b_key.sign(full.signed_bytes(h)))
    assert _refused_by(good).refusal_proven
    # Plain, as anyone may send it; before the refuser's Hello; by another key;
    # over another handshake; or with a field changed after signing.
    other_h = transcript_hash(a_hello, replace(b_hello, challenge=bytes([9]) * 32))
    for forged, hello_first in [
        (full, True),
        (good, False),
        (replace(full, signature=ident(3).sign(full.signed_bytes(h))), True),
        (replace(full, signature=b_key.sign(full.signed_bytes(other_h))), True),
        (replace(good, code=RefuseCode.NONE), True),
        (replace(good, seated=tuple(sorted((ident(2).public, ident(3).public))),
                 hosts=("", ""), ports=(0, 0)), True),
    ]:
        assert not _refused_by(forged, hello_first).refusal_proven, forged


def test_receive_after_end_raises_and_keeps_state() -> None:
    a, b = pair()
    pump(a, b)
    with pytest.raises(ProtocolError):
        a.receive(Sync(0))
    assert a.done


# -- over TCP ------------------------------------------------------------------

LIMITS = Limits(handshake_timeout=2.0, read_timeout=2.0, write_timeout=2.0, ping_interval=None)


async def start_listener(
    identity: Identity, offer: Offer, errors: list[str]
) -> tuple[Listener, asyncio.Queue[Connection]]:
    accepted: asyncio.Queue[Connection] = asyncio.Queue()

    async def on_connection(conn: Connection) -> None:
        await accepted.put(conn)

    listener = await listen(
        "127.0.0.1",
        0,
        identity=identity,
        offer=offer,
        nonce_commit=COMMIT,
        on_connection=on_connection,
        on_error=errors.append,
        limits=LIMITS,
    )
    return listener, accepted


async def test_tcp_good_handshake() -> None:
    errors: list[str] = []
    listener, accepted = await start_listener(ident(2), replace(OFFER, name="Bob"), errors)
    try:
        conn = await connect(
            "127.0.0.1",
            listener.port,
            identity=ident(1),
            offer=OFFER,
            nonce_commit=COMMIT,
            limits=LIMITS,
        )
        other = await asyncio.wait_for(accepted.get(), 2)
        assert conn.peer.name == "Bob" and conn.dialled
        assert other.peer.public == ident(1).public and not other.dialled
        conn.send(Sync(7))
        assert await other.recv() == Sync(7)
        await conn.close("done")
        with pytest.raises(ConnectionClosed, match="the peer left: done"):
            await other.recv()
    finally:
        await listener.close()
    assert errors == []


@pytest.mark.parametrize(
    ("change", "words"),
    [({"version": 9}, "protocol version"), ({"table": "elm"}, "table 'elm'")],
)
async def test_tcp_mismatch_refused_both_sides(change: dict[str, object], words: str) -> None:
    errors: list[str] = []
    listener, accepted = await start_listener(ident(2), OFFER, errors)
    try:
        with pytest.raises(ProtocolError, match=words):
            await connect(
                "127.0.0.1",
                listener.port,
                identity=ident(1),
                offer=replace(OFFER, **change),  # type: ignore[arg-type]
                nonce_commit=COMMIT,
                limits=LIMITS,
            )
        for _ in range(100):
            if errors:
                break
            await asyncio.sleep(0.01)
        assert errors and "refused" in errors[0]
        assert accepted.empty()
    finally:
        await listener.close()


async def test_tcp_replayed_handshake_refused() -> None:
    """A recorder replays Alice's Hello and Proof from an earlier connection."""
    errors: list[str] = []
    bob = ident(2)
    listener, accepted = await start_listener(bob, OFFER, errors)
    port = listener.port
    try:
        # First, a genuine session recorded byte for byte by the attacker.
        alice = Handshake(ident(1), OFFER, COMMIT, challenge(1))
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(encode_frame(encode_message(alice.hello)))
        bob_hello = decode_message(await read_frame(reader, 1 << 20, 2) or b"")
        assert isinstance(bob_hello, Hello)
        [proof] = alice.receive(bob_hello)
        writer.write(encode_frame(encode_message(proof)))
        await read_frame(reader, 1 << 20, 2)  # Bob's proof
        writer.close()
        genuine = await asyncio.wait_for(accepted.get(), 2)
        await genuine.close()

        # Then the replay on a new connection: Bob's new challenge defeats it.
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(encode_frame(encode_message(alice.hello)))
        writer.write(encode_frame(encode_message(proof)))
        frames = []
        while (payload := await read_frame(reader, 1 << 20, 2)) is not None:
            frames.append(decode_message(payload))
        writer.close()
        refusals = [m for m in frames if isinstance(m, Refuse)]
        assert refusals and "does not verify" in refusals[0].reason
        assert accepted.empty()
        assert any("does not verify" in e for e in errors)
    finally:
        await listener.close()


async def test_tcp_silent_peer_times_out() -> None:
    errors: list[str] = []
    listener, _ = await start_listener(ident(2), OFFER, errors)
    listener.limits = replace(LIMITS, handshake_timeout=0.2)
    try:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1",
            listener.port,
        )
        await read_frame(reader, 1 << 20, 2)  # the listener's Hello; we say nothing
        assert await read_frame(reader, 1 << 20, 2) is None  # it hangs up
        writer.close()
        assert any("did not finish within 0.2 s" in e for e in errors)
    finally:
        await listener.close()


async def test_connect_refused_port_is_a_clear_error() -> None:
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    with pytest.raises(ProtocolError, match=f"could not reach 127.0.0.1:{port}"):
        await connect(
            "127.0.0.1", port, identity=ident(1), offer=OFFER, nonce_commit=COMMIT, limits=LIMITS
        )
