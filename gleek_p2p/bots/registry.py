"""Strategies by name: ``random``, ``heuristic``, ``strong``, ``module:Class``, ``exec:'CMD'``.

Levels for people: ``easy`` (random), ``normal`` (heuristic), ``strong`` (search).
"""

from __future__ import annotations

import hashlib
import importlib

from gleek_p2p.base.errors import GleekError
from gleek_p2p.base.i18n import _, ngettext
from gleek_p2p.bots.strategy import RandomStrategy, Strategy

LEVELS = {"easy": "random", "normal": "heuristic", "strong": "strong"}


def make_strategy(
    spec: str,
    seed: bytes = b"",
    seat: int = 0,
    think_ms: float | None = None,
    reproducible: bool = False,
) -> Strategy:
    """Build one strategy from its command-line spelling.

    ``think_ms`` is the search bot's budget per decision; ``reproducible``
    turns it into a fixed number of playouts instead of a deadline (the arena).
    """
    spec = LEVELS.get(spec.strip(), spec.strip())
    seat_seed = hashlib.sha256(b"gleek-p2p/bot-seed\x00" + seed + bytes([seat])).digest()
    if spec == "random":
        return RandomStrategy(seat_seed)
    if spec == "heuristic":
        from gleek_p2p.bots.heuristic import HeuristicStrategy

        return HeuristicStrategy(seat_seed)
    if spec in ("strong", "search"):
        from gleek_p2p.bots.search import SearchStrategy, budget_for

        return SearchStrategy(seat_seed, budget_for(think_ms, reproducible))
    if spec.startswith("exec:"):
        from gleek_p2p.bots.exec_bot import ExecStrategy

        return ExecStrategy(spec[len("exec:"):])
    if ":" in spec:
        module_name, _sep, class_name = spec.partition(":")
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except ModuleNotFoundError as exc:
            raise GleekError(_("cannot load strategy {spec}: there is no module {module}").format(
                spec=repr(spec), module=repr(exc.name or module_name))) from exc
        except AttributeError as exc:
            raise GleekError(_("cannot load strategy {spec}: the module {module} has no "
                               "{name}").format(spec=repr(spec), module=repr(module_name),
                                               name=repr(class_name))) from exc
        except ImportError as exc:
            # The module's own import failed: its English stays in the chained traceback.
            raise GleekError(_("cannot load strategy {spec}: the module {module} failed to "
                               "load").format(spec=repr(spec), module=repr(module_name))) from exc
        if not (isinstance(cls, type) and issubclass(cls, Strategy)):
            raise GleekError(_("{spec} is not a gleek_p2p.bots.Strategy subclass").format(
                spec=repr(spec)))
        return cls()
    raise GleekError(
        _("unknown strategy {spec}: use easy, normal, strong, random, heuristic, "
          "module:Class or exec:'COMMAND'").format(spec=repr(spec))
    )


def strategies_needed(players: int, got: int) -> str:
    """The sentence for a strategy list of the wrong length."""
    return ngettext("this variant needs {n} strategy, got {got}",
                    "this variant needs {n} strategies, got {got}", players).format(
                        n=players, got=got)


def make_strategies(
    specs: str, players: int, seed: bytes, think_ms: float | None = None
) -> list[Strategy]:
    """One strategy per seat from 'a,b,c' (a single name is used for every seat).

    For seeded in-process games (simulate, selfplay): a search bot counts
    playouts instead of watching a clock, so the same seed plays the same game.
    """
    names = [s for s in specs.split(",") if s.strip()] or ["heuristic"]
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise GleekError(strategies_needed(players, len(names)))
    return [make_strategy(name, seed, seat, think_ms, True) for seat, name in enumerate(names)]
