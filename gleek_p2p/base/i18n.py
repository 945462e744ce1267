"""The player's language: gettext catalogs for the words a person reads.

Catalogs live in ``gleek_p2p/locale/<lang>/LC_MESSAGES/gleek.po`` (edited
with Babel: see docs/translations.md) next to their compiled ``.mo``, which
are committed so a plain ``pip install`` carries them and the runtime needs
only the standard library's ``gettext``.

The language comes from ``--lang`` if given, else from the first of
``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set (the POSIX order); anything
we have no catalog for means English. Machine outputs (``--json``, the wire,
the bot protocol) never go through here.

Use ``_("...")`` at the moment a sentence is shown (it follows the language
chosen at that moment), ``ngettext(singular, plural, n)`` for counts, and
``N_("...")`` to mark a module-level constant that is translated later, and
``pgettext(context, "...")`` where the same English word needs a shorter
form (a column of the table) than it has elsewhere.

What they return formats like any ``str``, and also knows French elision
before a name: a translation writes ``{name:de}`` or ``{name:que}`` and reads
"la place de Thomas" but "la place d'Anne", "ce qu'Ève a envoyé" (see
``before_name``). The code passes the bare name, the same in every language.
"""

from __future__ import annotations

import argparse
import gettext
import os
import re
import string
import unicodedata
from collections.abc import Mapping
from pathlib import Path

DOMAIN = "gleek"
SOURCE_LANGUAGE = "en"
LANGUAGES = ("en", "fr", "it", "pt", "nl")
"""Every language the player may choose; English is the source and the fallback."""

LOCALE_DIR = Path(__file__).parent.parent / "locale"
ENV_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = SOURCE_LANGUAGE


def normalize(code: str | None) -> str | None:
    """``'fr_BE.UTF-8'`` -> ``'fr'``; None for a language we have no catalog for.

    ``C`` and ``POSIX`` are the portable locale: English.
    """
    if not code:
        return None
    base = code.split(".", 1)[0].split("@", 1)[0].replace("-", "_").split("_", 1)[0]
    base = base.strip().lower()
    if base in ("c", "posix"):
        return SOURCE_LANGUAGE
    return base if base in LANGUAGES else None


def choose_language(override: str | None = None,
                    environ: Mapping[str, str] | None = None) -> str:
    """The language to speak: ``override`` (``--lang``), else the locale, else English.

    Like POSIX, the first locale variable that is set decides: a set but
    unknown ``LC_ALL`` means English even if ``LANG`` names a language we
    have (the person asked for that locale, and we cannot speak it).
    """
    if override:
        return normalize(override) or SOURCE_LANGUAGE
    env = os.environ if environ is None else environ
    for name in ENV_VARIABLES:
        value = env.get(name)
        if value:
            return normalize(value) or SOURCE_LANGUAGE
    return SOURCE_LANGUAGE


def translation(language: str) -> gettext.NullTranslations:
    """The catalog of ``language`` (English: the messages as written)."""
    if language == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[language],
                               fallback=True)


def set_language(override: str | None = None,
                 environ: Mapping[str, str] | None = None) -> str:
    """Choose the language (see ``choose_language``) for every message from now on."""
    global _translation, _language
    _language = choose_language(override, environ)
    _translation = translation(_language)
    return _language


def current_language() -> str:
    """The language messages are shown in now."""
    return _language


ELIDED = {"de": "d'", "que": "qu'"}
"""The French words a translation may set before a name as a field's format
(``{name:de}``), and their elided form."""

_VOWELS = frozenset("aeiouœæ")


def elides(name: str) -> bool:
    """Whether French elides "de", "que" before ``name``: it opens on a vowel (accents
    aside: Ève, Émile), an h (a first name's h is mute: Hugo, Hélène) or a y sounded
    as a vowel (Yves, but not Yann)."""
    letters = [c.lower() for c in unicodedata.normalize("NFD", name)
               if not unicodedata.combining(c)]
    if not letters:
        return False
    if letters[0] in _VOWELS or letters[0] == "h":
        return True
    return letters[0] == "y" and len(letters) > 1 and letters[1].isalpha() \
        and letters[1] not in _VOWELS and letters[1] != "y"


def before_name(word: str, name: str) -> str:
    """``word`` (a key of ``ELIDED``) then ``name``, as French writes them: "de Thomas",
    "d'Anne", "qu'Hugo"."""
    return ELIDED[word] + name if elides(name) else f"{word} {name}"


class _Formatter(string.Formatter):
    def format_field(self, value: object, format_spec: str) -> str:
        if format_spec in ELIDED:
            return before_name(format_spec, str(value))
        return str(super().format_field(value, format_spec))


_FORMATTER = _Formatter()
_ELISION = re.compile(r"\{[^{}:]*:(?:" + "|".join(ELIDED) + r")\}")


class Message(str):
    """A message in the chosen language: a ``str`` whose ``format`` also fills a field
    written ``{name:de}`` with the name after its French word (``before_name``)."""

    __slots__ = ()

    def format(self, *args: object, **kwargs: object) -> str:
        if _ELISION.search(self):
            return _FORMATTER.vformat(self, args, kwargs)
        return str.format(self, *args, **kwargs)


def _(message: str) -> str:
    """``message`` in the chosen language."""
    return Message(_translation.gettext(message))


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a counted message that fits ``n`` in the chosen language."""
    return Message(_translation.ngettext(singular, plural, n))


def pgettext(context: str, message: str) -> str:
    """``message`` as a short label in ``context`` (a narrow column wants its own words)."""
    return Message(_translation.pgettext(context, message))


def N_(message: str) -> str:
    """Mark ``message`` for the catalog without translating it (translate where shown)."""
    return message


ARGPARSE_MESSAGES = (
    N_("usage: "),
    N_("options"),
    N_("positional arguments"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("expected one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("show program's version number and exit"),
)
"""What argparse itself says to a person (usage, help headings, errors)."""


def translate_argparse() -> None:
    """Let argparse's own words follow the chosen language too.

    argparse looks each of its messages up through the module-level names
    ``_`` and ``ngettext`` at the moment it shows them; pointing those at our
    catalog is the only hook it offers. In English the words are unchanged.
    """
    argparse._ = _  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]
