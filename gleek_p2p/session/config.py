"""What a peer needs to know to join a table: one typed value for every entry point.

``gleek play``/``gleek bot`` build it from their flags (in one place,
``peer_cli.peer_config``) and ``gleek_p2p.bots.run_peer`` from its keyword
arguments; the session code reads only this, never a command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gleek_p2p.base.errors import GleekError
from gleek_p2p.base.i18n import _
from gleek_p2p.rules import (
    VARIANT_EXAMPLE,
    ClashingSwitches,
    UnknownSwitch,
    Variant,
    parse_variant,
)

__all__ = ["PeerConfig", "variant_named"]


def variant_named(text: str) -> Variant:
    """The variant ``--variant`` names (``rules.parse_variant``); a ``GleekError`` sentence
    that lists the known switches for a word it does not know."""
    try:
        return parse_variant(text)
    except UnknownSwitch as exc:
        raise GleekError(_("unknown variant or switch {name}; choose from {choices}, or join "
                           "switches with + (e.g. {example})").format(
            name=repr(exc.word), choices=", ".join(exc.known),
            example=VARIANT_EXAMPLE)) from None
    except ClashingSwitches as exc:
        raise GleekError(_("the variant switches {first} and {second} cannot be played "
                           "together").format(first=exc.first, second=exc.second)) from None


@dataclass(frozen=True)
class PeerConfig:
    """One peer's settings for one session."""

    name: str
    """The player's name at the table."""
    table: str = "gleek"
    """The table's name: peers with the same name (and hands) play together."""
    hands: int = 12
    variant: str = "standard"
    """A preset of ``rules.VARIANTS`` or switches joined by ``+`` (``rules.parse_variant``)."""
    listen: str = "0.0.0.0:0"
    """``HOST:PORT`` to accept connections on (port 0: any free port)."""
    peers: tuple[str, ...] = ()
    """``HOST:PORT`` addresses to dial without mDNS."""
    mdns: bool = True
    interfaces: tuple[str, ...] = ()
    """The interfaces mDNS uses (empty: all)."""
    timeout: float = 120.0
    """Seconds to wait for a seat's event before ending the session."""
    data_dir: Path | None = None
    """Identity, secrets and logs (None: the user's data directory)."""
    ready_file: Path | None = None
    """Where to write the listening port once it is known (for scripts)."""
    watchers: bool = True
    """Whether this table accepts watchers (announced to the LAN; SPEC 5)."""

    def rules(self) -> Variant:
        """The variant's rules; a ``GleekError`` for a name no variant has."""
        return variant_named(self.variant)
