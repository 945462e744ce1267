"""A short summary of the rules in the player's language, for a rules screen.

Written for this game as SPEC.md section 1 rules it (the standard game):
how a hand goes and how each phase is scored, not a copy of the rule texts.
Each paragraph is one catalog message; ``rules_summary`` wraps them to the
screen's width at the moment they are shown, so every language fits.
"""

from __future__ import annotations

import re
import textwrap

from gleek_p2p.base.i18n import N_, _
from gleek_p2p.rules import scoring
from gleek_p2p.rules.cards import RANK_LABELS, Rank, card
from gleek_p2p.rules.limits import limits
from gleek_p2p.rules.state import SESSION_HANDS
from gleek_p2p.rules.variant import Variant

SECTIONS: tuple[tuple[str, str], ...] = (
    (N_("The deal"),
     N_("{pack} cards: no 2s or 3s; in each suit A K Q J {ten} down to {lowest}. Each "
        "player gets {hand} cards and the other {talon} are the talon. The deal passes "
        "clockwise; the player on the dealer's left, the eldest, speaks first in every "
        "phase.")),
    (N_("1. Auction"),
     N_("From the eldest, bid for the talon: {opening} pence or more, then at least "
        "{step} more than the last bid; a pass is final. When two have passed, the last "
        "bidder pays the bid, half to each opponent, takes the talon and discards "
        "{discard} cards unseen. If all three pass, the talon stays dead.")),
    (N_("2. Ruff"),
     N_("Everyone antes {ante} pence. In turn, vie (raise the stake by {min_raise} to "
        "{max_raise}, at most {max_stake}), see (match the stake) or pass (out, losing "
        "what you put in). A last player left takes the pot unseen; otherwise each one "
        "still in shows all its cards of one suit, counted A {ace}, K Q J {court}, "
        "{ten} to {five} face value, {four} nothing. The highest ruff takes the pot; a "
        "tie goes to the player nearest the eldest.")),
    (N_("3. Combinations"),
     N_("In turn from the eldest, each player may declare a gleek (three of a rank) or "
        "a mournival (all four); declaring is optional, the order is not. Gleek: Aces "
        "{gleek_ace}, Kings, Queens or Jacks {gleek_court}, other ranks their face "
        "value. Mournival: Aces {mournival_ace}, Kings, Queens or Jacks "
        "{mournival_court}, others twice their value. Each opponent pays the declarer "
        "that much. The cards stay in hand, now seen by all.")),
    (N_("4. Trump and Tiddy"),
     N_("The auction winner (the eldest if all passed) names the trump suit, or Kiss: "
        "no trump, and then no Tib, Tom or Tiddy. The holder of the Four of trump, "
        "Tiddy, may show it and gets {tiddy} pence from each opponent.")),
    (N_("5. Tricks"),
     N_("The eldest leads; follow suit if you can, else play any card. The highest "
        "trump wins the trick, else the highest card of the suit led; the winner leads "
        "the next. There are {tricks} tricks.")),
    (N_("Scoring the tricks"),
     N_("Each player's trick score is the points of the cards it took (A {ace}, K Q J "
        "{court}, {ten} to {five} face value, the Four of trump {four_of_trump}), plus "
        "Tib {tib} for taking the Ace of trump, Tom {tom} for the Jack of trump and "
        "{last} for the last trick. The scores go on a score sheet: each player "
        "receives its whole score, half from each opponent, and pays each opponent half "
        "of theirs.")),
    (N_("The session"),
     N_("Every phase is settled in pence and sums to zero between the three players. "
        "After the last hand of the session ({hands} unless agreed otherwise) the "
        "highest total wins; a tie for first has no winner.")),
)
"""(heading, paragraph) pairs, in the order of a hand; their ``{fields}`` are :func:`facts`."""


def facts(variant: Variant | None = None) -> dict[str, int | str]:
    """Every number the summary states, read from the rules at the moment it is shown.

    Rank labels (``ten``, ``five``, ``four``, ``lowest``) are the cards' own
    labels; the rest are counts and pence of ``variant`` (the standard game).
    """
    v = Variant() if variant is None else variant
    table = limits(v)
    ace, king, four = (card(0, r) for r in (Rank.ACE, Rank.KING, Rank.FOUR))
    return {
        "pack": v.pack_size, "hand": v.hand_size, "talon": v.talon_size,
        "discard": v.discard_count, "tricks": v.tricks, "hands": SESSION_HANDS,
        "ten": RANK_LABELS[Rank.TEN], "five": RANK_LABELS[Rank.FIVE],
        "four": RANK_LABELS[Rank.FOUR], "lowest": RANK_LABELS[v.lowest_rank],
        "opening": table.opening_bid, "step": table.bid_step, "ante": table.ante,
        "min_raise": table.min_raise, "max_raise": table.max_raise,
        "max_stake": table.max_stake, "tiddy": table.tiddy_payment,
        "ace": scoring.ruff_points(ace), "court": scoring.ruff_points(king),
        "gleek_ace": scoring.combination_value(Rank.ACE, 3),
        "gleek_court": scoring.combination_value(Rank.KING, 3),
        "mournival_ace": scoring.combination_value(Rank.ACE, 4),
        "mournival_court": scoring.combination_value(Rank.KING, 4),
        "four_of_trump": scoring.card_points(four, 0),
        "tib": scoring.TIB, "tom": scoring.TOM, "last": scoring.LAST_TRICK,
    }


_LABEL_SPACE = re.compile(r"(?<=\b[AKQJRDVHB]) (?=[AKQJRDVHB]\b|\d)")
"""A space inside a run of card labels ("K Q J 3", "R D V 3", "A 11"), which must not end a line."""


def _keep_labels_together(text: str) -> str:
    # textwrap breaks only at ASCII whitespace: a no-break space holds the run.
    return _LABEL_SPACE.sub("\u00a0", text)


def rules_summary(width: int = 80) -> list[str]:
    """The summary in the chosen language as lines of at most ``width`` columns.

    A heading, its paragraph indented by two, and a blank line between
    sections; words are never cut (the narrowest sensible width is 40).
    """
    numbers = facts()
    lines: list[str] = [_("Gleek: the rules in short"), ""]
    for heading, paragraph in SECTIONS:
        lines.append(_(heading))
        text = _(paragraph).format(**numbers)
        lines.extend(textwrap.wrap(_keep_labels_together(text), width=width,
                                   initial_indent="  ", subsequent_indent="  ",
                                   break_long_words=False, break_on_hyphens=False))
        lines.append("")
    return lines[:-1]
