"""Property: honest seats with random seeds always complete a hand through the table
(deck v4, the current version), and every card any seat or ``gleek verify`` sees is the card full
knowledge of every seat's secret gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.deck.suites import Secp256k1Suite
from gleek_p2p.rules import VARIANTS
from gleek_p2p.table.secrets import hand_seed
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import selfplay


@settings(max_examples=3, deadline=None)
@given(seed=st.binary(min_size=8, max_size=8))
def test_honest_tables_complete_and_see_only_true_cards(seed: bytes) -> None:
    variant = VARIANTS["standard"]
    result = selfplay(variant, 1, seed, [RandomStrategy(seed + bytes([s])) for s in range(3)])
    tables = result.tables
    assert all(t.finished and t.verdict is None for t in tables)
    deck = tables[0]._m.deck
    assert deck is not None and deck.version == 4
    suite = deck._suite
    assert isinstance(suite, Secp256k1Suite)
    to_card = {point: card for card, point in enumerate(suite.card_points)}
    layers = [
        suite.shuffle_scalar(hand_seed(t._secret or b"", t.session_id, 0), deck.hand_id, s)
        for s, t in enumerate(tables)
    ]
    truth = {slot: to_card[suite.unstrip_all(point, layers)]
             for slot, point in enumerate(deck.final_deck)}
    assert sorted(truth.values()) == list(range(44))
    for table in tables:
        own = table._m.deck
        assert own is not None
        assert own.visible_cards().items() <= truth.items()
        state = table.hands[0].state
        assert all(c == truth[x] for x, c in enumerate(state.cards) if c >= 0)
    report = verify_records(result.records)
    assert report.fair
    public = report.hands[0].cards
    assert public.items() <= truth.items()
    # The discards were never opened to anyone but their holder.
    assert not set(report.hands[0].state.discards) & set(public)
