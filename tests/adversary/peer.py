"""A cheating seat for the real peer shell: a table that signs lies.

Plugged into a ``SessionRunner`` in place of an honest ``Table``, it lets a
scenario's ``tamper`` replace any event this seat signs, and accepts its
own lies into its own log, as a cheater would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gleek_p2p.base.errors import GleekError
from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.log.envelope import Envelope
from gleek_p2p.log.store import LogStore
from gleek_p2p.rules import VARIANTS, Event, Variant
from gleek_p2p.session.peer import BotPlayer, MemoryMesh, SessionRunner
from gleek_p2p.tools.selfplay import make_seats

from .forge import LiarTable, Tamper


class CheatingTable(LiarTable):
    """A seat's table whose every signed event passes through ``tamper``."""

    def __init__(self, *args: Any, tamper: Tamper, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tamper = tamper
        self.cheated = False
        self.on_cheat: Callable[[], None] | None = None
        """Called once, as the cheat is signed (before it is sent)."""

    def _cheat(self) -> None:
        self.cheated = True
        if self.on_cheat is not None:
            self.on_cheat()

    def auto_event(self) -> Envelope | None:
        envelope = super().auto_event()
        if envelope is not None and not self.cheated:
            replaced = self.tamper(self, envelope, len(self.envelopes))
            if replaced is not None:
                self._cheat()
                return replaced
        return envelope

    def act(self, action: Event) -> Envelope:
        if not self.cheated:
            replaced = self.tamper(self, None, len(self.envelopes))
            if replaced is not None:
                self._cheat()
                return replaced
        return super().act(action)

    def receive(self, envelope: Envelope, encoded: bytes | None = None) -> list[Event]:
        try:
            return super().receive(envelope, encoded)
        except GleekError:
            if envelope.seat != self.seat or envelope.seq != len(self.envelopes):
                raise
            # Its own lie: keep it in its log as it was sent.
            self._append(envelope, encoded)
            return []


async def play_cheater(
    tmp_path: Path, label: str, tamper: Tamper, seed: bytes, cheater: int,
    variant: Variant = VARIANTS["standard"], timeout_after_cheat: float | None = None,
) -> tuple[list[SessionRunner], bool]:
    """One standard hand over the real peer shell, ``cheater`` signing through ``tamper``.

    Returns the runners once the honest ones have ended, and whether the
    cheat happened. ``timeout_after_cheat``: the seats' timeout from the cheat
    on (a scenario whose cheater then falls silent need not wait out the 10 s
    meant for a loaded machine's honest steps before it).
    """
    tables = make_seats(variant, 1, seed)
    honest = tables[cheater]
    tables[cheater] = CheatingTable(honest.roster, honest.seat, honest._identity,
                                    honest._secret, tamper=tamper)
    meshes = MemoryMesh.create(3)
    runners = [
        SessionRunner(table, LogStore.open(tmp_path / f"{label}-{seed.hex()}-{s}.gleeklog"),
                      mesh, BotPlayer(RandomStrategy(seed + bytes([s]))), timeout=10)
        for s, (table, mesh) in enumerate(zip(tables, meshes, strict=True))
    ]
    if timeout_after_cheat is not None:
        def shorten(seconds: float = timeout_after_cheat) -> None:
            for runner in runners:
                runner.timeout = seconds

        liar = tables[cheater]
        assert isinstance(liar, CheatingTable)
        liar.on_cheat = shorten
    tasks = [asyncio.create_task(r.run()) for r in runners]
    honest_tasks = [tasks[s] for s in range(3) if s != cheater]
    await asyncio.wait_for(asyncio.gather(*honest_tasks), 60)
    tasks[cheater].cancel()
    await asyncio.gather(tasks[cheater], return_exceptions=True)
    cheating = tables[cheater]
    return runners, isinstance(cheating, CheatingTable) and cheating.cheated
