"""The hint book (net/hints.py): bounded, aged, verified, backed off; no sockets, no clock."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gleek_p2p.net.hints import Address, HintBook, HintLimits

HONEST: Address = ("10.9.9.9", 7000)


def forged(i: int, port: int = 7000) -> Address:
    return (f"10.0.{i // 250}.{i % 250 + 1}", port)


def test_one_address_holds_at_most_its_share() -> None:
    book = HintBook(HintLimits(per_host=2))
    assert book.heard(("10.0.0.1", 1), 0) and book.heard(("10.0.0.1", 2), 1)
    book.failed(("10.0.0.1", 2), 1)
    # A third port on the same host pushes out one: the failed one first...
    assert book.heard(("10.0.0.1", 3), 2)
    assert set(book) == {("10.0.0.1", 1), ("10.0.0.1", 3)}
    # ...then, of equals, the one heard longest ago.
    assert book.heard(("10.0.0.1", 4), 3)
    assert set(book) == {("10.0.0.1", 3), ("10.0.0.1", 4)}
    # A record that failed before does not push out one that did not.
    assert not book.heard(("10.0.0.1", 2), 4)
    assert book.heard(("10.0.0.2", 1), 4)  # another host is not held back
    assert len(book) == 3


def test_forged_hints_that_failed_make_room_for_a_new_one_dialled_first() -> None:
    book = HintBook(HintLimits(capacity=64))
    for i in range(150):
        book.heard(forged(i), 0)
    assert len(book) == 64
    tried = book.due(1)
    assert len(tried) == 64
    for address in tried:  # every one dialled at once, every one silent
        book.failed(address, 4)
    # The honest one takes the place of a forged one that failed, first in line.
    assert book.heard(HONEST, 5)
    assert book.due(5)[0] == HONEST
    assert len(book) == 64
    # A forged record heard again after it left comes back no better than it left.
    dropped = next(a for a in tried if a not in book)
    assert book.heard(dropped, 5) and book.failures(dropped) == 1
    assert HONEST in book and book.due(5)[0] == HONEST
    # Fresh records push out those that failed, never the honest one once it is verified.
    book.succeeded(HONEST, 6)
    for i in range(150, 400):
        book.heard(forged(i), 7)
    assert HONEST in book and len(book) == 64


def test_a_verified_hint_is_kept_and_preferred() -> None:
    book = HintBook(HintLimits(capacity=4))
    book.heard(HONEST, 0)
    book.succeeded(HONEST, 1)
    for i in range(3):
        book.heard(forged(i), 2)
    for _ in range(5):
        for i in range(100):
            book.failed(forged(i % 3), 3)
            book.heard(forged(i + 3), 3)
    assert HONEST in book and book.verified(HONEST)
    assert book.due(100)[0] == HONEST
    # Even after failing since, it is dialled before unverified hints.
    book.failed(HONEST, 100)
    assert book.failures(HONEST) == 1 and book.due(200)[0] == HONEST


def test_a_failing_hint_is_backed_off_exponentially_up_to_a_bound() -> None:
    book = HintBook(HintLimits(backoff_max=8.0), first_backoff=1.0)
    book.heard(HONEST, 0)
    now, waits = 0.0, []
    for _ in range(6):
        assert book.due(now) == [HONEST]
        book.failed(HONEST, now)
        assert book.due(now) == []
        wait = 0.0
        while not book.due(now + wait):
            wait += 0.25
        waits.append(wait)
        now += wait
    assert waits == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    book.succeeded(HONEST, now)
    assert book.failures(HONEST) == 0 and book.due(now) == [HONEST]


def test_failures_are_remembered_after_a_hint_leaves_but_memory_is_bounded() -> None:
    book = HintBook(HintLimits(capacity=2, memory=3, max_age=10))
    book.heard(forged(0), 0)
    for t in (0, 1, 3):
        book.failed(forged(0), t)
    assert book.due(5) == []
    # Aged out (failing, not heard of for 10 s), then heard again: its record follows it.
    book.expire(11)
    assert forged(0) not in book
    assert book.heard(forged(0), 11)
    assert book.failures(forged(0)) == 3
    book.failed(forged(0), 11)
    assert book.due(18.9) == [] and book.due(19) == [forged(0)]
    # The memory keeps at most 3 addresses.
    for i in range(1, 10):
        book.heard(forged(i), 20)
        book.failed(forged(i), 20)
        book.expire(20 + 11)
    assert len(book._memory) <= 3


def test_hints_age_only_when_failing_and_unheard() -> None:
    book = HintBook(HintLimits(max_age=10, verified_age=100))
    never_tried, failing, heard_again, verified = (forged(i) for i in range(4))
    for address in (never_tried, failing, heard_again, verified):
        book.heard(address, 0)
    book.failed(failing, 1)
    book.failed(heard_again, 1)
    book.succeeded(verified, 1)
    book.heard(heard_again, 9)
    book.expire(12)
    assert set(book) == {never_tried, heard_again, verified}
    book.expire(102)
    assert verified not in book


OPS = st.lists(st.tuples(st.sampled_from(["heard", "failed", "succeeded", "expire"]),
                         st.integers(0, 40), st.integers(0, 3), st.floats(0, 5)),
               max_size=300)


@given(OPS)
def test_the_book_stays_within_its_bounds(ops: list[tuple[str, int, int, float]]) -> None:
    limits = HintLimits(capacity=8, per_host=3, memory=5, max_age=20, verified_age=40)
    book = HintBook(limits, first_backoff=0.5)
    now = 0.0
    for op, host, port, step in ops:
        now += step
        address = (f"10.0.0.{host}", port)
        if op == "heard":
            book.expire(now)
            verified = {a for a in book if book.verified(a)}
            kept = book.heard(address, now)
            assert kept == (address in book)
            # A newcomer (never verified) never pushes out a verified hint.
            assert verified <= set(book)
        elif op == "failed":
            book.failed(address, now)
        elif op == "succeeded":
            book.succeeded(address, now)
        else:
            book.expire(now)
        hosts = [a[0] for a in book]
        assert len(book) <= limits.capacity
        assert all(hosts.count(h) <= limits.per_host for h in hosts)
        assert len(book._memory) <= limits.memory
        assert set(book.due(now)) <= set(book)
