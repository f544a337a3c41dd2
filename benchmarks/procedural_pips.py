"""Procedural French pip cards for a training probe: a lab tool, not product code.

    .venv/bin/python benchmarks/procedural_pips.py build/shared_plus --prints 4 --seed 1
    .venv/bin/referee train --recipe build/lab/pp/recipe.toml --out build/lab/pp/model --shared build/shared_plus

Why: through ``referee detect`` on the pinochle photos, 18 of the 36 false cards are read ``AS``
and 10 ``10S`` (docs/lab/2026-12-02-as-floor.md), and held-out Knoll reads ``AC->AS`` and
``10C->10S``. Among the seven French training prints the only aces with a large central pip are
spades (Kennard's), and each print draws one club and one spade, so the model has learnt a big
black shape as the ace of spades and a black suit from a few drawings.

This writes ``--prints`` made-up prints of the 40 pip cards (A-10 of the four suits) as face
scans, ``<overlay>/faces/procedural_pips/printNN/<suit>_<rank>.png``, each print with its own suit
glyphs (lobe sizes and spreads, stems, the diamond's aspect and curve), pip size, ace size (0.22
to 0.75 of the card's width, every suit alike), pip columns and rows, index font, weight and size,
inks and paper. The layouts are the standard French ones; pips below the middle are turned, the
corner index is drawn top left and turned bottom right. Courts are not drawn: the probe is about
pips. The overlay links every other entry of ``../shared`` (and every print folder of its
``faces``), so ``referee train --shared <overlay>`` trains on the shared prints plus these, and
reads the real photos as before. Nothing is written to ``../shared``.

Results: trained in full (docs/lab/2026-12-03-procedural-pips.md), the candidate moved the bias
from the ace to the tens and lost Milanesi's courts. With courts linked in from seen prints
(docs/lab/2026-12-05-procedural-pips-with-courts.md: ``ppc``, ``ppr``, ``ppq``, ``ppc1``) Knoll rose
(``ppc``, on two seeds: 94.6 and 94.4%) where the courts came from three seen prints; every run
lost real held-out pinochle cards (``ppq``, with twice the real crops, the most). ``--texture``
(``ppt``: bled, uneven ink on grainy paper) lost most of the Knoll gain and none of the cost; ``ppa``
(the seen prints' renders and views kept) kept the real cards and lost the gain. None adopted.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from referee.paths import shared_dir

U8 = npt.NDArray[np.uint8]
W, H = 250, 350
SS = 4  # supersampling, for anti-aliased glyph edges
SUITS = ("clubs", "diamonds", "hearts", "spades")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
         cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX_SMALL, cv2.FONT_HERSHEY_PLAIN)


def glyph(suit: str, size: int, p: dict[str, Any]) -> U8:
    """A suit glyph's mask, size x size, upright (255 = ink)."""
    s = size * SS
    m = np.zeros((s, s), np.uint8)
    c = s / 2

    def circ(x: float, y: float, r: float) -> None:
        cv2.circle(m, (int(x), int(y)), max(1, int(r)), 255, -1, cv2.LINE_AA)

    def poly(pts: list[tuple[float, float]]) -> None:
        cv2.fillPoly(m, [np.array(pts, np.int32)], 255, cv2.LINE_AA)

    if suit == "diamonds":
        a = p["dia_aspect"]  # width / height
        hh, hw = 0.5 * s, 0.5 * s * a
        k = p["dia_curve"]  # concave sides: the midpoints pinched in
        poly([(c, c - hh), (c + hw * k * 0.5 + hw * (1 - k) * 0.5, c - hh * 0.5 * (1 + k) + hh * k * 0.5),
              (c + hw, c), (c + hw * 0.5, c + hh * 0.5), (c, c + hh), (c - hw * 0.5, c + hh * 0.5),
              (c - hw, c), (c - hw * 0.5, c - hh * 0.5)])
        return np.asarray(cv2.resize(m, (size, size), interpolation=cv2.INTER_AREA), np.uint8)
    if suit in ("hearts", "spades"):
        r = p["heart_lobe"] * s
        sp = p["heart_spread"] * s
        ly = 0.5 * s - p["heart_drop"] * s
        circ(c - sp, ly, r)
        circ(c + sp, ly, r)
        poly([(c - sp - r * 0.97, ly + r * 0.25), (c + sp + r * 0.97, ly + r * 0.25), (c, 0.96 * s)])
        poly([(c - sp, ly - r * 0.3), (c + sp, ly - r * 0.3), (c, ly + r)])
        out = m
        if suit == "spades":  # a heart upside down, moved up, on a stem
            shift = int(p["stem_len"] * s)
            out = np.roll(m[::-1].copy(), -shift, axis=0)
            out[-shift:] = 0
            sw, sw2 = p["stem_w"] * s, p["stem_foot"] * s
            top = s - shift - 0.1 * s
            stem = np.array([(c - sw, top), (c + sw, top), (c + sw2, s - 1), (c - sw2, s - 1)], np.int32)
            cv2.fillPoly(out, [stem], 255, cv2.LINE_AA)
        return np.asarray(cv2.resize(out, (size, size), interpolation=cv2.INTER_AREA), np.uint8)
    # clubs: three lobes, a centre and a stem
    r = p["club_lobe"] * s
    d = p["club_spread"] * s
    cy = 0.45 * s
    circ(c, cy - d * 0.95, r)
    circ(c - d, cy + d * 0.35, r)
    circ(c + d, cy + d * 0.35, r)
    circ(c, cy, r * 0.6)
    sw, sw2 = p["stem_w"] * s, p["stem_foot"] * s
    stem = np.array([(c - sw, cy), (c + sw, cy), (c + sw2, s - 1), (c - sw2, s - 1)], np.int32)
    cv2.fillPoly(m, [stem], 255, cv2.LINE_AA)
    return np.asarray(cv2.resize(m, (size, size), interpolation=cv2.INTER_AREA), np.uint8)


def layout(rank: str, p: dict[str, Any]) -> list[tuple[float, float]]:
    """The pips' centres, as shares of the card's width and height (the standard layouts)."""
    left, centre, right = 0.5 - p["col"], 0.5, 0.5 + p["col"]
    t, b, m = p["top"], 1 - p["top"], 0.5
    q1, q3 = t + (b - t) / 3, t + 2 * (b - t) / 3
    n = 1 if rank == "A" else int(rank)
    if n <= 3:
        return [[(centre, m)], [(centre, t), (centre, b)], [(centre, t), (centre, m), (centre, b)]][n - 1]
    four = [(left, t), (right, t), (left, b), (right, b)]
    six = [*four, (left, m), (right, m)]
    rows = [(x, y) for x in (left, right) for y in (t, q1, q3, b)]
    return {4: four, 5: [*four, (centre, m)], 6: six, 7: [*six, (centre, (t + m) / 2)],
            8: [*six, (centre, (t + m) / 2), (centre, (m + b) / 2)], 9: [*rows, (centre, m)],
            10: [*rows, (centre, (t + q1) / 2), (centre, (q3 + b) / 2)]}[n]


def draw(canvas: U8, g: U8, x: float, y: float, turned: bool) -> None:
    """Ink ``g`` centred at (x, y), turned 180 degrees if ``turned``."""
    if turned:
        g = g[::-1, ::-1]
    h, w = g.shape
    x0, y0 = round(x - w / 2), round(y - h / 2)
    region = canvas[max(0, y0): y0 + h, max(0, x0): x0 + w]
    part = g[max(0, -y0): max(0, -y0) + region.shape[0], max(0, -x0): max(0, -x0) + region.shape[1]]
    np.maximum(region, part, out=region)


def print_params(rng: np.random.Generator) -> dict[str, Any]:
    """One made-up print's drawing."""
    return {
        "dia_aspect": rng.uniform(0.6, 0.85), "dia_curve": rng.uniform(0.0, 0.25),
        "heart_lobe": rng.uniform(0.2, 0.27), "heart_spread": rng.uniform(0.17, 0.24),
        "heart_drop": rng.uniform(0.12, 0.2),
        "club_lobe": rng.uniform(0.17, 0.23), "club_spread": rng.uniform(0.2, 0.26),
        "stem_w": rng.uniform(0.02, 0.06), "stem_foot": rng.uniform(0.1, 0.2), "stem_len": rng.uniform(0.1, 0.18),
        "pip": rng.uniform(0.16, 0.24),  # a pip's size, share of the card's width
        "ace": rng.uniform(0.22, 0.75),  # the ace's pip, every suit alike
        "col": rng.uniform(0.17, 0.23), "top": rng.uniform(0.18, 0.24),
        "font": int(rng.integers(len(FONTS))), "thick": int(rng.integers(2, 5)),
        "idx_h": rng.uniform(0.07, 0.11), "idx_x": rng.uniform(0.05, 0.09), "idx_pip": rng.uniform(0.06, 0.09),
        "four_corners": False,  # drawn by mirroring, the copy's text would read wrong; Kennard draws four
        "black": tuple(float(v) for v in rng.uniform(10, 50, 3)),
        "red": (float(rng.uniform(20, 70)), float(rng.uniform(20, 60)), float(rng.uniform(150, 220))),
        "paper": tuple(float(v) for v in rng.uniform(232, 252) - rng.uniform(0, 10, 3)),
    }


def smooth_noise(rng: np.random.Generator, sigma: float) -> npt.NDArray[np.float32]:
    """A random field over the face, blurred by ``sigma`` px, scaled to unit standard deviation."""
    field = cv2.GaussianBlur(rng.standard_normal((H, W)).astype(np.float32), (0, 0), sigma)
    return np.asarray(field / max(1e-6, float(field.std())), np.float32)


def texture_params(rng: np.random.Generator) -> dict[str, float]:
    """One print's printing and paper: how much its ink bleeds and fades, how grainy its paper is."""
    return {"bleed": rng.uniform(0.3, 1.2), "fade": rng.uniform(0.04, 0.2), "fade_sigma": rng.uniform(3, 10),
            "grain": rng.uniform(0.008, 0.03), "mottle": rng.uniform(0.005, 0.025), "mottle_sigma": rng.uniform(8, 25),
            "ink_noise": rng.uniform(2, 10), "shade": rng.uniform(0.0, 0.04)}


def textured(ink: U8, colour: npt.NDArray[np.float32], paper: npt.NDArray[np.float32],
             t: dict[str, float], rng: np.random.Generator) -> npt.NDArray[np.float32]:
    """BGR of ``ink`` printed on paper: bled edges, uneven ink density, paper grain and mottle, and
    a scan's slow shading, so a made-up card is not flat ink on flat paper."""
    a = cv2.GaussianBlur(ink.astype(np.float32) / 255.0, (0, 0), t["bleed"])
    # A soft, blotchy loss of density; abs() of the field drew veins through every pip.
    thin = np.clip(0.5 + 0.35 * smooth_noise(rng, t["fade_sigma"]), 0.0, 1.0)
    a = np.clip(a * (1.0 - t["fade"] * thin), 0.0, 1.0)[..., None]
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(angle) * (xs / W - 0.5) + np.sin(angle) * (ys / H - 0.5)) * 2 * t["shade"]
    light = 1.0 + t["grain"] * smooth_noise(rng, 0.7) + t["mottle"] * smooth_noise(rng, t["mottle_sigma"]) + ramp
    ink_bgr = colour + t["ink_noise"] * rng.standard_normal((H, W, 3)).astype(np.float32)
    return np.asarray((paper * (1 - a) + ink_bgr * a) * light[..., None], np.float32)


def face(suit: str, rank: str, p: dict[str, Any], texture: tuple[dict[str, float], np.random.Generator] | None = None) -> U8:
    """One card face, BGRA, W x H; ``texture``: the print's printing and this card's noise stream."""
    ink = np.zeros((H, W), np.uint8)
    g = glyph(suit, int((p["ace"] if rank == "A" else p["pip"]) * W), p)
    for x, y in layout(rank, p):
        draw(ink, g, x * W, y * H, y > 0.5 + 1e-6)
    idx = np.zeros((H, W), np.uint8)
    font, thick = FONTS[p["font"]], p["thick"]
    (_, tht), _ = cv2.getTextSize(rank, font, 1.0, thick)
    scale = p["idx_h"] * H / max(1, tht)
    (tw, tht), _ = cv2.getTextSize(rank, font, scale, thick)
    cx = p["idx_x"] * W + max(tw, p["idx_pip"] * W) / 2
    ty = 0.04 * H + tht
    cv2.putText(idx, rank, (int(cx - tw / 2), int(ty)), font, scale, 255, thick, cv2.LINE_AA)
    small = glyph(suit, max(6, int(p["idx_pip"] * W)), p)
    draw(idx, small, cx, ty + 0.025 * H + small.shape[0] / 2, False)
    ink = np.maximum(ink, np.maximum(idx, idx[::-1, ::-1]))
    colour = np.array(p["red"] if suit in ("hearts", "diamonds") else p["black"], np.float32)
    paper = np.array(p["paper"], np.float32)
    if texture is not None:
        bgr = textured(ink, colour, paper, *texture)
    else:
        a = ink[..., None].astype(np.float32) / 255.0
        bgr = paper * (1 - a) + colour * a
    # The flat faces truncate as before, so the earlier runs' files come out byte for byte.
    return np.dstack([np.clip(bgr + 0.5, 0, 255).astype(np.uint8) if texture else bgr.astype(np.uint8),
                      np.full((H, W), 255, np.uint8)])


def write_prints(folder: Path, prints: int, seed: int, texture: bool = False) -> None:
    """The prints; with ``texture`` their drawing is the same (the same parameter stream) and the
    printing and paper come from streams of their own."""
    for i in range(prints):
        p = print_params(np.random.default_rng([seed, i]))
        t = texture_params(np.random.default_rng([seed, i, 1000])) if texture else None
        out = folder / f"print{i:02d}"
        out.mkdir(parents=True, exist_ok=True)
        for si, suit in enumerate(SUITS):
            for ri, rank in enumerate(RANKS):
                noise = (t, np.random.default_rng([seed, i, 1000, si, ri])) if t is not None else None
                cv2.imwrite(str(out / f"{suit}_{rank}.png"), face(suit, rank, p, noise))


def overlay(target: Path, shared: Path) -> Path:
    """``target`` as ``shared`` with a ``faces`` folder of links to its prints; the procedural
    prints' folder."""
    (target / "faces").mkdir(parents=True, exist_ok=True)
    for entry in shared.iterdir():
        link = target / entry.name
        if entry.name != "faces" and not link.exists():
            link.symlink_to(entry.resolve())
    for entry in (shared / "faces").iterdir():
        link = target / "faces" / entry.name
        if not link.exists():
            link.symlink_to(entry.resolve())
    return target / "faces" / "procedural_pips"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("overlay", type=Path, help="the folder to write (the shared data plus the prints)")
    parser.add_argument("--prints", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--texture", action="store_true", help="print texture: bled, uneven ink on grainy paper")
    args = parser.parse_args()
    write_prints(overlay(args.overlay, shared_dir()), args.prints, args.seed, args.texture)


if __name__ == "__main__":
    main()
