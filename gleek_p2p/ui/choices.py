"""The decision being made at the keyboard: a cursor over the legal moves.

A ``Chooser`` turns a decision's legal moves into options with words and
hot keys, and moves a cursor over them. It knows nothing of prompt_toolkit:
the key handlers call ``move``, ``digit``, ``letter`` and ``chosen``, so
every decision kind can be tested as plain Python.

Cards (a play, a discard) are picked in the hand itself: the options are the
legal cards in hand order. The discard marks its cards one by one and
commits them together once confirmed. Everything else is a one-line menu;
a typed amount is what Enter commits, and a key that does nothing says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gleek_p2p.base.i18n import _, ngettext
from gleek_p2p.rules import (
    MAX_RAISE,
    MAX_STAKE,
    Bid,
    ClaimTiddy,
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
    See,
    ShowRuff,
    State,
    Vie,
    bid_range,
    card_rank,
    card_suit,
    limits,
    max_bid,
    ruff_value,
)
from gleek_p2p.tools.report import GLEEK_WORDS, MOURNIVAL_WORDS

from .words import SUIT_SYMBOLS, card_label, suit_name

__all__ = ["CHOICES", "FAR_ABOVE", "PROMPTS", "Choice", "Chooser", "Option", "choice_of",
           "made_at_once"]

_SUIT_KEYS = ("s", "h", "d", "c")

FAR_ABOVE = 10
"""A bid this many pence above the lowest one allowed is asked about once."""


@dataclass(frozen=True)
class Option:
    """One legal move with its label, the hot keys that select it and its card slots."""

    label: str
    event: Event
    keys: tuple[str, ...] = ()
    number: int | None = None
    slots: tuple[int, ...] = ()


class Chooser:
    """A cursor over the legal moves of one decision."""

    def __init__(self, legal: Sequence[Event], state: State, seat: int) -> None:
        if not legal:
            raise ValueError("a decision needs at least one legal move")
        self.legal = tuple(legal)
        self.seat = seat
        self.typed = ""
        self.phase = state.phase
        self.cards = all(choice_of(e).in_hand for e in legal)
        """Whether every option is a card picked in the hand itself (not a menu)."""
        self.options: list[Option]
        self.prompt: str
        self.cursor = 0
        self.message = ""
        """Why the last key did nothing, or what it is waiting for (shown under the prompt)."""
        self.picks = 0
        """Cards to mark before confirming (the discard), else 0."""
        self.marked: list[int] = []
        """Option indices marked so far (the discard)."""
        self._asked: Event | None = None
        self._most_bid = max_bid(state.variant)
        self._build(state)

    # ----------------------------------------------------------- building

    def _build(self, state: State) -> None:
        # Each move gives its own option (its kind's entry in CHOICES); the
        # decision's phase gives the prompt and the order, so one decision may
        # offer several kinds.
        prompt = PROMPTS.get(self.phase)
        if prompt is None:
            raise ValueError(f"no prompt for a decision during {self.phase.value}")
        self.options = [choice_of(e).option(self, e, state) for e in self.legal]
        prompt(self, state)
        if not self.cards:
            self.cursor = self._default(state)

    # One prompt per phase (found in ``PROMPTS`` by the decision's phase): it
    # orders the options and sets the prompt.

    def _sort_by_card(self, state: State) -> None:
        cards = state.cards
        picked = [o for o in self.options if o.slots]
        others = [o for o in self.options if not o.slots]
        self.options = sorted(picked, key=lambda o: cards[o.slots[0]]) + others

    def _prompt_discard(self, state: State) -> None:
        self._sort_by_card(state)
        self.picks = state.variant.discard_count - len(state.discards)
        self.prompt = self._discard_prompt()

    def _prompt_tricks(self, state: State) -> None:
        self._sort_by_card(state)
        cards = state.cards
        if state.trick_plays:
            led = card_suit(cards[state.trick_plays[0]])
            self.prompt = _("Play a card ({suit} led)").format(
                suit=f"{suit_name(led)} {SUIT_SYMBOLS[led]}")
        else:
            self.prompt = _("Lead a card to the trick")

    def _prompt_auction(self, state: State) -> None:
        low, high = bid_range(state)
        self.prompt = _("The auction for the talon: bid {low} to {high} (type it) or pass"
                        ).format(low=low, high=high)

    def _prompt_ruff(self, state: State) -> None:
        raises = [o.number for o in self.options if o.number is not None]
        fields = {"stake": state.ruff_stake, "put": state.ruff_put[self.seat],
                  "low": min(raises, default=0), "high": max(raises, default=0)}
        # "see" only when it is offered: at stake 0, or with the stake put, it is not.
        sees = any(isinstance(o.event, See) for o in self.options)
        if not raises:
            prompt = _("The ruff: stake {stake}, you have put {put}; see or pass")
        elif fields["low"] == fields["high"]:
            prompt = (_("The ruff: stake {stake}, you have put {put}; vie {low} (type it),"
                        " see or pass") if sees else
                      _("The ruff: stake {stake}, you have put {put}; vie {low} (type it)"
                        " or pass"))
        else:
            prompt = (_("The ruff: stake {stake}, you have put {put}; vie (type {low}-{high}),"
                        " see or pass") if sees else
                      _("The ruff: stake {stake}, you have put {put}; vie (type {low}-{high})"
                        " or pass"))
        self.prompt = prompt.format(**fields)

    def _prompt_show_ruff(self, state: State) -> None:
        self.prompt = _("Ruff showdown: show all your cards of one suit")

    def _prompt_declare(self, state: State) -> None:
        self.prompt = _("Combinations: declare those you want paid, then done")

    def _prompt_trump(self, state: State) -> None:
        self.prompt = _("Name the trump suit")

    def _prompt_tiddy(self, state: State) -> None:
        self.options.sort(key=lambda o: not isinstance(o.event, ClaimTiddy))
        self.prompt = _("Tiddy: show the Four of trump for {pence} pence from each?").format(
            pence=limits().tiddy_payment)

    def _default(self, state: State) -> int:
        """Where the cursor starts: the move least likely to cost if Enter is hit at once."""
        for i, o in enumerate(self.options):
            if isinstance(o.event, See | Declare | ClaimTiddy):
                return i
        if self.phase is Phase.RUFF_SHOW:
            best = max(range(len(self.options)),
                       key=lambda i: ruff_value(state.cards[x] for x in self.options[i].slots))
            return best
        if self.phase is Phase.TRUMP:
            hand = [state.cards[x] for x in state.holding[self.seat] if state.cards[x] >= 0]
            counts = [sum(1 for c in hand if card_suit(c) == s) for s in range(4)]
            for i, o in enumerate(self.options):
                ev = o.event
                if isinstance(ev, NameTrump) and ev.suit == counts.index(max(counts)):
                    return i
        return 0

    # ----------------------------------------------------------- keys

    @property
    def current(self) -> Option:
        return self.options[self.cursor]

    def move(self, delta: int) -> None:
        """Move the cursor by ``delta`` (clamped to the options)."""
        self.typed = ""
        self.cursor = max(0, min(len(self.options) - 1, self.cursor + delta))

    def home(self) -> None:
        self.move(-len(self.options))

    def end(self) -> None:
        self.move(len(self.options))

    def digit(self, d: str) -> bool:
        """Type a digit of an amount (a bid, a raise); True if it selected an option."""
        numbered = {o.number: i for i, o in enumerate(self.options) if o.number is not None}
        if not numbered:
            return False
        typed = self.typed + d
        if len(typed) > len(str(max(numbered))):
            typed = d  # a digit past the longest amount starts a new one
        self.typed = typed
        index = numbered.get(int(typed))
        if index is None:
            return False
        self.cursor = index
        return True

    def backspace(self) -> None:
        self.typed = self.typed[:-1]
        if self.typed:
            index = {o.number: i for i, o in enumerate(self.options)}.get(int(self.typed))
            if index is not None:
                self.cursor = index

    def letter(self, key: str) -> bool:
        """A hot key: the next option it names after the cursor; True if it moved."""
        key = key.lower()
        n = len(self.options)
        for step in range(1, n + 1):
            i = (self.cursor + step) % n
            if key in self.options[i].keys:
                self.typed = ""
                self.cursor = i
                return True
        return False

    def chosen(self) -> Event:
        """The move under the cursor."""
        return self.options[self.cursor].event

    # ----------------------------------------------------------- one key

    def press(self, key: str) -> tuple[Event, ...]:
        """Handle one key by name; the moves it commits (usually none or one).

        Enter commits a typed amount if one is typed, else the option under
        the cursor; an amount out of range, a key that does nothing and a bid
        far above the lowest one are answered in ``message`` instead.
        """
        self.message = ""
        asked, self._asked = self._asked, None
        if key in ("left", "up"):
            self.move(-1)
        elif key in ("right", "down", "tab"):
            self.move(1)
        elif key == "home":
            self.home()
        elif key == "end":
            self.end()
        elif key == "backspace":
            self.backspace()
        elif key == "escape":
            self.typed = ""
            if self.picks:
                self.marked.clear()
                self.prompt = self._discard_prompt()
        elif key.isdigit() and len(key) == 1:
            self._digit_key(key)
        elif self.picks and key in (" ", "enter"):
            return self._mark(key == "enter")
        elif key == "enter":
            return self._enter(asked)
        elif len(key) == 1 and self.letter(key):
            pass
        else:
            shown = _("Space") if key == " " else key
            self.message = _("The key {key} does nothing here; ? lists the keys.").format(
                key=shown)
        return ()

    def _numbers(self) -> dict[int, int]:
        return {o.number: i for i, o in enumerate(self.options) if o.number is not None}

    def _digit_key(self, d: str) -> None:
        numbered = self._numbers()
        if not numbered:
            self.message = _("There is no amount to type here.")
            return
        self.digit(d)
        typed = int(self.typed)
        if typed not in numbered and (typed > max(numbered)
                                      or len(self.typed) >= len(str(max(numbered)))):
            self.message = self._range_reason(typed)

    def _range_reason(self, amount: int) -> str:
        numbers = self._numbers()
        low, high = min(numbers), max(numbers)
        if isinstance(self.options[numbers[low]].event, Bid):
            if high == self._most_bid:
                # The highest bid offered is the bound itself: said once, not twice.
                return _("{amount} is not a bid you may make: bids go from {low} to {high}"
                         " pence.").format(amount=amount, low=low, high=high)
            return _("{amount} is not a bid you may make: bids go from {low} to {high}"
                     " pence (at most {most}).").format(amount=amount, low=low, high=high,
                                                       most=self._most_bid)
        if high == MAX_RAISE:
            return _("{amount} is not a raise you may make: raise by {low} to {high}"
                     " (the stake is at most {stake}).").format(
                amount=amount, low=low, high=high, stake=MAX_STAKE)
        return _("{amount} is not a raise you may make: raise by {low} to {high}"
                 " (a raise is at most {most}, the stake {stake}).").format(
            amount=amount, low=low, high=high, most=MAX_RAISE, stake=MAX_STAKE)

    def _enter(self, asked: Event | None) -> tuple[Event, ...]:
        if self.typed:
            amount = int(self.typed)
            index = self._numbers().get(amount)
            if index is None:
                self.message = self._range_reason(amount)
                self.typed = ""
                return ()
            self.cursor = index
        event = self.chosen()
        if isinstance(event, Bid) and event != asked:
            low = min(self._numbers())
            if event.amount >= low + FAR_ABOVE:
                self._asked = event
                self.message = _("Bid {amount}, {above} above the lowest ({low})? Enter: yes,"
                                 " any other key: change.").format(
                    amount=event.amount, above=event.amount - low, low=low)
                return ()
        self.typed = ""
        return (event,)

    # ----------------------------------------------------------- the discard

    def _discard_prompt(self) -> str:
        n = self.picks
        if len(self.marked) == n:
            return ngettext("Discard this card face down? Enter: yes · Space: change it",
                            "Discard these {n} face down? Enter: yes · Space: change one",
                            n).format(n=n)
        return ngettext("Mark {n} card to discard face down: {marked} marked"
                        " (Space or Enter marks or unmarks)",
                        "Mark {n} cards to discard face down: {marked} marked"
                        " (Space or Enter marks or unmarks)", n).format(n=n,
                                                                        marked=len(self.marked))

    def _mark(self, enter: bool) -> tuple[Event, ...]:
        if enter and len(self.marked) == self.picks:
            events = tuple(self.options[i].event for i in sorted(
                self.marked, key=lambda i: self.options[i].slots[0]))
            self.marked.clear()
            return events
        if self.cursor in self.marked:
            self.marked.remove(self.cursor)
        elif len(self.marked) < self.picks:
            self.marked.append(self.cursor)
        else:
            self.message = ngettext("{n} card is marked already: unmark it (Space)"
                                    " or discard it (Enter).",
                                    "{n} cards are marked already: unmark one (Space)"
                                    " or discard them (Enter).", self.picks).format(n=self.picks)
        self.prompt = self._discard_prompt()
        return ()

    def slot_chosen(self, slot: int) -> bool:
        """Whether ``slot`` is marked to be discarded."""
        return any(slot in self.options[i].slots for i in self.marked)

    def slot_marked(self, slot: int) -> bool:
        """Whether ``slot`` belongs to a legal option (a card that may be picked)."""
        return any(slot in o.slots for o in self.options)


# ---------------------------------------------------------------- per kind


@dataclass(frozen=True)
class Choice:
    """How one move kind is offered at the keyboard."""

    option: Callable[[Chooser, Any, State], Option]
    """The move's option: its label, hot keys, typed amount and card slots."""
    in_hand: bool = False
    """Picked in the hand itself (a card), so it is never made at once, even when forced."""


def _card_option(chooser: Chooser, e: Play | Discard, state: State) -> Option:
    c = state.cards[e.slot]
    keys = (_SUIT_KEYS[card_suit(c)],) if c >= 0 else ()
    return Option(card_label(c) if c >= 0 else "??", e, keys, slots=(e.slot,))


def _pass_bid_option(chooser: Chooser, e: PassBid, state: State) -> Option:
    return Option(_("pass"), e, ("p",))


def _bid_option(chooser: Chooser, e: Bid, state: State) -> Option:
    return Option(_("bid {amount}").format(amount=e.amount), e, number=e.amount)


def _vie_option(chooser: Chooser, e: Vie, state: State) -> Option:
    return Option(_("vie +{amount}").format(amount=e.raise_by), e, number=e.raise_by)


def _see_option(chooser: Chooser, e: See, state: State) -> Option:
    return Option(_("see {stake}").format(stake=state.ruff_stake), e, ("s",))


def _pass_ruff_option(chooser: Chooser, e: PassRuff, state: State) -> Option:
    return Option(_("pass"), e, ("p",))


def _show_ruff_option(chooser: Chooser, e: ShowRuff, state: State) -> Option:
    shown = sorted(state.cards[x] for x in e.slots)
    label = (f"{SUIT_SYMBOLS[e.suit]} {' '.join(card_label(c) for c in shown)}"
             f" = {ruff_value(shown)}")
    return Option(label, e, (_SUIT_KEYS[e.suit],), slots=e.slots)


def _declare_option(chooser: Chooser, e: Declare, state: State) -> Option:
    rank = card_rank(state.cards[e.slots[0]])
    # Whole phrases, as the report says them ("gleek d'As", not "gleek de As").
    label = _((MOURNIVAL_WORDS if len(e.slots) == 4 else GLEEK_WORDS)[rank])
    return Option(label, e, slots=e.slots)


def _end_declare_option(chooser: Chooser, e: EndDeclare, state: State) -> Option:
    return Option(_("done declaring"), e, ("n",))


def _trump_option(chooser: Chooser, e: NameTrump, state: State) -> Option:
    if e.suit is None:
        return Option(_("Kiss (no trump)"), e, ("k",))
    return Option(f"{SUIT_SYMBOLS[e.suit]} {suit_name(e.suit)}", e, (_SUIT_KEYS[e.suit],))


def _claim_tiddy_option(chooser: Chooser, e: ClaimTiddy, state: State) -> Option:
    label = _("claim Tiddy ({card})").format(card=card_label(state.cards[e.slot]))
    return Option(label, e, ("y",), slots=(e.slot,))


def _no_tiddy_option(chooser: Chooser, e: NoTiddy, state: State) -> Option:
    return Option(_("no claim"), e, ("n",))


CHOICES: dict[type[Any], Choice] = {
    PassBid: Choice(_pass_bid_option),
    Bid: Choice(_bid_option),
    Discard: Choice(_card_option, in_hand=True),
    PassRuff: Choice(_pass_ruff_option),
    See: Choice(_see_option),
    Vie: Choice(_vie_option),
    ShowRuff: Choice(_show_ruff_option),
    Declare: Choice(_declare_option),
    EndDeclare: Choice(_end_declare_option),
    NameTrump: Choice(_trump_option),
    NoTiddy: Choice(_no_tiddy_option),
    ClaimTiddy: Choice(_claim_tiddy_option),
    Play: Choice(_card_option, in_hand=True),
}
"""Each move kind's choice, keyed by its event class (tests/test_move_kinds.py checks all)."""

PROMPTS: dict[Phase, Callable[[Chooser, State], None]] = {
    Phase.AUCTION: Chooser._prompt_auction,
    Phase.DISCARD: Chooser._prompt_discard,
    Phase.RUFF: Chooser._prompt_ruff,
    Phase.RUFF_SHOW: Chooser._prompt_show_ruff,
    Phase.DECLARE: Chooser._prompt_declare,
    Phase.TRUMP: Chooser._prompt_trump,
    Phase.TIDDY: Chooser._prompt_tiddy,
    Phase.TRICKS: Chooser._prompt_tricks,
}
"""Each deciding phase's prompt and option order, keyed by the decision's phase."""


def choice_of(move: Event) -> Choice:
    """The choice registered for ``move``'s kind (``ValueError`` if none: never silent)."""
    got = CHOICES.get(type(move))
    if got is None:
        raise ValueError(f"no choice registered for a {type(move).__name__} move")
    return got


def made_at_once(legal: Sequence[Event]) -> Event | None:
    """The only legal move when there is nothing to choose, else None.

    A forced card ("the one card to follow") is still picked by hand.
    """
    if len(legal) == 1 and not choice_of(legal[0]).in_hand:
        return legal[0]
    return None
