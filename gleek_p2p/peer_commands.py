"""``gleek bot``, ``gleek play`` and ``gleek local``: a peer from flags to finish.

The data directory holds the identity key, one secret per session and the
session logs; a peer that restarts with the same directory and table name
resumes its unfinished session from its own log.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from gleek_p2p.bots.registry import make_strategy
from gleek_p2p.bots.strategy import Strategy
from gleek_p2p.errors import GleekError
from gleek_p2p.lobby import Address, ConnectionMesh, Lobby, LobbyConfig
from gleek_p2p.log import canonical
from gleek_p2p.log.envelope import decode_envelope
from gleek_p2p.log.keys import Identity, ensure_private_dir, fingerprint, load_or_create_identity
from gleek_p2p.log.store import LogStore, SecretStore
from gleek_p2p.net.discovery import Discovery
from gleek_p2p.peer import LEFT_THE_TABLE, BotPlayer, Outcome, Player, SessionRunner
from gleek_p2p.rules import VARIANTS, Variant
from gleek_p2p.table.roster import Roster
from gleek_p2p.table.session import Table


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("gleek-p2p", appauthor=False))


def parse_address(text: str, what: str) -> Address:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) < 65536:
        raise GleekError(f"{what} must be HOST:PORT, not {text!r}")
    return (host.strip("[]") or "0.0.0.0", int(port))


@dataclass
class SessionFiles:
    """Where one session's log and secret live in a data directory."""

    data_dir: Path

    def log_path(self, session_id: bytes) -> Path:
        return self.data_dir / "sessions" / f"{session_id.hex()[:32]}.gleeklog"

    def current_marker(self, table: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in table)[:60]
        return self.data_dir / "tables" / f"{safe}.current"

    def secrets(self) -> SecretStore:
        return SecretStore.open(self.data_dir / "secrets")

    def unfinished(self, table: str, identity: Identity) -> tuple[Roster, Path] | None:
        """The unfinished session of this table to resume, if any."""
        marker = self.current_marker(table)
        if not marker.exists():
            return None
        lines = marker.read_text().splitlines()
        if not lines:
            return None
        path = Path(lines[0])
        records: list[bytes] = []
        if path.exists():
            with LogStore.open(path) as store:
                records = list(store.records)
        if records:
            roster = Roster.from_body(decode_envelope(records[0]).body)
        elif len(lines) > 1:
            # Killed before the roster event reached the log: the marker kept
            # the roster, so a restart sits at the same table, not a new one.
            try:
                body = canonical.decode(bytes.fromhex(lines[1]))
                if not isinstance(body, list):
                    return None
                roster = Roster.from_body(body)
            except (ValueError, GleekError):
                return None  # a damaged marker: nothing to resume
        else:
            return None
        if roster.seat_of(identity.public) is None:
            return None
        return roster, path


@dataclass
class SessionResult:
    outcome: Outcome
    log_path: Path
    table: Table


async def play_session(
    *,
    identity: Identity,
    config: LobbyConfig,
    hands: int,
    data_dir: Path,
    player: Player,
    discovery: Discovery | None = None,
    timeout: float = 120.0,
    notes: Callable[[str], None] = lambda text: None,
    random: Callable[[int], bytes] = os.urandom,
    on_ready: Callable[[int], None] | None = None,
) -> SessionResult:
    """Join (or resume) a session at ``config.table`` and play it to the end."""
    files = SessionFiles(data_dir)
    ensure_private_dir(data_dir)
    for sub in ("sessions", "tables"):
        ensure_private_dir(data_dir / sub)
    resume = files.unfinished(config.table, identity)
    lobby = Lobby(identity, config, discovery=discovery, notes=notes, random=random,
                  roster=resume[0] if resume else None)
    await lobby.start()
    if on_ready is not None:
        on_ready(lobby.port)
    notes(f"listening on port {lobby.port}; your key is {fingerprint(identity.public)}")
    farewell = "goodbye"
    leaving = False
    try:
        if resume is not None:
            roster, path = resume
            notes(f"resuming the unfinished session in {path}")
        else:
            notes(f"waiting for {config.variant.players - 1} more players at table "
                  f"{config.table!r}")
            formation = await lobby.formed(timeout)
            roster = Roster(config.variant, hands, formation.publics, formation.names,
                            formation.session_nonce)
            path = files.log_path(roster.session_id)
        seat = roster.seat_of(identity.public)
        assert seat is not None
        for s, (name, public) in enumerate(zip(roster.names, roster.publics, strict=True)):
            notes(f"seat {s}: {name}, key {fingerprint(public)}"
                  f"{' (you)' if s == seat else ''}")
        secrets = files.secrets()
        name = roster.session_id.hex()
        secret = secrets.get(name)
        if secret is None:
            secret = random(32)
            secrets.put(name, secret)
        marker = files.current_marker(config.table)
        marker.with_suffix(".tmp").write_text(
            f"{path}\n{canonical.encode(roster.to_body()).hex()}\n")
        marker.with_suffix(".tmp").replace(marker)
        lobby.adopt_roster(roster)
        table = Table(roster, seat, identity, secret)
        with LogStore.open(path) as store:
            SessionRunner.resume_records(table, store.records)
            runner = SessionRunner(table, store, ConnectionMesh(lobby, roster), player,
                                   timeout=timeout)
            outcome = await runner.run()
            # Stay a moment so the others can fetch our last events.
            await asyncio.sleep(0.5)
        if table.finished:
            with contextlib.suppress(OSError):
                files.current_marker(config.table).unlink()
        return SessionResult(outcome, path, table)
    except asyncio.CancelledError:
        farewell = f"{config.name} {LEFT_THE_TABLE}"
        leaving = True
        raise
    finally:
        await lobby.close(farewell, leaving=leaving)


def _config(args: argparse.Namespace, variant: Variant) -> LobbyConfig:
    peers = tuple(parse_address(p, "--peer") for p in args.peer)
    return LobbyConfig(
        name=args.name,
        table=f"{args.table}/{args.hands}",
        variant=variant,
        listen=parse_address(args.listen, "--listen"),
        peers=peers,
    )


def _discovery(args: argparse.Namespace) -> Discovery | None:
    if args.no_mdns:
        return None
    from zeroconf import InterfaceChoice

    from gleek_p2p.net.discovery import ZeroconfDiscovery

    interfaces = [i for i in (args.interface or [])] or InterfaceChoice.All
    return ZeroconfDiscovery(interfaces)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _log_to_file(data_dir: Path) -> None:
    """Keep log lines off a full-screen UI: they go to a file in the data directory."""
    logging.basicConfig(filename=str(data_dir / "gleek.log"), level=logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")


def run(args: argparse.Namespace) -> int:
    """Entry point for the three peer commands."""
    if args.command == "local":
        return run_local(args)
    variant = VARIANTS[args.variant]
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    ensure_private_dir(data_dir)
    identity = load_or_create_identity(data_dir, os.urandom)
    if args.command == "bot":
        seed = (args.seed or os.urandom(8).hex()).encode()
        player: Player = BotPlayer(make_strategy(args.strategy, seed))
        notes = _say
    else:
        from gleek_p2p.ui.app import HumanPlayer

        _log_to_file(data_dir)
        human = HumanPlayer(names=None)
        player = human
        notes = human.note
    result = asyncio.run(_run_peer(args, variant, identity, data_dir, player, notes))
    _say(result.outcome.reason)
    print(result.log_path, flush=True)
    return 0 if result.outcome.finished else 1


async def _run_peer(
    args: argparse.Namespace,
    variant: Variant,
    identity: Identity,
    data_dir: Path,
    player: Player,
    notes: Callable[[str], None],
) -> SessionResult:
    ready: Callable[[int], None] | None = None
    if getattr(args, "ready_file", None):
        def ready(port: int) -> None:
            Path(args.ready_file).write_text(str(port))
    session = play_session(
        identity=identity,
        config=_config(args, variant),
        hands=args.hands,
        data_dir=data_dir,
        player=player,
        discovery=_discovery(args),
        timeout=args.timeout,
        notes=notes,
        on_ready=ready,
    )
    try:
        runner_ui = getattr(player, "run_alongside", None)
        if runner_ui is not None:
            result: SessionResult = await runner_ui(session)
            return result
        return await session
    finally:
        closer = getattr(getattr(player, "strategy", None), "aclose", None)
        if closer is not None:
            await closer()


def run_bot_session(
    strategy: Strategy,
    *,
    name: str,
    table: str,
    peers: Sequence[str],
    data_dir: str | Path | None,
    hands: int,
    variant: str,
    listen: str,
    mdns: bool,
    interfaces: Sequence[str],
    timeout: float,
) -> Outcome:
    """The body of ``gleek_p2p.bots.run_peer``."""
    if variant not in VARIANTS:
        raise GleekError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
    args = argparse.Namespace(
        name=name, table=table, peer=list(peers), listen=listen, no_mdns=not mdns,
        interface=list(interfaces), hands=hands, timeout=timeout, ready_file=None,
    )
    directory = Path(data_dir) if data_dir else default_data_dir()
    ensure_private_dir(directory)
    identity = load_or_create_identity(directory, os.urandom)
    result = asyncio.run(_run_peer(args, VARIANTS[variant], identity, directory,
                                   BotPlayer(strategy), _say))
    _say(result.outcome.reason)
    print(result.log_path, flush=True)
    return result.outcome


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def bot_command(
    name: str, port: int, peers: Sequence[int], data_dir: Path, args: argparse.Namespace,
    table: str,
) -> list[str]:
    command = [
        sys.executable, "-m", "gleek_p2p", "bot", "--name", name, "--no-mdns",
        "--listen", f"127.0.0.1:{port}", "--data-dir", str(data_dir), "--table", table,
        "--hands", str(args.hands), "--variant", args.variant, "--strategy", args.bots,
        "--timeout", str(args.timeout),
    ]
    for peer in peers:
        command += ["--peer", f"127.0.0.1:{peer}"]
    return command


def run_local(args: argparse.Namespace) -> int:
    """``gleek local``: you against two bot peers on this machine, the full protocol."""
    variant = VARIANTS[args.variant]
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    ensure_private_dir(data_dir)
    identity = load_or_create_identity(data_dir, os.urandom)
    table = f"local-{os.urandom(4).hex()}"
    ports = [free_port() for _ in range(variant.players)]
    bot_dirs = [data_dir / "local-bots" / f"bot-{i}" for i in range(1, variant.players)]
    names = ["Anne", "Thomas", "Mary"][1:variant.players]
    procs: list[subprocess.Popen[bytes]] = []
    log_dir = Path(tempfile.mkdtemp(prefix="gleek-local-"))
    try:
        for i, bot_dir in enumerate(bot_dirs):
            bot_dir.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            command = bot_command(names[i], ports[i + 1], ports[: i + 1], bot_dir, args, table)
            with open(log_dir / f"{names[i]}.log", "wb") as out:
                procs.append(subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                              stdin=subprocess.DEVNULL))
        if args.autoplay:
            player: Player = BotPlayer(make_strategy(args.autoplay, os.urandom(8)))
            notes: Callable[[str], None] = _say
        else:
            from gleek_p2p.ui.app import HumanPlayer

            _log_to_file(data_dir)
            human = HumanPlayer(names=None)
            player = human
            notes = human.note
        config = LobbyConfig(
            name=args.name, table=f"{table}/{args.hands}", variant=variant,
            listen=("127.0.0.1", ports[0]), peers=(),
        )

        async def main() -> SessionResult:
            session = play_session(
                identity=identity, config=config, hands=args.hands, data_dir=data_dir,
                player=player, timeout=args.timeout, notes=notes,
            )
            runner_ui = getattr(player, "run_alongside", None)
            if runner_ui is not None:
                result: SessionResult = await runner_ui(session)
                return result
            return await session

        result = asyncio.run(main())
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
    from gleek_p2p.commands import verify_file

    report = verify_file(result.log_path)
    _say(result.outcome.reason)
    verdict = "fair and complete" if report.fair else "NOT fair or not complete"
    _say(f"gleek verify: {verdict} ({report.events} events checked)")
    for violation in report.violations:
        _say("  - " + violation.sentence(result.table.roster.names))
    print(result.log_path, flush=True)
    return report.exit_code
