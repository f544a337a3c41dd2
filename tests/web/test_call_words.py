"""The scoreboard's call list in words: every call the rules core makes in the golden files is
said in Italian and in English (no raw key=value), and the words name what happened."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.web.call_words import say

DATA = Path(__file__).resolve().parents[1] / "data" / "rules"
GOLDEN_CALLS = [json.loads(line) for path in sorted(DATA.glob("*/*.calls.jsonl")) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("lang", ["it", "en"])
def test_every_golden_call_is_said_in_words(lang: str) -> None:
    kinds = {c["call"] for c in GOLDEN_CALLS}
    assert {"trick", "violation", "withdrawn", "deal_end", "match_end", "contract", "declaration", "partner",
            "forfait", "redeal", "undo", "dealer", "redraw", "error"} <= kinds
    for call in GOLDEN_CALLS:
        text = say(call, lang)
        assert "=" not in text, (call, text)  # the raw form is key=value


@pytest.mark.parametrize("call, it, en", [
    ({"call": "trick", "number": 3, "winner": "N", "cards": [], "points": 14},
     "presa 3: prende N (14 punti)", "trick 3: N takes it (14 points)"),
    ({"call": "violation", "seat": "W", "rule": "revoke", "trick": 1, "detail": "...", "card": "8C", "proof": "AS"},
     "infrazione di W (presa 1): Non risponde, 8♣", "violation by W (trick 1): Revoke, 8♣"),
    ({"call": "contract", "seat": "B", "called": "spade_5", "points": 61, "trump": "spade", "in_mano": True,
      "multiplier": 1},
     "B chiama 5 di spade a 61 (in mano)", "B calls 5 of swords for 61 (in hand)"),
    ({"call": "contract", "seat": "N", "trump": "H", "round": 1, "turned": "7H"},
     "N prende: briscola ♥", "N takes it: trump ♥"),
    ({"call": "contract", "seat": "N", "bid": 17, "trump": "C"}, "N offre 17: briscola ♣", "N bids 17: trump ♣"),
    ({"call": "declaration", "seat": "W", "kind": "terza", "cards": ["AS", "KS", "QS"], "points": 20},
     "W accusa terza: A♠ K♠ Q♠ (20 punti)", "W declares tierce: A♠ K♠ Q♠ (20 points)"),
    ({"call": "deal_end", "points": {"N+S": 70, "W+E": 50}, "winner": "N+S"},
     "fine mano: N+S 70, W+E 50; vince N+S", "deal over: N+S 70, W+E 50; N+S wins"),
    ({"call": "match_end", "winner": None, "score": {"N": 1, "S": 1}},
     "fine partita: pari (N 1, S 1)", "match over: a tie (N 1, S 1)"),
    ({"call": "undo", "seat": "S", "card": "coppe_1"}, "annullata la giocata di S: asso di coppe",
     "S's play taken back: ace of cups"),
])
def test_calls_in_words(call: dict[str, object], it: str, en: str) -> None:
    assert (say(call, "it"), say(call, "en")) == (it, en)


def test_an_unknown_or_incomplete_call_still_shows_all_it_says() -> None:
    assert say({"call": "bagno", "seat": "N", "cards": ["AS"]}, "it") == 'bagno seat=N cards=["AS"]'
    assert say({"call": "trick", "winner": "N"}, "en") == "trick winner=N"
