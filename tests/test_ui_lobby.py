"""The lobby on the screen: who is connected, with keys, until the table forms; i shows them."""

from __future__ import annotations

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_ui_help_at_table import seated

from gleek_p2p.log.keys import fingerprint
from gleek_p2p.session.lobby_status import LobbyStatus, PeerStatus
from gleek_p2p.ui.app import HumanPlayer


def _status(*peers: tuple[str, str]) -> LobbyStatus:
    return LobbyStatus(table="gleek", seats=3, me=PeerStatus("Anne", "0817-8d4b-b8d7-84bb"),
                       peers=tuple(PeerStatus(name, key) for name, key in peers))


def test_connected_players_and_keys_stay_until_the_table_forms() -> None:
    with create_pipe_input() as inp:
        human = HumanPlayer(input=inp, output=DummyOutput())
        assert "nobody yet" in human.screen.dump()
        human.show_lobby(_status(("Thomas", "a1b2-c471-3acc-4299")))
        for i in range(8):  # notes scroll the log; the lobby stays put
            human.note(f"event {i}")
        text = human.screen.dump()
        assert "nobody yet" not in text
        assert "Thomas" in text and "a1b2-c471-3acc-4299" in text
        assert "waiting for 1 more player" in text
        human.show_lobby(_status(("Thomas", "a1b2-c471-3acc-4299"),
                                 ("Mary", "048b-5668-7f86-8fa5")))
        assert "048b-5668-7f86-8fa5" in human.screen.dump()
        human.screen.press("i")
        assert "Who is at the table" in human.screen.dump()
        assert "048b-5668-7f86-8fa5" in human.screen.dump()


def test_i_shows_every_seat_and_key_during_play() -> None:
    tables = seated(b"ui-lobby", ["Anne", "Bob", "Carol"])
    with create_pipe_input() as inp:
        human = HumanPlayer(input=inp, output=DummyOutput())
        human.update(tables[0], (), None)
        human.screen.press("i")
        text = human.screen.dump()
        for seat, public in enumerate(tables[0].roster.publics):
            assert fingerprint(public) in text
            assert f"seat {seat}: {tables[0].roster.names[seat]}" in text
        assert "(you)" in text
        human.screen.press("x")
        assert human.screen.overlay is None
