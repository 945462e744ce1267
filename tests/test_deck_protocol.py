"""Honest runs of the deck protocol: who sees what, the talon, shows, the audit."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prepared import once

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.deck import DeckProtocol, Keys, audit_transcript
from gleek_p2p.deck.harness import LocalHand, deal_layout, talon_slots

PACK = list(range(44))
PACK_TWO = [c for c in range(44) if c % 11 < 9]


def seeds(n: int, tag: str = "") -> list[bytes]:
    return [hashlib.sha256(f"seed {tag} {s}".encode()).digest() for s in range(n)]


def deal_hand(n: int = 3, cards: list[int] = PACK, order: list[int] | None = None) -> LocalHand:
    hand = LocalHand.new(seeds(n), cards, b"session/1", order)
    hand.run_setup()
    hand.deal(deal_layout(n, len(cards)))
    return hand


dealt_hand = once(deal_hand)
"""``deal_hand`` built once per arguments; each test gets its own copy."""


@pytest.mark.parametrize(
    ("version", "last_locks"),
    [(1, []), (2, [("lock", 0)])],
    ids=["v1-five-hops", "v2-six-hops"],
)
def test_setup_steps_for_three_seats_in_the_given_order(
    version: int, last_locks: list[tuple[str, int]]
) -> None:
    # v1: the last shuffler locks inside its shuffle; v2: every seat locks, with a proof.
    hand = LocalHand.new(seeds(3), PACK, b"h", [1, 2, 0], version=version)
    steps = hand.run_until(None)
    assert steps == [
        ("commit", 1), ("commit", 2), ("commit", 0),
        ("shuffle", 1), ("shuffle", 2), ("shuffle", 0),
        ("lock", 1), ("lock", 2), *last_locks,
    ]  # fmt: skip
    assert all(obj.setup_done for obj in hand.everyone)
    assert hand.observer.version == version
    assert len({obj.final_deck for obj in hand.everyone}) == 1


def test_each_seat_sees_exactly_its_twelve_cards() -> None:
    hand = dealt_hand()
    layout = deal_layout(3, 44)
    for s, obj in enumerate(hand.seats):
        assert sorted(obj.visible_cards()) == layout[s]
        assert all(obj.card_at(slot) is None for slot in range(44) if slot not in layout[s])
    assert hand.observer.visible_cards() == {}
    dealt = [c for obj in hand.seats for c in obj.visible_cards().values()]
    assert len(set(dealt)) == 36 and set(dealt) <= set(PACK)


def test_the_deal_is_a_permutation_of_the_pack_and_the_audit_agrees() -> None:
    hand = dealt_hand()
    hand.give(talon_slots(3, 44), 2)
    hand.reveal_seeds()
    audits = hand.audit()
    assert all(a == audits[0] for a in audits)
    assert sorted(audits[0]) == list(range(44))
    assert sorted(audits[0].values()) == PACK
    for obj in hand.seats:
        for slot, card in obj.visible_cards().items():
            assert audits[0][slot] == card


def test_the_talon_opens_only_to_its_taker() -> None:
    hand = dealt_hand()
    talon = talon_slots(3, 44)
    assert len(talon) == 8
    assert all(obj.card_at(t) is None for obj in hand.everyone for t in talon)
    hand.give(talon, 0)
    assert all(hand.seats[0].card_at(t) is not None for t in talon)
    assert all(obj.card_at(t) is None for obj in hand.everyone[1:] for t in talon)
    assert len(hand.seats[0].visible_cards()) == 20


def test_a_show_opens_the_card_to_everyone() -> None:
    hand = dealt_hand()
    card = hand.seats[1].card_at(14)
    hand.show(1, [14])
    assert all(obj.card_at(14) == card for obj in hand.everyone)
    assert hand.observer.public_cards() == {14: card}
    # The rest of seat 1's hand stays hidden.
    assert all(hand.seats[0].card_at(s) is None for s in range(12, 24) if s != 14)


def test_gleek_for_two_deals_a_36_card_pack() -> None:
    hand = dealt_hand(2, PACK_TWO, [1, 0])
    for s, obj in enumerate(hand.seats):
        assert sorted(obj.visible_cards()) == deal_layout(2, 36)[s]
    hand.give(talon_slots(2, 36), 1)
    hand.reveal_seeds()
    deal = hand.observer.audit()
    assert sorted(deal.values()) == PACK_TWO


def test_audit_transcript_replays_the_log_as_an_observer() -> None:
    hand = dealt_hand()
    hand.show(2, [30])
    hand.reveal_seeds()
    wire = [m.to_wire() for m in hand.log]
    assert audit_transcript(3, PACK, b"session/1", [0, 1, 2], wire) == hand.audit()[0]


def test_same_seeds_same_messages_other_hand_other_messages() -> None:
    a = dealt_hand()
    b = deal_hand()  # built again, not copied
    assert [m.to_wire() for m in a.log] == [m.to_wire() for m in b.log]
    c = LocalHand.new(seeds(3), PACK, b"session/2")
    c.run_setup()
    assert c.log[0] != a.log[0]
    assert c.observer.final_deck != a.observer.final_deck


def test_two_colluding_seats_cannot_open_the_third_seats_cards() -> None:
    hand = dealt_hand()
    hand.give(talon_slots(3, 44), 1)
    # Seats 1 and 2 pool everything: both seeds, so every key, shuffle key and
    # permutation of theirs, plus every public message.
    s = seeds(3)
    suite = hand.observer._suite
    k1 = suite.lock_keys(s[1], b"session/1", 1, 44)
    k2 = suite.lock_keys(s[2], b"session/1", 2, 44)
    unlock = suite.unlock
    cards = set(suite.card_points)
    final = hand.observer.final_deck
    for slot in range(12):
        assert hand.seats[1].card_at(slot) is None
        assert hand.seats[2].card_at(slot) is None
        # Strip both colluders' per-card keys: seat 0's key still locks it.
        assert unlock(final[slot], [k1[slot], k2[slot]]) not in cards
    # Nor does any single key of theirs from another slot (keys are per card).
    stripped = {unlock(final[slot], [k1[slot], k2[slot]]) for slot in range(12)}
    assert len(stripped) == 12 and stripped.isdisjoint(cards)
    assert sorted(hand.seats[0].visible_cards()) == list(range(12))


def test_own_moves_only_in_turn() -> None:
    hand = LocalHand.new(seeds(3), PACK, b"h")
    with pytest.raises(ProtocolError):
        hand.seats[1].make_commit()
    with pytest.raises(ProtocolError):
        hand.seats[0].make_shuffle()
    with pytest.raises(ProtocolError):
        hand.seats[0].make_keys([0])
    with pytest.raises(ProtocolError):
        hand.seats[0].make_seed_reveal()
    with pytest.raises(ProtocolError):
        hand.observer.make_commit()
    hand.run_setup()
    with pytest.raises(ProtocolError):
        hand.seats[0].make_lock()
    hand.broadcast(hand.seats[0].make_keys([20]))
    with pytest.raises(ProtocolError, match="already published"):
        hand.seats[0].make_keys([20])
    with pytest.raises(ProtocolError):
        hand.seats[0].make_keys([3, 3])
    with pytest.raises(ProtocolError):
        hand.seats[0].make_keys([44])


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((0, 1, PACK, b"h", [0], bytes(32)), "two seats"),
        ((0, 3, PACK, b"h", [0, 1, 1], bytes(32)), "order"),
        ((0, 3, [1, 1], b"h", [0, 1, 2], bytes(32)), "distinct"),
        ((0, 3, [44], b"h", [0, 1, 2], bytes(32)), "card id"),
        ((0, 3, PACK, b"", [0, 1, 2], bytes(32)), "hand id"),
        ((0, 3, PACK, b"h", [0, 1, 2], None), "seed"),
        ((None, 3, PACK, b"h", [0, 1, 2], bytes(32)), "seed"),
        ((3, 3, PACK, b"h", [0, 1, 2], bytes(32)), "no seat"),
        ((0, 3, PACK, b"h", [0, 1, 2], bytes(31)), "32 bytes"),
    ],
)
def test_bad_construction_is_refused(args: tuple, match: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ProtocolError, match=match):
        DeckProtocol(*args)


@settings(max_examples=8, deadline=None)
@given(
    st.permutations([0, 1, 2]),
    st.binary(min_size=1, max_size=16),
    st.lists(st.binary(min_size=32, max_size=32), min_size=3, max_size=3, unique=True),
    st.integers(0, 2),
)
def test_any_seeds_any_order_give_a_consistent_deal(
    order: list[int], hand_id: bytes, seed_list: list[bytes], taker: int
) -> None:
    hand = LocalHand.new(seed_list, PACK, hand_id, order)
    hand.run_setup()
    hand.deal(deal_layout(3, 44))
    hand.give(talon_slots(3, 44), taker)
    hand.reveal_seeds()
    deal = hand.observer.audit()
    assert sorted(deal.values()) == PACK
    seen = {slot: card for obj in hand.seats for slot, card in obj.visible_cards().items()}
    assert len(seen) == 44 and all(deal[s] == c for s, c in seen.items())


def test_keys_message_for_zero_slots_is_harmless() -> None:
    hand = dealt_hand()
    before = hand.observer.visible_cards()
    hand.broadcast(Keys(0, ()))
    assert hand.observer.visible_cards() == before
