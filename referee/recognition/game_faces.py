"""A game's faces: what a recogniser of a deck family reads when it knows the game being played.

A game is played with one deck (:attr:`referee.rules.game.Game.deck`): belotta's 32 cards have no
2-6, binocolo's 48 are 9 to ace twice over (a pinochle deck).  A card the game's deck does not hold
cannot lie on its table, so the recogniser reads only the game's faces and ``back``: the
probabilities of every other label of the family's model go to zero and each read is
renormalised over what is left.  A crop whose best read is the six of diamonds is, under
binocolo, the face the model rates next among 9-A, or ``back`` (no card)::

    faces = GameFaces.of("binocolo")      # family 'french', 24 faces, copies 2
    probs = faces.restrict(probs, labels)  # rows still sum to 1
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from referee.cards import BACK
from referee.errors import ModelError
from referee.rules.game import get_game

F32 = npt.NDArray[np.float32]


@dataclass(frozen=True)
class GameFaces:
    """The faces a game's deck holds (card codes), its recogniser family and its copies."""

    game: str
    family: str
    faces: tuple[str, ...]
    copies: int

    @staticmethod
    def of(game: str) -> GameFaces:
        """The deck of the game registered as ``game`` (an unknown name is an
        :class:`~referee.rules.errors.UnknownGameError` listing the known ones)."""
        deck = get_game(game).deck
        family = "italian" if deck.faces[0].italian else "french"
        return GameFaces(game, family, deck.codes, deck.copies)

    def read_labels(self, labels: Sequence[str]) -> tuple[str, ...]:
        """Of a model's ``labels``, those this game reads: its faces and ``back``; a face the
        model has no label for is a ModelError naming it."""
        missing = [face for face in self.faces if face not in labels]
        if missing:
            raise ModelError(f"game {self.game}: the model has no label for {', '.join(missing)}")
        keep = set(self.faces) | {BACK}
        return tuple(label for label in labels if label in keep)

    def restrict(self, probs: F32, labels: Sequence[str]) -> F32:
        """``probs`` (rows over ``labels``) with every label outside the game's faces and
        ``back`` at zero, each row renormalised over the rest (a row with nothing left there,
        all its probability on faces the game lacks, is all ``back``: no card of this game)."""
        read = set(self.read_labels(labels))
        outside = np.array([label not in read for label in labels], bool)
        if not outside.any():  # the game's deck is the family's whole deck
            return probs
        out = probs.copy()
        out[:, outside] = 0.0
        total = out.sum(axis=1, keepdims=True)
        empty = total[:, 0] <= 0.0
        if empty.any() and BACK in labels:
            out[empty, labels.index(BACK)] = 1.0
            total[empty] = 1.0
        restricted: F32 = (out / np.maximum(total, np.float32(1e-30))).astype(np.float32)
        return restricted

