"""A watcher checks the seats' keys against what the LAN announced for the table.

``gleek watch --table T`` learns from the discovery records who sits at T (the
key fingerprints ``gleek tables`` lists). A seat that feeds a roster with other
keys is another table using T's name (or a liar): the watcher says so, leaves
it and never dials it again, keeps nothing of it, and refuses to watch if no
seat feeds the announced table. Two playing tables announcing one name with
different players are both refused.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from test_watch import NAMES, VARIANT, HeldBot, _assert_players_fair, _assert_watched, _config

from gleek_p2p.base import i18n
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.cli.watch import choose_watched
from gleek_p2p.log.keys import Identity, fingerprint
from gleek_p2p.net.tables import SeatClaim, TableListing
from gleek_p2p.session.lobby import LobbyConfig
from gleek_p2p.session.play import SessionResult, play_session
from gleek_p2p.session.watch import Impersonated, LiveLog, NotAnnounced, WatchConfig, watch
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import selfplay


@pytest.fixture(scope="module")
def records() -> list[bytes]:
    return list(selfplay(VARIANT, 1, b"roster", [RandomStrategy(i) for i in range(3)]).records)


def test_a_roster_with_keys_not_announced_is_refused_and_nothing_kept(
        records: list[bytes], tmp_path: Path) -> None:
    roster = verify_records(records[:1]).roster
    assert roster is not None
    keys = [fingerprint(p) for p in roster.publics]
    stranger = fingerprint(b"\x05" * 32)
    for announced in ({stranger}, {keys[0], keys[1]}, {keys[0], keys[1], stranger},
                      {*keys, stranger}):
        live = LiveLog(tmp_path / "lied", frozenset(announced))
        with pytest.raises(NotAnnounced, match="not the keys announced"):
            live.take(records[0], roster.publics[0])
        assert live.table is None and live.records == [] and live.path is None
    assert not (tmp_path / "lied").exists()
    # The records list the seats in any order (the announcer first): a set is compared.
    live = LiveLog(tmp_path / "true", frozenset(reversed(keys)))
    for record in records:
        live.take(record, roster.publics[2])
    live.close()
    assert live.finished and verify_records(live.records).fair


def _listing(table: str, seated: tuple[str, ...], port: int) -> TableListing:
    return TableListing(table, 2, "standard", 3, True, True,
                        tuple(SeatClaim(fp, f"p{i}") for i, fp in enumerate(seated)),
                        (("127.0.0.1", port),))


def test_two_tables_announcing_one_name_with_other_players_are_both_refused() -> None:
    real = tuple(fingerprint(bytes([i]) * 32) for i in range(3))
    fake = tuple(fingerprint(bytes([i + 9]) * 32) for i in range(3))
    one = _listing("delta", real, 1)
    assert choose_watched([one, _listing("echo", fake, 2)], "delta") is one
    with pytest.raises(Impersonated) as refused:
        choose_watched([one, _listing("delta", fake, 2)], "delta")
    said = str(refused.value)
    assert "2 tables playing on the local network are named 'delta'" in said
    assert all(fp in said for fp in (*real, *fake)) and "not watching" in said


async def _table(tmp: Path, table: str, first_key: int, go: asyncio.Event,
                 at_hand_2: asyncio.Event, notes: list[str]
                 ) -> tuple[list[int], list[Identity], asyncio.Future[list[SessionResult]]]:
    """Three peers at ``table``, keys from ``first_key`` on; hand 2 waits for ``go``."""
    ports: list[int] = []
    keys = [Identity.generate(bytes([first_key + i]) * 32) for i in range(3)]
    tasks = []
    for i, name in enumerate(NAMES):
        up: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        config = LobbyConfig(name=name, table=table, variant=VARIANT, listen=("127.0.0.1", 0),
                             peers=tuple(("127.0.0.1", p) for p in ports), dial_interval=0.2)
        tasks.append(asyncio.create_task(play_session(
            identity=keys[i], config=config, hands=2,
            data_dir=tmp / f"{name}-{first_key}", player=HeldBot(f"s{first_key}{i}", go,
                                                                 at_hand_2),
            timeout=30.0, random=os.urandom, on_ready=up.set_result,
            notes=lambda text, who=name: notes.append(f"{who}: {text}"))))
        ports.append(await up)
    return ports, keys, asyncio.gather(*tasks)


async def test_a_table_using_anothers_name_is_left_and_alone_refused(tmp_path: Path) -> None:
    go, real_at_2, fake_at_2 = asyncio.Event(), asyncio.Event(), asyncio.Event()
    notes: list[str] = []
    real_ports, real_keys, real = await _table(tmp_path, "delta/2", 1, go, real_at_2, notes)
    fake_ports, _fake_keys, fake = await _table(tmp_path, "delta/2", 50, go, fake_at_2, notes)
    await asyncio.wait_for(asyncio.gather(real_at_2.wait(), fake_at_2.wait()), 90)
    announced = frozenset(fingerprint(k.public) for k in real_keys)

    def config(name: str, ports: list[int]) -> WatchConfig:
        plain = _config(tmp_path, "delta/2", ports, name=name)
        return WatchConfig(plain.name, plain.table, plain.variant, plain.peers, plain.data_dir,
                           timeout=plain.timeout, retry=plain.retry, announced=announced)

    # Only the impostor's seats to dial: warned about each, then no watch at all.
    said: list[str] = []
    with pytest.raises(Impersonated, match="no seat of this table fed the table its players"):
        await asyncio.wait_for(watch(Identity.generate(b"i" * 32),
                                     config("ivan", fake_ports[:2]), said.append), 60)
    warned = [s for s in said if "feeds a table whose seats are not those" in s]
    assert len(warned) == 2 and all(sorted(announced)[0] in s for s in warned), said
    assert not list((tmp_path / "ivan").glob("**/*.gleeklog"))
    # The impostor first, then a real seat: the impostor is left, the real table watched.
    heard: list[str] = []

    def hear(text: str) -> None:
        heard.append(text)
        if text.startswith("watching through") and any("feeds a table" in h for h in heard):
            go.set()  # the impostor was left: the real table goes on to the end

    result = await asyncio.wait_for(watch(
        Identity.generate(b"j" * 32), config("jane", [fake_ports[0], real_ports[1]]), hear),
        120)
    assert any("feeds a table whose seats are not those" in h for h in heard), heard
    log = _assert_players_fair(await asyncio.wait_for(real, 90))
    _assert_watched(result, log)
    _assert_players_fair(await asyncio.wait_for(fake, 90))


SAID = {
    "en": ("feeds a table whose seats are not those the local network announces",
           "not watching: no seat of this table", "tables playing on the local network are "
           "named"),
    "fr": ("sert une table dont les places ne sont pas celles que le réseau local annonce",
           "pas de spectateur\u00a0: aucune place de cette table",
           "tables en jeu sur le réseau local s'appellent"),
    "it": ("serve un tavolo i cui posti non sono quelli che la rete locale annuncia",
           "niente da guardare: nessun posto di questo tavolo",
           "tavoli in gioco sulla rete locale si chiamano"),
    "pt": ("serve uma mesa cujos lugares não são os que a rede local anuncia",
           "nada a assistir: nenhum lugar desta mesa",
           "mesas em jogo na rede local se chamam"),
    "nl": ("levert een tafel waarvan de plaatsen niet die zijn die het lokale netwerk meldt",
           "niet toegekeken: geen plaats van deze tafel",
           "tafels die spelen op het lokale netwerk heten"),
}


@pytest.mark.parametrize("lang", sorted(SAID))
def test_the_warning_and_the_refusal_in_every_language(lang: str) -> None:
    note, refusal, two = SAID[lang]
    i18n.set_language(lang, {})
    try:
        text = i18n._("{name} (key {key}) feeds a table whose seats are not those the "
                      "local network announces for this table (announced keys: "
                      "{announced}): it may be another table using its name; leaving it")
        assert note in text.format(name="x", key="k", announced="a")
        assert refusal in i18n._(
            "not watching: no seat of this table fed the table its players announce "
            "on the local network (another table may be using its name)")
        real = tuple(fingerprint(bytes([i]) * 32) for i in range(3))
        with pytest.raises(Impersonated, match=two):
            choose_watched([_listing("d", real, 1), _listing("d", real[:2], 2)], "d")
    finally:
        i18n.set_language("en", {})
