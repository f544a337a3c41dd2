"""The synthetic training/validation sets, rendered once and cached as ``.npz`` under ``build/``.

Every sample has its own seed ``(seed, set, card, k)``, so a set renders the same on any
machine and with any number of worker processes.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from referee.cards import BACK, RECOGNISER_LABELS
from referee.recognition import synth
from referee.recognition.court_swap import CourtSwapper, is_court
from referee.recognition.faces import (
    FaceSet,
    back_files,
    face_sets,
    joker_files,
    read_bgra,
    texture_files,
)
from referee.recognition.pip_scale import DEFAULT_RECIPE, PipRecipe, PipScaler, is_pip_card
from referee.recognition.preprocess import INPUT_SIZE, check_input_size
from referee.recognition.print_style import PRINT_VARIATION_VERSION, vary_print

#: Bump when the renderer changes, so stale caches are not reused.
SYNTH_VERSION = 1
#: Bump when the court-swap geometry changes (part of the cache key of sets that use it).
COURT_SWAP_VERSION = 1
#: Bump when the pip finding/scaling changes (part of the cache key of sets that use it).
#: 2: sets with pip scaling also hold the paper-clutter negatives (:data:`PAPER_BACK_SHARE`).
PIP_SCALE_VERSION = 2
#: Name used as the "set" of the not-a-card samples.
NEGATIVES = "negatives"
#: Share of 'back' (face-down / not a card) samples relative to the face samples.
BACK_SHARE = 0.08
#: With pip scaling on (unless a :class:`NegativeRecipe` says otherwise), this share of extra
#: 'back' samples (relative to the faces) is marks on white paper (:func:`synth.render_paper_clutter`):
#: a model taught that one big pip on paper is an ace read drawings on real sheets as AC/AS
#: (models/HISTORY.md, pip scaling), so it gets these counter-examples. The old kinds keep about their share
#: (BACK_SHARE) of the set.
PAPER_BACK_SHARE = 0.04
#: Bump when the extra negatives' rendering changes (part of the cache key of sets that hold
#: :class:`NegativeRecipe` shares other than what their pip scaling implies).
NEGATIVES_VERSION = 1
#: Render styles: ``base`` = one card cut out with generic errors (:func:`synth.render_card`);
#: ``table`` = a card among other cards, cut as the table pipeline cuts it
#: (:func:`synth.render_table_card`).
STYLES = ("base", "table")

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class NegativeRecipe:
    """Extra 'back' samples on top of the usual ones (:data:`BACK_SHARE`), as shares of the faces.

    ``paper``: marks on white paper (:func:`synth.render_paper_clutter`); ``parts``: zoomed-in
    parts of training faces (:func:`synth.render_card_zoom`). Both answer non-cards that a
    model taught rescaled pips reads as cards, and came only with pip scaling; as a recipe of
    their own any set can hold them. ``interior``: windows inside a training face that show none
    of its edge, corners or indices (:func:`synth.render_card_interior`). Their measurements:
    models/HISTORY.md.
    :meth:`of_pip_scaling` is what pip scaling has always brought, so those sets render and cache
    as before.
    """

    paper: float = 0.0
    parts: float = 0.0
    interior: float = 0.0

    def __post_init__(self) -> None:
        for name, share in (("paper", self.paper), ("parts", self.parts), ("interior", self.interior)):
            if not 0 <= share <= 0.5:
                raise ValueError(f"negative recipe {name} {share}: expected a share of the face samples in 0-0.5")

    @classmethod
    def of_pip_scaling(cls, pip_scale: float, pip_recipe: PipRecipe = DEFAULT_RECIPE) -> NegativeRecipe:
        """The negatives a pip-scaled set holds: paper clutter and the recipe's zoom negatives."""
        return cls(PAPER_BACK_SHARE, pip_recipe.zoom_negatives) if pip_scale > 0 else cls()

    def back_share(self) -> float:
        """All 'back' samples as a share of the face samples (summed as the pip-scale sets were)."""
        return BACK_SHARE + (self.paper + self.parts) + self.interior

    def shares(self) -> dict[str, float]:
        """Every kind's share of the face samples (training records)."""
        return {"back": BACK_SHARE, "paper": self.paper, "parts": self.parts, "interior": self.interior}

    def key(self) -> dict[str, float]:
        """The shares as a cache key (``interior`` only when drawn, so older keys stay)."""
        key = {"paper": self.paper, "parts": self.parts}
        return {**key, "interior": self.interior} if self.interior else key


def resolve_negatives(negatives: NegativeRecipe | None, pip_scale: float = 0.0,
                      pip_recipe: PipRecipe = DEFAULT_RECIPE) -> NegativeRecipe:
    """``negatives``, or (None) what the pip scaling implies."""
    return negatives if negatives is not None else NegativeRecipe.of_pip_scaling(pip_scale, pip_recipe)


@dataclass(frozen=True)
class SynthSet:
    """Rendered crops (N, H, W, 3) BGR uint8, class indices, and which print each came from."""

    images: npt.NDArray[np.uint8]
    labels: npt.NDArray[np.int64]
    set_ids: npt.NDArray[np.int64]
    set_names: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.labels)


@dataclass(frozen=True)
class Task:
    """A chunk of samples to render: (set index or -1 for negatives, card code, k range)."""

    set_index: int
    code: str
    start: int
    count: int


@dataclass(frozen=True)
class _Options:
    """How :func:`render_set` draws its samples (its keyword options), handed to every worker."""

    style: str = "base"
    court_swap: float = 0.0
    pip_scale: float = 0.0
    pip_recipe: PipRecipe = DEFAULT_RECIPE
    negatives: NegativeRecipe | None = None
    size: tuple[int, int] = INPUT_SIZE
    print_variation: float = 0.0
    vary_others: bool = False


#: Seed of the varied copies :func:`varied_copies` makes (one per art, the same in every worker).
VARIED_COPIES_SEED = 7919


def varied_copies(arts: Sequence[synth.CardArt]) -> list[synth.CardArt]:
    """One :func:`vary_print` copy of each art, each drawn from its own seed (so every worker
    and every run makes the same ones)."""
    return [vary_print(a, np.random.default_rng([VARIED_COPIES_SEED, i])) for i, a in enumerate(arts)]


class _Renderer:
    """Per-process holder of the prepared art (loaded once per worker)."""

    def __init__(self, family: str, set_names: Sequence[str], root: Path | None, options: _Options) -> None:
        court_swap, pip_scale, pip_recipe = options.court_swap, options.pip_scale, options.pip_recipe
        self.style = options.style
        self.size = options.size  # checked by render_set
        self.print_variation = options.print_variation
        self.negatives = resolve_negatives(options.negatives, pip_scale, pip_recipe)
        by_name = {s.name: s for s in face_sets(family, root)}
        self.sets: list[FaceSet] = [by_name[n] for n in set_names]
        self.arts: list[dict[str, list[synth.CardArt]]] = [_set_arts(s) for s in self.sets]
        self.courts: list[dict[str, npt.NDArray[np.uint8]]] = [{} for _ in self.sets]
        self.swapper: CourtSwapper | None = None
        if court_swap > 0:
            self.courts = [{c: _art_face(p) for c, p in s.files.items() if is_court(c)} for s in self.sets]
            self.swapper = CourtSwapper({s.name: f for s, f in zip(self.sets, self.courts, strict=True)}, court_swap)
        self.scaler: PipScaler | None = None
        if pip_scale > 0:
            pips = {s.name: {c: _art_face(p) for c, p in s.files.items() if is_pip_card(c)} for s in self.sets}
            self.scaler = PipScaler(pips, pip_scale, pip_recipe)
        self.pool = [a[0] for arts in self.arts for a in arts.values()]
        self.textures = [read_bgra(p)[..., :3].copy() for p in texture_files(root)]
        back_paths = back_files(root) + joker_files(root)
        self.backs = [synth.prepare_art(read_bgra(p), 0.0) for p in back_paths]
        if self.print_variation and options.vary_others:
            # The faces around the sample (neighbours, occluders) and those the negatives are
            # cut from, and the backs, come from varied prints too, half the time: else a varied
            # ink or line is itself a sign of "the card this crop is of", and everything unlike
            # the training prints reads as a card (varied prints alone about quadrupled the
            # simulated non-card quads read as cards; this halves that again: models/HISTORY.md).
            self.pool = self.pool + varied_copies(self.pool)
            self.backs = self.backs + varied_copies(self.backs)

    def render(self, task: Task, seed: int) -> npt.NDArray[np.uint8]:
        out = np.empty((task.count, self.size[1], self.size[0], 3), np.uint8)
        for i in range(task.count):
            k = task.start + i
            key = int.from_bytes(hashlib.sha256(f"{task.code}".encode()).digest()[:4], "little")
            rng = np.random.default_rng([seed, task.set_index + 1, key, k])
            table = self.style == "table"
            if task.set_index < 0:
                out[i] = self._negative(rng, table)
            else:
                variants = self.arts[task.set_index][task.code]
                which = int(rng.integers(len(variants)))
                art = self._swapped(task, which, rng) or self._pip_scaled(task, which, rng) or variants[which]
                if self.print_variation and rng.random() < self.print_variation:  # no draw when off
                    art = vary_print(art, rng)
                if table:
                    out[i] = synth.render_table_card(art, self.textures, self.pool, self.backs, rng, size=self.size)
                else:
                    out[i] = synth.render_card(art, self.textures, self.pool, rng, size=self.size)
        return out

    def _negative(self, rng: np.random.Generator, table: bool) -> npt.NDArray[np.uint8]:
        """One 'back' sample of the kind drawn from the recipe's shares.

        A kind with no share draws nothing, and the draws (and their sums) are those the
        pip-scale sets made, so every set rendered before renders the same bytes.
        """
        paper, parts, interior = self.negatives.paper, self.negatives.parts, self.negatives.interior
        if interior and self.pool and rng.random() < interior / self.negatives.back_share():
            art = self.pool[int(rng.integers(len(self.pool)))]
            return synth.render_card_interior(art, self.textures, rng, self.size)
        if parts and self.pool and rng.random() < parts / (BACK_SHARE + paper + parts):
            art = self.pool[int(rng.integers(len(self.pool)))]
            return synth.render_card_zoom(art, self.textures, rng, self.size)
        if paper and rng.random() < paper / (BACK_SHARE + paper):
            return synth.render_paper_clutter(self.textures, self.pool, rng, self.size)
        if table and self.backs and rng.random() < 0.5:
            back = self.backs[int(rng.integers(len(self.backs)))]
            return synth.render_table_card(back, self.textures, self.pool, self.backs, rng, size=self.size)
        return synth.render_not_card(self.textures, self.backs, self.pool, rng, size=self.size)

    def _swapped(self, task: Task, which: int, rng: np.random.Generator) -> synth.CardArt | None:
        """The face with another court's picture (``court_swap``), on blank ``which``; or None."""
        if self.swapper is None:
            return None
        face_set = self.sets[task.set_index]
        face = self.courts[task.set_index].get(task.code)
        swapped = None if face is None else self.swapper.maybe_swap(face, face_set.name, task.code, rng)
        if swapped is None:
            return None
        margin, paper = _blanks(face_set)[which]
        return synth.prepare_art(swapped, margin, paper=paper)

    def _pip_scaled(self, task: Task, which: int, rng: np.random.Generator) -> synth.CardArt | None:
        """The pip card with its pips rescaled (``pip_scale``), on blank ``which``; or None."""
        if self.scaler is None:
            return None
        face_set = self.sets[task.set_index]
        scaled = self.scaler.maybe_scale(face_set.name, task.code, rng)
        if scaled is None:
            return None
        margin, paper = _blanks(face_set)[which]
        return synth.prepare_art(scaled, margin, paper=paper)


def _blanks(face_set: FaceSet) -> list[tuple[float, int]]:
    """(margin, paper) of the two blanks per face: a thin and a wide border (wider without one)."""
    margins = (0.0, 0.03) if face_set.bordered else (0.05, 0.09)
    return list(zip(margins, (250, 236), strict=True))


def _art_face(path: Path) -> npt.NDArray[np.uint8]:
    """The face scan at the renderer's art height (as :func:`synth.prepare_art` scales it)."""
    face = read_bgra(path)
    scale = synth.ART_HEIGHT / face.shape[0]
    if scale < 1.0:
        import cv2

        face = np.asarray(cv2.resize(face, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
    return face


def _set_arts(face_set: FaceSet) -> dict[str, list[synth.CardArt]]:
    """Two blanks per face (:func:`_blanks`)."""
    out: dict[str, list[synth.CardArt]] = {}
    for code, path in face_set.files.items():
        face = read_bgra(path)
        out[code] = [synth.prepare_art(face, m, paper=p) for m, p in _blanks(face_set)]
    return out


_WORKER: _Renderer | None = None


def _init_worker(family: str, set_names: Sequence[str], root: Path | None, options: _Options) -> None:
    global _WORKER
    os.environ["OMP_NUM_THREADS"] = "1"
    import cv2

    cv2.setNumThreads(1)
    _WORKER = _Renderer(family, set_names, root, options)


def _run_task(args: tuple[Task, int]) -> npt.NDArray[np.uint8]:
    assert _WORKER is not None
    return _WORKER.render(*args)


def plan(family: str, set_names: Sequence[str], per_face: int, back_count: int,
         root: Path | None = None, chunk: int = 50) -> list[Task]:
    """The render tasks for ``per_face`` crops of every face of each set + the negatives."""
    by_name = {s.name: s for s in face_sets(family, root)}
    tasks: list[Task] = []
    for i, name in enumerate(set_names):
        for code in by_name[name].files:
            tasks += [Task(i, code, s, min(chunk, per_face - s)) for s in range(0, per_face, chunk)]
    tasks += [Task(-1, BACK, s, min(chunk, back_count - s)) for s in range(0, back_count, chunk)]
    return tasks


def render_set(
    family: str, set_names: Sequence[str], per_face: int, seed: int, *,
    back_count: int | None = None, workers: int = 2, root: Path | None = None,
    progress: Progress | None = None, style: str = "base", court_swap: float = 0.0,
    pip_scale: float = 0.0, pip_recipe: PipRecipe = DEFAULT_RECIPE, negatives: NegativeRecipe | None = None,
    size: tuple[int, int] = INPUT_SIZE, print_variation: float = 0.0, vary_others: bool = False,
) -> SynthSet:
    """Render (in ``workers`` processes) ``per_face`` crops per face of the named prints.

    ``court_swap``: probability that a court face of a print with corner indices shows another
    court's picture (:mod:`referee.recognition.court_swap`); 0 for validation/benchmark sets.
    ``pip_scale``: probability that a French pip card is drawn with its pips rescaled
    (:mod:`referee.recognition.pip_scale`); likewise 0 for validation/benchmark sets. ``pip_recipe``:
    which pip cards are rescaled and how (:class:`referee.recognition.pip_scale.PipRecipe`).
    ``negatives``: extra 'back' samples (:class:`NegativeRecipe`); None = what the pip scaling
    implies (with it on, marks on white paper (:data:`PAPER_BACK_SHARE`) and the recipe's zoom
    negatives; else none). ``size``: the crops' (width, height), the input of the model they are for.
    ``print_variation``: probability that a face is drawn as another print of its pattern would
    show it (:mod:`referee.recognition.print_style`); 0 for validation/benchmark sets.
    ``vary_others`` (with ``print_variation``): the other cards in a sample (neighbours,
    occluders, the cards the negatives show parts of) and the backs are drawn half the time from
    one varied copy of each (:func:`varied_copies`), so a varied print is no sign of the card.
    """
    labels = RECOGNISER_LABELS[family]
    n_faces = sum(len(s.files) for s in face_sets(family, root) if s.name in set_names)
    if back_count is None:
        back_count = default_back_count(per_face * n_faces, pip_scale, pip_recipe, negatives)
    tasks = plan(family, set_names, per_face, back_count, root)
    chunks: list[npt.NDArray[np.uint8]] = []
    if style not in STYLES:
        raise ValueError(f"render style {style!r}: expected one of {STYLES}")
    if not 0 <= print_variation <= 1:
        raise ValueError(f"print variation {print_variation}: expected a probability in 0-1")
    if vary_others and not print_variation:
        raise ValueError("vary_others draws the other cards from varied prints: it needs a print variation")
    options = _Options(style, court_swap, pip_scale, pip_recipe, negatives, check_input_size(size), print_variation,
                       vary_others)
    mapped = _map(tasks, seed, family, set_names, root, workers, options)
    for done, arr in enumerate(mapped, 1):
        chunks.append(arr)
        if progress:
            progress(done, len(tasks))
    index = {code: i for i, code in enumerate(labels)}
    y = np.concatenate([np.full(t.count, index[t.code]) for t in tasks]).astype(np.int64)
    sets = np.concatenate([np.full(t.count, t.set_index if t.set_index >= 0 else len(set_names))
                           for t in tasks]).astype(np.int64)
    return SynthSet(np.concatenate(chunks), y, sets, (*set_names, NEGATIVES))


def default_back_count(face_samples: int, pip_scale: float = 0.0, pip_recipe: PipRecipe = DEFAULT_RECIPE,
                       negatives: NegativeRecipe | None = None) -> int:
    """'back' samples for a set of ``face_samples`` face crops (more with the paper/part negatives)."""
    return max(1, int(resolve_negatives(negatives, pip_scale, pip_recipe).back_share() * face_samples))


def _map(tasks: list[Task], seed: int, family: str, set_names: Sequence[str],
         root: Path | None, workers: int, options: _Options) -> Iterator[npt.NDArray[np.uint8]]:
    if workers <= 1:
        _init_worker(family, set_names, root, options)
        yield from (_run_task((t, seed)) for t in tasks)
        return
    ctx = mp.get_context("fork")
    initargs = (family, list(set_names), root, options)
    with ctx.Pool(workers, _init_worker, initargs) as pool:
        yield from pool.imap(_run_task, [(t, seed) for t in tasks])


def cached_set(cache_dir: Path, family: str, set_names: Sequence[str], per_face: int, seed: int,
               **kwargs: object) -> SynthSet:
    """:func:`render_set`, loaded from ``cache_dir`` when the same set was rendered before."""
    path = cache_dir / cache_name(family, set_names, per_face, seed, **kwargs)
    if path.exists():
        with np.load(path) as z:
            return SynthSet(z["images"], z["labels"], z["set_ids"], tuple(str(s) for s in z["set_names"]))
    data = render_set(family, set_names, per_face, seed, **kwargs)  # type: ignore[arg-type]
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, images=data.images, labels=data.labels, set_ids=data.set_ids,
             set_names=np.array(data.set_names))
    tmp.replace(path)
    return data


def cache_name(family: str, set_names: Sequence[str], per_face: int, seed: int, **kwargs: object) -> str:
    """The cache file name of the set :func:`render_set` would render with these arguments.

    Each option joins the key only when it changes the set, so sets rendered before an option
    existed keep their names (and caches).
    """
    key: list[object] = [SYNTH_VERSION, family, list(set_names), per_face, seed, kwargs.get("back_count")]
    style = kwargs.get("style", "base")
    if style != "base":  # base-style keys stay as they were, so existing caches are reused
        key.append(style)
    if kwargs.get("court_swap"):  # likewise: sets without the swap keep their old keys
        key.append({"court_swap": kwargs["court_swap"], "layouts": COURT_SWAP_VERSION})
    if kwargs.get("pip_scale"):  # likewise
        pips: dict[str, object] = {"pip_scale": kwargs["pip_scale"], "pips": PIP_SCALE_VERSION}
        recipe = kwargs.get("pip_recipe")
        if isinstance(recipe, PipRecipe) and recipe.changes():  # the default recipe keeps the old key
            pips["recipe"] = recipe.changes()
        key.append(pips)
    negatives = kwargs.get("negatives")
    if isinstance(negatives, NegativeRecipe):  # likewise: only shares other than the pip scaling's
        pip_scale, recipe = kwargs.get("pip_scale"), kwargs.get("pip_recipe")
        implied = NegativeRecipe.of_pip_scaling(float(pip_scale) if isinstance(pip_scale, (int, float)) else 0.0,
                                                recipe if isinstance(recipe, PipRecipe) else DEFAULT_RECIPE)
        if negatives != implied:
            key.append({"negatives": negatives.key(), "version": NEGATIVES_VERSION})
    size = kwargs.get("size")
    if isinstance(size, (tuple, list)) and tuple(size) != INPUT_SIZE:  # likewise
        key.append({"size": [int(v) for v in size]})
    if kwargs.get("print_variation"):  # likewise
        varied: dict[str, object] = {"print_variation": kwargs["print_variation"], "version": PRINT_VARIATION_VERSION}
        if kwargs.get("vary_others"):  # likewise: sets varying only their own faces keep their keys
            varied["others"] = True
        key.append(varied)
    digest = hashlib.sha256(json.dumps(key).encode()).hexdigest()[:12]
    return f"{family}-{digest}.npz"


def join_sets(a: SynthSet, b: SynthSet) -> SynthSet:
    """``a`` then ``b`` as one set; both must name the same prints in the same order."""
    if a.set_names != b.set_names:
        raise ValueError(f"cannot join sets of different prints: {a.set_names} vs {b.set_names}")
    return SynthSet(np.concatenate([a.images, b.images]), np.concatenate([a.labels, b.labels]),
                    np.concatenate([a.set_ids, b.set_ids]), a.set_names)
