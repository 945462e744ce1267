"""``gleek arena``: which bot is better, by duplicate hands and confidence intervals.

Every deal is played once in every seating of the strategies (each strategy
at least once at the table), so the luck of the cards cancels: a strategy
scores against the others on the very cards they also played. Results are
per deal (the mean over its seatings), so the 95% intervals are over
independent deals.

The games are split into chunks of deals that run in local processes or on
a Dask cluster (``--scheduler``, the optional ``distributed`` package). A
game depends only on the seed, its deal and its seating, and search bots
get a fixed number of playouts (``--think`` converted, never a clock), so
every backend gives the same result for the same seed.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib
import inspect
import itertools
import json
import math
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from gleek_p2p.base.errors import GleekError
from gleek_p2p.base.i18n import _, ngettext, pgettext
from gleek_p2p.base.os_words import os_error_words
from gleek_p2p.bots.registry import make_strategy
from gleek_p2p.bots.strategy import Strategy, choose_async, choose_now
from gleek_p2p.rules import Variant, parse_variant, variant_name
from gleek_p2p.tools.simulate import Simulation

__all__ = ["ArenaResult", "GameResult", "arena_json", "play_chunk", "run_arena", "seatings"]

ARENA_THINK_MS = 20.0
"""The search bots' default ``--think`` in the arena: a few hundred hands in minutes."""
CONNECT_TIMEOUT_S = 10
"""Seconds to reach a Dask scheduler before giving up with a sentence."""
CHUNK_DEALS = 2
"""Deals per task: small enough to spread and to move the progress bar."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """One hand of one seating: which strategy sat where and what happened."""

    deal: int
    seating: tuple[int, ...]
    """Index into the strategy list, per seat."""
    net: tuple[int, ...]
    """Halfpence per seat."""
    talon_taker: int
    bidders: tuple[int, ...]
    ruff_winner: int
    viers: tuple[int, ...]


def seatings(strategies: int, players: int) -> list[tuple[int, ...]]:
    """Every seating of ``strategies`` at ``players`` seats with each strategy seated."""
    if not 2 <= strategies <= players:
        raise GleekError(_("an arena needs 2 to {players} strategies").format(players=players))
    return [
        s for s in itertools.product(range(strategies), repeat=players)
        if len(set(s)) == strategies
    ]  # fmt: skip


def _seed(seed: str, *parts: object) -> bytes:
    text = "\x00".join([seed, *map(str, parts)])
    return hashlib.sha256(b"gleek-p2p/arena\x00" + text.encode()).digest()


def play_chunk(
    specs: Sequence[str], variant: str, seed: str, think_ms: float | None, deals: Sequence[int]
) -> list[GameResult]:
    """Play ``deals`` in every seating (runs in a worker process or a Dask worker)."""
    v = parse_variant(variant)
    out = []
    for deal in deals:
        deal_seed = _seed(seed, "deal", deal)
        for seating in seatings(len(specs), v.players):
            strategies = [
                make_strategy(specs[k], _seed(seed, "bot", deal, seating), seat, think_ms, True)
                for seat, k in enumerate(seating)
            ]
            out.append(_summary(deal, seating, _play(v, deal_seed, strategies)))
    return out


def _play(v: Variant, seed: bytes, strategies: list[Strategy]) -> Simulation:
    """One hand; the finished ``Simulation`` (its state holds the bids and the ruff log)."""
    sim = Simulation(v, 1, seed)
    if any(inspect.iscoroutinefunction(s.choose) for s in strategies):
        asyncio.run(_play_async(sim, strategies))
        return sim
    while (d := sim.decision()) is not None:
        seat, view, legal = d
        assert view is not None
        sim.act(seat, choose_now(strategies[seat], view, legal), strategies[seat].name)
    return sim


async def _play_async(sim: Simulation, strategies: list[Strategy]) -> None:
    try:
        while (d := sim.decision()) is not None:
            seat, view, legal = d
            assert view is not None
            move = await choose_async(strategies[seat], view, legal)
            sim.act(seat, move, strategies[seat].name)
    finally:
        for strategy in strategies:
            close = getattr(strategy, "aclose", None)
            if close is not None:
                await close()


def _summary(deal: int, seating: tuple[int, ...], sim: Simulation) -> GameResult:
    s = sim.state
    return GameResult(
        deal=deal,
        seating=seating,
        net=s.ledgers[-1].net,
        talon_taker=s.talon_taker,
        bidders=tuple(sorted({seat for seat, amount in s.bids if amount > 0})),
        ruff_winner=s.ruff_winner,
        viers=tuple(sorted({seat for seat, kind, _stake in s.ruff_log if kind == "vie"})),
    )


# ---------------------------------------------------------------- statistics


LEVEL = 95
"""The confidence level of the intervals, in percent (``Z`` is its normal quantile)."""
Z = 1.96


def _level_words() -> str:
    """'95%' in the chosen language: the level is a field of the headings so that no bare
    ``%`` stands in a message, where Babel would read "% i" as a placeholder."""
    return _("{level}%").format(level=LEVEL)


def _ci(xs: Sequence[float]) -> tuple[float, float, float]:
    """Mean and ``LEVEL``% normal interval of independent samples."""
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return mean, mean, mean
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    half = Z * math.sqrt(var / n)
    return mean, mean - half, mean + half


@dataclass(frozen=True, slots=True)
class ArenaResult:
    """Every game of an arena run, in deal and seating order."""

    names: tuple[str, ...]
    variant: str
    games: tuple[GameResult, ...]


def _per_deal(games: Sequence[GameResult]) -> dict[int, list[GameResult]]:
    by: dict[int, list[GameResult]] = {}
    for g in games:
        by.setdefault(g.deal, []).append(g)
    return by


def arena_json(r: ArenaResult) -> dict[str, Any]:
    """The ``--json`` object: pence per hand, intervals over deals, rates per seat-hand."""
    by_deal = _per_deal(r.games)
    k = len(r.names)
    strategies: dict[str, Any] = {}
    for i, name in enumerate(r.names):
        per_deal = []
        seat_hands = bids = takes = vies = ruffs = 0
        for games in by_deal.values():
            xs = [g.net[s] / 2 for g in games for s, who in enumerate(g.seating) if who == i]
            per_deal.append(sum(xs) / len(xs))
            for g in games:
                for s, who in enumerate(g.seating):
                    if who != i:
                        continue
                    seat_hands += 1
                    bids += s in g.bidders
                    takes += g.talon_taker == s
                    vies += s in g.viers
                    ruffs += g.ruff_winner == s
        mean, lo, hi = _ci(per_deal)
        strategies[name] = {
            "mean": round(mean, 3),
            "ci95": [round(lo, 3), round(hi, 3)],
            "seat_hands": seat_hands,
            "auction_bid_rate": round(bids / seat_hands, 4),
            "auction_win_rate": round(takes / seat_hands, 4),
            "ruff_vie_rate": round(vies / seat_hands, 4),
            "ruff_win_rate": round(ruffs / seat_hands, 4),
        }
    head: dict[str, Any] = {}
    for a, b in itertools.permutations(range(k), 2):
        diffs = []
        for games in by_deal.values():
            ds = []
            for g in games:
                xa = [g.net[s] / 2 for s, w in enumerate(g.seating) if w == a]
                xb = [g.net[s] / 2 for s, w in enumerate(g.seating) if w == b]
                if xa and xb:
                    ds.append(sum(xa) / len(xa) - sum(xb) / len(xb))
            if ds:
                diffs.append(sum(ds) / len(ds))
        mean, lo, hi = _ci(diffs)
        head.setdefault(r.names[a], {})[r.names[b]] = {
            "mean": round(mean, 3), "ci95": [round(lo, 3), round(hi, 3)]
        }
    return {
        "hands": len(r.games),
        "deals": len(by_deal),
        "variant": r.variant,
        "unit": "pence per hand",
        "strategies": strategies,
        "head_to_head": head,
    }


def arena_text(r: ArenaResult) -> str:
    """A table per strategy, then the head-to-head table (row minus column)."""
    j = arena_json(r)
    heads = [_("strategy"), _("mean"), _("{level} interval").format(level=_level_words()),
             pgettext("arena column", "bids"),
             pgettext("arena column", "talon"), pgettext("arena column", "vies"),
             pgettext("arena column", "ruff")]
    # Each column as wide as its header in the chosen language, at least as before.
    widths = [max(10, *(len(n) for n in r.names), len(heads[0])),
              *(max(w, len(h)) for w, h in zip((8, 20, 6, 6, 6, 6), heads[1:], strict=True))]
    rates = ("auction_bid_rate", "auction_win_rate", "ruff_vie_rate", "ruff_win_rate")
    lines = [
        _("{hands} ({deals}), {variant}; pence per hand, {level} intervals over deals").format(
            level=_level_words(),
            hands=ngettext("{n} hand", "{n} hands", j["hands"]).format(n=j["hands"]),
            deals=ngettext("{n} deal in every seating", "{n} deals in every seating",
                           j["deals"]).format(n=j["deals"]),
            variant=j["variant"]),
        "",
        f"{heads[0]:<{widths[0]}} "
        + " ".join(f"{h:>{w}}" for h, w in zip(heads[1:], widths[1:], strict=True)),
    ]
    for name, s in j["strategies"].items():
        lo, hi = s["ci95"]
        lines.append(
            f"{name:<{widths[0]}} {s['mean']:>+{widths[1]}.2f} "
            f"{f'[{lo:+.2f}, {hi:+.2f}]':>{widths[2]}} "
            + " ".join(f"{s[k]:>{w}.1%}" for k, w in zip(rates, widths[3:], strict=True))
        )
    lines += ["", _("head to head (row minus column, pence per hand):")]
    width = widths[0]
    lines.append(f"{'':<{width}} " + " ".join(f"{n:>22}" for n in r.names))
    for a in r.names:
        cells = []
        for b in r.names:
            if a == b:
                cells.append(f"{'':>22}")
            else:
                h = j["head_to_head"][a][b]
                lo, hi = h["ci95"]
                cell = f"{h['mean']:+.2f} [{lo:+.2f},{hi:+.2f}]"
                cells.append(f"{cell:>22}")
        lines.append(f"{a:<{width}} " + " ".join(cells))
    return "\n".join(lines)


# ---------------------------------------------------------------- running


def _chunks(deals: int) -> list[list[int]]:
    return [list(range(i, min(deals, i + CHUNK_DEALS))) for i in range(0, deals, CHUNK_DEALS)]


def _progress(total: int, enabled: bool) -> Callable[[int], None]:
    shown = [-1]

    def update(done: int) -> None:
        if not enabled:
            return
        percent = done * 100 // max(1, total)
        if percent != shown[0]:
            shown[0] = percent
            filled = percent * 30 // 100
            sys.stderr.write(f"\rarena [{'#' * filled}{'.' * (30 - filled)}] {percent:3d}%")
            if done == total:
                sys.stderr.write("\r" + " " * 45 + "\r")
            sys.stderr.flush()

    return update


def run_games(
    specs: Sequence[str],
    variant: str,
    hands: int,
    seed: str,
    think_ms: float | None = None,
    procs: int = 1,
    scheduler: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> ArenaResult:
    """Play the arena; the same arguments give the same result on every backend."""
    v = parse_variant(variant)
    per_deal = len(seatings(len(specs), v.players))
    deals = max(1, -(-hands // per_deal))
    chunks = _chunks(deals)
    args = [(list(specs), variant, seed, think_ms, c) for c in chunks]
    tick = progress or (lambda _done: None)
    results: list[list[GameResult]] = [[] for _chunk in chunks]
    if scheduler is not None:
        _run_dask(scheduler, args, results, tick)
    elif procs <= 1:
        for i, a in enumerate(args):
            results[i] = play_chunk(*a)
            tick(i + 1)
    else:
        with ProcessPoolExecutor(max_workers=procs) as pool:
            futures = {pool.submit(play_chunk, *a): i for i, a in enumerate(args)}
            for done, f in enumerate(as_completed(futures), 1):
                results[futures[f]] = f.result()
                tick(done)
    games = tuple(g for chunk in results for g in chunk)
    return ArenaResult(tuple(specs), variant_name(v), games)


def _run_dask(
    address: str,
    args: list[tuple[Any, ...]],
    results: list[list[GameResult]],
    tick: Callable[[int], None],
) -> None:
    try:
        # Typed as Any: distributed is optional and partly untyped.
        distributed: Any = importlib.import_module("distributed")
    except ImportError:
        raise GleekError(
            _("--scheduler needs the optional Dask support: pip install 'gleek-p2p[arena]'")
        ) from None
    try:
        client = distributed.Client(address, set_as_default=False, timeout=CONNECT_TIMEOUT_S)
    except OSError as exc:  # TimeoutError included
        raise GleekError(_("cannot reach the Dask scheduler at {address}: {error}").format(
            address=address, error=os_error_words(exc))) from None
    with client:
        futures = [
            client.submit(play_chunk, *a, pure=False, key=f"gleek-arena-{i}-{_key(a)}")
            for i, a in enumerate(args)
        ]
        for i, f in enumerate(futures):
            results[i] = f.result()  # in order: the bar moves as the first ones finish
            tick(i + 1)


def _key(a: tuple[Any, ...]) -> str:
    return hashlib.sha256(repr(a).encode()).hexdigest()[:16]


def _names(text: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    if len(set(names)) != len(names):
        raise GleekError(_("name each strategy once: --bots strong,heuristic"))
    return names


def run_arena(args: argparse.Namespace) -> int:
    """The ``gleek arena`` command."""
    names = _names(args.bots)
    think = ARENA_THINK_MS if args.think is None else args.think
    if not 1 <= args.hands <= 10_000_000:
        raise GleekError(_("--hands must be from 1 to {most}").format(most=10_000_000))
    if args.procs < 1:
        raise GleekError(_("--procs must be at least 1"))
    v = parse_variant(args.variant)
    seatings(len(names), v.players)  # the count error, before any work
    for name in names:
        make_strategy(name, b"check", 0, think, True)  # a bad name fails now, not in a worker
    per_deal = len(seatings(len(names), v.players))
    deals = max(1, -(-args.hands // per_deal))
    bar = _progress(len(_chunks(deals)), sys.stderr.isatty())
    result = run_games(
        names, args.variant, args.hands, str(args.seed), think, args.procs,
        args.scheduler, bar,
    )  # fmt: skip
    if args.json:
        print(json.dumps(arena_json(result)))
    else:
        print(arena_text(result))
    return 0

