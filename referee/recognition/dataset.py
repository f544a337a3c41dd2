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
from referee.recognition.faces import (
    FaceSet,
    back_files,
    face_sets,
    joker_files,
    read_bgra,
    texture_files,
)
from referee.recognition.preprocess import INPUT_SIZE, check_input_size
from referee.recognition.print_style import PRINT_VARIATION_VERSION, vary_print

#: Bump when the renderer changes, so stale caches are not reused.
SYNTH_VERSION = 1
#: Name used as the "set" of the not-a-card samples.
NEGATIVES = "negatives"
#: Share of 'back' (face-down / not a card) samples relative to the face samples.
BACK_SHARE = 0.08
#: Render styles: ``base`` = one card cut out with generic errors (:func:`synth.render_card`);
#: ``table`` = a card among other cards, cut as the table pipeline cuts it
#: (:func:`synth.render_table_card`).
STYLES = ("base", "table")

Progress = Callable[[int, int], None]


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
        self.style = options.style
        self.size = options.size  # checked by render_set
        self.print_variation = options.print_variation
        by_name = {s.name: s for s in face_sets(family, root)}
        self.sets: list[FaceSet] = [by_name[n] for n in set_names]
        self.arts: list[dict[str, list[synth.CardArt]]] = [_set_arts(s) for s in self.sets]
        self.pool = [a[0] for arts in self.arts for a in arts.values()]
        self.textures = [read_bgra(p)[..., :3].copy() for p in texture_files(root)]
        back_paths = back_files(root) + joker_files(root)
        self.backs = [synth.prepare_art(read_bgra(p), 0.0) for p in back_paths]
        if self.print_variation and options.vary_others:
            # The faces around the sample (neighbours, occluders, the card a 'back' crop shows
            # the edge of), and the backs, come from varied prints too, half the time: else a varied
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
                art = variants[which]
                if self.print_variation and rng.random() < self.print_variation:  # no draw when off
                    art = vary_print(art, rng)
                if table:
                    out[i] = synth.render_table_card(art, self.textures, self.pool, self.backs, rng, size=self.size)
                else:
                    out[i] = synth.render_card(art, self.textures, self.pool, rng, size=self.size)
        return out

    def _negative(self, rng: np.random.Generator, table: bool) -> npt.NDArray[np.uint8]:
        """One 'back' sample: half the table-style ones a back lying among other cards, the rest
        a back, bare cloth, clutter or a crop mostly off a card (:func:`synth.render_not_card`)."""
        if table and self.backs and rng.random() < 0.5:
            back = self.backs[int(rng.integers(len(self.backs)))]
            return synth.render_table_card(back, self.textures, self.pool, self.backs, rng, size=self.size)
        return synth.render_not_card(self.textures, self.backs, self.pool, rng, size=self.size)


def _blanks(face_set: FaceSet) -> list[tuple[float, int]]:
    """(margin, paper) of the two blanks per face: a thin and a wide border (wider without one)."""
    margins = (0.0, 0.03) if face_set.bordered else (0.05, 0.09)
    return list(zip(margins, (250, 236), strict=True))


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
    progress: Progress | None = None, style: str = "base",
    size: tuple[int, int] = INPUT_SIZE, print_variation: float = 0.0, vary_others: bool = False,
) -> SynthSet:
    """Render (in ``workers`` processes) ``per_face`` crops per face of the named prints.

    ``back_count``: 'back' samples (default :data:`BACK_SHARE` of the face samples). ``size``:
    the crops' (width, height), the input of the model they are for. ``print_variation``:
    probability that a face is drawn as another print of its pattern would show it
    (:mod:`referee.recognition.print_style`); 0 for validation/benchmark sets. ``vary_others``
    (with ``print_variation``): the other cards in a sample (neighbours, occluders, the card a
    'back' crop shows the edge of) and the backs are drawn half the time from one varied copy of
    each (:func:`varied_copies`), so a varied print is no sign of the card.
    """
    labels = RECOGNISER_LABELS[family]
    n_faces = sum(len(s.files) for s in face_sets(family, root) if s.name in set_names)
    if back_count is None:
        back_count = default_back_count(per_face * n_faces)
    tasks = plan(family, set_names, per_face, back_count, root)
    chunks: list[npt.NDArray[np.uint8]] = []
    if style not in STYLES:
        raise ValueError(f"render style {style!r}: expected one of {STYLES}")
    if not 0 <= print_variation <= 1:
        raise ValueError(f"print variation {print_variation}: expected a probability in 0-1")
    if vary_others and not print_variation:
        raise ValueError("vary_others draws the other cards from varied prints: it needs a print variation")
    options = _Options(style, check_input_size(size), print_variation, vary_others)
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


def default_back_count(face_samples: int) -> int:
    """'back' samples for a set of ``face_samples`` face crops."""
    return max(1, int(BACK_SHARE * face_samples))


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
