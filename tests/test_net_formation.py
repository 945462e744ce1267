"""Table formation: in memory (sans-IO) and end to end over TCP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import itertools
import random
from dataclasses import dataclass, field, replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gleek_p2p.base.errors import ProtocolError
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import (
    Connection,
    Limits,
    Listener,
    connect,
    listen,
)
from gleek_p2p.net.formation import (
    TABLE_FULL,
    Formation,
    StartOver,
    TableFormation,
    form,
    keep_connection,
    nonce_commitment,
)
from gleek_p2p.net.handshake import Offer
from gleek_p2p.net.messages import Hello, Reveal

OFFER = Offer(version=1, table="oak", variant=(), seats=3, name="x")


def ident(n: int) -> Identity:
    return Identity.generate(bytes([n]) * 32)


def nonce(n: int) -> bytes:
    return bytes([100 + n]) * 32


def hello(n: int, commit: bytes | None = None, attempt: int = 0) -> Hello:
    return Hello(
        1,
        "oak",
        (),
        3,
        ident(n).public,
        f"p{n}",
        commit or nonce_commitment(nonce(n), attempt),
        0,
        bytes(32),
        attempt,
    )


def table(n: int, seats: int = 3) -> TableFormation:
    return TableFormation(ident(n).public, f"p{n}", nonce(n), seats)


@given(
    st.permutations([(0, 1), (0, 2), (1, 2)]),
    st.lists(st.booleans(), min_size=3, max_size=3),
    st.randoms(use_true_random=False),
)
def test_three_peers_agree_whatever_the_order(
    edges: list[tuple[int, int]], flips: list[bool], rnd: random.Random
) -> None:
    peers = {i: table(i) for i in range(3)}
    mailbox: list[tuple[int, int, Reveal]] = []  # (to, from, reveal)
    for (x, y), flip in zip(edges, flips, strict=True):
        for a, b in ((y, x), (x, y)) if flip else ((x, y), (y, x)):
            out = peers[a].add_peer(hello(b))
            if out is not None:
                mailbox += [(to, a, out) for to in range(3) if to != a]
    rnd.shuffle(mailbox)
    results = [peers[to].receive_reveal(ident(frm).public, r) for to, frm, r in mailbox]
    formations = {p.formation for p in peers.values()}
    assert len(formations) == 1
    [formation] = formations
    assert formation is not None and results[-1] == formation
    assert sorted(formation.publics) == sorted(ident(i).public for i in range(3))
    assert formation.names == tuple(
        f"p{[ident(i).public for i in range(3)].index(p)}" for p in formation.publics
    )


def test_form_is_order_independent_and_depends_on_every_nonce() -> None:
    members = {ident(i).public: (f"p{i}", nonce(i)) for i in range(3)}
    base = form(members)
    for perm in itertools.permutations(members):
        assert form({p: members[p] for p in perm}) == base
    # Any one nonce changes the session nonce (and usually the seats).
    for p in members:
        changed = dict(members)
        changed[p] = (members[p][0], b"\x00" * 32)
        assert form(changed).session_nonce != base.session_nonce
    assert (
        len(
            {
                form({p: (n, bytes([s]) * 32) for p, (n, _) in members.items()}).publics
                for s in range(40)
            }
        )
        > 1
    )


def formed() -> tuple[TableFormation, Formation]:
    t = table(0)
    t.add_peer(hello(1))
    reveal = t.add_peer(hello(2))
    assert reveal is not None
    assert reveal.peers == tuple(sorted(ident(i).public for i in range(3)))
    everyone = tuple(sorted(ident(i).public for i in range(3)))
    assert t.receive_reveal(ident(1).public, Reveal(nonce(1), everyone)) is None
    f = t.receive_reveal(ident(2).public, Reveal(nonce(2), everyone))
    assert f is not None
    return t, f


def test_fourth_peer_refused() -> None:
    t, _ = formed()
    assert t.admit(hello(3)) == TABLE_FULL
    with pytest.raises(ProtocolError, match="table full"):
        t.add_peer(hello(3))
    # Also while the table is only full of connections, before the reveals.
    t2 = table(0)
    t2.add_peer(hello(1))
    t2.add_peer(hello(2))
    assert t2.admit(hello(3)) == TABLE_FULL
    # A duplicate connection from a member is fine.
    assert t2.admit(hello(1)) is None


def test_peer_lying_about_its_nonce_is_refused() -> None:
    t = table(0)
    t.add_peer(hello(1))
    t.add_peer(hello(2))
    everyone = tuple(sorted(ident(i).public for i in range(3)))
    with pytest.raises(ProtocolError, match="does not open its commitment"):
        t.receive_reveal(ident(1).public, Reveal(nonce(9), everyone))
    assert t.reveals == {} and t.formation is None  # nothing recorded
    # The honest reveal still completes nothing alone, and is kept.
    assert t.receive_reveal(ident(2).public, Reveal(nonce(2), everyone)) is None
    assert set(t.reveals) == {ident(2).public}


# -- attempts: restarts agree on one, and accuse nobody --------------------------------


def test_commitments_are_bound_to_their_attempt() -> None:
    assert nonce_commitment(nonce(1), 0) != nonce_commitment(nonce(1), 1)
    t = TableFormation(ident(0).public, "p0", nonce(0), 3, attempt=2)
    assert t.commitment == nonce_commitment(nonce(0), 2)
    t.add_peer(hello(1, attempt=2))
    reveal = t.add_peer(hello(2, attempt=2))
    assert reveal is not None and reveal.attempt == 2


def test_a_stale_reveal_from_an_earlier_attempt_is_ignored_not_an_accusation() -> None:
    t = TableFormation(ident(0).public, "p0", nonce(0), 3, attempt=1)
    t.add_peer(hello(1, attempt=1))
    t.add_peer(hello(2, attempt=1))
    everyone = tuple(sorted(ident(i).public for i in range(3)))
    # p1's nonce of attempt 0 opens nothing here, but it is stale, not a lie.
    assert t.receive_reveal(ident(1).public, Reveal(nonce(9), everyone, 0)) is None
    assert t.reveals == {}
    # A reveal on a connection whose commitment was replaced is stale too.
    old = hello(2, commit=b"\x05" * 32, attempt=1)
    assert t.receive_reveal(ident(2).public, Reveal(nonce(5), everyone, 1), old) is None
    t.receive_reveal(ident(1).public, Reveal(nonce(1), everyone, 1))
    f = t.receive_reveal(ident(2).public, Reveal(nonce(2), everyone, 1), hello(2, attempt=1))
    assert f is not None


def test_peers_follow_the_highest_attempt() -> None:
    t = table(0)
    assert t.start_over_for(hello(1, attempt=3)) == 3
    assert t.admit(hello(1, attempt=3)) == "starting the table over at attempt 3"
    ahead = TableFormation(ident(0).public, "p0", nonce(0), 3, attempt=3)
    # A peer behind is refused without blame; it follows on seeing our Hello.
    assert ahead.start_over_for(hello(1)) is None
    assert "attempt 3, you at 0" in (ahead.admit(hello(1)) or "")


def test_a_lost_link_after_the_reveal_is_waited_for_not_given_up() -> None:
    t = table(0)
    t.add_peer(hello(1))
    reveal = t.add_peer(hello(2))
    assert reveal is not None
    t.remove_peer(ident(1).public)
    assert ident(1).public in t.peers  # still counted: it may come back
    assert t.admit(hello(1)) is None  # and it does, same commitment
    everyone = reveal.peers
    t.receive_reveal(ident(1).public, Reveal(nonce(1), everyone))
    assert t.receive_reveal(ident(2).public, Reveal(nonce(2), everyone)) is not None


def test_two_revealed_tables_that_differ_move_to_the_next_attempt() -> None:
    t = table(0)
    t.add_peer(hello(1))
    t.add_peer(hello(2))  # we revealed {0, 1, 2}; p1 revealed {0, 1, 3}
    theirs = tuple(sorted([ident(0).public, ident(1).public, ident(3).public]))
    with pytest.raises(StartOver) as caught:
        t.receive_reveal(ident(1).public, Reveal(nonce(1), theirs))
    assert caught.value.attempt == 1 and t.reveals == {}


def test_a_peer_that_restarted_after_our_reveal_moves_everyone_on() -> None:
    t = table(0)
    t.add_peer(hello(1))
    t.add_peer(hello(2))
    restarted = hello(1, commit=nonce_commitment(b"\x77" * 32))
    assert t.start_over_for(restarted) == 1
    assert t.admit(restarted) == "starting the table over at attempt 1"
    # Before our reveal, a restarted peer simply replaces its old Hello.
    early = table(0)
    early.add_peer(hello(1))
    assert early.start_over_for(restarted) is None and early.admit(restarted) is None
    early.add_peer(restarted)
    assert early.peers[ident(1).public] == restarted


def test_peer_lying_about_its_peers_is_refused() -> None:
    t = table(0)
    t.add_peer(hello(1))
    t.add_peer(hello(2))
    other = tuple(sorted([ident(0).public, ident(1).public, ident(3).public]))
    with pytest.raises(ProtocolError, match=r"formed a different table: it lists .* it lacks"):
        t.receive_reveal(ident(1).public, Reveal(nonce(1), other))
    unsorted = tuple(reversed(sorted(ident(i).public for i in range(3))))
    with pytest.raises(ProtocolError, match="distinct sorted keys"):
        t.receive_reveal(ident(1).public, Reveal(nonce(1), unsorted))
    short = tuple(sorted([ident(1).public, ident(2).public]))
    with pytest.raises(ProtocolError, match="distinct sorted keys"):
        t.receive_reveal(ident(1).public, Reveal(nonce(1), short))
    assert t.reveals == {}


def test_reveal_from_a_stranger_or_twice() -> None:
    t = table(0)
    t.add_peer(hello(1))
    everyone = tuple(sorted(ident(i).public for i in range(3)))
    with pytest.raises(ProtocolError, match="not at this table"):
        t.receive_reveal(ident(2).public, Reveal(nonce(2), everyone))
    t.receive_reveal(ident(1).public, Reveal(nonce(1), everyone))
    t.receive_reveal(ident(1).public, Reveal(nonce(1), everyone))  # a duplicate is harmless
    with pytest.raises(ProtocolError, match="revealed twice"):
        t.receive_reveal(
            ident(1).public, Reveal(nonce(1), tuple(sorted((*everyone[:2], ident(5).public))))
        )


def test_early_reveal_decides_who_gets_the_last_seat() -> None:
    t = table(0)
    t.add_peer(hello(1))
    # p1 already formed {0, 1, 3}: p2 cannot get in, p3 can.
    theirs = tuple(sorted([ident(0).public, ident(1).public, ident(3).public]))
    assert t.receive_reveal(ident(1).public, Reveal(nonce(1), theirs)) is None
    assert t.admit(hello(2)) == TABLE_FULL
    assert t.admit(hello(3)) is None


def test_changed_commitment_refused_once_formed() -> None:
    t, _ = formed()
    assert t.admit(hello(1, commit=b"\x01" * 32)) == TABLE_FULL


def test_keep_connection_keeps_exactly_one() -> None:
    a, b = ident(1).public, ident(2).public
    for x, y in ((a, b), (b, a)):
        # Connection 1: x dialled y; connection 2: y dialled x. Both ends agree.
        kept_by_x = [keep_connection(x, y, True), keep_connection(x, y, False)]
        kept_by_y = [keep_connection(y, x, False), keep_connection(y, x, True)]
        assert kept_by_x == kept_by_y
        assert sum(kept_by_x) == 1


# -- end to end over TCP ---------------------------------------------------------

LIMITS = Limits(handshake_timeout=3, read_timeout=5, write_timeout=3, ping_interval=None)


@dataclass
class Peer:
    """A minimal shell: the way peer.py is expected to drive formation."""

    n: int
    formation: TableFormation = field(init=False)
    conns: dict[bytes, Connection] = field(default_factory=dict)
    listener: Listener | None = None
    done: asyncio.Future[Formation] = field(init=False)
    reveal: Reveal | None = None

    def __post_init__(self) -> None:
        self.formation = table(self.n)
        self.done = asyncio.get_running_loop().create_future()

    async def on_connection(self, conn: Connection) -> None:
        pub = conn.peer.public
        old = self.conns.get(pub)
        if old is not None:
            me = self.formation.public
            loser = conn if not keep_connection(me, pub, conn.dialled) else old
            await loser.close("duplicate connection")
            if loser is conn:
                return
        self.conns[pub] = conn
        try:
            reveal = self.formation.add_peer(conn.peer)
        except ProtocolError as exc:
            await conn.refuse(exc.message)
            return
        if reveal is not None:
            self.reveal = reveal
            for c in self.conns.values():
                c.send(reveal)
        elif self.reveal is not None:
            conn.send(self.reveal)  # the replacement of a duplicate
        try:
            async for msg in conn:
                if isinstance(msg, Reveal):
                    f = self.formation.receive_reveal(pub, msg)
                    if f is not None and not self.done.done():
                        self.done.set_result(f)
        except ProtocolError as exc:
            await conn.refuse(exc.message)

    async def start(self) -> None:
        self.listener = await listen(
            "127.0.0.1",
            0,
            identity=ident(self.n),
            offer=replace(OFFER, name=f"p{self.n}"),
            nonce_commit=self.formation.commitment,
            on_connection=self.on_connection,
            admit=self.formation.admit,
            limits=LIMITS,
        )

    async def dial(self, port: int) -> None:
        try:
            conn = await connect(
                "127.0.0.1",
                port,
                identity=ident(self.n),
                offer=replace(OFFER, name=f"p{self.n}"),
                nonce_commit=self.formation.commitment,
                admit=self.formation.admit,
                limits=LIMITS,
            )
        except ProtocolError:
            return
        asyncio.get_running_loop().create_task(self.on_connection(conn))


@pytest.mark.parametrize("seed", range(4))
async def test_three_peers_form_over_tcp_and_a_fourth_is_refused(seed: int) -> None:
    rnd = random.Random(seed)
    peers = [Peer(i) for i in range(3)]
    for p in peers:
        await p.start()
    try:
        # Everyone dials everyone (duplicates included), in a random order.
        dials = [(a, b) for a in peers for b in peers if a is not b]
        rnd.shuffle(dials)
        await asyncio.gather(*(a.dial(b.listener.port) for a, b in dials))  # type: ignore[union-attr]
        results = await asyncio.wait_for(asyncio.gather(*(p.done for p in peers)), 5)
        assert results[0] == results[1] == results[2]
        f = results[0]
        assert [f.names[f.seat_of(ident(i).public)] for i in range(3)] == ["p0", "p1", "p2"]
        assert sorted(results[0].publics) == sorted(ident(i).public for i in range(3))

        late = Peer(3)
        with pytest.raises(ProtocolError, match="refused the connection: table full"):
            await connect(
                "127.0.0.1",
                peers[0].listener.port,  # type: ignore[union-attr]
                identity=ident(3),
                offer=OFFER,
                nonce_commit=late.formation.commitment,
                limits=LIMITS,
            )
    finally:
        for p in peers:
            for c in list(p.conns.values()):
                await c.close("test over")
            assert p.listener is not None
            await p.listener.close()
