"""Three ``gleek bot`` processes find each other by mDNS alone and play a session.

No ``--peer`` anywhere: zeroconf is the only way the bots learn where the
others listen, so it runs only inside private namespaces (see netns.py).
First on one host (a namespace whose loopback carries multicast), then on
three hosts joined by a bridge, each bot announcing on its own address.

``python test_discovery_session.py SCENARIO OUT`` runs a scenario (only
inside the namespace run_isolated makes) and prints a JSON summary.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from netns import Bot, Bridge, bot_argv, check_logs, emit, loopback, needs_netns, play, run_isolated

HERE = Path(__file__).resolve()
NAMES = ("ann", "ben", "cat")


def scenario_loopback(out: Path) -> dict[str, Any]:
    loopback()
    bots = [Bot(name, bot_argv(name, out / name, listen="127.0.0.1:0", table="mdns-lo",
                               mdns=True, interface="127.0.0.1"), out)
            for name in NAMES]
    return play(bots, 60)


def scenario_bridge(out: Path) -> dict[str, Any]:
    net = Bridge(3)
    bots = []
    for i, name in enumerate(NAMES, start=1):
        argv = bot_argv(name, out / name, listen=f"{net.addr(i)}:0", table="mdns-br",
                        mdns=True, interface=net.addr(i))
        bots.append(Bot(name, net.wrap(i, argv), out))
    return play(bots, 60)


def _check(result: dict[str, Any]) -> None:
    bots = result["bots"]
    for name, bot in bots.items():
        assert bot["rc"] == 0 and bot["log"], (name, bot["stderr"][-1][-1500:])
        assert "--peer" not in bot["stderr"][-1]
    judgement = check_logs([Path(bots[n]["log"]) for n in NAMES])
    assert judgement.complete
    assert sorted(judgement.names) == sorted(NAMES)


@needs_netns
def test_three_bots_on_one_host_meet_by_mdns(tmp_path: Path) -> None:
    _check(run_isolated(HERE, ["loopback", str(tmp_path)], 120))


@needs_netns
def test_three_bridged_hosts_meet_by_mdns(tmp_path: Path) -> None:
    _check(run_isolated(HERE, ["bridge", str(tmp_path)], 120))


if __name__ == "__main__":
    _scenario, _out = sys.argv[1:]
    emit({"loopback": scenario_loopback, "bridge": scenario_bridge}[_scenario](Path(_out)))
