"""The score screen the box comes back to, per game: what the table counts and its contract.

Briscola: the deal's card points per team, the match's games, the face-up briscola.
Belotta: the written score (tens) toward the target, the trump and who chose it.
Chiamata: each seat's credits, the caller, the called card and its points ("M": in mano).
Binocolo: each seat's score toward the target, the declarer's bid and trump.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.box.i18n import FRENCH_SUIT_SYMBOL, ITALIAN_SUIT_SHORT, card_short
from referee.box.screens import ScoreScreen
from referee.rules import Referee
from referee.rules.games.binocolo import BinocoloDeal
from referee.rules.games.chiamata import ChiamataDeal
from referee.rules.state import DealState


def home_screen(referee: Referee, game: str, teams: Sequence[Sequence[str]]) -> ScoreScreen:
    """The running score screen of ``referee``'s table, configured for ``game``."""
    deal, match = referee.deal, referee.match
    contract = contract_text(deal) if deal is not None else ""
    if game in ("briscola-chiamata", "binocolo") and match is not None and match.score:
        target = getattr(match.options, "target", None) if game == "binocolo" else None
        return ScoreScreen(points=list(match.score.items()), turn=referee.turn, contract=contract,
                           target=target if isinstance(target, int) else None)
    if game == "belotta" and match is not None and match.score:
        target = getattr(match.options, "target", None)
        return ScoreScreen(points=sorted(match.score.items()), turn=referee.turn, contract=contract,
                           target=target if isinstance(target, int) else None)
    seat_points = deal.points if deal is not None else {}
    rows = [("+".join(t), sum(seat_points.get(s, 0) for s in t)) for t in teams]
    games = ""
    if match is not None and len(teams) == 2:
        names = ["+".join(t) for t in teams]
        if all(n in match.score for n in names):
            games = "-".join(str(match.score[n]) for n in names)
    return ScoreScreen(points=rows, turn=referee.turn, games=games, contract=contract)


def contract_text(deal: DealState) -> str:
    """The deal's trump and contract in a few characters (empty before it is known)."""
    data = deal.data
    if isinstance(data, ChiamataDeal):
        c = data.contract
        if c is None:
            return ""
        return f"{c.caller}: {card_short(c.called.code)} {c.points}" + (" M" if c.in_mano else "")
    if isinstance(data, BinocoloDeal):
        if data.declarer is None or data.bid is None:
            return ""
        return f"{data.declarer} {data.bid} {_suit(deal.trump)}".rstrip()
    caller = getattr(data, "caller", None)  # belotta
    if isinstance(caller, str) and deal.trump:
        return f"{_suit(deal.trump)} {caller}"
    if deal.trump_card is not None:  # briscola: the face-up card under the stock
        return card_short(deal.trump_card.code)
    return _suit(deal.trump)


def _suit(suit: str | None) -> str:
    if suit is None:
        return ""
    return FRENCH_SUIT_SYMBOL.get(suit) or ITALIAN_SUIT_SHORT.get(suit, suit)
