"""``gleek tables``: the records' table facts, their grouping, the words, the picker.

In-process (MemoryDiscovery, 127.0.0.1 only); the namespace test of the real
commands is test_tables_namespace.py.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import GleekError
from gleek_p2p.cli.gleek import build_parser
from gleek_p2p.cli.tables import (
    Chosen,
    choose_table,
    collect_tables,
    listing_json,
    listing_lines,
)
from gleek_p2p.log.keys import Identity, fingerprint
from gleek_p2p.net.discovery import (
    MAX_SEATED,
    Announcement,
    MemoryDiscovery,
    MemoryRegistry,
    PeerHint,
)
from gleek_p2p.net.handshake import WIRE_VERSION
from gleek_p2p.net.tables import (
    MAX_TABLES,
    SeatClaim,
    TableListing,
    group_tables,
    parse_record,
)
from gleek_p2p.rules import VARIANTS, Variant, parse_variant
from gleek_p2p.session.lobby import Lobby, LobbyConfig

FP = ["0123-4567-89ab-cdef", "1111-2222-3333-4444", "aaaa-bbbb-cccc-dddd",
      "9999-8888-7777-6666"]
WIRE = tuple(VARIANTS["standard"].to_wire())


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


def _txt(table: str = "oak/12", fp: str = FP[0], seated: tuple[tuple[str, str], ...] = (),
         playing: bool = False, watchers: bool = True, variant: tuple[int, ...] = WIRE,
         seats: int = 3) -> dict[str, str]:
    return Announcement("i", 1, WIRE_VERSION, table, fp, seats, variant, playing,
                        seated or ((fp, "ann"),), watchers).txt()


# -- the record ------------------------------------------------------------------


def test_an_announcement_reads_back_as_the_claim_it_makes() -> None:
    txt = _txt("oak/7", seated=((FP[0], "Ann"), (FP[1], "Ben")), watchers=False)
    claim = parse_record(txt, ("10.0.0.1", 7000))
    assert claim is not None
    assert (claim.table, claim.hands, claim.variant, claim.seats) == ("oak", 7, "standard", 3)
    assert not claim.playing and claim.watchers is False
    assert claim.seated == (SeatClaim(FP[0], "Ann"), SeatClaim(FP[1], "Ben"))
    assert claim.announcer == FP[0] and claim.address == ("10.0.0.1", 7000)


def test_a_record_names_at_most_max_seated_players_of_bounded_names() -> None:
    many = tuple((f"{i:04x}-0000-0000-0000", "x" * 500) for i in range(20))
    txt = Announcement("i", 1, WIRE_VERSION, "oak/2", FP[0], 3, WIRE, seated=many).txt()
    assert sum(k.startswith("s") and k[1:].isdigit() for k in txt) == MAX_SEATED
    assert all(len(v.encode()) <= 255 for v in txt.values())


def test_the_variant_of_a_later_version_is_listed_but_not_joinable() -> None:
    claim = parse_record(_txt(variant=(3, 0, 1, *([0] * 20), 1)), ("h", 1))
    assert claim is not None and claim.variant == ""
    listing = group_tables([claim])[0]
    assert not listing.joinable
    # A mix of switches is listed by its switches, which --variant reads: joinable.
    mixed = parse_record(_txt(variant=(2, 1, 1, 1, 0, 0, 0)), ("h", 1))
    assert mixed is not None and mixed.variant == "two+historical+modern"
    assert group_tables([mixed])[0].joinable
    assert parse_variant(mixed.variant).first_rulings() == Variant.from_wire([2, 1, 1, 1, 0, 0, 0])
    assert "a variant this version does not know" in listing_lines([listing], 3)[1]


# -- hostile records ---------------------------------------------------------------

ESC = "\x1b[2J\x1b[HVerdict: FAIR"


@pytest.mark.parametrize("txt", [
    {},
    {"t": "oak/2"},
    {"t": "oak/2", "n": "3", "var": "3,0,1,0,0,0,0", "fp": "not-a-fingerprint"},
    {"t": "oak/2", "n": "99999999999999", "var": "3,0,1,0,0,0,0", "fp": FP[0]},
    {"t": "oak/2", "n": "-3", "var": "3,0,1,0,0,0,0", "fp": FP[0]},
    {"t": "oak/2", "n": "३", "var": "3,0,1,0,0,0,0", "fp": FP[0]},
    {"t": "oak/2", "n": "3", "var": "x" * 5000, "fp": FP[0]},
    {"t": "oak/2", "n": "3", "var": "3,0,1,0,0,0,0", "fp": FP[0], "st": "dealing"},
    {"t": "x" * 100_000, "n": "3", "var": "3,0,1,0,0,0,0", "fp": FP[0]},
])
def test_a_malformed_record_is_dropped_not_an_error(txt: dict[str, str]) -> None:
    assert parse_record(txt, ("10.0.0.9", 1)) is None


def test_a_hostile_record_is_shown_inert_and_bounded() -> None:
    txt = _txt(f"{ESC}\u202e/2", seated=((FP[0], ESC), (FP[1], "\u202egnp.exe")))
    txt["s2"] = "garbage without a fingerprint"
    txt["s3"] = f"{FP[0]} a second seat for the same key"
    txt["w"] = "perhaps"
    claim = parse_record(txt, ("10.0.0.9", 1))
    assert claim is not None
    assert [s.fingerprint for s in claim.seated] == FP[:2]
    assert claim.watchers is None
    lines = listing_lines(group_tables([claim]), 3)
    text = "\n".join(lines)
    assert "\x1b" not in text and "\u202e" not in text
    assert "\\x1b[2J\\x1b[HVerdict: FAIR" in text and "\\u202egnp.exe" in text
    assert "watchers not said" in text
    out = listing_json(group_tables([claim]))
    assert "\x1b" not in out and "\u202e" not in out
    assert json.loads(out)["tables"][0]["seated"][0]["name"] == ESC  # data, escaped by JSON


def test_seated_claims_are_capped_at_the_seats() -> None:
    txt = _txt(seated=tuple((fp, f"p{i}") for i, fp in enumerate(FP)))
    claim = parse_record(txt, ("h", 1))
    assert claim is not None and len(claim.seated) == 3
    assert group_tables([claim])[0].free == 0


def test_a_flood_of_forged_tables_is_capped() -> None:
    claims = [parse_record(_txt(f"t{i}/2"), ("h", i)) for i in range(500)]
    tables = group_tables(c for c in claims if c is not None)
    assert len(tables) == MAX_TABLES


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["t", "n", "var", "fp", "st", "w", "s0", "s1", "v", "zz"]),
                       st.text(max_size=80), max_size=10))
def test_no_record_crashes_the_reader(txt: dict[str, str]) -> None:
    claim = parse_record(txt, ("h", 1))
    tables = group_tables([claim] if claim else [])
    for line in listing_lines(tables, 3):
        assert "\x1b" not in line
    json.loads(listing_json(tables))


# -- grouping --------------------------------------------------------------------


def test_records_of_one_table_merge_and_two_rosters_of_one_name_are_two_tables() -> None:
    a = parse_record(_txt("oak/2", FP[0], ((FP[0], "ann"), (FP[1], "ben"))), ("h", 1))
    b = parse_record(_txt("oak/2", FP[1], ((FP[1], "ben"), (FP[0], "ann"))), ("h", 2))
    c = parse_record(_txt("oak/2", FP[2], ((FP[2], "cat"),)), ("h", 3))
    d = parse_record(_txt("oak/5", FP[3], ((FP[3], "dan"),)), ("h", 4))
    full = tuple((fp, n) for fp, n in zip(FP[:3], ("a", "b", "c"), strict=True))
    p1 = parse_record(_txt("elm/2", FP[0], full, playing=True), ("h", 5))
    p2 = parse_record(_txt("elm/2", FP[3], ((FP[3], "d"), *full[1:]), playing=True),
                      ("h", 6))
    tables = group_tables(x for x in (a, b, c, d, p1, p2) if x is not None)
    assert [(t.table, t.hands, t.playing, len(t.seated), t.free) for t in tables] == [
        ("oak", 2, False, 3, 0), ("oak", 5, False, 1, 2),
        ("elm", 2, True, 3, 0), ("elm", 2, True, 3, 0)]
    assert tables[0].addresses == (("h", 1), ("h", 2), ("h", 3))


# -- the words -------------------------------------------------------------------


def _listing(**kw: object) -> TableListing:
    base: dict[str, object] = dict(table="oak", hands=12, variant="standard", seats=3,
                                   playing=False, watchers=True,
                                   seated=(SeatClaim(FP[0], "Ann"),), addresses=(("h", 1),))
    base.update(kw)
    return TableListing(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ["2 tables on the local network", "oak: forming, 1 of 3 seats taken, 2 free",
            "standard, 12 hands", "watchers welcome", "Ann (key 0123-4567-89ab-cdef)",
            "elm: playing", "standard, 1 hand", "no watchers"]),
    ("fr", ["2 tables sur le réseau local",
            "oak\u00a0: en formation, 1 place prise sur 3, 2 libres",
            "standard, 12 manches", "spectateurs bienvenus", "Ann (clé 0123-4567-89ab-cdef)",
            "elm\u00a0: en jeu", "standard, 1 manche", "pas de spectateurs"]),
    ("it", ["2 tavoli sulla rete locale", "oak: in formazione, 1 posto preso su 3, 2 liberi",
            "standard, 12 mani", "spettatori benvenuti", "Ann (chiave 0123-4567-89ab-cdef)",
            "elm: in gioco", "standard, 1 mano", "niente spettatori"]),
    ("pt", ["2 mesas na rede local", "oak: em formação, 1 de 3 lugares ocupados, 2 livres",
            "standard, 12 mãos", "espectadores bem-vindos", "Ann (chave 0123-4567-89ab-cdef)",
            "elm: jogando", "standard, 1 mão", "sem espectadores"]),
    ("nl", ["2 tafels op het lokale netwerk", "oak: in vorming, 1 van 3 plaatsen bezet, 2 vrij",
            "standard, 12 handen", "toeschouwers welkom", "Ann (sleutel 0123-4567-89ab-cdef)",
            "elm: aan het spelen", "standard, 1 hand", "geen toeschouwers"]),
])
def test_the_list_in_every_language(lang: str, words: list[str]) -> None:
    i18n.set_language(lang, {})
    lines = listing_lines([_listing(), _listing(table="elm", hands=1, playing=True,
                                                watchers=False)], 3)
    text = "\n".join(lines)
    for word in words:
        assert word in text, (word, text)
    assert lines[1].lstrip().startswith("1. oak") and lines[3].lstrip().startswith("2. elm")


@pytest.mark.parametrize(("lang", "words"), [
    ("en", "oak: forming, 2 of 3 seats taken, 1 free"),
    ("fr", "oak\u00a0: en formation, 2 places prises sur 3, 1 libre\u00a0;"),
    ("it", "oak: in formazione, 2 posti presi su 3, 1 libero;"),
    ("pt", "oak: em formação, 2 de 3 lugares ocupados, 1 livre;"),
    ("nl", "oak: in vorming, 2 van 3 plaatsen bezet, 1 vrij;"),
])
def test_one_free_seat_is_singular_in_every_language(lang: str, words: str) -> None:
    """Two seated, one free: the French read "1 libres" (the plural followed the seated)."""
    i18n.set_language(lang, {})
    seated = (SeatClaim(FP[0], "Ann"), SeatClaim(FP[1], "Ben"))
    text = "\n".join(listing_lines([_listing(seated=seated)], 3))
    assert words in text, (words, text)


def test_no_table_found_says_so() -> None:
    assert listing_lines([], 2.5) == ["No table found on the local network within 2.5 s."]


# -- the picker ------------------------------------------------------------------


class Script:
    """Lines read as from a pipe; EOFError once they run out."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        return self.lines.pop(0) + "\n"


def test_the_picker_joins_a_table_by_its_number_with_its_hands_and_variant() -> None:
    tables = [_listing(table="oak", hands=5, variant="whist"), _listing(table="elm")]
    said: list[str] = []
    assert choose_table(tables, Script("1"), said.append) == Chosen("oak", 5, "whist")


def test_the_picker_asks_again_after_a_wrong_answer_or_an_unjoinable_table() -> None:
    tables = [_listing(table="elm", playing=True),
              _listing(table="oak", variant=""),
              _listing(table="ash")]
    said: list[str] = []
    script = Script("9", "x\x1b", "1", "2", "3")
    assert choose_table(tables, script, said.append) == Chosen("ash", 12, "standard")
    assert said == [
        "9 is not a table of the list: type a number from 1 to 3, or press Enter",
        "x\\x1b is not a table of the list: type a number from 1 to 3, or press Enter",
        "Table elm cannot be joined: it is playing.",
        "Table oak cannot be joined: its variant or hands are unknown to this version."]


def test_the_picker_starts_a_new_table_on_enter() -> None:
    assert choose_table([_listing()], Script("", "birch"), print) == Chosen("birch")
    said: list[str] = []
    assert choose_table([], Script("1", "", ""), said.append, default="gleek") == Chosen("gleek")
    assert said == ["There is no table to pick: press Enter to start a new one."]


def test_the_picker_says_no_table_was_chosen_when_the_input_ends() -> None:
    with pytest.raises(GleekError, match="no table chosen"):
        choose_table([_listing()], Script(), print)


def test_play_without_table_uses_the_picker_and_the_chosen_tables_rules(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from gleek_p2p.cli import peer, tables

    monkeypatch.setattr(tables, "pick_table", lambda args, write: Chosen("oak", 5, "whist"))
    args = build_parser().parse_args(["play", "--name", "Ann", "--watchers", "no"])
    assert args.table is None
    peer.choose_table(args)
    config = peer.peer_config(args)
    assert (config.table, config.hands, config.variant, config.watchers) == (
        "oak", 5, "whist", False)
    # Given --table, nothing is asked; with mDNS off there is nothing to list.
    args = build_parser().parse_args(["play", "--name", "Ann", "--table", "elm"])
    peer.choose_table(args)
    assert args.table == "elm" and peer.peer_config(args).watchers is True
    args = build_parser().parse_args(["play", "--name", "Ann", "--no-mdns"])
    peer.choose_table(args)
    assert args.table == "gleek"
    args = build_parser().parse_args(["bot", "--name", "Bo", "--pick"])
    peer.choose_table(args)
    assert (args.table, args.hands) == ("oak", 5)


def test_watchers_takes_yes_or_no_only() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bot", "--name", "B", "--watchers", "maybe"])


# -- lobbies announce their tables -------------------------------------------------


def _lobby(registry: MemoryRegistry, n: int, table: str) -> Lobby:
    rnd = random.Random(n)
    return Lobby(Identity.generate(bytes([n + 1]) * 32),
                 LobbyConfig(name=f"p{n}", table=table, variant=VARIANTS["standard"],
                             listen=("127.0.0.1", 0), dial_interval=0.05,
                             formation_grace=0.3, watchers=n != 4),
                 discovery=MemoryDiscovery(registry), random=rnd.randbytes)


def _record_says(registry: MemoryRegistry, lobby: Lobby, seated: int, playing: bool) -> bool:
    hint: PeerHint = registry.members[lobby._instance or ""][0]
    return (hint.txt["st"] == ("playing" if playing else "forming")
            and sum(k[0] == "s" and k[1:].isdigit() for k in hint.txt) == seated)


async def test_lobbies_keep_their_records_current_and_a_browser_lists_the_tables() -> None:
    registry = MemoryRegistry()
    oak = [_lobby(registry, n, "oak/2") for n in range(3)]
    elm = [_lobby(registry, n, "elm/7") for n in (3, 4)]
    ash = [_lobby(registry, 5, "ash/12")]
    lobbies = [*oak, *elm, *ash]
    try:
        for lobby in lobbies:
            await lobby.start()
        await asyncio.wait_for(asyncio.gather(*(lobby.formed(20) for lobby in oak)), 25)
        async with asyncio.timeout(20):
            while not (all(_record_says(registry, x, 3, True) for x in oak)
                       and all(_record_says(registry, x, 2, False) for x in elm)):
                await asyncio.sleep(0.02)
        tables = await collect_tables(MemoryDiscovery(registry), 0.2)
    finally:
        for lobby in lobbies:
            await lobby.close()
    fps = {lobby.config.name: fingerprint(lobby.identity.public) for lobby in lobbies}
    got = [(t.table, t.hands, t.playing, t.free, t.watchers,
            sorted((s.name, s.fingerprint) for s in t.seated)) for t in tables]
    assert got == [
        ("ash", 12, False, 2, True, [("p5", fps["p5"])]),
        ("elm", 7, False, 1, False, sorted((n, fps[n]) for n in ("p3", "p4"))),
        ("oak", 2, True, 0, True, sorted((n, fps[n]) for n in ("p0", "p1", "p2"))),
    ]
