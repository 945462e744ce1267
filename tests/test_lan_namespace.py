"""A LAN party that just works (issue 14, items 8-10), with real ``gleek bot`` processes.

Each scenario runs in a private network namespace whose only interface is a
loopback (see netns.py), so nothing can leave the machine:

* ``defaults``: three bots with default options (mDNS on every interface,
  listening on 0.0.0.0) on a host with no network form a table and play;
* ``fourth``: a fourth bot is refused, stops at once saying the table is full,
  and the seated bots mention the refusal once;
* ``star``: without mDNS, two bots each given only the third's address.

``python test_lan_namespace.py SCENARIO OUT`` runs a scenario (only inside the
namespace run_isolated makes) and prints a JSON summary.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from netns import Bot, bot_argv, check_logs, emit, loopback, needs_netns, play, run_isolated

HERE = Path(__file__).resolve()
NAMES = ("ann", "ben", "cat")
HUB_PORT = 7301


def scenario_defaults(out: Path) -> dict[str, Any]:
    loopback()
    bots = [Bot(n, bot_argv(n, out / n, listen="0.0.0.0:0", table="lo", hands=1, mdns=True),
                out) for n in NAMES]
    return play(bots, 90)


def scenario_fourth(out: Path) -> dict[str, Any]:
    loopback()
    # A formation timeout far beyond the scenario's limit: the fourth bot
    # ends within the limit only if the refusal stops it. Three hands: the
    # fourth needs a second seated player's proof, and a one-hand table (about
    # 3 s since the deck's passes are made ahead) could end and leave before it,
    # as it once did in CI; the fourth then rightly went on looking.
    bots = [Bot(n, bot_argv(n, out / n, listen="0.0.0.0:0", table="four", hands=3,
                            mdns=True, timeout=600), out)
            for n in (*NAMES, "dan")]
    return play(bots, 120)


def scenario_star(out: Path) -> dict[str, Any]:
    loopback()
    hub = f"127.0.0.1:{HUB_PORT}"
    bots = [Bot("ann", bot_argv("ann", out / "ann", listen=hub, table="star", hands=1), out)]
    bots += [Bot(n, bot_argv(n, out / n, listen="127.0.0.1:0", peers=[hub], table="star",
                             hands=1), out) for n in NAMES[1:]]
    return play(bots, 90)


def _complete(bots: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in names:
        bot = bots[name]
        assert bot["rc"] == 0 and bot["log"], (name, bot["stderr"][-1][-1500:])
    judgement = check_logs([Path(bots[n]["log"]) for n in names])
    assert judgement.complete
    assert sorted(judgement.names) == sorted(names)


@needs_netns
def test_three_bots_with_default_options_on_a_host_without_network(tmp_path: Path) -> None:
    _complete(run_isolated(HERE, ["defaults", str(tmp_path)], 150)["bots"], NAMES)


@needs_netns
def test_a_fourth_bot_stops_at_once_saying_the_table_is_full(tmp_path: Path) -> None:
    bots = run_isolated(HERE, ["fourth", str(tmp_path)], 180)["bots"]
    refused = [n for n, b in bots.items() if b["rc"] != 0]
    assert len(refused) == 1, {n: b["rc"] for n, b in bots.items()}
    loser = bots[refused[0]]
    assert loser["rc"] is not None, "the refused bot was still running at the deadline"
    assert "the table is full: " in loser["stderr"][-1], loser["stderr"][-1][-1500:]
    assert "could not reach" not in loser["stderr"][-1]
    seated = tuple(n for n in bots if n not in refused)
    _complete(bots, seated)
    for name in seated:
        mentions = [line for line in bots[name]["stderr"][-1].splitlines()
                    if "refused" in line and refused[0] in line]
        assert len(mentions) <= 1, (name, mentions)


@needs_netns
def test_a_star_of_direct_addresses_forms_a_table(tmp_path: Path) -> None:
    bots = run_isolated(HERE, ["star", str(tmp_path)], 150)["bots"]
    _complete(bots, NAMES)
    for name in NAMES:
        assert "players here" not in bots[name]["stderr"][-1]


if __name__ == "__main__":
    _scenario, _out = sys.argv[1:]
    scenarios = {"defaults": scenario_defaults, "fourth": scenario_fourth, "star": scenario_star}
    emit(scenarios[_scenario](Path(_out)))
