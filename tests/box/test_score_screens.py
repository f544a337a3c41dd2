"""What the score screen shows per game, seat names per language, and digits that stay apart."""

from __future__ import annotations

from itertools import pairwise

from PIL import ImageChops

from referee.box.home import home_screen
from referee.box.i18n import seat_text
from referee.box.screens import ResultScreen, ScoreScreen, TrickScreen, render, screen_for_call
from referee.rules import Referee
from referee.rules.playout import random_deal_events


def _referee(events: list[dict[str, object]]) -> Referee:
    ref = Referee()
    for event in events:
        ref.apply(event)
    return ref


def test_italian_names_west_ovest() -> None:
    assert seat_text("it", "W+E") == "O+E" and seat_text("en", "W+E") == "W+E"
    assert seat_text("it", "N W S E") == "N O S E"
    assert seat_text("it", "W: 3 Cop") == "O: 3 Cop"
    assert seat_text("it", "Briscola 4") == "Briscola 4"  # only seats change
    same = ImageChops.difference(render(TrickScreen(1, "W", 10), "it"), render(TrickScreen(1, "O", 10), "it"))
    assert same.getbbox() is None


def test_score_digits_of_two_rows_do_not_touch() -> None:
    """0 over 0 read as an 8: a blank pixel row must separate the two rows of digits."""
    image = render(ScoreScreen(points=[("N+S", 0), ("W+E", 0)], turn="N", contract="A Den"), "it")
    digits = image.crop((72, 15, 127, 51))
    lit_rows = [y for y in range(digits.height) if digits.crop((0, y, digits.width, y + 1)).getbbox()]
    gaps = [b - a for a, b in pairwise(lit_rows) if b - a > 1]
    assert gaps and min(gaps) >= 3, lit_rows


def test_seat_columns_do_not_overlap() -> None:
    """4 and 5 seats: one column each, a rule between; no seat's digits cross into the next."""
    for n in (4, 5):
        seats = "NWSEX"[:n]
        screen = ScoreScreen(points=[(s, -88) for s in seats], turn="N", contract="N 20 ♠")
        image = render(screen, "it")
        col_w = 128 // n
        for i in range(1, n):
            x = i * col_w - 1  # the rule: lit all along, nothing drawn right next to it
            for dx in (-1, 1):
                column = image.crop((x + dx, 30, x + dx + 1, 50))
                assert column.getbbox() is None, (n, i, dx)


def test_belotta_shows_the_written_score_toward_the_target_and_the_trump() -> None:
    events = random_deal_events("belotta", seed=1)
    ref = _referee(events[:3])
    screen = home_screen(ref, "belotta", (("N", "S"), ("W", "E")))
    assert screen.target == 151 and screen.contract == "♠ S"
    ref = _referee(events)
    assert ref.match is not None and ref.deal is not None and ref.deal.phase == "over"
    screen = home_screen(ref, "belotta", (("N", "S"), ("W", "E")))
    assert dict(screen.points) == ref.match.score  # tens, not raw card points
    assert all(value % 1 == 0 and value <= 30 for _, value in screen.points)


def test_chiamata_shows_each_seats_credits_and_the_called_card() -> None:
    events = random_deal_events("briscola-chiamata", seed=1)
    ref = _referee(events[:3])
    screen = home_screen(ref, "briscola-chiamata", ())
    assert screen.contract == "E: F Cop 61"  # the fante (8) of coppe
    assert [seat for seat, _ in screen.points] == ["A", "B", "C", "D", "E"]
    ref = _referee(events)
    screen = home_screen(ref, "briscola-chiamata", ())
    assert ref.match is not None and dict(screen.points) == ref.match.score
    assert sum(v for _, v in screen.points) == 0  # credits sum to zero (5b)


def test_binocolo_shows_the_bid_and_the_bestia() -> None:
    events = random_deal_events("binocolo", seed=1)
    ref = _referee(events[:3])
    assert home_screen(ref, "binocolo", ()).contract == "E 17 ♣"
    end = {"call": "deal_end", "winner": None, "points": {"N": 10, "W": 40, "S": 30, "E": 12}, "declarer": "E",
           "bid": 17, "bestia": True, "delta": {"N": 10, "W": 40, "S": 30, "E": -17}}
    shown = screen_for_call(end)
    assert shown is not None
    screen = shown[0]
    assert isinstance(screen, ResultScreen) and screen.note == "E: BESTIA -17"


def test_deal_end_shows_belotta_tens_and_chiamata_credits() -> None:
    belotta = {"call": "deal_end", "winner": "N+S", "points": {"N+S": 97, "W+E": 65},
               "score": {"N+S": 10, "W+E": 6}}
    shown = screen_for_call(belotta)
    assert shown is not None and isinstance(shown[0], ResultScreen)
    assert list(shown[0].points) == [("N+S", 10), ("W+E", 6)]
    chiamata = {"call": "deal_end", "winner": "A+C", "points": {"A+C": 70, "B+D+E": 50},
                "credits": {"A": 4, "B": -1, "C": 1, "D": -2, "E": -2}}
    shown = screen_for_call(chiamata)
    assert shown is not None and isinstance(shown[0], ResultScreen)
    assert list(shown[0].points) == [("A", 4), ("B", -1), ("C", 1), ("D", -2), ("E", -2)]
