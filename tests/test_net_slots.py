"""Handshake slots shared by blame (net/slots.py): no sockets, no clock."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from gleek_p2p.net.slots import HandshakeSlots

HONEST = "192.168.1.9"
FLOOD = [f"192.168.1.{100 + i}" for i in range(32)]


def test_an_address_over_its_share_loses_its_oldest() -> None:
    slots: HandshakeSlots[int] = HandshakeSlots(16, 2)
    assert slots.arrive(1, "a", 0) == [] and slots.arrive(2, "a", 0) == []
    dropped = slots.arrive(3, "a", 0)
    assert [t for t, _ in dropped] == [1] and "from a" in dropped[0][1]
    assert list(slots.held) == [2, 3]
    assert slots.blame("a", 0) == 1.0


def test_an_honest_peer_gets_a_slot_under_an_unpaced_burst_and_keeps_it() -> None:
    slots: HandshakeSlots[int] = HandshakeSlots(16, 4)
    tickets = itertools.count()
    now = 0.0
    # The burst: one connection per address, round and round, never finishing.
    for _ in range(200):
        for address in FLOOD:
            slots.arrive(next(tickets), address, now)
            now += 0.005
    assert len(slots) == 16
    mine = next(tickets)
    out = slots.arrive(mine, HONEST, now)
    assert mine not in [t for t, _ in out] and mine in slots.held
    # However many more come, the honest handshake is never the one to go.
    for _ in range(50):
        for address in FLOOD:
            out = slots.arrive(next(tickets), address, now)
            assert mine not in [t for t, _ in out]
            now += 0.005
    assert slots.held[mine] == HONEST
    slots.leave(mine, now, completed=True)
    assert slots.blame(HONEST, now) == 0.0


def test_a_newcomer_from_a_blamed_address_is_turned_away() -> None:
    slots: HandshakeSlots[str] = HandshakeSlots(2, 4)
    slots.arrive("bad-1", "bad", 0)
    slots.leave("bad-1", 0, completed=False)  # no Hello in time
    slots.arrive("h1", "h1", 0)
    slots.arrive("h2", "h2", 0)
    out = slots.arrive("bad-2", "bad", 0)
    assert [t for t, _ in out] == ["bad-2"] and "turned away" in out[0][1]
    assert set(slots.held) == {"h1", "h2"}
    # Among equals, the oldest goes (idle sockets cannot keep newcomers out).
    out = slots.arrive("h3", "h3", 0)
    assert [t for t, _ in out] == ["h1"]


def test_blame_fades_and_a_completed_handshake_halves_it() -> None:
    slots: HandshakeSlots[int] = HandshakeSlots(4, 4, half_life=10)
    for i in range(4):
        slots.arrive(i, "x", 0)
        slots.leave(i, 0, completed=False)
    assert slots.blame("x", 0) == 4.0
    assert abs(slots.blame("x", 10) - 2.0) < 1e-9
    slots.arrive(9, "x", 10)
    slots.leave(9, 10, completed=True)
    assert abs(slots.blame("x", 10) - 1.0) < 1e-9


def test_blame_is_kept_for_a_bounded_number_of_addresses() -> None:
    slots: HandshakeSlots[int] = HandshakeSlots(4, 4, memory=10)
    for i in range(1000):
        slots.arrive(i, f"10.0.{i // 250}.{i % 250}", 0)
        slots.leave(i, 0, completed=False)
    assert len(slots._blame) == 10


@given(st.lists(st.tuples(st.integers(0, 9), st.sampled_from(["arrive", "ok", "fail"]),
                          st.floats(0, 3)), max_size=300))
def test_slots_stay_within_their_bounds(ops: list[tuple[int, str, float]]) -> None:
    slots: HandshakeSlots[int] = HandshakeSlots(5, 2, memory=6)
    now = 0.0
    for ticket, (address, op, step) in enumerate(ops):
        now += step
        if op == "arrive":
            out = slots.arrive(ticket, f"a{address}", now)
            assert all(t not in slots.held for t, _ in out)
            assert (ticket in slots.held) == (ticket not in [t for t, _ in out])
        elif slots.held:
            first = next(iter(slots.held))
            slots.leave(first, now, completed=op == "ok")
            assert first not in slots.held
        counts = list(slots.held.values())
        assert len(slots) <= 5
        assert all(counts.count(a) <= 2 for a in counts)
        assert len(slots._blame) <= 6
