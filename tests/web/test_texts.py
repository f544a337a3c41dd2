"""The console's words: every key in both languages; Italian unless English is asked for."""

from __future__ import annotations

import pytest

from referee.web.texts import TEXTS, pick_language


def test_both_languages_have_every_word() -> None:
    assert TEXTS["it"].keys() == TEXTS["en"].keys()
    assert all(TEXTS["it"].values()) and all(TEXTS["en"].values())


@pytest.mark.parametrize("query, accept, lang", [
    (None, None, "it"),
    ("en", "it-IT,it", "en"),
    ("xx", "en-GB,en;q=0.9", "en"),
    (None, "fr-FR,fr;q=0.9,en;q=0.8,it;q=0.7", "en"),
    (None, "de-DE,it;q=0.5,en;q=0.4", "it"),
    (None, "en;q=bogus,it", "it"),
    (None, "fr", "it"),
])
def test_language_choice(query: str | None, accept: str | None, lang: str) -> None:
    assert pick_language(query, accept) == lang
