"""Issue 25 step 3: a variant's switches are declared once, as field metadata.

The presets, ``variant_name``, ``--variant standard+SWITCH`` and the order of
a hand's stages all read the ``Variant`` declaration; nothing here counts the
switches of today.
"""

from __future__ import annotations

import json
from dataclasses import fields, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleek_p2p.base.errors import GleekError
from gleek_p2p.base.i18n import set_language, translation
from gleek_p2p.cli.gleek import main
from gleek_p2p.rules import (
    HAND_ORDER,
    SWITCHES,
    VARIANT_EXAMPLE,
    VARIANT_WORDS,
    VARIANTS,
    ClashingSwitches,
    Phase,
    UnknownSwitch,
    Variant,
    parse_variant,
    variant_name,
)
from gleek_p2p.session.config import PeerConfig, variant_named

LANGUAGES = ["en", "fr", "it", "pt", "nl"]


def _combination(picks: list[bool]) -> Variant | None:
    """The variant with the switches ``picks`` turns on (None if the rules forbid it)."""
    changes = {f: on for (f, on), pick in zip(SWITCHES.values(), picks, strict=False) if pick}
    try:
        return Variant(**changes)
    except ValueError:
        return None


def test_every_switch_field_is_named_and_every_preset_is_one_switch() -> None:
    named = {f.name for f in fields(Variant) if "switch" in f.metadata}
    assert named == {field for field, _on in SWITCHES.values()} and named
    assert list(VARIANTS) == ["standard", *SWITCHES]
    for name, (field, on) in SWITCHES.items():
        preset = VARIANTS[name]
        assert getattr(preset, field) == on != getattr(Variant(), field)
        assert replace(preset, **{field: getattr(Variant(), field)}) == Variant()
        assert variant_name(preset) == name and parse_variant(name) == preset
    assert variant_name(Variant()) == "standard" == variant_name(Variant().first_rulings())


@settings(max_examples=60, deadline=None)
@given(picks=st.lists(st.booleans(), min_size=len(SWITCHES), max_size=len(SWITCHES)),
       order=st.randoms(use_true_random=False), prefix=st.booleans())
def test_every_name_reads_back_in_any_order(picks: list[bool], order: object,
                                            prefix: bool) -> None:
    v = _combination(picks)
    if v is None:
        return
    name = variant_name(v)
    assert parse_variant(name) == v
    words = [] if name == "standard" else name.split("+")
    order.shuffle(words)  # type: ignore[attr-defined]
    text = "+".join((["standard"] if prefix or not words else []) + words)
    assert parse_variant(text) == v
    assert variant_name(v.first_rulings()) == name  # the rulings are not in the name


def test_an_unknown_or_empty_switch_is_refused_with_the_known_ones() -> None:
    for text in ("standard+nope", "nope", "two+", "+whist", "standard+standard", "WHIST"):
        with pytest.raises(UnknownSwitch) as err:
            parse_variant(text)
        assert err.value.known == ("standard", *SWITCHES)
    clashing = [name for name, (f, on) in SWITCHES.items()
                if Variant(**{f: on}).hand_order != HAND_ORDER]
    assert len(clashing) >= 2
    with pytest.raises(ClashingSwitches):
        parse_variant("+".join(clashing[:2]))


def test_the_phase_order_is_data_and_the_flags_follow_it() -> None:
    for name, v in VARIANTS.items():
        order = v.hand_order
        assert all(Phase(stage) for stage in order), name
        assert v.has_auction == ("auction" in order)
        assert v.has_ruff == ("ruff" in order)
        assert v.has_tricks == ("tricks" in order) == (v.tricks > 0)
    assert VARIANTS["standard"].hand_order == HAND_ORDER


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_sentence_for_an_unknown_switch_in_every_language(lang: str) -> None:
    msgid = ("unknown variant or switch {name}; choose from {choices}, or join switches "
             "with + (e.g. {example})")
    wanted = translation(lang).gettext(msgid)
    assert (wanted == msgid) == (lang == "en")  # translated, but in English
    set_language(lang)
    try:
        with pytest.raises(GleekError) as err:
            variant_named("standard+nope")
        with pytest.raises(GleekError) as config:
            PeerConfig(name="a", variant="whist+nope").rules()
    finally:
        set_language("en")
    text = str(err.value)
    assert text == wanted.format(name="'nope'", choices=", ".join(VARIANT_WORDS),
                                 example=VARIANT_EXAMPLE)
    assert "'nope'" in str(config.value)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_command_with_variant_refuses_an_unknown_switch_in_one_sentence(
        lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("play", "bot", "local", "simulate", "arena", "selfplay", "watch"):
        argv = ["--lang", lang, command, "--variant", "standard+nope"]
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code == 2, command
        err = capsys.readouterr().err
        assert "'nope'" in err and "standard, " + ", ".join(SWITCHES) in err, (lang, command)
        assert "Traceback" not in err
    set_language("en")


def test_simulate_plays_a_combination_named_with_plus(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--hands", "1", "--variant", "standard+whist+two", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["totals"]) == 2  # Gleek for two
