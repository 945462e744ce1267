"""Who is at the table, as the table pane shows it before the first hand."""

from __future__ import annotations

from gleek_p2p.base.i18n import _, ngettext
from gleek_p2p.base.text import printable
from gleek_p2p.session.link_words import table_words
from gleek_p2p.session.lobby_status import LobbyStatus

from ..words import wrap_words


def lobby_lines(status: LobbyStatus, width: int = 80) -> list[str]:
    """Who is at the table and their key fingerprints, while it forms or after.

    A player whose line would not fit ``width`` gets its key on a second line.
    """
    if status.formed:
        head = _("Table {table}: seated.").format(table=table_words(status.table))
    else:
        head = ngettext("Table {table}: waiting for {n} more player.",
                        "Table {table}: waiting for {n} more players.",
                        status.missing).format(table=table_words(status.table),
                                               n=status.missing)
    people = sorted([status.me, *status.peers],
                    key=lambda p: (p.seat is None, p.seat or 0, p is not status.me))
    # The pane is 51 columns at 80: the head and the last line are wrapped, never cut.
    lines = wrap_words(head, width)
    for p in people:
        seat = _("seat {seat}").format(seat=p.seat) + "  " if p.seat is not None else ""
        # Hello names (a watcher's above all) may hold direction overrides and
        # separators, which no Hello check refuses: shown inert.
        name = _("{name} (you)").format(name=printable(p.name)) if p is status.me \
            else printable(p.name)
        state = "  " + _("(link down)") if not p.connected else ""
        key = _("key {fingerprint}").format(fingerprint=p.fingerprint)
        line = f"  {seat}{name}  {key}{state}"
        if len(line) <= width:
            lines.append(line)
        else:
            lines.extend([f"  {seat}{name}{state}", f"  {' ' * len(seat)}{key}"])
    for w in status.watchers:
        lines.append("  " + _("watching: {name}  key {fingerprint}").format(
            name=printable(w.name), fingerprint=w.fingerprint))
    if not status.formed and status.port is not None:
        lines.extend(wrap_words(_("Others can join with --peer HOST:{port}.").format(
            port=status.port), width))
    return lines
