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
from gleek_p2p.i18n import _, set_language, translate_argparse

DEFAULT_HANDS = 12


def _add_variant(parser: argparse.ArgumentParser) -> None:
    from gleek_p2p.rules import VARIANTS

    parser.add_argument(
        "--variant",
        default="standard",
        choices=sorted(VARIANTS),
        help=_("rules variant (default: standard)"),
    )


def _add_peer_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", required=True, help=_("your name at the table"))
    parser.add_argument("--table", default="gleek", help=_("table name to join (default: gleek)"))
    parser.add_argument(
        "--peer",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help=_("connect to this peer directly, without mDNS (repeatable)"),
    )
    parser.add_argument(
        "--listen", default="0.0.0.0:0", metavar="HOST:PORT", help=_("where to accept connections")
    )
    parser.add_argument("--no-mdns", action="store_true", help=_("do not use mDNS discovery"))
    parser.add_argument(
        "--data-dir", default=None, help=_("identity, secrets and logs (default: user data dir)")
    )
    parser.add_argument("--hands", type=int, default=DEFAULT_HANDS, help=_("hands in the session"))
    parser.add_argument(
        "--timeout", type=float, default=300.0, help=_("seconds before a silent peer is blamed")
    )
    parser.add_argument(
        "--interface",
        action="append",
        default=[],
        metavar="ADDRESS",
        help=_("local address mDNS uses (repeatable; default: all interfaces)"),
    )
    parser.add_argument("--ready-file", default=None, help=argparse.SUPPRESS)
    _add_variant(parser)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gleek",
        description=_("Gleek, the Tudor card game, for three peers on a LAN with no dealer."),
    )
    parser.add_argument("--lang", metavar="CODE", default=None,
                        help=_("language: en, fr, it, pt, nl (default: from the locale)"))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("local", help=_("play against two bot peers on this machine"))
    p.add_argument("--hands", type=int, default=DEFAULT_HANDS)
    p.add_argument("--name", default="you")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--bots", default="heuristic", help=_("strategy of the two bots"))
    p.add_argument(
        "--autoplay", default=None, metavar="STRATEGY", help=_("let a bot play for you (no screen)")
    )
    p.add_argument(
        "--timeout", type=float, default=1800.0, help=_("seconds the bots wait for you")
    )
    _add_variant(p)

    p = sub.add_parser("play", help=_("join a table on the LAN as a human player"))
    _add_peer_options(p)

    p = sub.add_parser("bot", help=_("a headless bot peer"))
    _add_peer_options(p)
    p.add_argument(
        "--strategy",
        default="heuristic",
        help="random | heuristic | module:Class | exec:'COMMAND ARGS'",
    )
    p.add_argument("--seed", default=None, help=_("seed for a random strategy"))

    p = sub.add_parser("simulate", help=_("bots play with full information and no crypto"))
    p.add_argument("--hands", type=int, default=DEFAULT_HANDS)
    p.add_argument("--seed", default="0")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--bots", default="heuristic", help=_("strategy for every seat, or one per seat: a,b,c")
    )
    p.add_argument(
        "--rulings", default="current", choices=("current", "first"),
        help=_("the current rulings (SPEC 1.5) or those of the first logs"),
    )
    p.add_argument(
        "--phase-stats", action="store_true",
        help=_("play the hands under the first and the current rulings; print each phase's "
               "mean absolute result and share of the money"),
    )
    _add_variant(p)

    p = sub.add_parser("selfplay", help=_("bots play a signed session in one process"))
    p.add_argument("--hands", type=int, default=DEFAULT_HANDS)
    p.add_argument("--seed", default="0")
    p.add_argument("--out", required=True, help=_("where to write the session log"))
    p.add_argument(
        "--bots", default="heuristic", help=_("strategy for every seat, or one per seat: a,b,c")
    )
    _add_variant(p)

    p = sub.add_parser("verify", help=_("check a session log: was the deal fair, who cheated"))
    p.add_argument("file")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-progress", action="store_true")

    p = sub.add_parser("replay", help=_("step through a finished session"))
    p.add_argument("file")
    p.add_argument(
        "--seat", type=int, default=None, help=_("show one seat's view (default: all cards)")
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gleek`` command; returns the exit code."""
    set_language(_lang_option(sys.argv[1:] if argv is None else argv))
    translate_argparse()
    args = build_parser().parse_args(argv)
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        print("\n" + _("Interrupted."), file=sys.stderr)
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
        print("gleek: " + _("an internal error stopped the command ({error}). The details "
                            "are in {file}; please report them.").format(
                                error=f"{type(exc).__name__}: {exc}", file=report),
              file=sys.stderr)
        return 70


def _lang_option(argv: Sequence[str]) -> str | None:
    """``--lang`` read ahead of the full parse, so that the help is translated too."""
    early = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    early.add_argument("--lang", default=None)
    try:
        known, _rest = early.parse_known_args(list(argv))
    except argparse.ArgumentError:
        return None  # the full parse reports it, in English
    lang: str | None = known.lang
    return lang


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
