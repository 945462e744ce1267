"""The player's language: selection from the locale and --lang, and the catalogs."""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from gleek_p2p.base import i18n
from gleek_p2p.cli.gleek import _lang_option


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    yield
    i18n.set_language("en")


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "it_IT"}, "it"),
        ({"LANG": "pt_BR.UTF-8"}, "pt"),
        ({"LANG": "nl_BE.UTF-8@euro"}, "nl"),
        ({"LC_MESSAGES": "nl_NL.UTF-8", "LANG": "fr_FR.UTF-8"}, "nl"),
        ({"LC_ALL": "it_IT.UTF-8", "LC_MESSAGES": "nl_NL", "LANG": "fr_FR"}, "it"),
        ({"LC_ALL": "", "LANG": "pt_PT.UTF-8"}, "pt"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "POSIX"}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        # The first variable set decides, as in POSIX: an unknown LC_ALL is English.
        ({"LC_ALL": "de_DE.UTF-8", "LANG": "fr_FR.UTF-8"}, "en"),
        ({"LANG": "garbage-!"}, "en"),
    ],
)
def test_language_from_the_locale(environ: dict[str, str], expected: str) -> None:
    assert i18n.choose_language(None, environ) == expected


@pytest.mark.parametrize(
    ("override", "expected"),
    [("fr", "fr"), ("pt_BR", "pt"), ("NL", "nl"), ("it-IT", "it"), ("en", "en"),
     ("xx", "en"), ("de", "en")],
)
def test_lang_option_overrides_the_locale(override: str, expected: str) -> None:
    assert i18n.choose_language(override, {"LC_ALL": "fr_FR.UTF-8"}) == expected


def test_lang_option_is_read_before_the_full_parse() -> None:
    assert _lang_option(["--lang", "it", "verify", "x.log"]) == "it"
    assert _lang_option(["--lang=nl", "replay", "x.log"]) == "nl"
    assert _lang_option(["verify", "x.log", "--json"]) is None
    assert _lang_option(["-h"]) is None
    assert _lang_option(["verify", "--lang"]) is None


def test_a_lang_without_a_value_is_one_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from gleek_p2p.cli.gleek import main

    with pytest.raises(SystemExit) as exited:
        main(["--lang"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.count("error:") == 1
def test_set_language_switches_every_later_message() -> None:
    assert i18n.set_language(None, {"LANG": "de_DE"}) == "en"
    assert i18n.current_language() == "en"
    assert i18n._("Interrupted.") == "Interrupted."
    assert i18n.set_language("fr", {}) == "fr"
    assert i18n._("Interrupted.") != "Interrupted."


# ------------------------------------------------------------------ catalogs

ROOT = Path(__file__).resolve().parents[1]
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE_LANGUAGE]
WRAPPED_MODULES = sorted(
    str(path.relative_to(ROOT / "gleek_p2p"))
    for pattern in ("base/*.py", "session/*.py", "cli/*.py", "tools/*.py", "ui/*.py",
                    "bots/*.py")
    for path in (ROOT / "gleek_p2p").glob(pattern))
"""Modules whose every shown sentence goes through the catalog: the whole shell.

Every module of the shell (the command line, the lobby, the screen, the bots'
wrappers, and any module added later) is linted. The layers below it
(``rules/``, ``deck/``, ``log/``, ``table/``, ``net/``) speak in codes and
evidence: ``net/`` closes a link with a ``LinkDown`` code and a goodbye with
a ``ByeCode``, which ``link_words`` puts in the person's words (tested below
in every language); a violation's reason is evidence, quoted as it is."""


def test_the_lint_covers_the_modules_that_reach_a_person() -> None:
    for module in ("session/lobby.py", "session/link_words.py", "ui/talk.py",
                   "tools/arena.py", "ui/screen.py", "bots/exec_bot.py", "session/play.py",
                   "bots/json_codec.py", "tools/report.py", "ui/replay.py",
                   "session/watchers.py"):
        assert module in WRAPPED_MODULES


def _po(lang: str) -> Catalog:
    with open(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / f"{i18n.DOMAIN}.po", "rb") as fh:
        return read_po(fh, locale=lang)


def _ids(catalog: Catalog) -> set[str]:
    return {m.id[0] if isinstance(m.id, tuple) else m.id for m in catalog if m.id}


def _extracted() -> set[str]:
    with open(ROOT / "babel.cfg") as fh:
        method_map, options_map = parse_mapping_cfg(fh)
    out: set[str] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        ROOT, method_map, options_map, keywords=DEFAULT_KEYWORDS
    ):
        out.add(message[0] if isinstance(message, tuple) else message)
    return out


@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalog_translates_every_message(lang: str) -> None:
    catalog = _po(lang)
    missing = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(strings) or "fuzzy" in message.flags:
            missing.append(message.id)
    assert missing == [], f"{lang}: untranslated or fuzzy: {missing}"


def _fields(text: str) -> set[str]:
    """The {named} fields, and the %(named)s / %s fields of argparse's messages."""
    if re.search(r"%(\(\w+\))?[sdr]", text):
        return set(re.findall(r"%(?:\((\w+)\))?[sdr]", text))
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_keep_every_placeholder(lang: str) -> None:
    """A translation that drops or misspells {name} would raise or lie at run time."""
    for message in _po(lang):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set().union(*(_fields(i) for i in ids))
        for text in strings:
            # A singular form may leave out the count ("un pli"), never another field.
            assert _fields(text) <= wanted and wanted - _fields(text) <= {"n"}, (lang, text)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_compiled_catalog_matches_its_source(lang: str) -> None:
    """The committed .mo is what `pybabel compile` makes of the committed .po."""
    mo_path = i18n.LOCALE_DIR / lang / "LC_MESSAGES" / f"{i18n.DOMAIN}.mo"
    with open(mo_path, "rb") as fh:
        compiled = read_mo(fh)
    source = _po(lang)

    def pairs(catalog: Catalog) -> dict[object, object]:
        def key(value: object) -> object:
            return tuple(value) if isinstance(value, (list, tuple)) else value

        return {key(m.id): key(m.string) for m in catalog if m.id and m.string}

    assert pairs(compiled) == pairs(source), f"run pybabel compile for {lang}"
    assert compiled.plural_forms == source.plural_forms


def test_every_language_has_a_catalog_and_nothing_else_does() -> None:
    found = {p.parent.parent.name for p in i18n.LOCALE_DIR.glob("*/LC_MESSAGES/*.po")}
    assert found == set(TRANSLATED)


def test_template_and_catalogs_hold_every_marked_message() -> None:
    """Fails when code marks a message that `pybabel extract` + `update` did not bring in."""
    extracted = _extracted()
    with open(i18n.LOCALE_DIR / f"{i18n.DOMAIN}.pot", "rb") as fh:
        template = _ids(read_po(fh))
    assert extracted - template == set(), "run pybabel extract"
    assert template - extracted == set(), "stale template: run pybabel extract"
    for lang in TRANSLATED:
        assert _ids(_po(lang)) == template, f"run pybabel update for {lang}"


SHOWING_CALLS = {"print", "_say", "say", "notes", "note", "_note", "write", "append",
                 "GleekError", "Outcome", "extend", "Note", "TableFull", "NoTable", "UserQuit"}
"""Calls whose string arguments reach a person's eyes."""
ARGPARSE_CALLS = {"add_argument", "add_parser", "ArgumentParser"}
"""Calls that show only their help= and description= (the rest are option names)."""
WRAPPERS = {"_", "ngettext", "N_", "pgettext"}


def _has_words(node: ast.AST) -> bool:
    texts = [node.value] if isinstance(node, ast.Constant) and isinstance(node.value, str) else [
        v.value for v in getattr(node, "values", [])
        if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    # "gleek:" opens an error line in every language: the program's name, not a word;
    # "class:..." names a style of the screen.
    return any(re.search(r"[A-Za-z]{2,}", t.replace("gleek: ", "")) for t in texts
               if not re.fullmatch(r"(class:[\w.]+ ?)+", t))


def _unwrapped_literals(tree: ast.AST) -> list[tuple[int, str]]:
    bad: list[tuple[int, str]] = []

    def visit(node: ast.AST, shown: bool) -> None:
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in WRAPPERS:
                return
            inner = shown or name in SHOWING_CALLS
            keywords = [k.value for k in node.keywords if k.arg in ("help", "description")]
            for child in keywords:
                visit(child, True)
            if name not in ARGPARSE_CALLS:
                for child in [*node.args, *(k.value for k in node.keywords
                                            if k.arg not in ("help", "description"))]:
                    visit(child, inner)
            visit(func, shown)
            return
        if isinstance(node, ast.JoinedStr) and any(
                isinstance(n, ast.Call) and getattr(n.func, "id", "") in WRAPPERS
                for n in ast.walk(node)):
            # pybabel extract does not look inside f-strings: the message would be lost.
            bad.append((node.lineno, ast.unparse(node)))
            return
        if shown and isinstance(node, (ast.Constant, ast.JoinedStr)) and _has_words(node):
            bad.append((getattr(node, "lineno", 0), ast.unparse(node)))
            return
        for child in ast.iter_child_nodes(node):
            visit(child, shown and not isinstance(node, ast.Subscript))

    visit(tree, False)
    return bad


ALLOWED_LITERALS = {
    '"random | heuristic | module:Class | exec:\'COMMAND ARGS\'"',  # names, not words
    'f"\\rarena [{\'#\' * filled}{\'.\' * (30 - filled)}] {percent:3d}%"',  # a progress bar
}


@pytest.mark.parametrize("module", WRAPPED_MODULES)
def test_shown_strings_of_wrapped_modules_go_through_the_catalog(module: str) -> None:
    tree = ast.parse((ROOT / "gleek_p2p" / module).read_text())
    bad = [(line, text) for line, text in _unwrapped_literals(tree)
           if text not in ALLOWED_LITERALS]
    assert bad == [], f"{module}: shown but not translatable: {bad}"


def test_the_lint_catches_an_unwrapped_sentence() -> None:
    tree = ast.parse('print(f"{n} tricks won")\nprint(_("fine"))\nx = "internal"\n'
                     'y = f"{_(\'hidden from the extractor\')}"\n')
    assert [line for line, _text in _unwrapped_literals(tree)] == [1, 4]


# ------------------------------------------------------------------ plurals

@pytest.mark.parametrize(
    ("lang", "one", "two"),
    [
        ("en", "Anne 1 trick", "Anne 2 tricks"),
        ("fr", "Anne 1 pli", "Anne 2 plis"),
        ("it", "Anne 1 presa", "Anne 2 prese"),
        ("pt", "Anne 1 vaza", "Anne 2 vazas"),
        ("nl", "Anne 1 slag", "Anne 2 slagen"),
    ],
)
def test_trick_counts_take_the_plural_of_each_language(lang: str, one: str, two: str) -> None:
    from gleek_p2p.tools.report import tricks_won

    i18n.set_language(lang, {})
    assert tricks_won("Anne", 1) == one
    assert tricks_won("Anne", 2) == two
    assert tricks_won("Anne", 12) == two.replace(" 2 ", " 12 ")


@pytest.mark.parametrize(("lang", "zero"), [("en", "Anne 0 tricks"), ("fr", "Anne 0 pli"),
                                            ("it", "Anne 0 prese"), ("pt", "Anne 0 vazas"),
                                            ("nl", "Anne 0 slagen")])
def test_zero_follows_each_languages_rule(lang: str, zero: str) -> None:
    """French counts zero as singular; the others, Brazilian Portuguese too, as plural.

    CLDR (and Babel) give ``pt`` a singular zero, but a Brazilian reader
    writes "0 vazas", "0 cartas": the catalog's Plural-Forms says so.
    """
    from gleek_p2p.tools.report import tricks_won

    i18n.set_language(lang, {})
    assert tricks_won("Anne", 0) == zero


def test_cli_speaks_the_chosen_language(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    from gleek_p2p.cli.gleek import main

    missing = str(tmp_path / "nothing.gleeklog")
    assert main(["--lang", "fr", "verify", missing]) == 2
    assert "fichier introuvable" in capsys.readouterr().err
    assert main(["--lang", "xx", "verify", missing]) == 2
    assert "no such file" in capsys.readouterr().err


def test_cli_follows_the_locale(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    from gleek_p2p.cli.gleek import main

    monkeypatch.setenv("LC_ALL", "nl_NL.UTF-8")
    assert main(["verify", str(tmp_path / "x")]) == 2
    assert "bestand bestaat niet" in capsys.readouterr().err
    monkeypatch.setenv("LC_ALL", "it_IT.UTF-8")
    assert main(["--lang", "pt", "verify", str(tmp_path / "x")]) == 2
    assert "arquivo inexistente" in capsys.readouterr().err


def test_no_module_that_translates_rebinds_the_underscore() -> None:
    """``_`` bound as a throwaway in a function would make ``_("...")`` call a value."""
    offenders = []
    for path in (ROOT / "gleek_p2p").rglob("*.py"):
        source = path.read_text()
        if "from gleek_p2p.base.i18n import" not in source:
            continue
        offenders += [f"{path.name}:{node.lineno}" for node in ast.walk(ast.parse(source))
                      if isinstance(node, ast.Name) and node.id == "_"
                      and isinstance(node.ctx, ast.Store)]
    assert offenders == []


def test_package_data_ships_every_compiled_catalog() -> None:
    """The pyproject glob that `pip install` follows matches every .mo we commit."""
    import fnmatch
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["gleek_p2p"]
    package = ROOT / "gleek_p2p"
    shipped = [p for p in package.rglob("*.mo")
               if any(fnmatch.fnmatch(p.relative_to(package).as_posix(), g) for g in globs)]
    assert sorted(p.parent.parent.name for p in shipped) == sorted(TRANSLATED)


VERDICT_WORDS = {"en": "Verdict: FAIR", "fr": "Verdict\u00a0: ÉQUITABLE",
                 "it": "Verdetto: EQUO", "pt": "Veredito: JUSTO", "nl": "Oordeel: EERLIJK"}


@pytest.fixture(scope="module")
def verified_session() -> object:
    from gleek_p2p.bots import RandomStrategy
    from gleek_p2p.rules import Variant
    from gleek_p2p.table.verify import verify_records
    from gleek_p2p.tools.selfplay import selfplay

    strategies = [RandomStrategy(bytes([seat])) for seat in range(3)]
    return verify_records(selfplay(Variant(), 2, b"i18n-report", strategies).records)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_verify_report_in_every_language(lang: str, verified_session: object) -> None:
    from gleek_p2p.table.verify import VerifyReport
    from gleek_p2p.tools.report import text_report

    assert isinstance(verified_session, VerifyReport)
    i18n.set_language(lang, {})
    text = text_report(verified_session)
    assert VERDICT_WORDS[lang] in text
    if lang != "en":
        for english in ("tricks won", "Totals:", "Running totals", "dealer", "events"):
            assert english not in text, (lang, english)
    unreadable = text_report(VerifyReport(readable=False, error="x"))
    assert unreadable.splitlines()[1] == i18n._("Verdict: UNREADABLE")


FACE_LETTERS = {"en": "KQJ", "fr": "RDV", "it": "KQJ", "pt": "KQJ", "nl": "HVB"}
"""King, Queen, Jack as each language's original text letters them (issue 23)."""


@pytest.fixture(scope="module")
def lettered_reports() -> dict[str, object]:
    """Vectors with honours taken (Tom is the Jack of trump), verified once."""
    from prepared import verified

    return {name: verified(name) for name in ("valid-standard", "claim-only")}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_verify_report_letters_the_cards_as_the_table_does(
        lang: str, lettered_reports: dict[str, object]) -> None:
    from gleek_p2p.table.verify import VerifyReport
    from gleek_p2p.tools.card_words import card_label
    from gleek_p2p.tools.report import text_report
    from gleek_p2p.ui.words import card_label as table_label

    i18n.set_language(lang, {})
    king, queen, jack = FACE_LETTERS[lang]
    # Ranks A K Q J 10 ... 4 in each suit S H D C: the King, Queen, Jack of spades, the
    # Jack of clubs, and numerals as printed.
    assert [card_label(c) for c in (0, 1, 2, 3, 4, 10)] == [
        "A♠", f"{king}♠", f"{queen}♠", f"{jack}♠", "10♠", "4♠"]
    assert card_label(36) == f"{jack}♣"
    assert all(table_label(c) == card_label(c) for c in range(44))
    texts = {}
    for name, report in lettered_reports.items():
        assert isinstance(report, VerifyReport)
        texts[name] = text_report(report)
    # valid-standard: Tom (the Jack of trump, clubs) to random-2; claim-only: Tom
    # (the Jack of clubs) and Tib (the Ace of clubs).
    assert f"Tom ({jack}♣)" in texts["valid-standard"], texts["valid-standard"]
    assert f"Tom ({jack}♣)" in texts["claim-only"] and "Tib (A♣)" in texts["claim-only"]
    others = {letter for letters in FACE_LETTERS.values() for letter in letters} - {
        king, queen, jack}
    for name, text in texts.items():
        shown = re.findall(r"\(([A-Z0-9]+)[♠♥♦♣]\)", text)
        assert shown and not others & set(shown), (name, shown)


@pytest.mark.parametrize(("seq", "seat", "proven"),
                         [(7, 1, True), (None, None, True), (3, 2, False), (4, 5, True)])
def test_violation_sentences_keep_the_table_layers_place_and_seat(
        seq: int | None, seat: int | None, proven: bool) -> None:
    from gleek_p2p.base.violation_codes import ViolationCode
    from gleek_p2p.table.verify import Violation
    from gleek_p2p.tools.report import violation_sentence

    names = ["Anne", "Thomas", "Mary"]
    violation = Violation(seq, seat, "a reason", proven=proven,
                          signer=None if proven else 0, code=ViolationCode.TURN_OUT_OF_TURN)
    english = violation.sentence(names)
    said = violation_sentence(violation, names)
    if proven:
        # Where and who as the table layer says them; what, from the code; its reason
        # only as the program's detail.
        assert said == english.removesuffix("a reason") + (
            "signed an event out of turn (the program's detail: “a reason”)")
    else:
        assert said == english
    i18n.set_language("it", {})
    said = violation_sentence(violation, names)
    # A claim names its signer (seat 0), never the seat it accuses.
    assert said.endswith("ha firmato un evento fuori turno (dettaglio del programma, in "
                         "inglese: «a reason»)" if proven else "Il registro non può provarlo.")
    assert ("posto" in said) == (seat is not None or not proven)
    assert proven or ("Thomas" not in said and "Mary" not in said)


def test_argparse_speaks_the_chosen_language(capsys: pytest.CaptureFixture[str]) -> None:
    from gleek_p2p.cli.gleek import main

    with pytest.raises(SystemExit):
        main(["--lang", "pt", "verify"])
    err = capsys.readouterr().err
    assert "uso: gleek verify" in err
    assert "os seguintes argumentos são obrigatórios: file" in err
    with pytest.raises(SystemExit):
        main(["--lang", "en", "verify"])
    assert "the following arguments are required: file" in capsys.readouterr().err


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_gleek_local_starts_its_bots_in_the_players_language(lang: str, tmp_path: Path) -> None:
    """The bot peers' printed notes follow the language of the person's screen."""
    from gleek_p2p.cli.gleek import build_parser
    from gleek_p2p.cli.peer import bot_command

    i18n.set_language(None, {"LANG": f"{lang}_XX.UTF-8"})
    local = build_parser().parse_args(["local", "--hands", "2"])
    command = bot_command("Thomas", 4000, [4001], tmp_path, local, "t")
    assert command[command.index("--lang") + 1] == lang
    bot = build_parser().parse_args(command[3:])
    assert (bot.command, bot.lang, bot.name) == ("bot", lang, "Thomas")


SENTENCE_ERRORS = {"GleekError", "IllegalMove", "TableFull", "NoTable", "MalformedMove"}
"""Errors the shell raises with a sentence already in the person's language (a layer
below raises ``ProtocolError``, English: worded by its code)."""
DETAIL_ALLOWED = {
    ("cli/gleek.py", "f'{type(exc).__name__}: {exc}'"),  # a bug's report: the traceback's file
    # The rules' decoder names a move's bad field and range in English, and its code
    # (FORM_EVENT) does not say which field: kept as the detail, for the bot's author.
    ("bots/json_codec.py", "exc.message"),
}
DETAIL_ATTRIBUTES = {"message", "strerror", "args"}
"""An exception's parts that hold its English (its ``reason`` may be a peer's words: quoted)."""


def _english_details(tree: ast.AST) -> list[tuple[int, str]]:
    """Where an exception caught by name is shown as it is: ``str(exc)``, ``{error}`` filled
    with ``exc``, ``exc.message``, ``exc.strerror``; its text is English, for the logs."""
    bad: list[tuple[int, str]] = []
    for handler in ast.walk(tree):
        if not (isinstance(handler, ast.ExceptHandler) and handler.name):
            continue
        if isinstance(handler.type, ast.Name) and handler.type.id in SENTENCE_ERRORS:
            continue
        name = handler.name

        def english(node: ast.AST, name: str = name) -> bool:
            if isinstance(node, ast.Name):
                return node.id == name
            if isinstance(node, ast.Attribute):
                return (node.attr in DETAIL_ATTRIBUTES and isinstance(node.value, ast.Name)
                        and node.value.id == name)
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("str", "repr"):
                return any(english(a) for a in node.args)
            if isinstance(node, ast.JoinedStr):
                return any(english(v.value) for v in node.values
                           if isinstance(v, ast.FormattedValue))
            return False

        for node in ast.walk(ast.Module(body=handler.body, type_ignores=[])):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if called not in SHOWING_CALLS | {"format"}:
                continue
            for value in [*node.args, *(k.value for k in node.keywords)]:
                if english(value):
                    bad.append((node.lineno, ast.unparse(value)))
    return bad


@pytest.mark.parametrize("module", WRAPPED_MODULES)
def test_no_exceptions_english_reaches_the_screen(module: str) -> None:
    """An error reaches the screen worded from its code (issue 23), never by its own text."""
    tree = ast.parse((ROOT / "gleek_p2p" / module).read_text())
    bad = [(line, text) for line, text in _english_details(tree)
           if (module, text) not in DETAIL_ALLOWED]
    assert bad == [], module


def test_the_detail_lint_catches_an_exceptions_text() -> None:
    tree = ast.parse('try:\n    pass\nexcept OSError as exc:\n'
                     '    print(_("failed: {error}").format(error=exc))\n'
                     '    notes(Note(str(exc)))\n    say(f"gleek: {exc.strerror}")\n'
                     '    print(_("fine: {w}").format(w=words(exc)))\n')
    assert sorted(line for line, _text in _english_details(tree)) == [4, 5, 6]
