"""A seated peer's "decode bomb": an event's cost is bounded by its kind's schema (issue 20.6).

``decode_envelope(data, KIND_BOUNDS)`` reads the kind from the first bytes
and refuses an envelope larger than the kind's bound before decoding its
body or checking its signature; values and nesting are bounded while
decoding. Every event the schema allows fits; a played session still
finishes while a seat pours bombs into it.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.cli.commands import read_log
from gleek_p2p.log import canonical
from gleek_p2p.log.envelope import (
    SIGNED_DOMAIN,
    decode_envelope,
    sign_envelope,
    signed_bytes,
    verify_envelope,
)
from gleek_p2p.log.keys import Identity
from gleek_p2p.log.store import LogStore
from gleek_p2p.net.messages import Event
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.peer import BotPlayer, MemoryMesh, SessionRunner
from gleek_p2p.table import events as ev
from gleek_p2p.table.schema import KIND_BOUNDS, events_schema
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import make_seats

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = events_schema()
ME = Identity.generate(b"m" * 32)
SID = b"s" * 32


def _largest(spec: dict[str, Any]) -> list[Any]:
    """Every largest value ``spec`` allows (one per option of a ``oneof``)."""
    if "ref" in spec:
        return _largest(SCHEMA["types"][spec["ref"]])
    kind = spec["type"]
    if kind == "int":
        return [max((spec["min"], spec["max"]), key=lambda v: len(canonical.encode(v)))]
    if kind == "const":
        return [spec["value"]]
    if kind == "bytes":
        return [b"\xff" * spec.get("size", spec.get("max", 0))]
    if kind == "str":
        return ["\U0001f0a1" * spec["max"]]  # 4 UTF-8 bytes a character
    if kind == "oneof":
        return [v for option in spec["options"] for v in _largest(option)]
    if kind == "tuple":
        out: list[list[Any]] = [[]]
        for item in spec["items"]:
            biggest = max(_largest(item), key=lambda v: len(canonical.encode(v)))
            out = [[*o, biggest] for o in out]
        return out
    if kind == "list":
        if not spec["max"]:
            return [[]]
        biggest = max(_largest(spec["items"]), key=lambda v: len(canonical.encode(v)))
        return [[biggest] * spec["max"]]
    raise AssertionError(kind)


def bomb(identity: Identity, session: bytes, seq: int, prev: bytes, seat: int, kind: str,
         zeros: int = 199_000) -> bytes:
    """A validly signed envelope whose body is ``zeros`` zeros, made at C speed
    (``sign_envelope`` checks its body value by value, as a victim used to)."""
    unsigned = msgpack.packb([1, session, seq, prev, seat, kind, [0] * zeros],
                             use_bin_type=True)
    signature = identity.sign(SIGNED_DOMAIN + unsigned)
    return b"\x98" + unsigned[1:] + msgpack.packb(signature, use_bin_type=True)


def _envelope(kind: str, body: list[Any], seq: int = canonical.INT_MAX) -> bytes:
    return sign_envelope(ME, SID, seq, b"p" * 32, 2, kind, body).encode()


@pytest.mark.parametrize("kind", sorted(SCHEMA["kinds"]))
def test_every_kind_bound_holds_the_largest_body_its_schema_allows(kind: str) -> None:
    bound = KIND_BOUNDS.of(kind)
    sizes = []
    for body in _largest(SCHEMA["kinds"][kind]["body"]):
        data = _envelope(kind, body)
        assert decode_envelope(data, KIND_BOUNDS).body == body
        sizes.append(len(data))
    # The bound is the schema's worst case, not a guess: tight to a byte or so
    # (the seat may take one byte less than the envelope allows).
    assert 0 <= bound.max_bytes - max(sizes) <= 1, (kind, bound, max(sizes))


LOGS = sorted((ROOT / "protocol" / "vectors" / "sessions").glob("*.gleeklog"))


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_every_recorded_event_fits_its_kinds_bound(path: Path) -> None:
    records, _ = read_log(path)
    for record in records:
        try:
            unbounded = decode_envelope(record)
        except ProtocolError:  # the vectors of broken logs: refused either way
            with pytest.raises(ProtocolError):
                decode_envelope(record, KIND_BOUNDS)
            continue
        assert decode_envelope(record, KIND_BOUNDS) == unbounded


def test_a_bomb_is_refused_from_its_first_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    data = bomb(ME, SID, 5, b"p" * 32, 1, ev.ACT)
    assert len(data) > 199_000 and decode_envelope(data).body == [0] * 199_000
    verify_envelope(decode_envelope(data), ME.public)  # a real, signed bomb

    def no_decode(*args: object, **kwargs: object) -> object:
        raise AssertionError("the body was decoded")

    monkeypatch.setattr(canonical, "decode", no_decode)
    with pytest.raises(ProtocolError, match=r"'act' event is \d+ bytes, more than the 1886"):
        decode_envelope(data, KIND_BOUNDS)


def test_too_many_values_or_too_deep_a_body_are_refused_within_the_bytes() -> None:
    # An abort may be large (its evidence), but holds few values and little nesting.
    values = KIND_BOUNDS.of(ev.ABORT).max_values
    many = _envelope(ev.ABORT, [-1, "x", [0] * 5000])
    assert len(many) <= KIND_BOUNDS.of(ev.ABORT).max_bytes
    with pytest.raises(ProtocolError, match=rf"exceeds max_array_len\({values}\)"):
        decode_envelope(many, KIND_BOUNDS)
    spread = _envelope(ev.ABORT, [[0] * (values - 6)] * 3)  # no list too long, not too deep
    with pytest.raises(ProtocolError, match=f"more than {values} items"):
        decode_envelope(spread, KIND_BOUNDS)
    deep: list[Any] = [0]
    for _ in range(10):
        deep = [deep]
    with pytest.raises(ProtocolError, match="nested deeper"):
        decode_envelope(_envelope(ev.ABORT, [-1, "x", deep]), KIND_BOUNDS)


def test_an_undeclared_kind_gets_the_loosest_bound_and_reaches_the_table() -> None:
    # Refused later by the table, with blame (turn.unknown-kind): not here.
    small = _envelope("no-such-kind", [b"x" * 1000])
    assert decode_envelope(small, KIND_BOUNDS).kind == "no-such-kind"
    with pytest.raises(ProtocolError, match=r"exceeds max_array_len\(244\)"):
        decode_envelope(bomb(ME, SID, 5, b"p" * 32, 1, "no-such-kind"), KIND_BOUNDS)
    with pytest.raises(ProtocolError, match="'no-such-kind' event is"):
        decode_envelope(_envelope("no-such-kind", [b"x" * 600_000]), KIND_BOUNDS)


def test_a_kind_that_is_not_a_string_or_a_cut_header_is_refused() -> None:
    good = _envelope(ev.ACT, [["pass_bid", 1], []], seq=3)
    for bad in (b"", b"\x98", good[:40], b"\x93\x01\x02\x03", b"\x81\x01\x02",
                canonical.encode([1, SID, 3, b"p" * 32, 2, 7, [], b"s" * 64])):
        with pytest.raises(ProtocolError):
            decode_envelope(bad, KIND_BOUNDS)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_bound_never_accepts_what_the_plain_decoder_refuses(data: st.DataObject) -> None:
    """Mangled envelopes: the bounded decoder refuses cleanly or agrees exactly."""
    kind = data.draw(st.sampled_from([ev.ACT, ev.ABORT, ev.SHUFFLE, "x"]))
    body = data.draw(st.lists(st.one_of(st.integers(-300, 300), st.binary(max_size=40)),
                              max_size=30))
    raw = bytearray(_envelope(kind, body, seq=data.draw(st.integers(1, 2**40))))
    for _ in range(data.draw(st.integers(0, 3))):
        at = data.draw(st.integers(0, len(raw) - 1))
        action = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        if action == "flip":
            raw[at] ^= data.draw(st.integers(1, 255))
        elif action == "cut":
            del raw[at:]
            if not raw:
                break
        else:
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=4))
    mangled = bytes(raw)
    try:
        bounded = decode_envelope(mangled, KIND_BOUNDS)
    except ProtocolError:
        return
    assert bounded == decode_envelope(mangled)
    assert len(mangled) <= KIND_BOUNDS.of(bounded.kind).max_bytes


def test_a_decoded_envelope_is_encoded_and_verified_from_its_bytes() -> None:
    data = _envelope(ev.ACT, [["pass_bid", 1], []], seq=3)
    env = decode_envelope(data, KIND_BOUNDS)
    assert env.encode() is data
    by_hand = dataclasses.replace(env)
    assert by_hand.encoded is None and by_hand.encode() == data
    assert signed_bytes(env) == signed_bytes(by_hand)
    verify_envelope(env, ME.public)
    # A changed copy is re-encoded, never verified from the old bytes.
    forged = dataclasses.replace(env, body=[["pass_bid", 2], []])
    with pytest.raises(ProtocolError, match="invalid"):
        verify_envelope(forged, ME.public)


# -- a seated peer pours bombs into a session ---------------------------------------


async def test_a_session_finishes_while_a_seat_sends_bombs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 1 signs 199 KB events for the victim's next position, ahead of it and
    for another kind; each is dropped at its first bytes, the game goes on."""
    largest = [0]
    check = canonical._check_value

    def counting(value: object, max_depth: int, max_items: int) -> None:
        if isinstance(value, list):
            largest[0] = max(largest[0], len(value),
                             *(len(v) for v in value if isinstance(v, list)))
        check(value, max_depth, max_items)

    monkeypatch.setattr(canonical, "_check_value", counting)
    tables = make_seats(VARIANTS["standard"], 1, b"bombs")
    meshes = MemoryMesh.create(3)
    stores = [LogStore.open(tmp_path / f"seat{s}.gleeklog") for s in range(3)]
    run = [SessionRunner(t, st_, m, BotPlayer(RandomStrategy(s)), timeout=30)
           for s, (t, st_, m) in enumerate(zip(tables, stores, meshes, strict=True))]
    tasks = [asyncio.create_task(r.run()) for r in run]
    bomber = tables[1]._identity
    assert bomber is not None
    sent = 0
    victim = run[0].table
    while not all(t.done() for t in tasks):
        head = len(victim.envelopes)
        for seq, kind in ((head, ev.ACT), (head + 3, ev.KEYS), (head, ev.SEED)):
            data = bomb(bomber, victim.session_id, seq, victim.head, 1, kind)
            for seat in (0, 2):
                meshes[seat]._queue.put_nowait((1, Event(data)))
            sent += 1
        await asyncio.sleep(0.02)
    outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 120)
    assert sent > 10
    assert all(o.finished and not o.aborted for o in outcomes), [o.reason for o in outcomes]
    assert stores[0].records == stores[1].records == stores[2].records
    assert verify_records(stores[0].records).fair
    for seat in (0, 2):  # every bomb was dropped, but those still queued at the end
        assert run[seat].dropped["rejected"] + meshes[seat]._queue.qsize() >= sent
    # No bomb's body was ever decoded (the largest list checked is an honest one).
    assert largest[0] < 1000


def test_the_documented_bounds_are_the_schemas() -> None:
    text = (ROOT / "protocol" / "encoding.md").read_text()
    rows = {}
    for line in text.split("### Bounds by kind", 1)[1].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[1].replace(" ", "").isdigit():
            numbers = tuple(int(c.replace(" ", "")) for c in cells[1:])
            for kind in cells[0].split(", "):
                rows[kind] = numbers
    expected = {kind: (b.max_bytes, b.max_values, b.max_depth)
                for kind, b in KIND_BOUNDS.kinds.items()}
    other = KIND_BOUNDS.other
    expected["(any other kind)"] = (other.max_bytes, other.max_values, other.max_depth)
    assert rows == expected


async def test_a_seated_lobby_drops_bombs_before_decoding_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from gleek_p2p.net.connection import connect
    from gleek_p2p.net.formation import nonce_commitment
    from gleek_p2p.net.handshake import WIRE_VERSION, Offer
    from gleek_p2p.session.lobby import Lobby, LobbyConfig
    from gleek_p2p.session.peer import CheckedEvent, LinkUp
    from gleek_p2p.table.roster import Roster

    standard = VARIANTS["standard"]
    me, bob, carol = (Identity.generate(bytes([n]) * 32) for n in (4, 5, 6))
    roster = Roster(standard, 1, (me.public, bob.public, carol.public),
                    ("me", "bob", "carol"), b"n" * 32)
    bombs = [bomb(bob, roster.session_id, seq, b"p" * 32, 1, kind)
             for seq, kind in ((3, ev.ACT), (4, ev.SHUFFLE), (5, "no-such-kind"))]
    good = sign_envelope(bob, roster.session_id, 3, b"p" * 32, 1, ev.ACT, [1]).encode()
    largest = [0]
    check = canonical._check_value

    def counting(value: object, max_depth: int, max_items: int) -> None:
        if isinstance(value, list):
            largest[0] = max(largest[0], len(value))
        check(value, max_depth, max_items)

    monkeypatch.setattr(canonical, "_check_value", counting)
    lobby = Lobby(me, LobbyConfig(name="me", table="bombs", variant=standard,
                                  listen=("127.0.0.1", 0)), roster=roster)
    await lobby.start()
    try:
        conn = await connect("127.0.0.1", lobby.port, identity=bob,
                             offer=Offer(WIRE_VERSION, "bombs", tuple(standard.to_wire()),
                                         3, "bob", 0),
                             nonce_commit=nonce_commitment(b"b" * 32))
        for _ in range(10):
            for data in bombs:
                conn.send(Event(data))
        conn.send(Event(good))
        got = []
        async with asyncio.timeout(10):
            while len(got) < 2:
                got.append((await lobby.queue.get())[1])
        assert isinstance(got[0], LinkUp) and isinstance(got[1], CheckedEvent)
        assert got[1].data == good and lobby.queue.qsize() == 0
        assert not conn.closed  # dropped, not a reason to hang up on a seat
        await conn.close()
    finally:
        await lobby.close()
    assert largest[0] < 100


async def test_a_seat_that_sends_only_a_bomb_for_its_move_is_blamed_for_its_silence(
        tmp_path: Path) -> None:
    """The bomb is dropped unread (it proves nothing); the seat then owes its move,
    and the timeout blames it, as for any seat that does not move."""
    from adversary.peer import play_cheater
    from adversary.scenarios import CHEATER

    from gleek_p2p.rules import Phase

    def bomb_for_a_bid(table: Any, honest: Any, index: int) -> Any:
        state = table.state
        if honest is not None or state is None or state.phase is not Phase.AUCTION:
            return None
        identity = table._identity
        data = bomb(identity, table.session_id, len(table.envelopes), table.head, CHEATER,
                    ev.ACT)
        return decode_envelope(data)

    runners_, cheated = await play_cheater(tmp_path, "bomb", bomb_for_a_bid, b"bomb-bid",
                                           CHEATER, timeout_after_cheat=1.0)
    assert cheated
    honest = [r for r in runners_ if r.table.seat != CHEATER]
    for runner in honest:
        verdict = runner.table.verdict
        assert verdict is not None and verdict.blamed == CHEATER
        assert "did not send" in verdict.reason
        assert runner.dropped["rejected"] >= 1
    a, b = (r.store.records for r in honest)
    assert a[:-1] == b[:-1] or a == b
    assert all(len(r) < 10_000 for r in a)  # the bomb is in no honest log
