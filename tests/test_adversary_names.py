"""Names a Hello carries but a roster cannot take, and tables no Hello can name.

A Hello's name is any 64 bytes without a control character; a roster's is 1
to 40 printable characters. A stranger joining a forming table with a name
in between (41 letters, or an invisible format character) used to be counted:
the table formed, and then every seat, the honest ones too, failed making the
roster and exited with an English error. The lobby now refuses such a Hello,
and a person's own name, table and hands are checked before the first dial
(a table picked from the LAN's records skips the flags' checks): a record
whose table no Hello can name, or whose hands no roster takes, is listed but
never joined or watched.
"""

from __future__ import annotations

import pytest
from adversary.net_clients import dial_with
from test_adversary_stranger import _forming_lobby
from test_tables import FP, Script, _txt

from gleek_p2p.base import i18n
from gleek_p2p.base.errors import GleekError, ProtocolError
from gleek_p2p.cli.tables import Chosen, _why_not, choose_table
from gleek_p2p.cli.watch import choose_watched
from gleek_p2p.log.keys import Identity
from gleek_p2p.net.connection import Refused
from gleek_p2p.net.discovery import MAX_SEATED
from gleek_p2p.net.messages import MAX_TABLE_BYTES, RefuseCode
from gleek_p2p.net.tables import group_tables, parse_record
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.lobby_status import LobbyStatus, PeerStatus
from gleek_p2p.session.play import check_seat_words
from gleek_p2p.table.roster import MAX_HANDS, MAX_NAME, Roster
from gleek_p2p.ui.panes.lobby import lobby_lines

STANDARD = VARIANTS["standard"]
UNSEATABLE = ["x" * (MAX_NAME + 1), "an\u200ename", "tab\u2028line", "\u00ad"]
"""Names a Hello carries (at most 64 bytes, no Cc character) that no roster takes."""


def _roster_refuses(name: str) -> bool:
    publics = tuple(Identity.generate(bytes([i + 1]) * 32).public for i in range(3))
    try:
        Roster(STANDARD, 1, publics, ("anne", "ben", name), b"n" * 16)
    except ProtocolError:
        return True
    return False


@pytest.mark.parametrize("name", UNSEATABLE)
async def test_a_stranger_whose_name_no_roster_takes_is_refused(name: str) -> None:
    assert _roster_refuses(name)  # what the lobby used to find out only once formed
    lobby = await _forming_lobby("names")
    try:
        with pytest.raises(Refused) as refused:
            await dial_with(("127.0.0.1", lobby.port), table="names", name=name)
        assert refused.value.by_peer
        assert refused.value.refusal.meaning is RefuseCode.NONE
        assert "cannot sit at a table" in refused.value.refusal.reason
        assert not lobby.formation.peers  # nothing counted
        # An honest peer still gets in after it.
        await dial_with(("127.0.0.1", lobby.port), table="names", name="bea")
    finally:
        await lobby.close()


SAID = {
    "en": ("cannot sit at a table", "a session has 1 to", "holds a control character",
           "is too long"),
    "fr": ("ne peut pas s'asseoir à une table", "une session compte de 1 à",
           "contient un caractère de contrôle", "est trop long"),
    "it": ("non può sedere a un tavolo", "una sessione ha da 1 a",
           "contiene un carattere di controllo", "è troppo lungo"),
    "pt": ("não pode sentar a uma mesa", "uma sessão tem de 1 a",
           "contém um caractere de controle", "é longo demais"),
    "nl": ("kan niet aan een tafel zitten", "een sessie telt 1 tot", "bevat een stuurteken",
           "is te lang"),
}


@pytest.mark.parametrize("lang", sorted(SAID))
def test_a_name_table_or_hands_no_table_takes_is_a_sentence_before_any_dial(lang: str) -> None:
    name, hands, control, long = SAID[lang]
    i18n.set_language(lang, {})
    try:
        for bad in UNSEATABLE:
            with pytest.raises(GleekError, match=name) as said:
                check_seat_words(bad, "oak", 2)
            assert str(MAX_NAME) in str(said.value)
        for count in (0, MAX_HANDS + 1):
            with pytest.raises(GleekError, match=hands):
                check_seat_words("anne", "oak", count)
        with pytest.raises(GleekError, match=control):
            check_seat_words("anne", "oak\tbranch", 2)
        table = "é" * ((MAX_TABLE_BYTES - 2) // 2)  # 62 bytes: with "/2" it fits
        assert check_seat_words("anne", table, 2) == f"{table}/2"
        with pytest.raises(GleekError, match=long) as said:
            check_seat_words("anne", table, 12)  # 65 bytes
        assert str(MAX_TABLE_BYTES) in str(said.value)
    finally:
        i18n.set_language("en", {})


@pytest.mark.parametrize("t", [
    "é" * 32 + "/3",  # 66 bytes: fits the record's 69 characters, not a Hello
    f"oak/{MAX_HANDS + 1}",
    "oak\x1b[2J/3",
])
def test_a_table_no_peer_can_sit_at_is_listed_but_never_joined_or_watched(t: str) -> None:
    claim = parse_record(_txt(t), ("10.0.0.9", 1))
    assert claim is not None and claim.hands is not None and not claim.sittable
    listing = group_tables([claim])[0]
    assert not listing.joinable
    why = _why_not(listing)
    assert why is not None and "no peer can sit at it" in why and str(MAX_HANDS) in why
    playing = parse_record(_txt(t, seated=((FP[0], "a"), (FP[1], "b"), (FP[2], "c")),
                                playing=True), ("10.0.0.9", 1))
    assert playing is not None
    with pytest.raises(GleekError):
        choose_watched(group_tables([playing]), None)
    # The same table with a name and hands a Hello carries is joinable.
    fine = parse_record(_txt("oak/3"), ("10.0.0.9", 1))
    assert fine is not None and group_tables([fine])[0].joinable


FULL_SAID = {"en": "anyone on the local network can announce that",
             "fr": "n'importe qui sur le réseau local",
             "it": "chiunque sulla rete locale",
             "pt": "qualquer um na rede local",
             "nl": "iedereen op het lokale netwerk"}


@pytest.mark.parametrize("lang", sorted(FULL_SAID))
def test_a_stranger_claiming_every_seat_of_a_forming_table_cannot_keep_people_out(
        lang: str) -> None:
    # The table's own record: Ann, alone, two seats free.
    real = parse_record(_txt("oak/12", fp=FP[0]), ("10.0.0.1", 7000))
    # A stranger's record for the same table (same t, var, n, v) claiming two
    # more keys: merged as one table, it shows every seat taken.
    forged = parse_record(_txt("oak/12", fp=FP[1], seated=((FP[1], "x"), (FP[2], "y"))),
                          ("10.0.0.66", 9))
    assert real is not None and forged is not None
    tables = group_tables([real, forged])
    assert len(tables) == 1 and tables[0].free == 0
    said: list[str] = []
    i18n.set_language(lang, {})
    try:
        chosen = choose_table(tables, Script("1"), said.append)
    finally:
        i18n.set_language("en", {})
    # The picker used to refuse it ("every seat is taken"): it now dials, and says why.
    assert chosen == Chosen("oak", 12, "standard")
    assert len(said) == 1 and FULL_SAID[lang] in said[0] and "oak" in said[0]


def test_a_stranger_announcing_a_playing_table_cannot_push_its_seats_out_of_the_list() -> None:
    roster = ((FP[0], "Ann"), (FP[1], "Ben"), (FP[2], "Cat"))
    own = [parse_record(_txt("oak/12", fp=FP[i], seated=roster, playing=True),
                        ("192.168.1.10", 7000 + i)) for i in range(3)]
    # Ten records from lower addresses, claiming the same roster (and the
    # announcer keys of two seats): only the lowest MAX_SEATED addresses were kept.
    forged = [parse_record(_txt("oak/12", fp=FP[i % 2] if i < 2 else FP[3], seated=roster,
                                playing=True), ("10.0.0.66", 1 + i)) for i in range(10)]
    claims = [c for c in (*own, *forged) if c is not None]
    assert len(claims) == 13 and MAX_SEATED < 10
    tables = group_tables(claims)
    assert len(tables) == 1
    addresses = tables[0].addresses
    assert {("192.168.1.10", 7000 + i) for i in range(3)} <= set(addresses)
    assert len(addresses) == 13
    # Announcers claiming a seated key come first (the table's own, two forged).
    assert set(addresses[:5]) == {*(("192.168.1.10", 7000 + i) for i in range(3)),
                                  ("10.0.0.66", 1), ("10.0.0.66", 2)}
    chosen = choose_watched(tables, "oak")
    assert ("192.168.1.10", 7002) in chosen.addresses


def test_a_watcher_named_with_direction_overrides_shows_inert_in_the_lobby() -> None:
    # A watcher's Hello name is not held to a roster's rule: U+202E (right-to-left
    # override) and U+2028 (line separator) passed the Hello and reached the
    # lobby pane raw, where "\u202eRIAF :tcidreV" reads "Verdict: FAIR".
    me = PeerStatus("Anne", FP[0])
    hostile = "\u202eRIAF :tcidreV\u2028seat 1 Ben"
    status = LobbyStatus(table="oak", seats=3, me=me, peers=(), formed=True,
                         watchers=(PeerStatus(hostile, FP[3]),))
    lines = lobby_lines(status)
    text = "\n".join(lines)
    assert "\u202e" not in text and "\u2028" not in text
    assert any("\\u202eRIAF :tcidreV\\u2028seat 1 Ben" in line for line in lines)


SITTABLE_SAID = {"en": "no peer can sit at it", "fr": "aucun pair ne peut s'y asseoir",
                 "it": "nessun pari può sedervisi", "pt": "nenhum par pode sentar nela",
                 "nl": "geen peer kan eraan zitten"}


@pytest.mark.parametrize("lang", sorted(SITTABLE_SAID))
def test_why_a_table_no_peer_can_sit_at_is_not_joined_in_every_language(lang: str) -> None:
    claim = parse_record(_txt("é" * 32 + "/3"), ("10.0.0.9", 1))
    assert claim is not None
    said: list[str] = []
    i18n.set_language(lang, {})
    try:
        with pytest.raises(GleekError):  # the input ends after the refused number
            choose_table(group_tables([claim]), Script("1"), said.append)
    finally:
        i18n.set_language("en", {})
    assert len(said) == 1 and SITTABLE_SAID[lang] in said[0], said
    assert str(MAX_TABLE_BYTES) in said[0] and str(MAX_HANDS) in said[0]
