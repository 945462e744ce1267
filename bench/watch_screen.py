"""What the watcher's screen adds to following a log (``gleek watch`` at a terminal).

A watcher that joins mid-session catches up on the whole log at once, then
follows it event by event. This feeds one self-played session to:

* ``headless``: the observer table and the log kept (``LiveLog``), the
  baseline of this run;
* ``follow``: the same, and every event given to the watcher's screen
  (``WatcherScreen.follow``: narration, the summaries' states), not drawn:
  the application redraws on its own, coalescing a burst (a catch-up) into
  a few frames;
* ``drawn``: as ``follow``, and the screen drawn after every event (``dump``
  at 80x24): the most a terminal would be drawn, one event at a time.

It prints each one's time per event (medians of ``--rounds``) and its ratio
to the headless one.

    .venv/bin/python bench/watch_screen.py [--rounds 3] [--hands 2]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from prompt_toolkit.input import DummyInput
from prompt_toolkit.output import DummyOutput

from gleek_p2p.bots.strategy import RandomStrategy
from gleek_p2p.rules import VARIANTS
from gleek_p2p.session.watch import LiveLog
from gleek_p2p.table.verify import verify_records
from gleek_p2p.tools.selfplay import selfplay
from gleek_p2p.ui.watching import WatcherScreen


def follow(records: list[bytes], screen: bool, drawn: bool) -> float:
    """Seconds to take every record (and give it to a screen; and draw it)."""
    roster = verify_records(records[:1]).roster
    assert roster is not None
    with tempfile.TemporaryDirectory() as tmp:
        live = LiveLog(Path(tmp))
        watcher = WatcherScreen(input=DummyInput(), output=DummyOutput()) if screen else None
        start = time.perf_counter()
        for record in records:
            live.take(record, roster.publics[0])
            if watcher is not None:
                assert live.table is not None
                watcher.follow(live.table, live.applied)
                if drawn:
                    watcher.screen.dump()
        took = time.perf_counter() - start
        live.close()
        assert live.finished
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hands", type=int, default=2)
    args = parser.parse_args()
    records = list(selfplay(VARIANTS["standard"], args.hands, b"bench-watch-screen",
                            [RandomStrategy(i) for i in range(3)]).records)
    times: dict[str, list[float]] = {"headless": [], "follow": [], "drawn": []}
    for _round in range(args.rounds):
        for name in times:  # interleaved, so a busy moment weighs on each
            times[name].append(follow(records, name != "headless", name == "drawn"))
    base = statistics.median(times["headless"])
    print(f"{len(records)} events, {args.hands} hands, median of {args.rounds} rounds")
    for name, runs in times.items():
        median = statistics.median(runs)
        print(f"  {name:<9} {1000 * median / len(records):7.2f} ms/event   "
              f"x{median / base:.2f}")


if __name__ == "__main__":
    main()
