"""The ``gleek`` command: argument parsing and friendly errors, nothing else.

Every sub-command lives in its own module and is imported only when used,
so ``gleek verify`` does not load the console UI. A user never sees a
traceback: every ``GleekError`` and every ``OSError`` becomes one sentence
and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from gleek_p2p.base.errors import GleekError
from gleek_p2p.base.i18n import N_, _, set_language, translate_argparse
from gleek_p2p.base.terminal import put
from gleek_p2p.cli.given import Given

DEFAULT_HANDS = 12

class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default; each line of a text is wrapped alone."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False, []) or "default:" in (action.help or ""):
            return action.help  # a flag, or a default told in words
        said = super()._get_help_string(action)
        if said is None or said == action.help:
            return said
        # argparse appends its English "(default: ...)" as a literal, never looked up.
        return (action.help or "") + " " + _("(default: %(default)s)")

    def start_section(self, heading: str | None) -> None:
        # argparse writes a heading's colon itself ("options:"); the language places it
        # (French puts a no-break space before it): the colon of "{heading}:" is left
        # for argparse to add.
        if heading:
            said = _("{heading}:").format(heading=heading)
            heading = said.removesuffix(":")
        super().start_section(heading)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        # An item's own continuation lines (indented deeper than the item, as in
        # verify's exit codes) are one paragraph with it: wrapped alone, each left its
        # last word on a line of its own at 80 columns.
        items: list[list[str]] = []
        for line in text.splitlines():
            depth = len(line) - len(line.lstrip())
            if (line.strip() and items and items[-1] and items[-1][0].startswith(" ")
                    and depth > len(items[-1][0]) - len(items[-1][0].lstrip())):
                items[-1].append(line.strip())
            else:
                items.append([line] if line.strip() else [])
        lines = []
        for item in items:
            if not item:
                lines.append("")
                continue
            first = item[0]
            lead = indent + " " * (len(first) - len(first.lstrip()))
            hang = "   " if first.startswith(" ") else ""
            lines.append(textwrap.fill(" ".join(part.strip() for part in item), width,
                                       initial_indent=lead, subsequent_indent=lead + hang,
                                       break_on_hyphens=False))
        return "\n".join(lines)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (refused before anything starts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text} is not a whole number").format(text=repr(text))) from None
    if value < 1:
        raise argparse.ArgumentTypeError(_("must be at least 1, not {value}").format(value=value))
    return value


def positive_float(text: str) -> float:
    """An argparse type: a number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text} is not a number").format(text=repr(text))) from None
    if not value > 0:
        raise argparse.ArgumentTypeError(_("must be above 0, not {text}").format(text=text))
    return value


def variant_text(text: str) -> str:
    """An argparse type: a preset or switches joined by ``+``, as its canonical name
    (``rules.variant_name``), or the sentence that lists the known switches."""
    from gleek_p2p.rules import variant_name
    from gleek_p2p.session.config import variant_named

    try:
        return variant_name(variant_named(text))
    except GleekError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_variant(parser: argparse.ArgumentParser, watched: bool = False) -> None:
    from gleek_p2p.rules import STANDARD, VARIANT_EXAMPLE, VARIANT_WORDS

    said = _("rules variant: {names}, or switches joined by + (e.g. {example})").format(
        names=", ".join(VARIANT_WORDS), example=VARIANT_EXAMPLE)
    if watched:
        # A watcher chooses no rules: it must name the table's when no record gives them.
        said = _("with --peer or --no-mdns: the watched table's rules variant (else the "
                 "LAN's records give it)")
    parser.add_argument("--variant", default=STANDARD, type=variant_text, metavar="NAME",
                        action=Given, help=said)


def _add_hands(parser: argparse.ArgumentParser, checked_later: bool = False,
               watched: bool = False) -> None:
    # Peer commands refuse a bad count while parsing, before any peer starts;
    # simulate and selfplay check it themselves, with a sentence of their own.
    said = _("hands in the session (a dealer's turn each)")
    if watched:
        said = _("with --peer or --no-mdns: the watched table's hands (else the LAN's "
                 "records give them)")
    parser.add_argument("--hands", type=int if checked_later else positive_int,
                        default=DEFAULT_HANDS, action=Given, help=said)


def yes_no(text: str) -> bool:
    """An argparse type: ``yes`` or ``no``."""
    if text in ("yes", "no"):
        return text == "yes"
    raise argparse.ArgumentTypeError(_("{text} is neither yes nor no").format(text=repr(text)))


def _add_peer_options(parser: argparse.ArgumentParser, pick: bool = False) -> None:
    parser.add_argument("--name", required=True, help=_("your name at the table (required)"))
    if pick:
        parser.add_argument("--table", default=None,
                            help=_("table name: peers with the same name sit together "
                                   "(default: pick one of the tables on the LAN, or start "
                                   "one)"))
    else:
        parser.add_argument("--table", default="gleek",
                            help=_("table name: peers with the same name sit together"))
    # A string default goes through ``type`` too, and the help shows "yes".
    parser.add_argument("--watchers", type=yes_no, default="yes", metavar="yes|no",
                        help=_("whether this table accepts watchers, as announced on the "
                               "LAN"))
    parser.add_argument(
        "--peer",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help=_("connect to this peer directly, without mDNS (repeatable)"),
    )
    parser.add_argument(
        "--listen", default="0.0.0.0:0", metavar="HOST:PORT",
        help=_("where to accept connections (port 0: any free port)"),
    )
    parser.add_argument("--no-mdns", action="store_true",
                        help=_("do not announce or look for tables with mDNS"))
    parser.add_argument(
        "--data-dir", default=None,
        help=_("identity key, secrets and session logs (default: the user data folder)"),
    )
    _add_hands(parser)
    parser.add_argument(
        "--timeout", type=positive_float, default=300.0,
        help=_("seconds to wait for a silent peer before ending the session and blaming it"),
    )
    parser.add_argument(
        "--interface",
        action="append",
        default=[],
        metavar="ADDRESS",
        help=_("local address mDNS uses (repeatable; default: every interface)"),
    )
    parser.add_argument("--ready-file", default=None, help=argparse.SUPPRESS)
    _add_variant(parser)


_STRATEGIES = N_("strong | normal | easy | heuristic | random | module:Class (a module in "
                 "the current folder or on the path) | exec:'COMMAND ARGS' (a program "
                 "speaking JSON lines)")

_VERIFY_EPILOG = N_("""exit codes:
  0  fair: every signature, shuffle, key and move checks out, and the session is
     complete or was ended by a player's own signed word (a leave)
  1  unfair: a proven violation (the event, the seat to blame, the evidence)
  2  not a readable session log (or no such file)
  3  stopped: nothing proven either way (the log ends waiting for a seat, or
     on a seat's claim it cannot prove); nobody is blamed
  141  its reader stopped reading (gleek verify LOG | head): no verdict given""")


def _add_bot_after(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bot-after", type=positive_float, default=None, metavar="SECONDS",
        help=_("if you do not move within this many seconds on your turn, a bot (strong) "
               "finishes your seat with your key; run the same command again to take it "
               "back (default: never)"))


def _add_think(parser: argparse.ArgumentParser, text: str | None = None) -> None:
    parser.add_argument(
        "--think", type=positive_float, default=None, metavar="MS",
        help=text or _("the strong bot's thinking time per decision (default: 300)"),
    )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gleek-p2p")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gleek",
        description=_("Gleek, the Tudor card game, for three peers on a LAN with no dealer."),
        formatter_class=_Help,
    )
    # argparse's own help for --version is a literal it never looks up: given here.
    parser.add_argument("--version", action="version", version=f"gleek {_version()}",
                        help=_("show program's version number and exit"))
    parser.add_argument("--lang", metavar="CODE", default=None,
                        help=_("language: en, fr, it, pt, nl (default: from the locale)"))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str, description: str, **kw: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=summary, description=description,
                           formatter_class=_Help, **kw)  # type: ignore[arg-type]
        # People type the language after the command too (gleek local --lang nl);
        # SUPPRESS keeps the top-level value when it is not given here.
        p.add_argument("--lang", metavar="CODE", default=argparse.SUPPRESS,
                       help=_("language: en, fr, it, pt, nl (default: from the locale)"))
        return p

    p = command("local", _("play against two bot peers on this machine"),
                _("You against two bots, each a separate peer on 127.0.0.1 speaking the full "
                "protocol (nothing leaves the machine). Needs a terminal, unless --autoplay "
                "lets a bot play for you. The log's path is printed last."))
    _add_hands(p)
    p.add_argument("--name", default="Anne",
                   help=_("your name at the table and in the log (your screen says \"you\")"))
    p.add_argument("--data-dir", default=None,
                   help=_("identity key, secrets and session logs (default: the user data folder)"))
    p.add_argument("--bots", default="strong", metavar="STRATEGY",
                   help=_("the two bots: easy, normal or strong, or any strategy of gleek bot: "
                          "{strategies}").format(strategies=_(_STRATEGIES)))
    _add_think(p)
    p.add_argument(
        "--autoplay", default=None, metavar="STRATEGY",
        help=_("let a bot with this strategy play for you, without a screen"),
    )
    p.add_argument(
        "--timeout", type=positive_float, default=1800.0,
        help=_("seconds the bots wait for you before ending the session"),
    )
    _add_bot_after(p)
    _add_variant(p)

    p = command("play", _("join a table on the LAN as a human player"),
                _("Find (mDNS) or dial (--peer) two other players, form a table and play at "
                "the console. Needs a terminal. The log's path is printed last."))
    _add_peer_options(p, pick=True)
    _add_bot_after(p)

    p = command("bot", _("a headless bot peer"),
                _("A bot that joins a table like a player, with no screen; it prints what "
                "happens and, last, the log's path."))
    _add_peer_options(p)
    p.add_argument("--strategy", default="strong", metavar="STRATEGY", help=_(_STRATEGIES))
    _add_think(p)
    p.add_argument("--seed", default=None,
                   help=_("seed for a random strategy (default: a fresh random seed)"))
    talk = p.add_mutually_exclusive_group()
    talk.add_argument("--verbose", action="store_true",
                      help=_("print every move, not only a line per hand"))
    talk.add_argument("--quiet", action="store_true",
                      help=_("print nothing about the game (only the links and the log's path)"))
    p.add_argument("--pick", action="store_true",
                   help=_("instead of --table: list the tables on the LAN and read the "
                          "choice from the standard input, as gleek play does"))

    p = command("tables", _("the tables forming and playing on the LAN"),
                _("Listen for the tables the peers on the LAN announce (mDNS) for a few "
                  "seconds, announcing nothing, and list each: name, variant, hands, who is "
                  "seated (names and key fingerprints), seats free and whether it accepts "
                  "watchers. Each line is what the players' records claim."),
                epilog=_("exit codes:\n  0  at least one table found\n  1  none found"))
    p.add_argument("--seconds", type=positive_float, default=3.0,
                   help=_("how long to listen"))
    p.add_argument("--json", action="store_true", help=_("print the list as JSON"))
    p.add_argument(
        "--interface", action="append", default=[], metavar="ADDRESS",
        help=_("local address mDNS uses (repeatable; default: every interface)"),
    )

    p = command("watch", _("watch a table play: follow its log live and verify it"),
                _("Join a playing table as a watcher: no seat, no hand, nothing signed. A "
                  "seated peer sends the log so far, then each event as it comes; every "
                  "event is verified as it arrives, as gleek verify does, the table is shown "
                  "live as the players see it but with every hand face down (q leaves; "
                  "--headless or no terminal: one line per hand), and a copy of the log is "
                  "kept (its path is printed last). The players see who is watching; a "
                  "table started with --watchers no refuses watchers."),
                epilog=_("exit codes: as gleek verify, for the log kept (0 fair)"))
    p.add_argument("--name", default="watcher", help=_("your name, shown to the players"))
    p.add_argument("--table", default=None,
                   help=_("table name (default: the only table playing on the LAN)"))
    p.add_argument("--peer", action="append", default=[], metavar="HOST:PORT",
                   help=_("a seated peer to dial, without mDNS (repeatable)"))
    p.add_argument("--no-mdns", action="store_true",
                   help=_("do not look for tables with mDNS"))
    p.add_argument("--data-dir", default=None,
                   help=_("identity key and the logs watched (default: the user data "
                          "folder)"))
    p.add_argument("--timeout", type=positive_float, default=300.0,
                   help=_("seconds without a new event before giving up"))
    p.add_argument("--interface", action="append", default=[], metavar="ADDRESS",
                   help=_("local address mDNS uses (repeatable; default: every interface)"))
    p.add_argument("--headless", action="store_true",
                   help=_("print a line per hand instead of showing the table (the default "
                          "without a terminal)"))
    _add_hands(p, watched=True)
    _add_variant(p, watched=True)

    p = command("simulate", _("bots play with full information and no crypto"),
                _("Play hands between bot strategies with the rules engine only (no network, "
                "no keys, no shuffle protocol), and print the results."))
    _add_hands(p, checked_later=True)
    p.add_argument("--seed", default="0", help=_("seed of the deals and the random strategies"))
    p.add_argument("--json", action="store_true", help=_("print the results as JSON"))
    p.add_argument(
        "--bots", default="heuristic", metavar="STRATEGY[,STRATEGY,STRATEGY]",
        help=_("strategy for every seat, or one per seat: {strategies}").format(
            strategies=_(_STRATEGIES)),
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
    _add_think(p)
    _add_variant(p)

    p = command("arena", _("which bot is better: duplicate hands, 95 per cent confidence "
                           "intervals"),
                _("Play the same deals with the strategies in every seating, so that the luck "
                  "of the cards cancels, and report each strategy's mean pence per hand with "
                  "a 95 per cent confidence interval, its auction and ruff rates and a "
                  "head-to-head "
                  "table."))
    p.add_argument("--bots", default="strong,heuristic,random", metavar="A,B[,C]",
                   help=_("2 or 3 strategies, comma-separated (names, module:Class, "
                          "exec:'COMMAND')"))
    # The arena checks its own numbers, with sentences of its own.
    p.add_argument("--hands", type=int, default=300, help=_("hands to play in all"))
    p.add_argument("--seed", default="0", help=_("seed of the deals and the strategies"))
    p.add_argument("--json", action="store_true", help=_("print the results as JSON"))
    p.add_argument("--procs", type=int, default=1, help=_("local worker processes"))
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help=_("run the games on this Dask scheduler (needs the 'arena' extra)"))
    _add_think(p, _("search bots' budget per decision, as a fixed playout count "
                    "(default: 20)"))
    _add_variant(p)

    p = command("selfplay", _("bots play a signed session in one process"),
                _("Three bot seats play a whole signed session (keys, shuffle protocol, "
                "hash chain) in one process and write its log, for gleek verify and replay."))
    _add_hands(p, checked_later=True)
    p.add_argument("--seed", default="0", help=_("seed of the keys, deals and strategies"))
    p.add_argument("--out", required=True, metavar="FILE",
                   help=_("where to write the session log (required; must not exist; a missing "
                          "folder is created, and said so)"))
    p.add_argument(
        "--bots", default="heuristic", metavar="STRATEGY[,STRATEGY,STRATEGY]",
        help=_("strategy for every seat, or one per seat: {strategies}").format(
            strategies=_(_STRATEGIES)),
    )
    _add_variant(p)

    p = command("verify", _("check a session log: was the deal fair, who cheated"),
                _("Replay a session log as an observer, without changing it: every signature, "
                "the hash chain, every shuffle and key, every move and every ledger. A "
                "violation names the event, the seat to blame and the evidence."),
                epilog=_(_VERIFY_EPILOG))
    p.add_argument("file", help=_("the session log (.gleeklog)"))
    p.add_argument("--json", action="store_true", help=_("print the report as JSON"))
    p.add_argument("--no-progress", action="store_true",
                   help=_("no progress bar (there is none either when stderr is not a terminal)"))

    p = command("results", _("the evening's scores: every session log, verified and added up"),
                _("Verify every session log in the data folder (or the files and folders "
                  "given) and add up the sessions that are fair: per player (told apart by "
                  "key fingerprint, with the names used) the sessions, hands, total pence and "
                  "wins, then a chart of the running totals. A session that is not fair is "
                  "listed and left out of the totals."),
                epilog=_("exit codes:\n  0  at least one session counted\n"
                         "  1  no session counted (none found, or none fair)"))
    p.add_argument("files", nargs="*", metavar="FILE",
                   help=_("session logs or folders of them (default: the data folder's "
                          "sessions)"))
    p.add_argument("--data-dir", default=None,
                   help=_("identity key, secrets and session logs (default: the user data folder)"))
    p.add_argument("--json", action="store_true", help=_("print the results as JSON"))

    p = command("replay", _("step through a finished session"),
                _("Step through a session log, event by event, on the table screen; without "
                "a terminal, print it in words."))
    p.add_argument("file", help=_("the session log (.gleeklog)"))
    p.add_argument(
        "--seat", type=int, default=None,
        help=_("show what this seat (0, 1 or 2) saw (default: every card)"),
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gleek`` command; returns the exit code."""
    set_language(_lang_option(sys.argv[1:] if argv is None else argv))
    translate_argparse()
    args = build_parser().parse_args(argv)
    # ``--strategy module:Class`` finds a module in the current folder, as a bot
    # author expects (the ``gleek`` script's path holds only its own folder).
    # Appended, so a file there never shadows an installed module.
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        print("\n" + _("Interrupted."), file=sys.stderr)
        return 130
    except GleekError as exc:
        put(f"gleek: {exc}", sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader stopped reading (`gleek verify LOG | head`): nothing went wrong
        # that anyone needs told, and 1 would read as verify's "unfair". The shell's
        # own code for a writer its reader left (128 + SIGPIPE).
        _close_stdout()
        return 141
    except OSError as exc:
        from gleek_p2p.base.os_words import os_error_words

        # The system's English (``strerror``) is for a log: the person reads its number worded.
        listen: str | None = getattr(args, "listen", None)
        put("gleek: " + os_error_words(exc, listen), sys.stderr)
        return 1
    except Exception as exc:  # a bug: say so in a sentence, keep the details in a file
        report = _save_traceback()
        print("gleek: " + _("an internal error stopped the command ({error}). The details "
                            "are in {file}; please report them.").format(
                                error=f"{type(exc).__name__}: {exc}", file=report),
              file=sys.stderr)
        return 70


def _close_stdout() -> None:
    """Point stdout at nothing, so that the interpreter's last flush finds no pipe."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass  # stdout is no file (a test's capture): nothing will flush to a pipe


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
        from gleek_p2p.tools.simulate import run_simulate

        return run_simulate(args)
    if command == "arena":
        from gleek_p2p.tools.arena import run_arena

        return run_arena(args)
    if command == "selfplay":
        from gleek_p2p.cli.commands import run_selfplay

        return run_selfplay(args)
    if command == "verify":
        from gleek_p2p.cli.commands import run_verify

        return run_verify(args)
    if command == "results":
        from gleek_p2p.cli.commands import run_results

        return run_results(args)
    if command == "tables":
        from gleek_p2p.cli.tables import run_tables

        return run_tables(args)
    if command == "watch":
        from gleek_p2p.cli.watch import run_watch

        return run_watch(args)
    if command in ("local", "play", "bot"):
        from gleek_p2p.cli.peer import run

        return run(args)
    if command == "replay":
        from gleek_p2p.ui.replay import run_replay

        code: int = run_replay(args)
        return code
    raise AssertionError(command)


if __name__ == "__main__":
    sys.exit(main())
