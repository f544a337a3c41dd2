"""Naming slips in a club's enrollment photos, found before they become wrong prototypes.

A club photographing 40-52 cards makes slips (the EPFL set's own CSV names a card twice and
misses another in 6 of its 7 games).  One misnamed photo makes a wrong prototype: that card is
then read surely as the wrong code, every game.  So ``referee enroll`` checks the named crops
first (:func:`check_names`):

* **coverage** (only when the photos should cover a whole deck, ``expect``): cards named more
  often than the deck holds them, with their files, and cards with no photo; a card named twice
  and a missing card sharing its suit or rank are offered as the likely slip.
* **base model** (only when the base model knows the deck: it reads at least
  :data:`BASE_KNOWS` of the photos as named): a photo it reads as another card at
  >= :data:`BASE_SURE`, turned 180 degrees too.  A deck the model cannot read (the EPFL
  photos, ~1 %) gets no warning from it.
* **embedding**: a photo much nearer another card's photo than any photo named as it is
  (only where a card has several photos; some decks have near twins, so never a refusal).

A finding is ``certain`` (``referee enroll`` refuses unless ``--force``) only where the base
model's sure read is confirmed: two photos each read surely as the other's name (a swap), or a
card named too often read surely as a card with no photo.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from referee.cards import BACK, parse_card
from referee.recognition.classifier import CardClassifier
from referee.recognition.enroll_fit import base_reads, no_tick
from referee.recognition.enrollment import Enrollment

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]

#: the base model "knows" the deck when it reads at least this share of the photos as named
BASE_KNOWS = 0.8
#: a read of another card at least this sure (both ways up) disagrees with the name
BASE_SURE = 0.9
#: a photo at least this near (cosine, centred and whitened as the prototypes are) another
#: card's photo, and this much nearer it than any photo of its own name, is reported.  EPFL
#: photos, games 1-7 enrolled together: the CSV's 4 slips found lie at 0.94-0.99 with margins
#: 0.36-1.0; 5 photos the CSV names right lie at 0.77-0.86 (margins 0.58-0.72)
EMBED_NEAR = 0.9
EMBED_MARGIN = 0.1


@dataclass(frozen=True)
class Finding:
    """One suspected slip: ``names`` are the photos (file, layout row or grid position)."""

    check: str  # "coverage", "base" or "embedding"
    message: str
    names: tuple[str, ...]
    code: str  # the name given
    likely: tuple[str, ...] = ()  # what it probably is
    certain: bool = False


@dataclass(frozen=True)
class NameCheck:
    findings: tuple[Finding, ...]
    base_right: float  # share of the photos the base model reads as named

    @property
    def certain(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.certain)

    def named(self, check: str) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.check == check)


def check_names(clf: CardClassifier, crops: Sequence[U8], codes: Sequence[str], names: Sequence[str],
                expect: Sequence[str] | None = None, tick: Callable[[], None] = no_tick) -> NameCheck:
    """Look for naming slips in labelled enrollment crops.

    ``clf``: the base classifier (no enrollment); ``names``: how to point at each crop (file
    name, layout row, grid position); ``expect``: the codes the photos should cover, each as
    many times as the deck holds it (None: a partial enrollment, no coverage check); ``tick``:
    called after every batch the model reads (the box pings its watchdog)."""
    if not len(crops) == len(codes) == len(names):
        raise ValueError("check_names: crops, codes and names must be as many")
    turned = [np.ascontiguousarray(c[::-1, ::-1]) for c in crops]
    probs, emb = base_reads(clf, crops, tick)
    probs_t, emb_t = base_reads(clf, turned, tick)
    cards = [i for i, c in enumerate(codes) if c != BACK]
    right = [clf.labels[int(probs[i].argmax())] == codes[i] for i in cards]
    base_right = float(np.mean(right)) if right else 0.0
    coverage = _coverage(codes, names, expect) if expect is not None else []
    over, missing = _over_missing(codes, expect or ())
    base = (_base_disagrees(clf.labels, probs, probs_t, codes, names, set(over), set(missing))
            if base_right >= BASE_KNOWS else [])
    embedding = _embedding(clf, emb, emb_t, codes, names)
    return NameCheck(tuple(coverage + base + embedding), base_right)


def shots_per_card(codes: Sequence[str], expect: Sequence[str]) -> int:
    """How many photos of each card the club took (one, or two for ``coppe_3-2.jpg`` extras):
    the photos of the deck's cards over the deck's distinct cards, rounded."""
    faces = set(expect)
    return max(1, round(sum(c in faces for c in codes) / max(1, len(faces))))


def _coverage(codes: Sequence[str], names: Sequence[str], expect: Sequence[str]) -> list[Finding]:
    """Cards named more often than the others, each paired with a missing card of its suit or
    rank where there is one (a 6 turned round is a 9; KS and KC differ in a pip)."""
    faces = list(dict.fromkeys(expect))
    got, k = Counter(c for c in codes if c != BACK), shots_per_card(codes, expect)
    over, missing = _over_missing(codes, expect)
    pairs = _pair(over, missing)
    out = [Finding("coverage", f"{code} is not a card of this deck ({', '.join(_files(code, codes, names))})",
                   _files(code, codes, names), code) for code in sorted(set(got) - set(faces))]
    for code in over:
        files = _files(code, codes, names)
        guess = pairs.get(code)
        hint = f"; {guess} has {_photos(got[guess])}: is one of them {guess}?" if guess else ""
        many = "twice" if len(files) == 2 else f"{len(files)} times"
        out.append(Finding("coverage", f"{code} named {many} ({', '.join(files)}){hint}", files, code,
                           (guess,) if guess else ()))
    for code in missing:
        if code not in pairs.values():
            out.append(Finding("coverage", f"{code} has {_photos(got[code])} (others {k})", (), code))
    return out


def _over_missing(codes: Sequence[str], expect: Sequence[str]) -> tuple[list[str], list[str]]:
    """The deck's cards with more photos than the others, and those with fewer, in deck order."""
    got, k = Counter(codes), shots_per_card(codes, expect)
    faces = list(dict.fromkeys(expect))
    return [c for c in faces if got[c] > k], [c for c in faces if got[c] < k]


def _photos(n: int) -> str:
    return "no photo" if n == 0 else f"only {n} photo{'s' if n > 1 else ''}"


def _files(code: str, codes: Sequence[str], names: Sequence[str]) -> tuple[str, ...]:
    return tuple(n for n, c in zip(names, codes, strict=True) if c == code)


def _pair(over: Sequence[str], missing: Sequence[str]) -> dict[str, str]:
    """Each over-named card with one missing card sharing its suit or rank, the most
    constrained first (6S can only be 9S, so KS takes KC)."""
    def kin(a: str, b: str) -> bool:
        x, y = parse_card(a), parse_card(b)
        return x.suit == y.suit or x.rank == y.rank

    free, out = list(missing), {}
    for code in sorted(over, key=lambda c: sum(kin(c, m) for m in missing)):
        options = [m for m in free if kin(code, m)]
        if options:
            # same rank first: a pip drawn alike (KS/KC) is a likelier slip than any suit-mate
            best = min(options, key=lambda m: parse_card(m).rank != parse_card(code).rank)
            out[code] = best
            free.remove(best)
    return out


def _base_disagrees(labels: Sequence[str], probs: F32, probs_t: F32, codes: Sequence[str],
                    names: Sequence[str], over: set[str], missing: set[str]) -> list[Finding]:
    """Photos the base model (which knows this deck) reads surely as another card both ways up."""
    sure: dict[int, str] = {}
    for i, code in enumerate(codes):
        top, top_t = int(probs[i].argmax()), int(probs_t[i].argmax())
        if code != BACK and labels[top] != code and top == top_t and probs[i, top] >= BASE_SURE:
            sure[i] = labels[top]
    out = []
    for i, read in sure.items():
        swap = [j for j, r in sure.items() if r == codes[i] and codes[j] == read]
        slip = codes[i] in over and read in missing
        why = (f"; and {names[swap[0]]} (named {read}) reads as {codes[i]}: swapped" if swap
               else f"; {codes[i]} is named too often and {read} is short of photos" if slip else "")
        out.append(Finding("base", f"{names[i]} is named {codes[i]}, the base model reads {read} "
                           f"({probs[i].max():.2f}, turned too){why or ': misnamed, or the model wrong?'}", (names[i],), codes[i], (read,),
                           certain=bool(swap) or slip))
    return out


def _embedding(clf: CardClassifier, emb: F32, emb_t: F32, codes: Sequence[str],
               names: Sequence[str]) -> list[Finding]:
    """Photos much nearer another card's photo than any photo of their own name, compared as
    the prototypes are (about the deck's mean, whitened), either way up."""
    keep = [i for i, c in enumerate(codes) if c != BACK]
    if len({codes[i] for i in keep}) < 2:
        return []
    sub = [codes[i] for i in keep]
    ref = Enrollment.from_embeddings(clf.info.deck, sub, emb[keep], clf.model_sha256, turned=emb_t[keep])
    f, f_t = ref.features(emb[keep]), ref.features(emb_t[keep])
    sims = np.maximum(f @ f.T, f @ f_t.T)
    np.fill_diagonal(sims, -np.inf)
    same = np.array(sub)[:, None] == np.array(sub)[None, :]
    out = []
    for k, i in enumerate(keep):
        own = sims[k][same[k]]
        own = own[np.isfinite(own)]
        if not len(own):
            continue  # the only photo of its card: nothing of its name to compare with
        other = np.where(same[k], -np.inf, sims[k])
        j = int(other.argmax())
        if other[j] >= EMBED_NEAR and other[j] > own.max() + EMBED_MARGIN:
            out.append(Finding("embedding", f"{names[i]} is named {codes[i]} but looks more like "
                               f"{names[keep[j]]} ({sub[j]}, {other[j]:.2f}) than any other {codes[i]} photo "
                               f"({own.max():.2f})", (names[i],), codes[i], (sub[j],)))
    return out
