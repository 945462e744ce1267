"""``gleek watch`` with real processes over mDNS (issue 24, item 2).

In a private network namespace whose only interface is a loopback carrying
multicast (netns.py), so no packet leaves the machine: three ``gleek bot``
peers play table ``delta`` (which accepts watchers) and three more play
``echo`` (``--watchers no``). Once ``delta`` plays, ``gleek watch --table
delta`` finds it in the LAN's records, dials a seat, follows the log live
and ends with the players: exit 0, and the log it kept is the players' log,
byte for byte. ``gleek watch --table echo`` is refused (the players said no).

``python test_watch_namespace.py SCENARIO OUT`` runs the scenario (only
inside the namespace run_isolated makes) and prints a JSON summary.
"""

from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from netns import Bot, bot_argv, check_logs, emit, loopback, needs_netns, run_isolated

HERE = Path(__file__).resolve()
IFACE = "127.0.0.1"
TABLES = {"delta": ("ann", "ben", "cat"), "echo": ("dan", "eve", "fay")}
HANDS = 8
"""Long enough for the watcher to come in while delta plays: it starts with the
bots and dials as soon as the table plays (seen: 1.6 s after the table formed,
in hand 1, which ended 4 s later; three hands took 9 s with deck v3). Deck v4
plays a hand faster: three hands were over before a loaded machine's watcher
dialled (nothing listened any more), so eight."""
ECHO_HANDS = 60
"""Echo plays on long enough to be still playing (and refusing) when asked."""


def _watch(out: Path, table: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gleek_p2p", "watch", "--table", table, "--name", "wes",
         "--interface", IFACE, "--data-dir", str(out / f"wes-{table}"), "--timeout", "120"],
        capture_output=True, text=True, timeout=400, check=False)


def scenario_watch(out: Path) -> dict[str, Any]:
    loopback()
    bots = {}
    for table, names in TABLES.items():
        extra = ["--watchers", "no"] if table == "echo" else []
        for name in names:
            bots[name] = Bot(name, bot_argv(name, out / name, listen=f"{IFACE}:0", table=table,
                                            hands=ECHO_HANDS if table == "echo" else HANDS,
                                            timeout=120, mdns=True,
                                            interface=IFACE, extra=extra), out)
    result: dict[str, Any] = {}
    try:
        for bot in bots.values():
            bot.start()
        deadline = time.monotonic() + 180

        def watched(table: str) -> subprocess.CompletedProcess[str]:
            # Until a table plays (its records say so), a watcher finds no table to watch.
            while True:
                done = _watch(out, table)
                if "is playing" not in done.stderr or time.monotonic() > deadline:
                    return done

        # Delta and echo are asked at once: delta's session is short, and the watcher
        # must find it still playing. Echo, refused, then stops: its bots would only
        # take the cores from delta's.
        with ThreadPoolExecutor(1) as pool:
            delta = pool.submit(watched, "delta")
            refused = watched("echo")
            for name in TABLES["echo"]:
                bots[name].stop()
            done = delta.result()
        result["delta"] = {"rc": done.returncode, "out": done.stdout, "err": done.stderr}
        result["echo"] = {"rc": refused.returncode, "err": refused.stderr}
        for name in TABLES["delta"]:
            bots[name].wait(200)
        result["players"] = {n: bots[n].summary() for n in TABLES["delta"]}
    finally:
        for bot in bots.values():
            bot.stop()
    return result


@needs_netns
def test_gleek_watch_finds_a_playing_table_on_the_lan_and_keeps_its_log(
        tmp_path: Path) -> None:
    result = run_isolated(HERE, ["watch", str(tmp_path)], 600)
    delta = result["delta"]
    assert delta["rc"] == 0, delta["err"][-3000:]
    watched = Path(delta["out"].strip().splitlines()[-1])
    assert "watching through" in delta["err"] and "hand 1: " in delta["err"]
    logs = [watched]
    for name, bot in result["players"].items():
        assert bot["rc"] == 0 and bot["log"], (name, bot["stderr"][-1][-1500:])
        logs.append(Path(bot["log"]))
    judgement = check_logs(logs)  # every log byte-identical, fair and complete
    assert judgement.complete
    told = [line for bot in result["players"].values() for line in bot["stderr"][-1].splitlines()
            if "is watching this table" in line]
    assert told and all(line.startswith("wes (key ") for line in told), told
    echo = result["echo"]
    assert echo["rc"] != 0 and "do not accept watchers" in echo["err"], echo["err"][-2000:]


if __name__ == "__main__":
    _scenario, _out = sys.argv[1:]
    emit({"watch": scenario_watch}[_scenario](Path(_out)))
