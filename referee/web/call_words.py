"""The referee's calls in words for the scoreboard's call list (Italian and English): "presa 3:
prende N (14 punti)" instead of ``trick number=3 winner=N ...``.

Cards, rules and declarations are named as the box's display names them (:mod:`referee.box.i18n`);
a call of a kind not known here is shown with its keys, so nothing the referee says is hidden.

>>> say({"call": "trick", "number": 3, "winner": "N", "points": 14}, "en")
'trick 3: N takes it (14 points)'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from referee.box.i18n import (
    ENGLISH_SUIT_NAMES,
    FRENCH_SUIT_SYMBOL,
    card_long,
    declaration_name,
    rule_name,
)
from referee.errors import RefereeError

Call = Mapping[str, Any]

WORDS: dict[str, dict[str, str]] = {
    "it": {
        "turn": "tocca a {seat}", "trick": "presa {number}: prende {winner} ({points} punti)",
        "violation": "infrazione di {seat} (presa {trick}): {rule}", "violation_card": ", {card}",
        "withdrawn": "non vale più l'infrazione di {seat} (presa {trick}): {rule}",
        "deal_end": "fine mano: {points}; vince {winner}", "deal_end_tie": "fine mano: {points}; pari",
        "deal_end_void": "mano annullata", "deal_end_forfait": "mano annullata: forfait di {seat}",
        "deal_end_redeal": "mano nulla: si ridà",
        "match_end": "fine partita: vince {winner} ({score})", "match_end_tie": "fine partita: pari ({score})",
        "undo": "annullata la giocata di {seat}: {card}", "undo_cards": "annullato l'accuso di {seat}: {cards}",
        "undo_seat": "annullato l'ultimo inserimento ({seat})",
        "dealer": "mazziere: {seat}", "redraw": "si ripesca: {seats}",
        "error": "rifiutato (riga {line}): {detail}",
        "contract_belotta": "{seat} prende: briscola {trump}", "contract_bid": "{seat} offre {bid}: briscola {trump}",
        "contract_called": "{seat} chiama {called} a {points}", "in_mano": " (in mano)", "multiplier": ", doppia x{n}",
        "contract": "contratto di {seat}",
        "declaration": "{seat} accusa {kind}: {cards} ({points} punti)", "forfait": "forfait di {seat}",
        "redeal": "si ridà (regola {rule}); mazziere {dealer}",
        "partner": "compagno di {caller}: {seat} ({card})", "partner_alone": "{caller} gioca da solo ({card})",
    },
    "en": {
        "turn": "{seat} to play", "trick": "trick {number}: {winner} takes it ({points} points)",
        "violation": "violation by {seat} (trick {trick}): {rule}", "violation_card": ", {card}",
        "withdrawn": "{seat}'s violation no longer stands (trick {trick}): {rule}",
        "deal_end": "deal over: {points}; {winner} wins", "deal_end_tie": "deal over: {points}; a tie",
        "deal_end_void": "deal void", "deal_end_forfait": "deal void: {seat} forfeits",
        "deal_end_redeal": "deal void: redeal",
        "match_end": "match over: {winner} wins ({score})", "match_end_tie": "match over: a tie ({score})",
        "undo": "{seat}'s play taken back: {card}", "undo_cards": "{seat}'s declaration taken back: {cards}",
        "undo_seat": "the last entry taken back ({seat})",
        "dealer": "dealer: {seat}", "redraw": "draw again: {seats}",
        "error": "refused (line {line}): {detail}",
        "contract_belotta": "{seat} takes it: trump {trump}", "contract_bid": "{seat} bids {bid}: trump {trump}",
        "contract_called": "{seat} calls {called} for {points}", "in_mano": " (in hand)", "multiplier": ", doubled x{n}",
        "contract": "{seat}'s contract",
        "declaration": "{seat} declares {kind}: {cards} ({points} points)", "forfait": "{seat} forfeits",
        "redeal": "redeal (rule {rule}); {dealer} deals",
        "partner": "{caller}'s partner: {seat} ({card})", "partner_alone": "{caller} plays alone ({card})",
    },
}


def say(call: Call, lang: str) -> str:
    """``call`` in words, in ``lang`` (``it`` or ``en``)."""
    words = WORDS.get(lang, WORDS["it"])
    speak = _SAYERS.get(str(call.get("call")))
    if speak is not None:
        try:
            return speak(call, lang, words)
        except (KeyError, TypeError, ValueError):  # a call missing a key it usually has
            pass
    return _raw(call)


def _raw(call: Call) -> str:
    rest = " ".join(f"{k}={json.dumps(v, ensure_ascii=False) if isinstance(v, dict | list) else v}"
                    for k, v in call.items() if k not in ("call", "t"))
    return f"{call.get('call')} {rest}".strip()


def card(lang: str, code: object) -> str:
    """A card as the page names it (``re di denari``, ``10♥``); an unreadable code as it is."""
    try:
        return card_long(lang, str(code))
    except (RefereeError, KeyError, ValueError):
        return str(code)


def suit(lang: str, code: object) -> str:
    """A trump suit: French as its symbol, Italian by name (``spade``, in English ``swords``)."""
    text = str(code)
    if text in FRENCH_SUIT_SYMBOL:
        return FRENCH_SUIT_SYMBOL[text]
    return ENGLISH_SUIT_NAMES.get(text, text) if lang == "en" else text


def _scores(points: Mapping[str, Any]) -> str:
    return ", ".join(f"{who} {value}" for who, value in points.items())


def _trick(call: Call, lang: str, w: dict[str, str]) -> str:
    return w["trick"].format(number=call["number"], winner=call["winner"], points=call["points"])


def _violation(call: Call, lang: str, w: dict[str, str]) -> str:
    text = w["violation"].format(seat=call["seat"], trick=call["trick"], rule=rule_name(lang, str(call["rule"])))
    played = call.get("card")
    if isinstance(played, str) and " " not in played:  # a false declaration names its cards
        text += w["violation_card"].format(card=card(lang, played))
    return text


def _withdrawn(call: Call, lang: str, w: dict[str, str]) -> str:
    return w["withdrawn"].format(seat=call["seat"], trick=call["trick"], rule=rule_name(lang, str(call["rule"])))


def _deal_end(call: Call, lang: str, w: dict[str, str]) -> str:
    if call.get("redeal"):
        return w["deal_end_redeal"]
    if call.get("void") == "forfait":
        return w["deal_end_forfait"].format(seat=call.get("seat", "?"))
    if call.get("void"):
        return w["deal_end_void"]
    points = _scores(call["points"])
    if call.get("winner") is None:
        return w["deal_end_tie"].format(points=points)
    return w["deal_end"].format(points=points, winner=call["winner"])


def _match_end(call: Call, lang: str, w: dict[str, str]) -> str:
    score = _scores(call["score"])
    if call.get("winner") is None:
        return w["match_end_tie"].format(score=score)
    return w["match_end"].format(winner=call["winner"], score=score)


def _undo(call: Call, lang: str, w: dict[str, str]) -> str:
    if call.get("cards"):
        return w["undo_cards"].format(seat=call["seat"], cards=" ".join(card(lang, c) for c in call["cards"]))
    if call.get("card"):
        return w["undo"].format(seat=call["seat"], card=card(lang, call["card"]))
    return w["undo_seat"].format(seat=call["seat"])


def _contract(call: Call, lang: str, w: dict[str, str]) -> str:
    if call.get("called") is not None:  # briscola chiamata: the called card and the points
        text = w["contract_called"].format(seat=call["seat"], called=card(lang, call["called"]), points=call["points"])
        if call.get("in_mano"):
            text += w["in_mano"]
        multiplier = call.get("multiplier")
        if isinstance(multiplier, int) and multiplier > 1:
            text += w["multiplier"].format(n=multiplier)
        return text
    if call.get("bid") is not None:  # binocolo
        return w["contract_bid"].format(seat=call["seat"], bid=call["bid"], trump=suit(lang, call["trump"]))
    if call.get("trump") is not None:  # belotta: mando
        return w["contract_belotta"].format(seat=call["seat"], trump=suit(lang, call["trump"]))
    return w["contract"].format(seat=call["seat"])


def _declaration(call: Call, lang: str, w: dict[str, str]) -> str:
    return w["declaration"].format(seat=call["seat"], kind=declaration_name(lang, str(call["kind"])).lower(),
                                   cards=" ".join(card(lang, c) for c in call["cards"]), points=call["points"])


def _partner(call: Call, lang: str, w: dict[str, str]) -> str:
    key = "partner_alone" if call.get("alone") else "partner"
    return w[key].format(caller=call["caller"], seat=call["seat"], card=card(lang, call["card"]))


_SAYERS: dict[str, Callable[[Call, str, dict[str, str]], str]] = {
    "turn": lambda c, lang, w: w["turn"].format(seat=c["seat"]),
    "trick": _trick,
    "violation": _violation,
    "withdrawn": _withdrawn,
    "deal_end": _deal_end,
    "match_end": _match_end,
    "undo": _undo,
    "dealer": lambda c, lang, w: w["dealer"].format(seat=c["seat"]),
    "redraw": lambda c, lang, w: w["redraw"].format(seats=", ".join(c["seats"])),
    "error": lambda c, lang, w: w["error"].format(line=c["line"], detail=c["detail"]),
    "contract": _contract,
    "declaration": _declaration,
    "forfait": lambda c, lang, w: w["forfait"].format(seat=c["seat"]),
    "redeal": lambda c, lang, w: w["redeal"].format(rule=c["rule"], dealer=c["dealer"]),
    "partner": _partner,
}
