"""Random still table scenes: a trick in the middle, the stock with the briscola, won piles."""

from __future__ import annotations

import numpy as np

from referee.cards import FRENCH_52, ITALIAN_40
from referee.vision.layout import TableLayout, default_seat_names
from referee.vision.simulator.assets import face_sets
from referee.vision.simulator.camera import CameraSpec
from referee.vision.simulator.scene import CardSpec, HandSpec, SceneSpec
from referee.vision.simulator.textures import texture_names

#: face sets used when none is asked for (complete, readable at the simulated size)
DEFAULT_FACE_SETS = {
    "italian": "invido_regional_lowres/trevisane",
    "french": "kennard_cc0_svg/french",
}


#: the benchmarks' table matrix: cloths (a checked tablecloth photo, generated check and
#: stripes, wood, felt) and prints (the default set plus two others per family)
BENCHMARK_TEXTURES = ("tovaglia", "check", "stripes", "legno", "felt")
BENCHMARK_FACE_SETS = {
    "italian": (DEFAULT_FACE_SETS["italian"], "beezlie_napoletane_digital/napoletane",
                "invido_regional_lowres/piacentine"),
    "french": (DEFAULT_FACE_SETS["french"], "english_pattern_fomin_cc0/french", "knoll_vector_cards_pd/french"),
}


def pick_face_set(family: str, rng: np.random.Generator | None = None) -> str:
    """The default set of ``family`` (``italian``/``french``), or a random one when ``rng``."""
    if rng is None:
        return DEFAULT_FACE_SETS[family]
    sets = face_sets(family) or [DEFAULT_FACE_SETS[family]]
    return str(rng.choice(sets))


def stock_cards(layout: TableLayout, codes: list[str], briscola: str | None, rng: np.random.Generator) -> list[CardSpec]:
    """The stock as a few stacked backs with the briscola face up, rotated, half under it."""
    sx, sy = layout.stock_spot()
    cards: list[CardSpec] = []
    if briscola is not None:
        # Rotated a quarter turn and pushed out so about half of it shows.
        cards.append(CardSpec(briscola, (sx + 45 + rng.uniform(-6, 6), sy + rng.uniform(-6, 6)),
                              90 + rng.uniform(-8, 8), True, None, "briscola"))
    angle = rng.uniform(-10, 10)
    for k, code in enumerate(codes[-4:]):  # only the top few backs are visible at all
        cards.append(CardSpec(code, (sx - 20 - k * 1.2 + rng.uniform(-2, 2), sy - k * 1.5 + rng.uniform(-2, 2)),
                              angle + rng.uniform(-3, 3), False, None, "stock"))
    return cards


def pile_cards(layout: TableLayout, seat: str, codes: list[str], rng: np.random.Generator) -> list[CardSpec]:
    """A face-down won pile at ``seat``'s pile spot, squared up loosely."""
    px, py = layout.pile_spot(seat)
    angle = rng.uniform(-30, 30)
    return [CardSpec(code, (px + rng.uniform(-6, 6), py + rng.uniform(-6, 6)), angle + rng.uniform(-8, 8),
                     False, seat, "pile") for code in codes[-4:]]


def trick_cards(layout: TableLayout, plays: list[tuple[str, str]], rng: np.random.Generator) -> list[CardSpec]:
    """Cards played in the current trick, each in front of its seat, overlapping in the middle."""
    out = []
    for seat, code in plays:
        x, y = layout.play_spot(seat)
        out.append(CardSpec(code, (x + rng.uniform(-15, 15), y + rng.uniform(-15, 15)),
                            float(rng.uniform(-35, 35)), True, seat, "trick"))
    return out


def random_scene(
    rng: np.random.Generator,
    family: str = "italian",
    face_set: str | None = None,
    texture: str = "random",
    seats: int = 4,
    hands: int | None = None,
    camera_strength: float = 1.0,
) -> SceneSpec:
    """A random mid-game still: 0..seats trick cards, stock + briscola, won piles, maybe a hand."""
    deck = list((ITALIAN_40 if family == "italian" else FRENCH_52).codes)
    rng.shuffle(deck)
    names = default_seat_names(seats)
    layout = TableLayout.default(names)
    n_trick = int(rng.integers(0, seats + 1))
    plays = [(names[i], deck.pop()) for i in range(n_trick)]
    cards = []
    if rng.random() < 0.8:
        cards += stock_cards(layout, [deck.pop() for _ in range(4)], deck.pop(), rng)
    for seat in names:
        if rng.random() < 0.5:
            cards += pile_cards(layout, seat, [deck.pop() for _ in range(3)], rng)
    cards += trick_cards(layout, plays, rng)
    hand_specs = []
    for _ in range(int(rng.integers(0, 2)) if hands is None else hands):
        seat = str(rng.choice(names))
        edge = layout.edge_point(seat)
        tx, ty = layout.play_spot(seat, reach=float(rng.uniform(0.0, 0.7)))
        held = None
        if rng.random() < 0.5:
            held = CardSpec(deck.pop(), (tx, ty), float(rng.uniform(-30, 30)), True, seat, "held", lift=20)
        vel = tuple(rng.normal(0, 300, 2)) if rng.random() < 0.6 else (0.0, 0.0)
        hand_specs.append(HandSpec(edge, (tx, ty), float(rng.uniform(80, 110)), (float(vel[0]), float(vel[1])),
                                   int(rng.integers(0, 5)), held))
    return SceneSpec(
        cards=tuple(cards),
        hands=tuple(hand_specs),
        face_set=face_set or pick_face_set(family, rng),
        texture=str(rng.choice(texture_names())) if texture == "random" else texture,
        texture_seed=int(rng.integers(0, 2**31)),
        camera=CameraSpec.random(rng, strength=camera_strength),
        card_height=float(rng.uniform(115, 150)),
    )
