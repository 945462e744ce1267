"""A seat makes its next pass beside its check of the pass before (SPEC 2.8, pipelining).

The pass made ahead must be the pass made in turn, byte for byte; it must be
used only on the deck it was made on, once that deck is accepted; and a
forged pass before it must still be blamed, with nothing of this seat's sent.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest
from prepared import once

from gleek_p2p.base.errors import Cheating
from gleek_p2p.deck import LockPass, ShufflePass
from gleek_p2p.deck.group_v3 import Count, Point, mul
from gleek_p2p.deck.harness import LocalHand

PACK = list(range(44))
SEEDS = [hashlib.sha256(b"ahead seat %d" % s).digest() for s in range(3)]
ORDER = [1, 2, 0]


def _hand(version: int = 3) -> LocalHand:
    return LocalHand.new(SEEDS, PACK, b"ahead hand", ORDER, version=version)


@once
def _hand_at(target: tuple[str, int], version: int = 3) -> LocalHand:
    """The honest hand run until ``target`` is due (built once per run: each test gets
    its own copy, to make passes ahead on)."""
    hand = _hand(version)
    hand.run_until(target)
    return hand


def _made_in_turn(target: tuple[str, int], version: int = 3) -> ShufflePass | LockPass:
    hand = _hand_at(target, version)
    kind, seat = target
    made = hand.seats[seat].make_shuffle() if kind == "shuffle" else hand.seats[seat].make_lock()
    return made


def _make(hand: LocalHand, step: tuple[str, int]) -> ShufflePass | LockPass:
    kind, seat = step
    return hand.seats[seat].make_shuffle() if kind == "shuffle" else hand.seats[seat].make_lock()


# Order [1, 2, 0]: each seat's pass and the pass just before it.
@pytest.mark.parametrize(("before", "target"), [
    (("shuffle", 1), ("shuffle", 2)), (("shuffle", 2), ("shuffle", 0)),
    (("shuffle", 0), ("lock", 1)), (("lock", 2), ("lock", 0))])
def test_the_pass_made_ahead_is_the_pass_made_in_turn_and_costs_no_multiplication(
        before: tuple[str, int], target: tuple[str, int]) -> None:
    hand = _hand_at(before)
    previous = _make(hand, before)
    job = hand.seats[target[1]].precheck(previous)
    assert job is not None
    job()  # as the peer does: the check, and beside it this seat's next pass
    hand.broadcast(previous)
    Count.reset()
    made = _make(hand, target)
    assert Count.variable == 0 and Count.base == 0  # made in the job, taken now
    in_turn = _made_in_turn(target)
    assert made == in_turn and made.to_wire() == in_turn.to_wire()
    hand.broadcast(made)  # every seat and the observer accept it


def test_a_pass_made_on_a_forged_deck_is_never_sent_and_the_forger_is_blamed() -> None:
    hand = _hand_at(("lock", 1))  # seat 1 locks next, seat 2 right after it
    honest = hand.seats[1].make_lock()
    points = list(honest.points)
    points[0] = mul(777, Point.decode(points[0])).encode()
    forged = replace(honest, points=tuple(points))
    job = hand.seats[2].precheck(forged)
    assert job is not None
    job()  # the check fails (records nothing); the pass on the forged deck is made
    with pytest.raises(Cheating) as caught:
        hand.seats[2].receive(forged)
    assert caught.value.seat == 1
    for obj in hand.everyone:
        obj.receive(honest)
    Count.reset()
    made = hand.seats[2].make_lock()
    assert Count.variable > 0  # the forged deck's pass was not taken: made anew
    assert made == _made_in_turn(("lock", 2))


def test_no_pass_is_made_ahead_for_a_seat_whose_turn_is_not_next() -> None:
    hand = _hand_at(("shuffle", 2))
    shuffle = hand.seats[2].make_shuffle()
    # After seat 2's shuffle comes seat 0's: seat 1 only checks.
    job = hand.seats[1].precheck(shuffle)
    assert job is not None
    job()
    assert not hand.seats[1]._ahead._made
    job = hand.seats[0].precheck(shuffle)
    assert job is not None
    job()
    assert len(hand.seats[0]._ahead._made) == 1


def test_version_2_makes_its_pass_ahead_too() -> None:
    hand = _hand_at(("shuffle", 0), 2)
    previous = hand.seats[0].make_shuffle()
    job = hand.seats[1].precheck(previous)
    assert job is not None
    job()
    hand.broadcast(previous)
    assert len(hand.seats[1]._ahead._made) == 1
    assert hand.seats[1].make_lock() == _made_in_turn(("lock", 1), version=2)


def test_the_first_shuffle_is_made_ahead_on_the_last_commit_before_it() -> None:
    hand = _hand_at(("commit", 0))  # order [1, 2, 0]: seat 1 shuffles right after
    commit = hand.seats[0].make_commit()
    assert hand.seats[2].precheck(commit) is None  # seat 2 shuffles later: nothing
    job = hand.seats[1].precheck(commit)
    assert job is not None
    job()
    hand.broadcast(commit)
    Count.reset()
    made = hand.seats[1].make_shuffle()
    assert Count.variable == 0 and Count.base == 0
    assert made == _made_in_turn(("shuffle", 1))


def test_tables_prechecking_every_deck_event_make_every_pass_ahead_and_sign_the_same_log(
) -> None:
    # As the peer does with check_in_worker: each table runs the precheck job of
    # every deck event before taking it. Every shuffle is then made in a job (the
    # first shuffle on the last commit), and so is every deal keys message (deck
    # v4: each on the last shuffle or on the deal keys before it), every check of
    # another seat's pass or keys is made in the job, not in receive, and the log
    # is byte for byte the one of tables that never precheck.
    from gleek_p2p.rules import VARIANTS
    from gleek_p2p.table import events as ev
    from gleek_p2p.table.drive import deliver, sign_next
    from gleek_p2p.table.session import Stage
    from gleek_p2p.tools.selfplay import make_seats

    def set_up(precheck: bool) -> tuple[list[bytes], int, int]:
        tables = make_seats(VARIANTS["standard"], 1, b"ahead tables")
        records, passes, deal_keys = [], 0, 0
        while tables[0].stage is not Stage.PLAY:
            expected = tables[0].expected()
            assert expected is not None
            Count.reset()
            envelope = sign_next(tables[expected.seat])
            if envelope.kind in (ev.SHUFFLE, ev.LOCK, ev.KEYS):
                passes += envelope.kind != ev.KEYS
                deal_keys += envelope.kind == ev.KEYS
                if precheck:
                    assert Count.variable == Count.base == 0, envelope.kind
            if precheck:
                for table in tables:
                    if table.seat != envelope.seat and (job := table.precheck(envelope)):
                        job()
            Count.reset()
            records.append(deliver(tables, envelope))
            if precheck and envelope.kind in (ev.SHUFFLE, ev.KEYS):
                # Every table checked it in the job (each check makes double
                # multiplications, an opening of one's own cards none); its sender
                # does not check its own.
                assert Count.double == 0, envelope.kind
        return records, passes, deal_keys

    ahead, passes, deal_keys = set_up(precheck=True)
    assert (passes, deal_keys) == (3, 3)  # deck v4: three shuffles, no lock; three deal keys
    assert ahead == set_up(precheck=False)[0]


def test_nothing_is_made_ahead_on_a_pass_of_the_wrong_size() -> None:
    hand = _hand_at(("shuffle", 1))
    honest = hand.seats[1].make_shuffle()
    for points in (honest.points * 3, honest.points[:-1]):
        job = hand.seats[2].precheck(replace(honest, points=points))
        assert job is not None
        job()  # the check fails; no pass of seat 2 is made on it
        assert not hand.seats[2]._ahead._made


def test_two_threads_deriving_the_generators_at_once_get_the_same_list_as_one() -> None:
    # A process's first pipelined job checks a pass and makes this seat's own
    # beside it: both may be the first to ask for the Pedersen generators.
    import threading

    from gleek_p2p.deck.proof_groups import SECP256K1
    from gleek_p2p.deck.proofs import ProofSystem

    n = len(PACK)
    want = [p.encode() for p in ProofSystem(SECP256K1)._generator_list(n)]
    for _ in range(10):
        fresh = ProofSystem(SECP256K1)
        start = threading.Barrier(2)

        def derive(system: ProofSystem[Point] = fresh, barrier: threading.Barrier = start) -> None:
            barrier.wait()
            system._generator_list(n)

        threads = [threading.Thread(target=derive) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [p.encode() for p in fresh._generators] == [
            fresh.generator(0).encode(), *want]
