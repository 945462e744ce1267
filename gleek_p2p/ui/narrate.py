"""What just happened, in words: one sentence per engine event for the log pane.

``narrate`` is pure: it reads the event and the engine states before and
after it. It names only cards the ``after`` state knows, so narrating a
seat's own (masked) states never tells that seat a hidden card.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gleek_p2p.base.i18n import N_, _, pgettext
from gleek_p2p.rules import (
    Bid,
    ClaimTiddy,
    Cut,
    Deal,
    Declare,
    Discard,
    EndDeclare,
    Event,
    NameTrump,
    NoTiddy,
    PassBid,
    PassRuff,
    Phase,
    Play,
    Reveal,
    See,
    ShowRuff,
    State,
    Vie,
    combination_value,
    limits,
    ruff_pot,
    ruff_value,
)
from gleek_p2p.rules.cards import RANKS_PER_SUIT
from gleek_p2p.rules.scoring import LAST_TRICK
from gleek_p2p.rules.summary import hand_summary as _summary
from gleek_p2p.tools.report import GLEEK_WORDS, MOURNIVAL_WORDS

from .words import (
    SUIT_SYMBOLS,
    Namer,
    and_list,
    card_label,
    card_worth,
    pence,
    points,
    suit_name,
    tib_card,
    tom_card,
)

__all__ = ["NARRATIONS", "Narration", "hand_line", "hand_summary", "narrate"]

_OVER = (Phase.HAND_OVER, Phase.SESSION_OVER)


def narrate(
    event: Event,
    before: State,
    after: State,
    names: Sequence[str],
    you: int | None = None,
) -> str | None:
    """One sentence telling ``event`` (None for events not worth telling, like reveals).

    ``before``/``after`` are the engine states around the event; ``you`` is
    the seat reading the log (named "you"). The words are the chosen language's.
    """
    who = Namer(names, you)
    text = _event_text(event, before, after, who)
    if text is None:
        return None
    if after.phase in _OVER and before.phase not in _OVER:
        text += " " + hand_summary(after, who)
    return text


def _signed_list(who: Namer, amounts: Sequence[int]) -> str:
    return ", ".join(f"{who(s)} {pence(v, signed=True)}" for s, v in enumerate(amounts))


def hand_summary(state: State, who: Namer) -> str:
    """The result of the hand just scored, and the end of the session if it is."""
    if not state.ledgers:
        return ""
    ledger = state.ledgers[-1]
    text = _("Hand {number} is over: {results}.").format(
        number=ledger.hand + 1, results=_signed_list(who, ledger.net))
    if state.phase is Phase.SESSION_OVER:
        text += " " + _("The session is over: {totals}.").format(
            totals=_signed_list(who, state.totals))
    return text


def _card(state: State, slot: int) -> int | None:
    c = state.cards[slot] if 0 <= slot < len(state.cards) else -1
    return c if c >= 0 else None


def _suit(suit: int) -> str:
    return f"{suit_name(suit)} {SUIT_SYMBOLS[suit]}"


def _event_text(event: Event, before: State, after: State, who: Namer) -> str | None:
    tell = NARRATIONS.get(type(event))
    if tell is None:
        # Every kind registers its words below (tests/test_move_kinds.py checks).
        raise TypeError(f"no narration for {type(event).__name__}")
    return tell(event, before, after, who)


Narration = Callable[[Any, State, State, Namer], "str | None"]
"""How one event kind is told: ``(event, before, after, who)`` -> a sentence or None."""


def _reveal(event: Reveal, before: State, after: State, who: Namer) -> None:
    return None


def _cut(event: Cut, before: State, after: State, who: Namer) -> str:
    cut = ", ".join(f"{who(s)} {card_label(c)}" for s, c in enumerate(event.cards))
    return who.act(after.dealer, N_("The cut: {cut}. You deal first."),
                   N_("The cut: {cut}. {name} deals first."), cut=cut)


def _deal_event(event: Deal, before: State, after: State, who: Namer) -> str:
    return _deal(after, who)


def _discard(event: Discard, before: State, after: State, who: Namer) -> str:
    # Every discard so far, so that the last sentence tells them all.
    known = [c for x in after.discards if (c := _card(after, x)) is not None]
    count, total = len(after.discards), after.variant.discard_count
    if len(known) == count:
        return who.act(event.seat, N_("You discard {cards} ({count} of {total})."),
                       N_("{name} discards {cards} ({count} of {total})."),
                       cards=" ".join(card_label(c) for c in known), count=count,
                       total=total)
    return who.act(event.seat, N_("You discard {count} of {total} cards face down."),
                   N_("{name} discards {count} of {total} cards face down."),
                   count=count, total=total)


def _end_declare(event: EndDeclare, before: State, after: State, who: Namer) -> str | None:
    if any(seat == event.seat for seat, _slots in after.declarations):
        return None
    return who.act(event.seat, N_("You declare no combination."),
                   N_("{name} declares no combination."))


def _name_trump(event: NameTrump, before: State, after: State, who: Namer) -> str:
    if event.suit is None:
        return who.act(event.seat, N_("You call Kiss: no trump this hand."),
                       N_("{name} calls Kiss: no trump this hand."))
    return who.act(event.seat, N_("You name {suit} trump."), N_("{name} names {suit} trump."),
                   suit=_suit(event.suit))


def _claim_tiddy(event: ClaimTiddy, before: State, after: State, who: Namer) -> str:
    c = _card(after, event.slot)
    return who.act(event.seat,
                   N_("You show Tiddy, the {card}, and take {pence} pence from each."),
                   N_("{name} shows Tiddy, the {card}, and takes {pence} pence from each."),
                   card=card_label(c) if c is not None else "4",
                   pence=limits().tiddy_payment)


def _no_tiddy(event: NoTiddy, before: State, after: State, who: Namer) -> str | None:
    if after.phase is not Phase.TIDDY and after.tiddy_claimant < 0:
        return _("Nobody claims Tiddy.")
    return None


def _deal(after: State, who: Namer) -> str:
    eldest = (after.dealer + 1) % after.variant.players
    fields = {"number": after.hand_no + 1, "hands": after.session_hands,
              "dealer": who(after.dealer), "eldest": who(eldest)}
    if after.dealer == who.you:
        return _("Hand {number} of {hands}: You deal; {eldest} speaks first.").format(**fields)
    if eldest == who.you:
        return _("Hand {number} of {hands}: {dealer} deals; you speak first.").format(**fields)
    return _("Hand {number} of {hands}: {dealer} deals; {eldest} speaks first.").format(**fields)


def _auction(event: Bid | PassBid, before: State, after: State, who: Namer) -> str:
    if isinstance(event, Bid):
        text = who.act(event.seat, N_("You bid {amount}."), N_("{name} bids {amount}."),
                       amount=event.amount)
    else:
        text = who.act(event.seat, N_("You pass."), N_("{name} passes."))
    if after.phase is not Phase.AUCTION:
        if after.talon_taker >= 0:
            text += " " + who.act(
                after.talon_taker,
                N_("You take the talon for {bid} pence and discard {count}."),
                N_("{name} takes the talon for {bid} pence and discards {count}."),
                bid=after.high_bid, count=after.variant.discard_count)
        else:
            text += " " + _("Nobody bids: the talon is dead.")
    return text


def _ruff(event: Vie | See | PassRuff, before: State, after: State, who: Namer) -> str:
    if isinstance(event, Vie):
        text = who.act(event.seat, N_("You vie {amount}: the stake is {stake}."),
                       N_("{name} vies {amount}: the stake is {stake}."),
                       amount=event.raise_by, stake=after.ruff_stake)
    elif isinstance(event, See):
        text = who.act(event.seat, N_("You see the stake of {stake}."),
                       N_("{name} sees the stake of {stake}."), stake=after.ruff_stake)
    else:
        text = who.act(event.seat, N_("You pass on the ruff."), N_("{name} passes on the ruff."))
    if after.phase is Phase.RUFF_SHOW:
        text += " " + _("Showdown: each seat still in shows a suit.")
    elif before.phase is Phase.RUFF and after.phase is not Phase.RUFF and after.ruff_winner >= 0:
        text += " " + who.act(after.ruff_winner, N_("You take the ruff pot of {pot} pence."),
                              N_("{name} takes the ruff pot of {pot} pence."),
                              pot=ruff_pot(after))
    return text


def _show(event: ShowRuff, before: State, after: State, who: Namer) -> str:
    # In rank order, as the hand shows them (the slots' order is the deal's).
    cards = sorted(c for x in event.slots if (c := _card(after, x)) is not None)
    text = who.act(event.seat, N_("You show {suit}: {cards}, worth {value}."),
                   N_("{name} shows {suit}: {cards}, worth {value}."),
                   suit=suit_name(event.suit), cards=" ".join(card_label(c) for c in cards),
                   value=ruff_value(cards))
    if after.phase is not Phase.RUFF_SHOW and after.ruff_winner >= 0:
        text += " " + who.act(after.ruff_winner, N_("You win the ruff pot of {pot} pence."),
                              N_("{name} wins the ruff pot of {pot} pence."),
                              pot=ruff_pot(after))
    return text


def _declare(event: Declare, before: State, after: State, who: Namer) -> str:
    first = _card(after, event.slots[0])
    mournival = len(event.slots) == 4
    if first is None:
        if mournival:
            return who.act(event.seat, N_("You declare a mournival."),
                           N_("{name} declares a mournival."))
        return who.act(event.seat, N_("You declare a gleek."), N_("{name} declares a gleek."))
    rank = first % RANKS_PER_SUIT
    value = combination_value(rank, len(event.slots))
    v = after.variant
    if not v.modern_combinations:
        worth = _("{value} pence from each").format(value=value)
    elif v.score_sheet_combinations:
        worth = _("{value} points on the score sheet").format(value=value)
    else:
        worth = _("{value} pence in all").format(value=value)
    # The report's whole phrases ("gleek of Aces"): each language elides its own way
    # ("un gleek d'As"), which a rank glued after "gleek de" cannot.
    combination = _((MOURNIVAL_WORDS if mournival else GLEEK_WORDS)[rank])
    return who.act(event.seat, N_("You declare a {combination} ({worth})."),
                   N_("{name} declares a {combination} ({worth})."),
                   combination=combination, worth=worth)


def _play(event: Play, before: State, after: State, who: Namer) -> str:
    c = _card(after, event.slot)
    text = who.act(event.seat, N_("You play {card}."), N_("{name} plays {card}."),
                   card=card_label(c) if c is not None else _("a card"))
    if len(after.tricks) > len(before.tricks):
        _leader, plays, winner = after.tricks[-1]
        cards = [after.cards[x] for x in plays]
        score = sum(card_worth(x, after) for x in cards if x >= 0)
        extra = [h for h, card in (("Tib", tib_card(after)), ("Tom", tom_card(after)))
                 if card in cards]
        if len(after.tricks) == after.variant.tricks:
            # The last trick's bonus is its taker's too: told with the trick, the points
            # said add up to the hand's trick points, as Tib's and Tom's do.
            score += LAST_TRICK
            extra.append(_("the last trick's {bonus}").format(bonus=LAST_TRICK))
        fields = {"number": len(after.tricks), "points": points(score), "honours": and_list(extra)}
        if extra:
            text += " " + who.act(winner, N_("You take trick {number} ({points}, with {honours})."),
                                  N_("{name} takes trick {number} ({points}, with {honours})."),
                                  **fields)
        else:
            text += " " + who.act(winner, N_("You take trick {number} ({points})."),
                                  N_("{name} takes trick {number} ({points})."), **fields)
    return text


NARRATIONS: dict[type[Any], Narration] = {
    Reveal: _reveal,
    Cut: _cut,
    Deal: _deal_event,
    PassBid: _auction,
    Bid: _auction,
    Discard: _discard,
    PassRuff: _ruff,
    See: _ruff,
    Vie: _ruff,
    ShowRuff: _show,
    Declare: _declare,
    EndDeclare: _end_declare,
    NameTrump: _name_trump,
    NoTiddy: _no_tiddy,
    ClaimTiddy: _claim_tiddy,
    Play: _play,
}
"""Each event kind's words, keyed by its class: one entry per kind, system events too."""


def hand_line(state: State, names: Sequence[str], you: int | None = None) -> str:
    """A finished hand in one line: auction, ruff, combinations, trump, trick points, money.

    ``state`` is the state at the end of the hand (what ``gleek bot`` prints
    per hand). Only what the state knows is named.
    """
    s = _summary(state)
    who = Namer(names, you)
    parts = []
    if state.variant.has_auction:
        parts.append(_("auction: everybody passed") if s.auction is None else
                     _("auction: {name} took the talon for {bid}").format(
                         name=who(s.auction[0]), bid=s.auction[1]))
    if s.ruff is not None:
        winner, pot, suit = s.ruff
        parts.append((_("ruff: {name} won {pot}") if suit is None else
                      _("ruff: {name} won {pot} with {suit}")).format(
            name=who(winner), pot=pot, suit=_suit(suit) if suit is not None else ""))
    if s.declarations:
        combos = []
        for seat, slots in s.declarations:
            c = _card(state, slots[0])
            if c is None:
                kind = (N_("mournival of {ranks} ({name})") if len(slots) == 4
                        else N_("gleek of {ranks} ({name})"))
                combos.append(_(kind).format(name=who(seat), ranks="?"))
                continue
            # The report's whole phrases: each language elides its own way ("gleek d'As").
            # Its holder after it, in brackets: "vous gleek de Neuf" read as a verb.
            words = MOURNIVAL_WORDS if len(slots) == 4 else GLEEK_WORDS
            combos.append(_("{combination} ({name})").format(
                combination=_(words[c % RANKS_PER_SUIT]), name=who(seat)))
        parts.append(_("combinations: {combinations}").format(combinations=", ".join(combos)))
    if s.trump_named:
        parts.append(_("trump: {trump}").format(
            trump=_("Kiss (no trump)") if s.trump is None else _suit(s.trump)))
    if any(s.trick_points):
        parts.append(_("trick points: {points}").format(points=", ".join(
            f"{who(seat)} {p}" for seat, p in enumerate(s.trick_points))))
    parts.append(_("money: {amounts}").format(amounts=_signed_list(who, s.net)))
    # The separators are words too: French puts a no-break space before ":" and ";".
    return _("Hand {number}/{hands}: {parts}.").format(
        number=s.hand + 1, hands=s.hands, parts=pgettext("list", "; ").join(parts))
