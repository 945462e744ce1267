"""``gleek simulate``: the JSON format, determinism, zero sums and the text table."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.bots.registry import make_strategies
from gleek_p2p.cli.gleek import main
from gleek_p2p.rules import PHASE_NAMES, VARIANTS
from gleek_p2p.tools.simulate import phase_stats, reading_stats, result_json, simulate


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["simulate", *args]) == 0
    return capsys.readouterr().out


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    out = run(capsys, "--json", *args)
    assert out.count("\n") == 1  # exactly one object
    return json.loads(out)


def check_report(report: Any, hands: int, players: int) -> None:
    assert set(report) == {"unit", "hands", "totals", "winner"}
    assert report["unit"] == "halfpence"
    assert len(report["hands"]) == hands
    totals = [0] * players
    for hand in report["hands"]:
        assert set(hand) == {"dealer", "ledger", "net"}
        assert 0 <= hand["dealer"] < players
        assert list(hand["ledger"]) == list(PHASE_NAMES)
        for amounts in hand["ledger"].values():
            assert len(amounts) == players and all(type(a) is int for a in amounts)
            assert sum(amounts) == 0  # every phase is paid between the players
        net = [sum(col[i] for col in hand["ledger"].values()) for i in range(players)]
        assert hand["net"] == net
        totals = [t + x for t, x in zip(totals, net, strict=True)]
    assert report["totals"] == totals and sum(totals) == 0
    best = max(totals)
    expected = totals.index(best) if totals.count(best) == 1 else None
    assert report["winner"] == expected


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_json_report_in_every_variant(capsys: pytest.CaptureFixture[str], variant: str) -> None:
    players = VARIANTS[variant].players
    report = run_json(capsys, "--hands", "4", "--seed", "v", "--variant", variant)
    check_report(report, 4, players)
    dealers = [h["dealer"] for h in report["hands"]]
    assert all((b - a) % players == 1 for a, b in itertools.pairwise(dealers))  # deal rotates


@settings(max_examples=10, deadline=None)
@given(st.text(min_size=0, max_size=6), st.sampled_from(["random", "heuristic,random,random"]))
def test_json_sums_to_zero_for_any_seed(seed: str, bots: str) -> None:
    from gleek_p2p.bots.registry import make_strategies
    from gleek_p2p.tools.simulate import result_json, simulate

    variant = VARIANTS["standard"]
    raw = seed.encode()
    report = result_json(simulate(variant, 2, raw, make_strategies(bots, 3, raw)))
    check_report(json.loads(json.dumps(report)), 2, 3)


def test_same_seed_same_output(capsys: pytest.CaptureFixture[str]) -> None:
    a = run(capsys, "--hands", "5", "--seed", "42", "--json")
    b = run(capsys, "--hands", "5", "--seed", "42", "--json")
    c = run(capsys, "--hands", "5", "--seed", "43", "--json")
    assert a == b and a != c
    assert run(capsys, "--hands", "3", "--seed", "s") == run(capsys, "--hands", "3", "--seed", "s")


def test_byte_identical_across_processes() -> None:
    outs = set()
    for hashseed in ("1", "2"):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "gleek_p2p",
                "simulate",
                "--hands",
                "3",
                "--seed",
                "x",
                "--bots",
                "heuristic,random,heuristic",
            ],
            capture_output=True,
            timeout=60,
            env={**os.environ, "PYTHONHASHSEED": hashseed},
        )
        assert done.returncode == 0, done.stderr
        outs.add(done.stdout)
    assert len(outs) == 1


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "--hands", "3", "--seed", "t", "--bots", "heuristic,random,heuristic")
    lines = out.splitlines()
    assert [x.split()[:2] for x in lines[:3]] == [["hand", "1"], ["hand", "2"], ["hand", "3"]]
    assert all("dealer" in x and ("trump" in x or "Kiss" in x) for x in lines[:3])
    assert lines[4].split()[:2] == ["seat", "bot"] and lines[4].split()[2:7] == list(PHASE_NAMES)
    assert [x.split()[1] for x in lines[5:8]] == ["heuristic", "random", "heuristic"]
    assert lines[-1].startswith("3 hands")


def test_text_and_json_agree(capsys: pytest.CaptureFixture[str]) -> None:
    from gleek_p2p.rules.money import pence

    report = run_json(capsys, "--hands", "2", "--seed", "a")
    text = run(capsys, "--hands", "2", "--seed", "a")
    rows = text.splitlines()[4:7]  # 2 hand lines, a blank, the header
    for seat, total in enumerate(report["totals"]):
        assert rows[seat].split()[:2] == [str(seat), "heuristic"]
        assert rows[seat].split()[-1] == pence(total, True, leading_zero=True)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--bots", "random,heuristic"], "needs 3 strategies"),
        (["--bots", "nonsense"], "unknown strategy"),
        (["--hands", "0"], "--hands"),
    ],
)
def test_bad_arguments_give_one_sentence(
    capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    assert main(["simulate", *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gleek: ") and words in err


def test_phase_stats_before_and_after(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "--hands", "30", "--seed", "stats", "--phase-stats")
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()
            if line.split() and line.split()[0] in PHASE_NAMES}
    assert set(rows) == set(PHASE_NAMES)
    for phase, (b_mean, b_share, m_mean, m_share, a_mean, a_share) in rows.items():
        if phase != "tricks":  # same deals, bots and ceiling: only the trick money changes
            assert b_mean == m_mean
        assert b_share.endswith("%") and m_share.endswith("%") and a_share.endswith("%")
        assert float(a_mean) >= 0
    # Pairwise is three times the mean settlement, each amount of which is
    # rounded down by less than a halfpenny: at most a penny per seat-hand.
    assert abs(float(rows["tricks"][0]) - 3 * float(rows["tricks"][2])) < 1
    assert "showdowns" in out and "Tiddy" in out
    # The open auction: the talons sold, their price, the taker's net.
    assert "talons sold" in out and "at the bound (448)" in out and "taker's mean net" in out


def test_phase_stats_shares_sum_to_one() -> None:
    variant = VARIANTS["standard"]
    for rulings in (variant, variant.first_rulings()):
        result = simulate(rulings, 20, b"shares", make_strategies("heuristic", 3, b"shares"))
        stats = phase_stats(result)
        assert abs(sum(share for _mean, share in stats.values()) - 1) < 1e-9
        assert all(sum(h.ledger.phases["tricks"]) == 0 for h in result.hands)


def test_rulings_first_replays_the_first_rulings(capsys: pytest.CaptureFixture[str]) -> None:
    first = json.loads(run(capsys, "--hands", "3", "--seed", "r", "--json", "--rulings", "first"))
    now = json.loads(run(capsys, "--hands", "3", "--seed", "r", "--json"))
    assert first["hands"] != now["hands"]
    standard = VARIANTS["standard"]
    for got, variant in ((first, standard.first_rulings()), (now, standard)):
        expected = simulate(variant, 3, b"r", make_strategies("heuristic", 3, b"r"))
        assert got == result_json(expected)
    for hand in first["hands"]:
        assert all(abs(x) <= 2 * 99 for x in hand["ledger"]["auction"])  # the old ceiling


def test_the_ruff_readings_can_disagree() -> None:
    from gleek_p2p.rules import parse_card
    from gleek_p2p.tools.simulate import _ruff_winner

    long_low = [parse_card(x) for x in ["4C", "5C", "6C", "7C", "8C"]]  # 5 cards worth 26
    short_high = [parse_card(x) for x in ["AS", "TS", "9S"]]  # 3 cards worth 30
    assert _ruff_winner([long_low, short_high, []], 0, longest=False) == 1
    assert _ruff_winner([long_low, short_high, []], 0, longest=True) == 0


def test_reading_stats_count_within_the_hands() -> None:
    seed = b"readings"
    result = simulate(VARIANTS["standard"], 40, seed, make_strategies("heuristic", 3, seed),
                      keep_finals=True)
    stats = reading_stats(result)
    assert stats["hands"] == 40
    assert stats["showdowns"] == sum(1 for s in result.finals if s.ruff_shows)
    assert stats["showdowns_changed"] <= stats["showdowns"]
    assert stats["hands_changed"] <= stats["hands"]
    assert not simulate(VARIANTS["standard"], 2, seed,
                        make_strategies("heuristic", 3, seed)).finals  # kept only when asked


NB = "\u00a0"
PHASE_STATS_WORDS = {
    "en": ("talons sold; winning bid min", "at the bound", "the taker's mean net after paying",
           "hands, the same deals and bots", "current rulings", "auction: no talon sold"),
    "fr": ("talons vendus", "à la borne", "gain net moyen du preneur après paiement",
           "manches, mêmes donnes", "règles actuelles", f"enchères{NB}: aucun talon vendu"),
    "it": ("talloni venduti", "al limite", "netto medio di chi prende il tallone",
           "mani, stesse distribuzioni", "regole attuali", "asta: nessun tallone venduto"),
    "pt": ("montes vendidos", "no limite", "saldo médio de quem leva o monte",
           "mãos, as mesmas distribuições", "regras atuais", "leilão: nenhum monte vendido"),
    "nl": ("stokken verkocht", "op de grens", "gemiddeld netto van de nemer na betalen",
           "handen, dezelfde delingen", "huidige regels", "veiling: geen stok verkocht"),
}


@pytest.fixture(scope="module")
def three_rulings() -> tuple[Any, Any, Any]:
    seed = b"words"
    v = VARIANTS["standard"]
    return tuple(  # type: ignore[return-value]
        simulate(r, 6, seed, make_strategies("heuristic", 3, seed))
        for r in (v.first_rulings(), v.rulings_of(12), v.game()))


@pytest.mark.parametrize("lang", sorted(PHASE_STATS_WORDS))
def test_phase_stats_speak_every_language(lang: str, three_rulings: tuple[Any, Any, Any]) -> None:
    """The --phase-stats table and its auction lines: the words and numbers a reader sees."""
    from dataclasses import replace

    from gleek_p2p.base import i18n
    from gleek_p2p.tools.simulate import auction_stats, auction_stats_lines, phase_stats_text

    before, middle, after = three_rulings
    a = auction_stats(after)
    assert a["sold"] > 0
    sold, bound, net, hands, rulings, none = PHASE_STATS_WORDS[lang]
    i18n.set_language(lang, {})
    try:
        text = phase_stats_text(before, after, middle)
        unsold = auction_stats_lines(replace(after, hands=tuple(
            replace(h, talon_taker=None) for h in after.hands)))
    finally:
        i18n.set_language("en", {})
    for words in (sold, bound, net, hands, rulings):
        assert words in text, (lang, words)
    assert unsold == [none]
    # The numbers: the talons sold of the hands played, the bound, the lowest and
    # highest winning bids, the taker's net with its sign.
    assert f"{a['sold']} " in text and f" {len(after.hands)}" in text
    assert f"({a['bound']})" in text and str(a["bids"][0]) in text and str(a["bids"][-1]) in text
    assert f"{a['taker_net']:+.1f}" in text
