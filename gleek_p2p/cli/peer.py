"""``gleek bot``, ``gleek play`` and ``gleek local``: the command line of a peer.

Flags become a ``PeerConfig`` here (``peer_config``) and the session is
played by ``peer_commands``; nothing below this module imports it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from gleek_p2p.base.errors import GleekError
from gleek_p2p.base.i18n import _, current_language, ngettext
from gleek_p2p.base.text import printable
from gleek_p2p.bots.registry import make_strategy
from gleek_p2p.cli.given import given
from gleek_p2p.log.keys import ensure_private_dir, load_or_create_identity
from gleek_p2p.rules import parse_variant
from gleek_p2p.session.config import PeerConfig
from gleek_p2p.session.lobby import LobbyConfig
from gleek_p2p.session.peer import BotPlayer, Player
from gleek_p2p.session.play import (
    SessionResult,
    data_dir_of,
    default_data_dir,
    log_path_keeper,
    play_session,
    run_peer_session,
    say,
)
from gleek_p2p.table.session import Table


def needs_terminal(args: argparse.Namespace) -> None:
    """Refuse, in one sentence, to start a screen without a terminal (before any peer starts)."""
    if args.command == "bot" or getattr(args, "autoplay", None):
        return
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        if args.command == "local":
            raise GleekError(_("gleek {command} needs a terminal to show the table: run it in "
                               "one, or let a bot play for you with --autoplay heuristic")
                             .format(command=args.command))
        raise GleekError(_("gleek {command} needs a terminal to show the table: run it in one")
                         .format(command=args.command))


DEFAULT_BOT = "strong"
"""The bot that finishes a seat its person hands over (``q`` then ``b``, ``--bot-after``)."""


def bot_successor(think_ms: float | None) -> Callable[[Table], tuple[Player, str]]:
    """Builds the default bot for a seat handed over, with the peer's think budget; it
    prints a line per hand, as ``gleek bot`` does."""

    def make(table: Table) -> tuple[Player, str]:
        from gleek_p2p.ui.talk import TalkingBot

        seat = table.seat if table.seat is not None else 0
        bot = TalkingBot(make_strategy(DEFAULT_BOT, os.urandom(8), seat=seat,
                                       think_ms=think_ms), say=say)
        bot.skip_past_hands(table)
        return bot, DEFAULT_BOT

    return make


def peer_config(args: argparse.Namespace) -> PeerConfig:
    """The command line's flags as a ``PeerConfig`` (the only place that reads them)."""
    return PeerConfig(
        name=args.name, table=args.table, hands=args.hands, variant=args.variant,
        listen=args.listen, peers=tuple(args.peer), mdns=not args.no_mdns,
        interfaces=tuple(args.interface or ()), timeout=args.timeout,
        data_dir=Path(args.data_dir) if args.data_dir else None,
        ready_file=Path(args.ready_file) if getattr(args, "ready_file", None) else None,
        watchers=args.watchers,
    )


def choose_table(args: argparse.Namespace) -> tuple[str, ...]:
    """Settle ``args.table`` when it is not given: ``gleek play`` without it, ``gleek bot --pick``.

    With mDNS the tables on the LAN are listed and the person picks one (its
    hands and variant are then the table's) or names a new one; without
    mDNS there is nothing to list, and the table is ``gleek``. Returns what
    the person must be told: a sentence for each setting the command line
    asked for (``--hands``, ``--variant``) that the picked table plays
    otherwise (whoever started it chose; the pick is the person's later,
    more precise word, so the table is joined as it plays).
    """
    if args.table is not None and not getattr(args, "pick", False):
        return ()
    if args.no_mdns:
        args.table = args.table or "gleek"
        return ()
    from gleek_p2p.cli.tables import pick_table

    chosen = pick_table(args, say)
    args.table = chosen.table
    told = differences(chosen.table, chosen.hands, chosen.variant, args)
    for sentence in told:
        say(sentence)
    if chosen.hands is not None:
        args.hands = chosen.hands
    if chosen.variant is not None:
        args.variant = chosen.variant
    return told


def differences(table: str, hands: int | None, variant: str | None,
                args: argparse.Namespace) -> tuple[str, ...]:
    """A sentence for each table setting ``args`` was given that the table plays otherwise.

    Only what the command line gave counts (``cli.given``): a default is
    nobody's wish. ``hands`` or ``variant`` None is a new table, which plays
    the flags.
    """
    asked = given(args)
    told = []
    if "hands" in asked and hands is not None and hands != args.hands:
        told.append(ngettext(
            "Table {table} plays {hands} hand, not {asked} as you asked with --hands: "
            "whoever started it chose, and you join it as it plays.",
            "Table {table} plays {hands} hands, not {asked} as you asked with --hands: "
            "whoever started it chose, and you join it as it plays.",
            hands).format(table=printable(table), hands=hands, asked=args.hands))
    if "variant" in asked and variant is not None and variant != args.variant:
        told.append(_("Table {table} plays the variant {variant}, not {asked} as you asked "
                      "with --variant: whoever started it chose, and you join it as it "
                      "plays.").format(table=printable(table), variant=printable(variant),
                                       asked=printable(args.variant)))
    return tuple(told)


def run(args: argparse.Namespace) -> int:
    """Entry point for the three peer commands."""
    needs_terminal(args)
    if args.command == "local":
        return run_local(args)
    told = choose_table(args)
    config = peer_config(args)
    data_dir = data_dir_of(config)
    identity = load_or_create_identity(data_dir, os.urandom)
    if args.command == "bot":
        seed = (args.seed or os.urandom(8).hex()).encode()
        from gleek_p2p.ui.talk import Talk, TalkingBot

        talk = Talk.QUIET if args.quiet else Talk.VERBOSE if args.verbose else Talk.HANDS
        successor: Callable[[Table], tuple[Player, str]] | None = None
        player: Player = TalkingBot(make_strategy(args.strategy, seed, think_ms=args.think),
                                    say=say, talk=talk)
        notes = say
    else:
        from gleek_p2p.ui.app import HumanPlayer

        _log_to_file(data_dir)
        human = HumanPlayer(names=None)
        player = human
        notes = human.note
        successor = bot_successor(None)
        for sentence in told:
            # Said at the picker already; the screen about to cover it keeps it too.
            human.note(sentence)
    try:
        result = asyncio.run(run_peer_session(config, identity, player, notes,
                                              successor=successor,
                                              bot_after=getattr(args, "bot_after", None)))
    except GleekError as exc:
        return _left_the_table(exc, player)
    say(result.outcome.reason)
    if args.command == "play":
        print_result(result.table)
    print(result.log_path, flush=True)
    # Finished, or ended by a player who left (a fair end, as gleek verify reads it:
    # not a leave off this chain, nor one whose signer played on): 0; else 1.
    from gleek_p2p.table import events as ev
    from gleek_p2p.table.verify import early_end

    ending = early_end(result.table) if result.table.verdict is not None else None
    return 0 if result.outcome.finished or (ending is not None and ending.cause == ev.LEFT) \
        else 1


def print_result(table: Table | None) -> None:
    """The session's totals and winner, left in the terminal when the full screen closes."""
    if table is None:
        return
    from gleek_p2p.ui.summary import result_lines

    state = table.hands[-1].state if table.hands else table.state
    if state is not None:
        for line in result_lines(state, table.roster.names, table.seat):
            say(line)


def bot_command(
    name: str, port: int, peers: Sequence[int], data_dir: Path, args: argparse.Namespace,
    table: str, ready: Path | None = None,
) -> list[str]:
    """The command line of one of ``gleek local``'s bot peers.

    It speaks the language chosen for this run (``--lang`` or the locale), so
    the notes it prints match the person's screen. With ``ready`` it writes
    there the port it listens on (``port`` 0: one the system chooses).
    """
    command = [
        sys.executable, "-m", "gleek_p2p", "--lang", current_language(),
        "bot", "--name", name, "--no-mdns",
        "--listen", f"127.0.0.1:{port}", "--data-dir", str(data_dir), "--table", table,
        "--hands", str(args.hands), "--variant", args.variant, "--strategy", args.bots,
        "--timeout", str(args.timeout),
    ]
    if args.think is not None:
        command += ["--think", str(args.think)]
    if ready is not None:
        command += ["--ready-file", str(ready)]
    for peer in peers:
        command += ["--peer", f"127.0.0.1:{peer}"]
    return command


BOT_START_S = 60.0
"""How long ``gleek local`` waits for a bot peer to listen (it starts Python and
imports the game: about a second on an idle machine)."""


def _listening(proc: subprocess.Popen[bytes], ready: Path, name: str, log: Path) -> int:
    """The port a bot peer listens on, once its ready file says it (GleekError, in words,
    if it ends first or takes longer than ``BOT_START_S``)."""
    deadline = time.monotonic() + BOT_START_S
    while True:
        text = ready.read_text().strip() if ready.exists() else ""
        if text.isdigit():
            return int(text)
        if proc.poll() is not None:
            raise GleekError(_("the bot {name} stopped before it could play (exit code "
                               "{code}); what it said is in {log}").format(
                name=name, code=proc.returncode, log=log))
        if time.monotonic() > deadline:
            raise GleekError(_("the bot {name} did not start within {seconds} s; what it "
                               "said is in {log}").format(
                name=name, seconds=round(BOT_START_S), log=log))
        time.sleep(0.02)


def run_local(args: argparse.Namespace) -> int:
    """``gleek local``: you against two bot peers on this machine, the full protocol."""
    variant = parse_variant(args.variant)
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    ensure_private_dir(data_dir)
    identity = load_or_create_identity(data_dir, os.urandom)
    table = f"local-{os.urandom(4).hex()}"
    # The bots' ports, each once it listens. Every peer listens on a port the
    # system chooses and dials only ports that already listen: a port picked
    # beforehand and dialled before its owner binds it can be taken meanwhile,
    # even by the dialling socket itself (a connection to its own port).
    ports: list[int] = []
    bot_dirs = [data_dir / "local-bots" / f"bot-{i}" for i in range(1, variant.players)]
    names = ["Anne", "Thomas", "Mary"][1:variant.players]
    procs: list[subprocess.Popen[bytes]] = []
    log_dir = Path(tempfile.mkdtemp(prefix="gleek-local-"))
    try:
        for i, bot_dir in enumerate(bot_dirs):
            bot_dir.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            ready, said = log_dir / f"{names[i]}.port", log_dir / f"{names[i]}.log"
            command = bot_command(names[i], 0, ports, bot_dir, args, table, ready)
            with open(said, "wb") as out:
                procs.append(subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                              stdin=subprocess.DEVNULL))
            ports.append(_listening(procs[-1], ready, names[i], said))
        if args.autoplay:
            player: Player = BotPlayer(
                make_strategy(args.autoplay, os.urandom(8), think_ms=args.think)
            )
            notes: Callable[[str], None] = say
            successor: Callable[[Table], tuple[Player, str]] | None = None
        else:
            from gleek_p2p.ui.app import HumanPlayer

            _log_to_file(data_dir)
            human = HumanPlayer(names=None)
            player = human
            notes = human.note
            successor = bot_successor(args.think)
        _say_if_left_unfinished(data_dir, notes)
        config = LobbyConfig(
            name=args.name, table=f"{table}/{args.hands}", variant=variant,
            listen=("127.0.0.1", 0), peers=tuple(("127.0.0.1", p) for p in ports),
        )

        async def main() -> SessionResult:
            session = play_session(
                identity=identity, config=config, hands=args.hands, data_dir=data_dir,
                player=player, timeout=args.timeout, notes=notes,
                on_log=log_path_keeper(player), successor=successor,
                bot_after=getattr(args, "bot_after", None),
            )
            runner_ui = getattr(player, "run_alongside", None)
            if runner_ui is not None:
                result: SessionResult = await runner_ui(session)
                return result
            return await session

        left: GleekError | None = None
        try:
            result = asyncio.run(main())
        except GleekError as exc:
            left = exc
            if _is_departure(exc):
                say(_("Leaving the table: the others were told; closing the bots…"))
    finally:
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=5)
            if proc.poll() is None:
                proc.kill()
    if left is not None:
        return _left_the_table(left, player)
    say(result.outcome.reason)
    print_result(result.table)
    code = say_verdict(result.log_path)
    print(result.log_path, flush=True)
    return code


def say_verdict(log_path: Path) -> int:
    """Verify a log and say its verdict in a line or a few; returns verify's exit code."""
    from gleek_p2p.cli.commands import verify_file
    from gleek_p2p.table.verify import Judgement
    from gleek_p2p.tools.report import (
        claim_sentence,
        ending_sentence,
        unreadable_words,
        violation_sentence,
    )
    from gleek_p2p.tools.verdict_words import stop_words

    report = verify_file(log_path)
    if report.roster is None:
        say(_("gleek verify: not a readable log ({error})").format(
            error=unreadable_words(report)))
        return report.exit_code
    names = report.roster.names
    checked = ngettext("{n} event checked", "{n} events checked", report.events).format(
        n=report.events)
    judgement = report.judgement
    if judgement is Judgement.FAIR and report.ending is None:
        verdict = _("gleek verify: fair and complete ({checked})")
    elif judgement is Judgement.FAIR:
        assert report.ending is not None
        verdict = _("gleek verify: fair, ended early: {ending} ({checked})").format(
            ending=ending_sentence(report.ending, names), checked="{checked}")
    elif judgement is Judgement.STOPPED and not report.claims:
        verdict = _("gleek verify: stopped, {stopped}; nobody is blamed ({checked})")
    elif judgement is Judgement.STOPPED:
        verdict = _("gleek verify: stopped on a claim the log cannot prove; nobody is blamed "
                    "({checked})")
    else:
        verdict = _("gleek verify: NOT fair ({checked})")
    say(verdict.format(checked=checked, stopped=stop_words(report)))
    for violation in report.violations:
        say("  - " + violation_sentence(violation, names))
    for claim in report.claims:
        say("  - " + claim_sentence(claim, names))
    return report.exit_code


def _say_if_left_unfinished(data_dir: Path, notes: Callable[[str], None]) -> None:
    """Say that an earlier ``gleek local`` left unfinished is not resumed (its bots are gone).

    Each ``gleek local`` sits at a table of its own; the marker of one left
    early names its log. Said once: the marker goes once said.
    """
    tables = data_dir / "tables"
    markers = sorted(tables.glob("local-*.current")) if tables.is_dir() else []
    for marker in markers:
        lines = marker.read_text(errors="replace").splitlines()
        notes(_("Your last gleek local session was left before its end; this is a new "
                "session (a local one cannot be resumed). Its log: {file}").format(
            file=lines[0] if lines else marker))
        with contextlib.suppress(OSError):
            marker.unlink()


def _log_to_file(data_dir: Path) -> None:
    """Keep log lines off a full-screen UI: they go to a file in the data directory."""
    logging.basicConfig(filename=str(data_dir / "gleek.log"), level=logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")


def _is_departure(exc: GleekError) -> bool:
    from gleek_p2p.ui.app import UserQuit

    return isinstance(exc, UserQuit)


def _left_the_table(exc: GleekError, player: Player) -> int:
    """A person who chose to leave: not an error (exit 0), the log's path printed last."""
    if not _is_departure(exc):
        raise exc
    log_path = getattr(player, "log_path", None)
    if getattr(player, "table", None) is None and log_path is None:
        # Left while the table was forming: there were no "others" to tell, and no log.
        say(_("You left before the table formed; no session was started."))
        return 0
    say(_("You left the table; the others were told at once."))
    print_result(getattr(player, "table", None))
    if log_path is not None:
        if Path(log_path).exists():
            say_verdict(Path(log_path))
        print(log_path, flush=True)
    return 0
