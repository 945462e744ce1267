"""The ``gleek`` command: argument parsing and friendly errors, nothing else.

Every sub-command lives in its own module and is imported only when used,
so ``gleek verify`` does not load the console UI. A user never sees a
traceback: every ``GleekError`` and every ``OSError`` becomes one sentence
and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gleek_p2p.errors import GleekError

DEFAULT_HANDS = 12


def _add_variant(parser: argparse.ArgumentParser) -> None:
    from gleek_p2p.rules import VARIANTS

    parser.add_argument(
        "--variant",
        default="standard",
        choices=sorted(VARIANTS),
        help="rules variant (default: standard)",
    )


def _add_peer_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", required=True, help="your name at the table")
    parser.add_argument("--table", default="gleek", help="table name to join (default: gleek)")
    parser.add_argument(
        "--peer",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="connect to this peer directly, without mDNS (repeatable)",
    )
    parser.add_argument(
        "--listen", default="0.0.0.0:0", metavar="HOST:PORT", help="where to accept connections"
    )
    parser.add_argument("--no-mdns", action="store_true", help="do not use mDNS discovery")
    parser.add_argument(
        "--data-dir", default=None, help="identity, secrets and logs (default: user data dir)"
    )
    parser.add_argument("--hands", type=int, default=DEFAULT_HANDS, help="hands in the session")
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds before a silent peer is blamed"
    )
    parser.add_argument(
        "--interface",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="local address mDNS uses (repeatable; default: all interfaces)",
    )
    parser.add_argument("--ready-file", default=None, help=argparse.SUPPRESS)
    _add_variant(parser)


def _add_think(parser: argparse.ArgumentParser, text: str | None = None) -> None:
    parser.add_argument(
        "--think", type=float, default=None, metavar="MS",
        help=text or "the strong bot's thinking time per decision (default 300)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gleek",
        description="Gleek, the Tudor card game, for three peers on a LAN with no dealer.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("local", help="play against two bot peers on this machine")
    p.add_argument("--hands", type=int, default=DEFAULT_HANDS)
    p.add_argument("--name", default="you")
    p.add_argument("--data-dir", default=None)
    p.add_argument(
        "--bots", default="strong",
        help="the two bots: easy, normal or strong (default), or any --strategy of gleek bot",
    )
    _add_think(p)
    p.add_argument(
        "--autoplay", default=None, metavar="STRATEGY", help="let a bot play for you (no screen)"
    )
    p.add_argument(
        "--timeout", type=float, default=1800.0, help="seconds the bots wait for you"
    )
    _add_variant(p)

    p = sub.add_parser("play", help="join a table on the LAN as a human player")
    _add_peer_options(p)

    p = sub.add_parser("bot", help="a headless bot peer")
    _add_peer_options(p)
    p.add_argument(
        "--strategy",
        default="strong",
        help="strong (default) | heuristic | random | module:Class | exec:'COMMAND ARGS'",
    )
    _add_think(p)
    p.add_argument("--seed", default=None, help="seed for a random strategy")

    p = sub.add_parser("simulate", help="bots play with full information and no crypto")
    p.add_argument("--hands", type=int, default=DEFAULT_HANDS)
    p.add_argument("--seed", default="0")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--bots", default="heuristic", help="strategy for every seat, or one per seat: a,b,c"
    )
    _add_variant(p)

    p = sub.add_parser("arena", help="which bot is better: duplicate hands, 95% intervals")
    p.add_argument(
        "--bots", default="strong,heuristic,random",
        help="2 or 3 strategies, comma-separated (names, module:Class, exec:'COMMAND')",
    )
    p.add_argument("--hands", type=int, default=300, help="hands to play in all (default 300)")
    p.add_argument("--seed", default="0")
    p.add_argument("--json", action="store_true")
    p.add_argument("--procs", type=int, default=1, help="local worker processes (default 1)")
    p.add_argument(
        "--scheduler", default=None, metavar="ADDRESS",
        help="run the games on this Dask scheduler (needs the 'arena' extra)",
    )
    _add_think(p, "search bots' budget per decision, as a fixed playout count (default 20)")
    _add_variant(p)

    p = sub.add_parser("selfplay", help="bots play a signed session in one process")
    p.add_argument("--hands", type=int, default=DEFAULT_HANDS)
    p.add_argument("--seed", default="0")
    p.add_argument("--out", required=True, help="where to write the session log")
    p.add_argument(
        "--bots", default="heuristic", help="strategy for every seat, or one per seat: a,b,c"
    )
    _add_variant(p)

    p = sub.add_parser("verify", help="check a session log: was the deal fair, who cheated")
    p.add_argument("file")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-progress", action="store_true")

    p = sub.add_parser("replay", help="step through a finished session")
    p.add_argument("file")
    p.add_argument(
        "--seat", type=int, default=None, help="show one seat's view (default: all cards)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gleek`` command; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        return 130
    except GleekError as exc:
        print(f"gleek: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"gleek: {exc.strerror or exc}{where}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug: say so in a sentence, keep the details in a file
        report = _save_traceback()
        print(f"gleek: an internal error stopped the command ({type(exc).__name__}: {exc}). "
              f"The details are in {report}; please report them.", file=sys.stderr)
        return 70


def _save_traceback() -> str:
    import tempfile
    import traceback

    with tempfile.NamedTemporaryFile("w", prefix="gleek-error-", suffix=".txt",
                                     delete=False) as out:
        traceback.print_exc(file=out)
        return out.name


def _dispatch(args: argparse.Namespace) -> int:
    command: str = args.command
    if command == "simulate":
        from gleek_p2p.simulate import run_simulate

        return run_simulate(args)
    if command == "arena":
        from gleek_p2p.arena import run_arena

        return run_arena(args)
    if command == "selfplay":
        from gleek_p2p.commands import run_selfplay

        return run_selfplay(args)
    if command == "verify":
        from gleek_p2p.commands import run_verify

        return run_verify(args)
    if command in ("local", "play", "bot"):
        from gleek_p2p.commands import run_peer_command

        return run_peer_command(args)
    if command == "replay":
        from gleek_p2p.ui.replay import run_replay

        code: int = run_replay(args)
        return code
    raise AssertionError(command)


if __name__ == "__main__":
    sys.exit(main())
