"""Whether a card could still be laid: the rules core's answer to the camera's tracker."""

from __future__ import annotations

from referee.rules import Referee
from referee.rules.possible import could_still_be_played


def briscola2() -> Referee:
    ref = Referee()
    ref.apply({"event": "deal", "game": "briscola-2", "seats": ["N", "S"], "dealer": "S", "trump_card": "coppe_1"})
    return ref


def possible(ref: Referee, code: str) -> bool:
    assert ref.game is not None and ref.deal is not None
    return could_still_be_played(ref.game, ref.deal, code)


def test_a_card_played_already_or_of_another_deck_cannot_be_laid_again() -> None:
    ref = briscola2()
    assert possible(ref, "spade_3")
    ref.apply({"event": "play", "seat": "N", "card": "spade_3"})
    assert not possible(ref, "spade_3")  # one copy in the deck, seen once
    assert not possible(ref, "AS") and not possible(ref, "back")  # French, not a card


def test_the_face_up_briscola_is_nobodys_card_until_the_last_draw() -> None:
    assert not possible(briscola2(), "coppe_1")


def test_a_card_the_rules_core_refuses_as_duplicate_is_never_possible() -> None:
    ref = briscola2()
    ref.apply({"event": "play", "seat": "N", "card": "spade_3"})
    calls = [c.to_dict() for c in ref.apply({"event": "play", "seat": "S", "card": "spade_3"})]
    assert any(c.get("rule") == "duplicate_card" for c in calls) and not possible(ref, "spade_3")


def test_a_binocolo_card_is_possible_until_both_copies_were_seen() -> None:
    from referee.rules.playout import random_deal_events

    events = random_deal_events("binocolo", seed=1)
    ref = Referee()
    for event in events:
        ref.apply(event)
        if event.get("event") == "play":
            break
    played = str(events[[e.get("event") for e in events].index("play")]["card"])
    assert possible(ref, played)  # the deck has two of every card
