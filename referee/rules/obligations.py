"""Obligations proven by cards: the referee never sees hands.

When a seat plays, the game lists the :class:`~referee.rules.tricks.Obligation` sets the play
would have broken had the seat held any of their cards; they wait in ``DealState.pending``
until the seat plays or shows one of those cards, which proves the earlier play illegal (one
violation per play at most: the first obligation proven names the rule).  Cards shown from a
hand (declarations) or put out of play (discards) prove them too (:func:`show_cards`).
"""

from __future__ import annotations

from collections.abc import Iterable

from referee.cards import Card
from referee.rules.calls import Call
from referee.rules.game import Game
from referee.rules.state import DealState, PendingObligation
from referee.rules.tricks import Trick
from referee.rules.violations import violation


def prove(deal: DealState, seat: str, card: Card) -> list[Call]:
    """``seat`` turned out to hold ``card``: report every pending play it proves illegal."""
    pending = deal.pending[seat]
    if not pending:
        return []
    calls: list[Call] = []
    keep: list[PendingObligation] = []
    for p in pending:
        broken = next((ob for ob in p.obligations if card in ob.cards), None)
        if broken is None:
            keep.append(p)
            continue
        detail = f"{seat} played {p.card.code} in trick {p.trick} while holding {card.code}" + (
            f" ({broken.detail})" if broken.detail else ""
        )
        calls.append(
            violation(
                deal, seat, broken.rule, detail, trick=p.trick, card=p.card.code, proof=card.code
            )
        )
    deal.pending[seat] = keep
    return calls


def check_play(
    game: Game, deal: DealState, trick: Trick, seat: str, card: Card, in_known: bool
) -> list[Call]:
    """``seat`` plays ``card`` to ``trick`` (before it is added): earlier plays this card
    proves illegal first, then this play's own obligations, proven at once by a card the seat
    has shown and not yet played (``in_known``: ``card`` itself was one of them)."""
    calls = prove(deal, seat, card)
    obligations = game.obligations(deal, trick, seat, card)
    if not obligations:
        return calls
    known = list(deal.known[seat])
    if in_known:
        known.remove(card)
    pending = PendingObligation(trick.number, card, obligations)
    deal.pending[seat].append(pending)
    for held in known:
        proof = prove(deal, seat, held)
        if proof:
            calls.extend(proof)
            break
    return calls


def show_cards(
    game: Game, deal: DealState, seat: str, cards: Iterable[Card], *, keep: bool = True
) -> list[Call]:
    """``seat`` showed ``cards`` from its hand (a declaration: ``keep=True``, they stay in hand
    and will be played later) or put them out of play (a discard: ``keep=False``).

    Reports ``duplicate_card`` for a card already seen as often as the deck holds it, and proves
    pending obligations (a shown card was in hand all along)."""
    calls: list[Call] = []
    for card in cards:
        if card in deal.known[seat]:
            if not keep:
                deal.known[seat].remove(card)
            continue
        if deal.seen[card] >= game.deck.copies:
            calls.append(
                violation(
                    deal,
                    seat,
                    "duplicate_card",
                    f"{card.code} was already seen this deal",
                    card=card.code,
                )
            )
            continue
        deal.seen[card] += 1
        if keep:
            deal.known[seat].append(card)
        calls.extend(prove(deal, seat, card))
    return calls
