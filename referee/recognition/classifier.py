"""Runtime card classifier: ONNX Runtime + numpy only (no PyTorch on the Pi).

Example::

    clf = CardClassifier.load("italian", threads=2)
    preds = clf.classify([crop1, crop2])     # BGR uint8 portrait crops, any size
    preds[0].card, preds[0].confidence        # 'coppe_3', 0.998 ('back' = face down / no card)
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from referee.cards import BACK, deck_family
from referee.errors import ConfigError, ModelError
from referee.paths import models_dir
from referee.recognition.black_pips import PipVote
from referee.recognition.enrollment import Enrollment, unit_rows
from referee.recognition.game_faces import GameFaces
from referee.recognition.model_info import ModelInfo, model_paths, sha256_file
from referee.recognition.preprocess import check_crop, normalised, resize_crop
from referee.recognition.steady_rule import SteadyRule
from referee.recognition.sureness import Sureness
from referee.recognition.views import LIVE_VIEWS, check_views, expand, reads

F32 = npt.NDArray[np.float32]
#: rows of one model call when a crop is read in several views
VIEW_ROWS = 8
U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class Prediction:
    """Top-1 card (``'back'`` = face-down or not a card) and calibrated top-k probabilities."""

    card: str
    confidence: float
    top: list[tuple[str, float]]

    @property
    def is_card(self) -> bool:
        return self.card != BACK


def softmax(logits: F32, temperature: float = 1.0) -> F32:
    z = logits / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: F32 = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


class CardClassifier:
    """A loaded recogniser for one deck family (``'italian'`` or ``'french'``)."""

    def __init__(self, session: object, info: ModelInfo, enrollment: Enrollment | None = None,
                 top_k: int = 5, model_path: Path | None = None, views: Sequence[str] = (),
                 model_sha256: str | None = None, sureness: Sureness | None = None,
                 game: GameFaces | None = None) -> None:
        self._session = session
        #: the game whose faces alone are read (:mod:`referee.recognition.game_faces`); None:
        #: every face of the family
        self.game = game
        if game is not None:
            game.read_labels(info.labels)  # a face the model lacks is refused at load, not per read
        #: the rule that takes a read for no card (:mod:`referee.recognition.sureness`), applied where
        #: each crop is read in several views (a single photo; the live loop reads once and
        #: confirms a card over several frames instead)
        self.sureness = sureness
        self._model_sha256 = model_sha256
        self.views = check_views(views, "views")
        self.info = info
        # checked when the JSON was loaded (ModelInfo.check): parsed once here
        json_path = model_path.with_suffix(".json") if model_path else Path("model.json")
        self._black_pips = info.black_pips(json_path)
        self._still_steady = info.still_steady(json_path)
        self.model_path = model_path
        self.enrollment = enrollment
        self.top_k = top_k
        self._input_name: str = session.get_inputs()[0].name  # type: ignore[attr-defined]

    @classmethod
    def load(cls, deck: str, model_dir: Path | str | None = None, threads: int = 1,
             enrollment: Path | str | Enrollment | None = None, top_k: int = 5,
             views: Sequence[str] | None = None, game: GameFaces | None = None) -> CardClassifier:
        """Load ``<model_dir>/<deck>.onnx`` + ``.json`` (default: the committed ``models/``).

        ``threads`` is ONNX Runtime's intra-op pool (inter-op 1, no spinning, so idle
        threads do not steal the Pi's cores).  ``enrollment`` is a file written by
        ``referee enroll`` (or a loaded :class:`Enrollment`) for the club's own deck.
        ``views`` (:mod:`referee.recognition.views`: ``turn``, ``tight``, ``loose``) also reads
        every crop those ways (in the same call) and averages the reads' probabilities; ``None`` = what
        the model's JSON says (``"views"``, default none), or none with an enrollment (its
        prototypes are single reads' embeddings; ``views.LIVE_VIEWS``).
        ``game`` reads only that game's faces and ``back`` (its family must be ``deck``'s).
        """
        deck = deck_family(deck)
        if game is not None and game.family != deck:
            raise ConfigError(f"game {game.game} is played with a {game.family} deck, not {deck}")
        folder = Path(model_dir) if model_dir is not None else models_dir()
        onnx_path, json_path = model_paths(deck, folder)
        if not onnx_path.is_file():
            raise ModelError(f"model file not found: {onnx_path}")
        info = ModelInfo.load(json_path, deck)
        graph = _verified_graph(onnx_path, json_path, info)
        session = _session(onnx_path, graph, threads)
        _check_io(session, onnx_path, info)
        source = "enrollment"
        if enrollment is not None and not isinstance(enrollment, Enrollment):
            source = str(enrollment)
            enrollment = Enrollment.load(Path(enrollment))
        if views is None:
            views = info.views if enrollment is None else LIVE_VIEWS
        sureness = Sureness.from_info(info.extra, json_path)
        clf = cls(session, info, None, top_k, onnx_path, views, info.onnx_sha256, sureness, game)
        if enrollment is not None:
            try:
                enrollment.check_compatible(info, clf.model_sha256)
            except ModelError as exc:
                raise ModelError(f"{source}: {exc}") from exc
            clf.enrollment = enrollment
        return clf

    @property
    def still_floor(self) -> dict[str, float]:
        """Per card, the probability a single photo's read of it needs to count as a card (the
        model JSON's ``"still_floor"``); none with an enrollment, whose reads are its prototypes'."""
        return {} if self.enrollment is not None else self.info.still_floor

    @property
    def black_pips(self) -> PipVote | None:
        """The rule that reads a single photo's spade whose pips are clubs as that club (the model
        JSON's ``"black_pips"``); none with an enrollment, whose prototypes know the club's face."""
        return None if self.enrollment is not None else self._black_pips

    @property
    def still_steady(self) -> SteadyRule | None:
        """How a single photo's read is checked in boxes moved about it (the model JSON's
        ``"still_steady"``); none with an enrollment, whose reads are its prototypes' (the rule was
        measured on the model's own reads)."""
        return None if self.enrollment is not None else self._still_steady

    @property
    def model_sha256(self) -> str:
        """sha256 of the ONNX graph actually loaded (enrollments are tied to it)."""
        if self._model_sha256 is None:
            self._model_sha256 = sha256_file(self.model_path) if self.model_path else self.info.onnx_sha256
        return self._model_sha256

    @property
    def labels(self) -> tuple[str, ...]:
        return self.info.labels

    @property
    def input_size(self) -> tuple[int, int]:
        """(width, height) of the model input, portrait."""
        return self.info.input_size

    def prepare(self, crops: Sequence[U8]) -> F32:
        """Validate, resize and normalise crops into one NCHW float32 batch: each crop's
        :attr:`views` after all the crops as given (``reads(views) * len(crops)`` rows)."""
        if len(crops) == 0:
            return np.zeros((0, 3, self.input_size[1], self.input_size[0]), np.float32)
        w, h = self.input_size
        # the finder cuts its crops at the model's input size: resizing one to it is a copy
        resized = np.stack([c if c.shape[:2] == (h, w) else resize_crop(c, (w, h))
                            for c in (check_crop(c, i) for i, c in enumerate(crops))])
        return normalised(expand(resized, self.views), self.info.mean, self.info.std)

    def run(self, crops: Sequence[U8]) -> tuple[F32, F32]:
        """(logits, embeddings) for a batch, in ONE onnxruntime call."""
        batch = self.prepare(crops)
        if len(batch) == 0:
            return (np.zeros((0, len(self.labels)), np.float32),
                    np.zeros((0, self.info.embedding_dim), np.float32))
        k = reads(self.views)
        if k == 1:
            logits, emb = self._session.run(None, {self._input_name: batch})  # type: ignore[attr-defined]
        else:
            # The views in calls of at most VIEW_ROWS rows: on one core a call of more rows costs
            # several times as much per row (measured: 0.4 ms a row up to 8 rows, 1.1-1.4 above).
            parts = [self._session.run(None, {self._input_name: batch[i:i + VIEW_ROWS]})  # type: ignore[attr-defined]
                     for i in range(0, len(batch), VIEW_ROWS)]
            logits, emb = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
        logits, emb = np.asarray(logits, np.float32), np.asarray(emb, np.float32)
        if k > 1:
            # One read from the views: the mean of their calibrated probabilities, given back as
            # logits whose softmax at the model's temperature is that mean (so every caller's
            # softmax, the enrollment's blend included, sees it), and the mean embedding.
            n, t = len(crops), self.info.temperature
            probs = softmax(logits, t).reshape(k, n, -1).mean(axis=0)
            logits = (np.log(np.maximum(probs, np.float32(1e-30))) * np.float32(t)).astype(np.float32)
            emb = emb.reshape(k, n, -1).mean(axis=0, dtype=np.float32)
        return logits, emb

    def probabilities(self, crops: Sequence[U8]) -> F32:
        """Calibrated class probabilities (N, len(labels)), enrollment blended in if loaded,
        over the :attr:`game`'s faces only if set, a read the :attr:`sureness` rule doubts taken
        for no card."""
        logits, emb = self.run(crops)
        probs = softmax(logits, self.info.temperature)
        if self.enrollment is not None and len(probs):
            probs = self.enrollment.blend(probs, unit_rows(emb), self.labels)
        # before the sureness rule: its share of 'back' is a share of what this game's deck can be
        if self.game is not None and len(probs):
            probs = self.game.restrict(probs, self.labels)
        if self.sureness is not None and reads(self.views) > 1 and len(probs):
            probs = self.sureness.apply(probs, self.labels)
        return probs

    def classify(self, crops: Sequence[U8]) -> list[Prediction]:
        """Top-1 card and top-k (calibrated) for each crop."""
        probs = self.probabilities(crops)
        k = min(self.top_k, len(self.labels))
        out: list[Prediction] = []
        for row in probs:
            order = np.argsort(-row)[:k]
            top = [(self.labels[i], float(row[i])) for i in order]
            out.append(Prediction(top[0][0], top[0][1], top))
        return out

    def embed(self, crops: Sequence[U8]) -> F32:
        """L2-normalised embeddings (N, embedding_dim), what enrollment prototypes are made of."""
        return unit_rows(self.run(crops)[1])


def _verified_graph(onnx_path: Path, json_path: Path, info: ModelInfo) -> bytes:
    """The graph's bytes, read once and checked against the sha256 its JSON records (at load,
    never per frame): a damaged file can still run and read every card as one card, sure."""
    try:
        graph = onnx_path.read_bytes()
    except OSError as exc:
        raise ModelError(f"cannot read model file {onnx_path}: {exc.strerror or exc}") from exc
    digest = hashlib.sha256(graph).hexdigest()
    if digest != info.onnx_sha256:
        raise ModelError(f"{onnx_path}: sha256 is {digest}, but onnx_sha256 in {json_path} is "
                         f"{info.onnx_sha256}: the model file is damaged or not the one its JSON describes")
    return graph


def _session(path: Path, graph: bytes, threads: int) -> object:
    import onnxruntime as ort

    if threads < 1:
        raise ConfigError(f"threads must be >= 1, got {threads}")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(graph, opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for bad files
        raise ModelError(f"corrupt or unreadable model file {path}: {exc}") from exc


def _check_io(session: object, path: Path, info: ModelInfo) -> None:
    """The graph must take (N, 3, H, W) of the JSON's size and give logits + embedding."""
    inputs = session.get_inputs()  # type: ignore[attr-defined]
    outputs = session.get_outputs()  # type: ignore[attr-defined]
    shape = list(inputs[0].shape)
    want = [3, info.input_size[1], info.input_size[0]]
    if len(inputs) != 1 or shape[1:] != want:
        raise ModelError(f"{path}: input shape {shape} does not match input_size {info.input_size}")
    embedding = outputs[1].shape[-1] if len(outputs) == 2 else None
    if (len(outputs) != 2 or outputs[0].shape[-1] != len(info.labels)
            or (isinstance(embedding, int) and embedding != info.embedding_dim)):
        raise ModelError(f"{path}: outputs {[o.shape for o in outputs]} do not match "
                         f"{len(info.labels)} labels + embedding_dim {info.embedding_dim}")
