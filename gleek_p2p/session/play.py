"""A peer from its ``PeerConfig`` to the end of its session (no command line here).

The data directory holds the identity key, one secret per session and the
session logs; a peer that restarts with the same directory and table name
resumes its unfinished session from its own log. The commands (``cli.peer``)
and the bot API (``gleek_p2p.bots.run_peer``) both build a ``PeerConfig`` and
call this module; it never imports them (a bot is a ``peer.Strategy`` to it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from gleek_p2p.base.errors import GleekError
from gleek_p2p.base.i18n import _, ngettext
from gleek_p2p.base.terminal import put
from gleek_p2p.base.text import printable
from gleek_p2p.log import canonical
from gleek_p2p.log.envelope import decode_envelope
from gleek_p2p.log.keys import Identity, ensure_private_dir, fingerprint, load_or_create_identity
from gleek_p2p.log.store import LogStore, SecretStore, read_log_file
from gleek_p2p.net.discovery import Discovery
from gleek_p2p.net.messages import MAX_TABLE_BYTES, ByeCode
from gleek_p2p.rules import Variant
from gleek_p2p.session.config import PeerConfig
from gleek_p2p.session.link_words import table_words
from gleek_p2p.session.lobby import Address, ConnectionMesh, Lobby, LobbyConfig
from gleek_p2p.session.lobby_status import LobbyStatus
from gleek_p2p.session.peer import (
    LEFT_THE_TABLE,
    BotPlayer,
    Outcome,
    Player,
    SessionRunner,
    Strategy,
)
from gleek_p2p.table.roster import MAX_HANDS, MAX_NAME, Roster, fits_roster
from gleek_p2p.table.session import Table

log = logging.getLogger(__name__)


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("gleek-p2p", appauthor=False))


def parse_address(text: str, what: str) -> Address:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) < 65536:
        raise GleekError(_("{option} must be HOST:PORT, not {text}").format(
            option=what, text=repr(text)))
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
        """The unfinished session of this table to resume, if any.

        The log the marker names is only read (never opened for writing here),
        and it must be this data directory's log for the marker's session: a
        marker naming any other file (an empty one included) resumes nothing.
        """
        marker = self.current_marker(table)
        if not marker.exists():
            return None
        lines = marker.read_text().splitlines()
        if not lines:
            return None
        path = Path(lines[0])
        records: list[bytes] = []
        if path.exists():
            try:
                records = read_log_file(path)[0]
            except GleekError:
                return None  # not a log: nothing of ours to resume there
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
        if os.path.abspath(path) != os.path.abspath(self.log_path(roster.session_id)):
            log.warning("the resume marker %s names %s, not this session's log; ignored",
                        marker, path)
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
    on_status: Callable[[LobbyStatus], None] | None = None,
    on_log: Callable[[Path], None] | None = None,
    check_in_worker: bool = True,
    successor: Callable[[Table], tuple[Player, str]] | None = None,
    bot_after: float | None = None,
) -> SessionResult:
    """Join (or resume) a session at ``config.table`` and play it to the end.

    ``check_in_worker``: check the other seats' deck proofs in a worker
    thread (``SessionRunner.check_in_worker``); a benchmark running several
    peers in one loop turns it off.

    ``on_status`` is told who is at the table whenever that changes (by
    default the player's ``show_lobby``, if it has one: the screen).
    ``on_log`` hears the log's path as soon as it is known (a person who
    leaves early is still told where the log is).

    ``successor`` builds the bot that finishes the seat if its person hands
    it over (``SessionRunner.hand_over``; a player with ``attach_runner`` is
    given the runner to ask for it), or if the person does not move within
    ``bot_after`` seconds. Once handed over, a cancel (Ctrl-C) stops this
    peer without a leave: the seat is still the player's, and running the
    same command again resumes it, played by the person.
    """
    if on_status is None:
        on_status = getattr(player, "show_lobby", None)
    files = SessionFiles(data_dir)
    ensure_private_dir(data_dir)
    for sub in ("sessions", "tables"):
        ensure_private_dir(data_dir / sub)
    resume = files.unfinished(config.table, identity)
    lobby = Lobby(identity, config, discovery=discovery, notes=notes, random=random,
                  roster=resume[0] if resume else None,
                  on_status=on_status or (lambda status: None))
    await lobby.start()
    if on_ready is not None:
        on_ready(lobby.port)
    notes(_("listening on port {port}; your key is {key}").format(
        port=lobby.port, key=fingerprint(identity.public)))
    farewell, farewell_code = "goodbye", ByeCode.CLOSING
    leaving = stopped_bot = False
    try:
        if resume is not None:
            roster, path = resume
            notes(_("resuming the unfinished session in {file}").format(file=path))
        else:
            more = config.variant.players - 1
            notes(ngettext("waiting for {n} more player at table {table}",
                           "waiting for {n} more players at table {table}", more).format(
                               n=more, table=table_words(config.table)))
            formation = await lobby.formed(timeout)
            roster = Roster(config.variant, hands, formation.publics, formation.names,
                            formation.session_nonce)
            path = files.log_path(roster.session_id)
        if on_log is not None:
            on_log(path)
        seat = roster.seat_of(identity.public)
        assert seat is not None
        for s, (name, public) in enumerate(zip(roster.names, roster.publics, strict=True)):
            line = (_("seat {seat}: {name}, key {key} (you)") if s == seat
                    else _("seat {seat}: {name}, key {key}"))
            notes(line.format(seat=s, name=name, key=fingerprint(public)))
        secrets = files.secrets()
        name = roster.session_id.hex()
        secret = secrets.get(name)
        if secret is None:
            # Under the secrets file's lock: a peer sharing this data directory
            # may be adding its own secret at the same moment.
            secret = secrets.setdefault(name, random(32))
        marker = files.current_marker(config.table)
        marker.with_suffix(".tmp").write_text(
            f"{path}\n{canonical.encode(roster.to_body()).hex()}\n")
        marker.with_suffix(".tmp").replace(marker)
        lobby.adopt_roster(roster)
        table = Table(roster, seat, identity, secret)
        lobby.feed_watchers(table.encoded)
        with LogStore.open(path) as store:
            SessionRunner.resume_records(table, store.records)
            runner = SessionRunner(table, store, ConnectionMesh(lobby, roster), player,
                                   timeout=timeout, failure_log=data_dir / "gleek.log",
                                   check_in_worker=check_in_worker,
                                   successor=successor, bot_after=bot_after)
            attach = getattr(player, "attach_runner", None)
            if attach is not None:
                attach(runner)
            try:
                outcome = await runner.run()
            except asyncio.CancelledError:
                if runner.handed_over.is_set():
                    stopped_bot = True
                    raise
                # The player leaves: the signed leave goes into the log and out to
                # every seat now, before the lobby closes the links.
                try:
                    left = runner.leave()
                except Exception as exc:  # leaving must not fail: the Leave still goes out
                    log.error("could not sign the leave: %r", exc)
                    left = False
                if left:
                    with contextlib.suppress(OSError):
                        files.current_marker(config.table).unlink()
                raise
            # No pause here: the runner lingered until every seat it can reach
            # said it holds the whole log, and closing flushes what watchers lack.
        if table.finished:
            # Told by code, so the others say "closed the table after the last
            # hand", not that a link failed.
            farewell, farewell_code = "the session is over", ByeCode.SESSION_OVER
            with contextlib.suppress(OSError):
                files.current_marker(config.table).unlink()
        return SessionResult(outcome, path, table)
    except asyncio.CancelledError:
        if not stopped_bot:
            farewell = f"{config.name} {LEFT_THE_TABLE}"
            farewell_code = ByeCode.LEFT_THE_TABLE
            leaving = True
        raise
    finally:
        await lobby.close(farewell, farewell_code, leaving=leaving)


def say(text: str) -> None:
    """A line for the person running the peer (stderr, so stdout keeps the log's path).

    Peer-provided text in it (names, reasons) is shown inert; on a terminal it is
    wrapped between words.
    """
    put(printable(text), sys.stderr)


def check_seat_words(name: str, table: str, hands: int) -> str:
    """The table's name on the wire (``NAME/HANDS``); ``GleekError`` if the player's
    name, the table's or the hands cannot go into a Hello and a roster.

    Checked before the first dial: found only at the roster, the table would form
    and then every seat would fail (a table picked from the LAN's records skips
    the flags' own checks).
    """
    if not fits_roster(name):
        raise GleekError(_("your name {name} cannot sit at a table: a player's name is 1 to "
                           "{most} printable characters").format(name=repr(name), most=MAX_NAME))
    if not 1 <= hands <= MAX_HANDS:
        raise GleekError(_("a session has 1 to {most} hands, not {hands}").format(
            most=MAX_HANDS, hands=hands))
    wire = f"{table}/{hands}"
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in wire):
        raise GleekError(_("the table name {table} holds a control character").format(
            table=repr(table)))
    if len(wire.encode("utf-8", "surrogatepass")) > MAX_TABLE_BYTES:
        raise GleekError(_("the table name {table} is too long: with its hands ({wire}) it "
                           "must fit in {most} bytes").format(table=repr(table),
                                                              wire=repr(wire),
                                                              most=MAX_TABLE_BYTES))
    return wire


def lobby_config(config: PeerConfig, variant: Variant) -> LobbyConfig:
    """The lobby's settings for this peer (addresses parsed, the table named with its hands);
    ``GleekError`` for a name, table or hands no table can take (``check_seat_words``)."""
    return LobbyConfig(
        name=config.name,
        table=check_seat_words(config.name, config.table, config.hands),
        variant=variant,
        listen=parse_address(config.listen, "--listen"),
        peers=tuple(parse_address(p, "--peer") for p in config.peers),
        watchers=config.watchers,
    )


def discovery(config: PeerConfig) -> Discovery | None:
    """mDNS on the configured interfaces (all if none), or None when it is off."""
    if not config.mdns:
        return None
    from zeroconf import InterfaceChoice

    from gleek_p2p.net.discovery import ZeroconfDiscovery

    return ZeroconfDiscovery(list(config.interfaces) or InterfaceChoice.All)


def data_dir_of(config: PeerConfig) -> Path:
    """The configured data directory (or the user's), created private."""
    directory = config.data_dir or default_data_dir()
    ensure_private_dir(directory)
    return directory


def log_path_keeper(player: Player) -> Callable[[Path], None] | None:
    """Where to tell a screen the log's path (its end box and a departure show it)."""
    if not hasattr(player, "log_path"):
        return None

    def keep(path: Path) -> None:
        player.log_path = path

    return keep


async def run_peer_session(
    config: PeerConfig,
    identity: Identity,
    player: Player,
    notes: Callable[[str], None],
    successor: Callable[[Table], tuple[Player, str]] | None = None,
    bot_after: float | None = None,
) -> SessionResult:
    """Join and play one session as ``config`` says, with ``player`` choosing the moves
    (``successor``, ``bot_after``: a bot that may finish the seat, see ``play_session``)."""
    ready: Callable[[int], None] | None = None
    if config.ready_file is not None:
        ready_file = config.ready_file

        def ready(port: int) -> None:
            ready_file.write_text(str(port))
    session = play_session(
        identity=identity,
        config=lobby_config(config, config.rules()),
        hands=config.hands,
        data_dir=data_dir_of(config),
        player=player,
        discovery=discovery(config),
        timeout=config.timeout,
        notes=notes,
        on_ready=ready,
        on_log=log_path_keeper(player),
        successor=successor,
        bot_after=bot_after,
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


def run_bot_session(strategy: Strategy, config: PeerConfig) -> Outcome:
    """The body of ``gleek_p2p.bots.run_peer``: play a session with ``strategy``, blocking."""
    config.rules()  # an unknown variant is refused before anything starts
    identity = load_or_create_identity(data_dir_of(config), os.urandom)
    result = asyncio.run(run_peer_session(config, identity, BotPlayer(strategy), say))
    say(result.outcome.reason)
    print(result.log_path, flush=True)
    return result.outcome
