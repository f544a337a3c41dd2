"""Camera -> vision pipeline -> play tracker as a :class:`~referee.box.feed.Feed`.

Imported only by ``referee run`` when the config names a camera (it pulls in OpenCV and the
recogniser). Each frame is a heartbeat (the watchdog, the no-frames fault); the tracker's play
events come with the frame index as their position. On a simulated game the operator's events
(the deal, contracts) ride along at their time, as a real operator would enter them.

Resuming on a finite source (video file, simulation): the frames up to the last recorded
position are run through the pipeline and tracker again *silently*, so the tracker knows the
cards already on the table and does not report them as new plays.

    camera.source = "picamera2" | "usb:0" | "file:/path/game.mp4" | "sim" | "sim:SEED"
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from typing import Any

from referee.box.config import BoxConfig
from referee.box.feed import FeedItem
from referee.errors import CameraError, RefereeError
from referee.table.proposal import ProposedPlay

log = logging.getLogger(__name__)


def source_spec(cfg: BoxConfig) -> str:
    """The config's ``camera.source`` in :func:`referee.vision.sources.open_source` terms."""
    kind, _, rest = cfg.camera.source.partition(":")
    if kind == "picamera2":
        return "picamera"
    if kind == "usb":
        return rest
    if kind == "file":
        return rest
    if kind == "sim":
        return f"sim:{cfg.game.name}:{rest or 0}"
    raise CameraError(f"camera.source = {cfg.camera.source!r} is not a camera")


def is_live(cfg: BoxConfig) -> bool:
    """A camera (frames cannot be read again) rather than a video file or a simulation."""
    return cfg.camera.source.partition(":")[0] in ("picamera2", "usb")


class VisionFeed:
    """Frames from ``source`` through ``vision`` (play events): the live loop's vision stage
    (``referee.vision.live.LiveVision``, as in ``referee watch`` and ``referee demo``: finder,
    recogniser, card-size search, play tracker), anything with ``update(image, t) -> plays``
    and a ``tracker`` (``reset()``, ``rules``).

    ``timed_events``: (t, event) pairs to emit when the frame time reaches them (simulations).
    ``max_fps`` (the config's ``camera.fps``): frames analysed per second at most; a frame
    sooner than that after the last one analysed is only a heartbeat (the camera may deliver
    30 frames a second, the Pi need not read every one).
    """

    def __init__(
        self,
        source: Any,
        vision: Any,
        timed_events: list[tuple[float, dict[str, Any]]] | None = None,
        reopen: Callable[[], Any] | None = None,
        live: bool = False,
        max_fps: float | None = None,
    ) -> None:
        self.source, self.vision, self.tracker = source, vision, vision.tracker
        self.timed = sorted(timed_events or [], key=lambda te: te[0])
        self._reopen = reopen
        self.live = live  # a camera: frame numbers start again at 0 in every process
        self.min_interval = 1.0 / max_fps if max_fps else 0.0
        self.last_t: float | None = None  # the last analysed frame's time
        self.finished = False
        self.skip = -1
        #: after a live resume: cards of the current trick already recorded, still on the table
        self.adopt: set[str] = set()
        #: where a frame in which the tracker proposed a play is offered, to be kept for a
        #: dispute once the box records the play (``referee.box.frames.FrameKeeper``)
        self.keeper: Any = None

    def attach_to(self, box: Any) -> None:
        """Let ``box`` decide this feed's plays as ``referee watch`` does (``Box.attach_vision``:
        questions about missed plays instead of out_of_turn forfeits, quiet after the deal).
        A simulation's own plays (its truth) then no longer ride along, as in ``referee watch``:
        the camera's plays are the plays, and the tracker would otherwise see each card as
        already played."""
        self.timed = [(t, e) for t, e in self.timed if e.get("event") != "play"]
        box.attach_vision(self.tracker)

    def skip_to(self, pos: int | None) -> None:
        """Frames up to ``pos`` are already refereed: rebuild the tracker on them, emit nothing.

        A live camera cannot go back: the current trick's recorded cards, still lying on the
        table, are *adopted* instead: the tracker's first sighting of each is not a new play.
        """
        if pos is None:
            return
        if self.live:
            rules = self.tracker.rules
            self.adopt = set(rules.cards_on_table()) if hasattr(rules, "cards_on_table") else set()
            return
        self.skip = pos
        rules, self.tracker.rules = self.tracker.rules, None  # plausibility is of *now*, not then
        try:
            while not self.finished:
                frame = self._read()
                if frame is None or not self._analysed(frame):
                    continue
                self._items(frame)
                if frame.index >= pos:
                    break
        except CameraError as exc:
            # a fault while catching up is not fatal: the frames up to ``pos`` that are still to
            # come are read as usual and emit nothing (``self.skip``)
            log.warning("camera fault while resuming (%s); frames up to %d are skipped as they come", exc, pos)
            return
        finally:
            self.tracker.rules = rules
        log.info("resumed the video after frame %d", pos)

    def _read(self) -> Any:
        from referee.vision.sources import EndOfSource

        try:
            return self.source.read()
        except EndOfSource:
            self.finished = True
            return None
        except CameraError:
            raise
        except Exception as exc:  # a driver's RuntimeError, anything: the camera-fault path
            raise CameraError(f"{getattr(self.source, 'name', 'camera')}: {type(exc).__name__}: {exc}") from exc

    def _analysed(self, frame: Any) -> bool:
        """Whether ``frame`` is due for analysis under ``max_fps`` (a clock that went back,
        a camera reopened, starts again)."""
        if self.last_t is not None and 0 <= frame.t - self.last_t < self.min_interval - 1e-6:
            return False
        self.last_t = frame.t
        return True

    def _items(self, frame: Any) -> list[FeedItem]:
        from referee.vision.finder import FrameError

        items: list[FeedItem] = []
        due = list(itertools.takewhile(lambda te: te[0] <= frame.t + 1e-9, self.timed))  # sorted by time
        self.timed = self.timed[len(due):]
        for _, event in due:
            if event.get("event") == "deal":
                self.tracker.reset()  # nothing on the table belongs to the new deal
            items.append(FeedItem(dict(event), frame.index))
        try:
            plays = self.vision.update(frame.image, frame.t)
        except FrameError as exc:  # a frame no card can be found in (1x1, not BGR): a camera fault
            self.timed = due + self.timed  # the operator's events come with the next good frame
            raise CameraError(f"frame {frame.index}: {exc}") from exc
        for play in plays:
            if self._adopted(play):
                continue
            items.append(FeedItem(play.to_event(), frame.index))
        if self.keeper is not None and plays and frame.index > self.skip:
            self.keeper.offer(frame.index, frame.image)
        # The frame itself last, after its plays: the box's frame tick then sees this frame's
        # table (a trick gathered short asks about the missing card even when no play follows).
        items.append(FeedItem(None, frame.index, frame.t))
        return [i for i in items if i.event is None or frame.index > self.skip]

    def _adopted(self, play: ProposedPlay) -> bool:
        """A recorded card seen again after a live resume (read as itself, or as the rules'
        fallback with the recorded card as its first alternative)."""
        if not self.adopt:
            return False
        alternatives = play.alternatives
        seen = play.card if play.card in self.adopt else None
        if seen is None and play.uncertain and alternatives and alternatives[0] in self.adopt:
            seen = alternatives[0]
        if seen is None:
            return False
        self.adopt.discard(str(seen))
        log.info("%s was already recorded before the restart: not a new play", seen)
        return True

    def poll(self, timeout: float) -> list[FeedItem]:
        frame = self._read()
        if frame is None:
            return [FeedItem(None)] if self.finished else []  # [] while the camera is degraded
        if not self._analysed(frame):
            return [FeedItem(None, frame.index)]  # frames flow (watchdog), nothing to analyse
        return self._items(frame)

    def new_deal(self) -> None:
        """A deal event came from elsewhere (the next-deal button): forget the old table."""
        self.tracker.reset()

    def use_enrollment(self, enrollment: Any) -> None:
        """The deck was enrolled at the table, or a tournament sent the deck's enrolment: read
        with ``enrollment`` from the next frame on (reads cached with the old prototypes are
        dropped). One made with another model raises :class:`ModelError` and changes nothing."""
        pipeline = self.vision.pipeline
        enrollment.check_compatible(pipeline.classifier.info, pipeline.classifier.model_sha256)
        pipeline.classifier.enrollment = enrollment
        if pipeline.cache is not None:
            pipeline.cache = type(pipeline.cache)()

    def reopen(self) -> None:
        if self._reopen is not None:
            self.source = self._reopen()

    def close(self) -> None:
        self.source.close()


class LiveRules:
    """The tracker's view of the rules (``referee.vision.tracker.RefereeView``: plausible,
    trick_number, turn, has_played...), always over the box's *current* referee, which is
    replaced on resume and at a new match. Unknown questions go to a fresh RefereeView, so
    the tracker may ask new ones without a change here."""

    def __init__(self, referee_of: Callable[[], Any]) -> None:
        self.referee_of = referee_of

    def __getattr__(self, name: str) -> Any:
        from referee.vision.tracker import RefereeView

        return getattr(RefereeView(self.referee_of()), name)

    def cards_on_table(self) -> list[str]:
        """The current trick's recorded cards (what a restarted camera sees again)."""
        deal = self.referee_of().deal
        trick = deal.trick if deal is not None else None
        return [card.code for _, card in trick.plays] if trick is not None else []


def check_layout_seats(cfg: BoxConfig, seats: tuple[str, ...]) -> None:
    """The layout's seat zones must be the config's seats: plays from zones of other seats
    would all be refused by the rules core. Compass seats (N, W, S, E...) are placed by name,
    so only their set must agree; other names are placed in play order, so their order too."""
    from referee.vision.layout import COMPASS

    by_name = all(s in COMPASS for s in seats)
    same = sorted(seats) == sorted(cfg.game.seats) if by_name else tuple(seats) == cfg.game.seats
    if not same:
        raise CameraError(
            f"{cfg.layout}: the layout's seats {list(seats)} are not game.seats {list(cfg.game.seats)}"
            f" of {cfg.source or 'the config'}: run `referee calibrate --seats {','.join(cfg.game.seats)}` again"
        )


def check_layout_size(cfg: BoxConfig, frame_size: tuple[int, int]) -> None:
    """The layout maps the mat onto frames of the size it was calibrated on; the camera gives
    ``camera.width`` x ``camera.height``: on other frames every zone would be misplaced."""
    size = (cfg.camera.width, cfg.camera.height)
    if tuple(frame_size) != size:
        raise CameraError(
            f"{cfg.layout}: the layout was calibrated on {frame_size[0]}x{frame_size[1]} frames but"
            f" camera.width x camera.height of {cfg.source or 'the config'} is {size[0]}x{size[1]}:"
            " set those to the calibrated size or run `referee calibrate` again"
        )


def open_vision_feed(
    cfg: BoxConfig, rules_view: Any, sim_events: list[dict[str, Any]] | None = None
) -> VisionFeed:
    """Source, recogniser, layout and tracker as the config says; ``sim_events`` is the event
    log a ``sim`` source acts out (default: a random deal). Raises :class:`CameraError`
    (naming what is missing) when one cannot be had."""
    from referee.box.enrol_deck import enrollment_in_use

    try:
        from referee.recognition import CardClassifier
        from referee.recognition.views import LIVE_VIEWS
        from referee.vision.layout import TableLayout
        from referee.vision.live import LiveVision
        from referee.vision.sources import open_source
        from referee.vision.tracker import TrackerConfig
    except ImportError as exc:
        raise CameraError(f"camera.source = {cfg.camera.source!r} needs the vision pipeline: {exc}") from exc
    spec = source_spec(cfg)
    try:
        sized = not cfg.camera.source.startswith("file:")  # files keep their own frame size
        # The layout first: a wrong one is found before the camera is taken.
        layout = TableLayout.load(cfg.layout) if cfg.layout is not None else None
        if layout is not None:
            check_layout_seats(cfg, layout.seats)
            if sized:  # a camera gives the config's size
                check_layout_size(cfg, layout.frame_size)
        # the model (and the club's enrollment file, named when missing, corrupt or made with
        # another model) before the camera is taken, like the layout
        classifier = CardClassifier.load(cfg.game.deck, threads=1, enrollment=enrollment_in_use(cfg), views=LIVE_VIEWS)
        live = is_live(cfg)
        kwargs: dict[str, Any] = {"size": (cfg.camera.width, cfg.camera.height)} if sized else {}
        if sim_events is not None and spec.startswith("sim"):
            kwargs["events"] = sim_events
        source = open_source(spec, **kwargs)
        game = getattr(source, "game", None)  # a simulation knows its true layout and events
        if layout is None and game is not None:
            layout = game.layout
        elif layout is None:
            raise CameraError("a camera needs layout = FILE in the config (made by `referee calibrate`)")
    except RefereeError as exc:
        raise CameraError(str(exc)) from exc
    # The same vision stage as `referee watch` and `referee demo`; the box applies the plays.
    vision = LiveVision.create(layout, classifier, apply_plays=False,
                               tracker_config=TrackerConfig(still_s=cfg.thresholds.still_s), rules=rules_view)
    timed = list(game.timed_events) if game is not None else None
    # No reopen: live sources re-open themselves with a back-off (read() gives None meanwhile).
    return VisionFeed(source, vision, timed, live=live, max_fps=cfg.camera.fps)
