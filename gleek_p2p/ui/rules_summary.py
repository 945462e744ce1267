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

SECTIONS: tuple[tuple[str, str], ...] = (
    (N_("The deal"),
     N_("44 cards: no 2s or 3s; in each suit A K Q J 10 down to 4. Each player gets 12 "
        "cards and the other 8 are the talon. The deal passes clockwise; the player on "
        "the dealer's left, the eldest, speaks first in every phase.")),
    (N_("1. Auction"),
     N_("From the eldest, bid for the talon: 13 pence or more, then at least 1 more "
        "than the last bid; a pass is final. When two have passed, the last bidder "
        "pays the bid, half to each opponent, takes the talon and discards 7 cards "
        "unseen. If all three pass, the talon stays dead.")),
    (N_("2. Ruff"),
     N_("Everyone antes 2 pence. In turn, vie (raise the stake by 1 to 5, at most "
        "20), see (match the stake) or pass (out, losing what you put in). A last "
        "player left takes the pot unseen; otherwise each one still in shows all its "
        "cards of one suit, counted A 11, K Q J 3, 10 to 5 face value, 4 nothing. The "
        "highest ruff takes the pot; a tie goes to the player nearest the eldest.")),
    (N_("3. Combinations"),
     N_("In turn from the eldest, each player may declare a gleek (three of a rank) "
        "or a mournival (all four); declaring is optional, the order is not. Gleek: "
        "Aces 8, Kings, Queens or Jacks 4, other ranks their face value. Mournival: "
        "Aces 16, Kings, Queens or Jacks 8, others twice their value. Each opponent "
        "pays the declarer that much. The cards stay in hand, now seen by all.")),
    (N_("4. Trump and Tiddy"),
     N_("The auction winner (the eldest if all passed) names the trump suit, or Kiss: "
        "no trump, and then no Tib, Tom or Tiddy. The holder of the Four of trump, "
        "Tiddy, may show it and gets 2 pence from each opponent.")),
    (N_("5. Tricks"),
     N_("The eldest leads; follow suit if you can, else play any card. The highest "
        "trump wins the trick, else the highest card of the suit led; the winner "
        "leads the next. There are 12 tricks.")),
    (N_("Scoring the tricks"),
     N_("Each player's trick score is the points of the cards it took (A 11, K Q J "
        "3, 10 to 5 face value, the Four of trump 4), plus Tib 15 for taking the Ace "
        "of trump, Tom 9 for the Jack of trump and 4 for the last trick. The scores "
        "go on a score sheet: each player receives its whole score, half from each "
        "opponent, and pays each opponent half of theirs.")),
    (N_("The session"),
     N_("Every phase is settled in pence and sums to zero between the three players. "
        "After the last hand of the session (12 unless agreed otherwise) the highest "
        "total wins; a tie for first has no winner.")),
)
"""(heading, paragraph) pairs, in the order of a hand."""


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
    lines: list[str] = [_("Gleek: the rules in short"), ""]
    for heading, paragraph in SECTIONS:
        lines.append(_(heading))
        lines.extend(textwrap.wrap(_keep_labels_together(_(paragraph)), width=width,
                                   initial_indent="  ", subsequent_indent="  ",
                                   break_long_words=False, break_on_hyphens=False))
        lines.append("")
    return lines[:-1]
