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
    MAX_ATTEMPT,
    TABLE_FULL,
    Caught,
    Equivocation,
    Evidence,
    Formation,
    KeptOut,
    StartOver,
    TableFormation,
    form,
    keep_connection,
    nonce_commitment,
)
from gleek_p2p.net.handshake import Offer, transcript, transcript_hash
from gleek_p2p.net.messages import Hello, Reveal, encode_message

OFFER = Offer(version=1, table="oak", variant=(), seats=3, name="x")


def ident(n: int) -> Identity:
    return Identity.generate(bytes([n]) * 32)


def nonce(n: int) -> bytes:
    return bytes([100 + n]) * 32


def hello(n: int, commit: bytes | None = None, attempt: int = 0, name: str | None = None) -> Hello:
    return Hello(
        1,
        "oak",
        (),
        3,
        ident(n).public,
        name or f"p{n}",
        commit or nonce_commitment(nonce(n), attempt),
        0,
        bytes(32),
        attempt,
    )


def evidence(frm: int, to: int, said_hello: Hello | None = None) -> Evidence:
    """What ``frm`` told ``to`` in a handshake, signed by ``frm`` as a real Proof is."""
    theirs = said_hello or hello(frm)
    mine = hello(to)
    return Evidence(theirs, mine, ident(frm).sign(transcript(transcript_hash(theirs, mine))))


def table(n: int, seats: int = 3, attempt: int = 0) -> TableFormation:
    return TableFormation(ident(n).public, f"p{n}", nonce(n), seats, attempt, ident(n).sign)


def add(t: TableFormation, me: int, n: int, said_hello: Hello | None = None) -> Reveal | None:
    h = said_hello or hello(n)
    return t.add_peer(h, evidence(n, me, h))


def reveal_of(n: int, *others: int, told: dict[int, Hello] | None = None) -> Reveal:
    """The Reveal ``n`` sends once it has counted ``others`` (each as ``told`` says)."""
    t = table(n)
    out = None
    for m in others:
        out = add(t, n, m, (told or {}).get(m))
    assert out is not None
    return out


EVERYONE = tuple(sorted(ident(i).public for i in range(3)))


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
            out = add(peers[a], a, b)
            if out is not None:
                assert peers[a].settle() is None
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
    add(t, 0, 1)
    reveal = add(t, 0, 2)
    assert reveal is not None and reveal.peers == EVERYONE
    assert t.settle() is None
    assert t.receive_reveal(ident(1).public, reveal_of(1, 0, 2)) is None
    f = t.receive_reveal(ident(2).public, reveal_of(2, 0, 1))
    assert f is not None
    return t, f


def test_fourth_peer_refused() -> None:
    t, _ = formed()
    assert t.admit(hello(3)) == TABLE_FULL
    with pytest.raises(ProtocolError, match="table full"):
        add(t, 0, 3)
    # Also while the table is only full of connections, before the reveals.
    t2 = table(0)
    add(t2, 0, 1)
    add(t2, 0, 2)
    assert t2.admit(hello(3)) == TABLE_FULL
    # A duplicate connection from a member is fine.
    assert t2.admit(hello(1)) is None


def test_a_reveal_must_be_signed_by_its_sender() -> None:
    t = table(0)
    add(t, 0, 1)
    add(t, 0, 2)
    good = reveal_of(1, 0, 2)
    forged = replace(good, signature=ident(2).sign(good.signed_bytes()))
    with pytest.raises(ProtocolError, match="signature does not verify"):
        t.receive_reveal(ident(1).public, forged)
    assert t.reveals == {}
    # Relayed by another peer, the sender's signature is what counts.
    t.receive_reveal(ident(2).public, good)
    assert set(t.reveals) == {ident(1).public}


def test_peer_lying_about_its_nonce_is_refused() -> None:
    t = table(0)
    add(t, 0, 1)
    add(t, 0, 2)
    lie = replace(reveal_of(1, 0, 2), nonce=nonce(9))
    lie = replace(lie, signature=ident(1).sign(lie.signed_bytes()))
    with pytest.raises(ProtocolError, match="does not open its commitment"):
        t.receive_reveal(ident(1).public, lie)
    assert t.reveals == {} and t.formation is None  # nothing recorded
    # The honest reveal still completes nothing alone, and is kept.
    assert t.receive_reveal(ident(2).public, reveal_of(2, 0, 1)) is None
    assert set(t.reveals) == {ident(2).public}


# -- the roster is bound: what a peer told each of us must agree ----------------------


@pytest.mark.parametrize("lie", ["name", "commitment"])
def test_a_peer_that_told_two_peers_different_things_is_caught_with_proof(lie: str) -> None:
    """p2 tells p0 one thing and p1 another: p1's Reveal carries what p2 signed to p1."""
    to_p1 = (hello(2, name="mal-b") if lie == "name"
             else hello(2, commit=nonce_commitment(b"\x09" * 32)))
    t = table(0)
    add(t, 0, 1)
    add(t, 0, 2)  # p0 heard p2's true Hello
    assert t.settle() is None
    with pytest.raises(Caught) as caught:
        t.receive_reveal(ident(1).public, reveal_of(1, 0, 2, told={2: to_p1}))
    assert caught.value.public == ident(2).public  # p2, never p1
    assert caught.value.attempt == 1
    proof = caught.value.proof
    assert proof.holds() and {proof.first.peer, proof.second.peer} == {hello(2), to_p1}
    # Anyone can check it: a changed Hello breaks the signature.
    bent = replace(proof, second=replace(proof.second, peer=replace(to_p1, name="other")))
    assert not bent.holds()
    assert t.reveals == {} and t.formation is None


def test_an_honest_peer_cannot_frame_another_without_its_signature() -> None:
    """p1 claims p2 told it another name, but cannot sign as p2: p1's Reveal is refused."""
    t = table(0)
    add(t, 0, 1)
    add(t, 0, 2)
    genuine = reveal_of(1, 0, 2)
    i = genuine.peers.index(ident(2).public)
    fake = hello(2, name="framed")
    hellos = list(genuine.hellos)
    hellos[i] = encode_message(fake)
    framed = replace(genuine, hellos=tuple(hellos))
    framed = replace(framed, signature=ident(1).sign(framed.signed_bytes()))
    with pytest.raises(ProtocolError, match="evidence does not verify"):
        t.receive_reveal(ident(1).public, framed)
    assert t.reveals == {}


def test_a_reveal_taken_before_ours_is_checked_when_we_reveal() -> None:
    t = table(0)
    add(t, 0, 1)
    early = reveal_of(1, 0, 2, told={2: hello(2, name="mal-b")})
    assert t.receive_reveal(ident(1).public, early) is None
    assert set(t.reveals) == {ident(1).public}
    assert add(t, 0, 2) is not None  # our Reveal: now the early one is checked
    with pytest.raises(Caught) as caught:
        t.settle()
    assert caught.value.public == ident(2).public


def test_two_hellos_of_different_attempts_are_not_equivocation() -> None:
    a, b = evidence(2, 0, hello(2, attempt=4)), evidence(2, 1, hello(2, attempt=5))
    assert not Equivocation(ident(2).public, a, b).holds()


# -- attempts: each peer's own; nobody else moves them --------------------------------


def test_commitments_are_bound_to_their_attempt() -> None:
    assert nonce_commitment(nonce(1), 0) != nonce_commitment(nonce(1), 1)
    t = TableFormation(ident(0).public, "p0", nonce(0), 3, attempt=2, sign=ident(0).sign)
    assert t.commitment == nonce_commitment(nonce(0), 2)
    add(t, 0, 1)
    reveal = add(t, 0, 2)
    assert reveal is not None and reveal.attempt == 2


def test_peers_on_different_attempts_form_one_table() -> None:
    """Attempts are each peer's own: p1 at 7 and p2 at 0 sit with p0 at 3."""
    p1, p2 = hello(1, attempt=7), hello(2)
    t = TableFormation(ident(0).public, "p0", nonce(0), 3, attempt=3, sign=ident(0).sign)
    add(t, 0, 1, p1)
    add(t, 0, 2, p2)
    me = hello(0, attempt=3)
    one = TableFormation(ident(1).public, "p1", nonce(1), 3, 7, ident(1).sign)
    one.add_peer(me, evidence(0, 1, me))
    r1 = one.add_peer(p2, evidence(2, 1, p2))
    assert r1 is not None
    assert t.receive_reveal(ident(1).public, r1) is None
    assert t.receive_reveal(ident(2).public, reveal_of(2, 0, 1, told={0: me, 1: p1})) is not None


def test_a_higher_attempt_moves_nothing() -> None:
    t = table(0)
    for attempt in (1, 2**31, 2**32 - 1):
        assert t.admit(hello(1, attempt=attempt)) is None
    assert t.attempt == 0 and t.peers == {}
    add(t, 0, 1, hello(1, attempt=2**32 - 1))
    assert t.attempt == 0


def test_the_last_attempt_ends_without_overflow() -> None:
    t = TableFormation(ident(0).public, "p0", nonce(0), 3, MAX_ATTEMPT, ident(0).sign)
    assert t.commitment == nonce_commitment(nonce(0), MAX_ATTEMPT)
    with pytest.raises(ProtocolError, match="no formation attempt is left") as caught:
        t.next_attempt("p1 restarted")
    assert not isinstance(caught.value, StartOver)
    with pytest.raises(ValueError):
        TableFormation(ident(0).public, "p0", nonce(0), 3, MAX_ATTEMPT + 1)


def test_a_stale_reveal_is_ignored_not_an_accusation() -> None:
    t = TableFormation(ident(0).public, "p0", nonce(0), 3, attempt=1, sign=ident(0).sign)
    add(t, 0, 1, hello(1, attempt=1))
    add(t, 0, 2, hello(2, attempt=1))
    # p1's reveal of attempt 0 opens nothing here, but it is stale, not a lie.
    assert t.receive_reveal(ident(1).public, reveal_of(1, 0, 2)) is None
    assert t.reveals == {}
    # A reveal on a connection whose commitment was replaced is stale too.
    old = hello(2, commit=b"\x05" * 32, attempt=1)
    assert t.receive_reveal(ident(2).public, reveal_of(2, 0, 1), old) is None
    assert t.reveals == {}


def test_a_lost_link_after_the_reveal_is_waited_for_not_given_up() -> None:
    t = table(0)
    add(t, 0, 1)
    reveal = add(t, 0, 2)
    assert reveal is not None
    t.remove_peer(ident(1).public)
    assert ident(1).public in t.peers  # still counted: it may come back
    assert t.admit(hello(1)) is None  # and it does, same commitment
    t.receive_reveal(ident(1).public, reveal_of(1, 0, 2))
    assert t.receive_reveal(ident(2).public, reveal_of(2, 0, 1)) is not None


def test_two_revealed_tables_that_differ_move_to_the_next_attempt() -> None:
    t = table(0)
    add(t, 0, 1)
    add(t, 0, 2)  # we revealed {0, 1, 2}; p1 revealed {0, 1, 3}
    with pytest.raises(StartOver) as caught:
        t.receive_reveal(ident(1).public, reveal_of(1, 0, 3))
    assert caught.value.attempt == 1 and t.reveals == {}


def test_a_peer_that_restarted_after_our_reveal_moves_us_on() -> None:
    t = table(0)
    add(t, 0, 1)
    add(t, 0, 2)
    restarted = hello(1, commit=nonce_commitment(b"\x77" * 32))
    assert t.admit(restarted) is None  # pure: the handshake decides nothing
    with pytest.raises(StartOver) as caught:
        add(t, 0, 1, restarted)
    assert caught.value.attempt == 1
    # Before our reveal, a restarted peer simply replaces its old Hello.
    early = table(0)
    add(early, 0, 1)
    assert add(early, 0, 1, restarted) is None
    assert early.peers[ident(1).public] == restarted


def test_a_spent_hello_is_not_counted_again() -> None:
    t = table(0)
    add(t, 0, 1)
    add(t, 0, 2)
    t.receive_reveal(ident(1).public, reveal_of(1, 0, 2))
    spent = t.spent_now()
    assert spent == {(ident(1).public, hello(1).nonce_commit)}
    after = TableFormation(ident(0).public, "p0", nonce(5), 3, 1, ident(0).sign, spent)
    assert add(after, 0, 1) is None and after.peers == {}
    assert add(after, 0, 1, hello(1, attempt=1)) is None
    assert set(after.peers) == {ident(1).public}


def test_the_laggard_is_the_one_peer_not_revealed() -> None:
    t = table(0)
    add(t, 0, 1)
    assert t.laggard() is None  # not revealed yet
    add(t, 0, 2)
    assert t.laggard() is None  # two missing: nobody is last
    t.receive_reveal(ident(1).public, reveal_of(1, 0, 2))
    assert t.laggard() == ident(2).public


def test_kept_out_keys_expire_and_are_bounded() -> None:
    kept = KeptOut(10.0, limit=2)
    kept.add(b"a", now=0)
    assert kept.holds(b"a", now=9.9) and not kept.holds(b"a", now=10.0)
    for i, key in enumerate((b"x", b"y", b"z")):
        kept.add(key, now=float(i))
    assert len(kept) == 2 and not kept.holds(b"x", now=3)


def test_peer_lying_about_its_peers_is_refused() -> None:
    other = reveal_of(1, 0, 3)
    t2 = table(0)
    add(t2, 0, 2)
    add(t2, 0, 1)
    with pytest.raises(StartOver, match=r"formed a different table: it lists .* it lacks"):
        t2.receive_reveal(ident(1).public, other)
    g = reveal_of(1, 0, 2)
    bad = replace(g, peers=tuple(reversed(g.peers)))
    bad = replace(bad, signature=ident(1).sign(bad.signed_bytes()))
    with pytest.raises(ProtocolError, match="distinct sorted keys"):
        t2.receive_reveal(ident(1).public, bad)
    assert t2.reveals == {}


def test_reveal_from_a_stranger_or_twice() -> None:
    t = table(0)
    add(t, 0, 1)
    # From a key we do not count: stale or not for us, ignored.
    assert t.receive_reveal(ident(2).public, reveal_of(2, 0, 1)) is None
    assert t.reveals == {}
    first = reveal_of(1, 0, 2)
    t.receive_reveal(ident(1).public, first)
    t.receive_reveal(ident(1).public, first)  # a duplicate is harmless
    # A second one of the same attempt changes nothing: the first stands.
    t.receive_reveal(ident(1).public, reveal_of(1, 0, 5))
    assert t.reveals[ident(1).public] == first


def test_early_reveal_decides_who_gets_the_last_seat() -> None:
    t = table(0)
    add(t, 0, 1)
    # p1 already formed {0, 1, 3}: p2 cannot get in, p3 can.
    assert t.receive_reveal(ident(1).public, reveal_of(1, 0, 3)) is None
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
        assert conn.own_hello is not None and conn.peer_proof is not None
        try:
            reveal = self.formation.add_peer(
                conn.peer, Evidence(conn.peer, conn.own_hello, conn.peer_proof))
        except ProtocolError as exc:
            await conn.refuse(exc.message)
            return
        if reveal is not None:
            self.reveal = reveal
            for c in self.conns.values():
                c.send(reveal)
            f = self.formation.settle()
            if f is not None and not self.done.done():
                self.done.set_result(f)
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
