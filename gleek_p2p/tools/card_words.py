"""A card's label in the chosen language, for every screen and report that names cards.

The ranks are game facts (``rules.cards``); the letters printed for them are
words of each language, as each original text ranks the cards: K Q J in
English, Italian and Portuguese, R D V in French, H V B in Dutch. Here, below
``ui/``, so the verify report (``tools/report.py``) and the table screens say
the same letters.
"""

from __future__ import annotations

from gleek_p2p.base.i18n import pgettext
from gleek_p2p.rules.cards import RANK_LABELS, RANKS_PER_SUIT, SUIT_SYMBOLS, Rank

__all__ = ["card_label", "rank_label"]


def rank_label(rank: int) -> str:
    """The rank as printed on a card in the chosen language's text: K, R (fr), H (nl)...

    The rank itself is a game fact (``rules.cards``); its letter is a word of
    each language, as each original text ranks the cards.
    """
    if rank == Rank.ACE:
        return pgettext("card", "A")
    if rank == Rank.KING:
        return pgettext("card", "K")
    if rank == Rank.QUEEN:
        return pgettext("card", "Q")
    if rank == Rank.JACK:
        return pgettext("card", "J")
    return RANK_LABELS[rank]


def card_label(c: int) -> str:
    """A card's label in the chosen language, e.g. ``"R♠"`` in French for the King of spades."""
    return rank_label(c % RANKS_PER_SUIT) + SUIT_SYMBOLS[c // RANKS_PER_SUIT]
