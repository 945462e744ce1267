"""A Gleek bot peer in a few lines: it declares, claims the Tiddy and plays low.

python examples/minimal_bot.py                  # find a table by mDNS
python examples/minimal_bot.py 192.0.2.7:4100   # or join these peers
"""

import sys

from gleek_p2p.bots import run_peer
from gleek_p2p.bots.strategy import Strategy
from gleek_p2p.rules import ClaimTiddy, Play, card_rank


class LowBot(Strategy):
    name = "lowbot"

    def choose(self, view, legal):
        cards = dict(view.hand)  # slot -> card
        plays = [m for m in legal if isinstance(m, Play)]
        if plays:  # rank 0 is the Ace, 10 the Four: the highest rank number is the lowest card
            return max(plays, key=lambda m: card_rank(cards[m.slot]))
        claims = [m for m in legal if isinstance(m, ClaimTiddy)]
        return claims[0] if claims else legal[0]  # legal[0]: pass, or the first declaration


if __name__ == "__main__":
    peers = tuple(sys.argv[1:])
    print(run_peer(LowBot(), name="lowbot", peers=peers, mdns=not peers).reason)
