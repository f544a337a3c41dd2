"""The annotated video plays in a browser: VP8 WebM that decodes, scaled to a sane width."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.errors import RefereeError
from referee.vision.annotate import VIDEO_MAX_WIDTH, AnnotatedVideo, annotate


def _frames(count: int) -> list[np.ndarray]:
    out = []
    for i in range(count):
        image = np.full((720, 1280, 3), 60, np.uint8)
        cv2.rectangle(image, (100 + 20 * i, 200), (220 + 20 * i, 380), (240, 240, 240), -1)
        out.append(annotate(image, None, [], f"trick {i}: N takes 11", t=i / 10))
    return out


def _decoded(path: Path) -> tuple[str, list[np.ndarray]]:
    capture = cv2.VideoCapture(str(path))
    code = int(capture.get(cv2.CAP_PROP_FOURCC))
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frames.append(frame)
    capture.release()
    return code.to_bytes(4, "little").decode("ascii", "replace"), frames


def test_webm_is_vp8_that_decodes_frame_for_frame_at_the_capped_width(tmp_path: Path) -> None:
    video = AnnotatedVideo(tmp_path / "out.webm", fps=10)
    written = _frames(12)
    for frame in written:
        video.write(frame)
    video.close()
    codec, frames = _decoded(tmp_path / "out.webm")
    assert codec == "VP80"
    assert len(frames) == 12
    assert frames[0].shape == (540, VIDEO_MAX_WIDTH, 3)
    # the picture survives: the bright card sits where it was drawn, at the new scale
    expected = cv2.resize(written[5], (VIDEO_MAX_WIDTH, 540), interpolation=cv2.INTER_AREA)
    assert float(np.mean(np.abs(frames[5].astype(float) - expected))) < 8.0


def test_a_video_name_without_a_known_container_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(RefereeError, match=r"out\.avi.*\.webm or \.mp4"):
        AnnotatedVideo(tmp_path / "out.avi")


def test_annotating_at_a_smaller_width_draws_at_the_scaled_places_with_legible_labels() -> None:
    class Seen:
        card, confidence = "coppe_3", 0.95
        quad = np.array([[400.0, 200.0], [600.0, 200.0], [600.0, 500.0], [400.0, 500.0]])

    image = np.full((720, 1280, 3), 60, np.uint8)
    small = annotate(image, None, [Seen()], "N plays coppe_3", t=1.0, width=640)
    assert small.shape == (360, 640, 3)
    assert tuple(small[175, 200]) == (0, 220, 0)  # the quad's left edge, x 400 -> 200, y 350 -> 175
    assert tuple(small[175, 260]) == (60, 60, 60)  # inside it: the frame, untouched
    # the label is drawn on the small frame at its full pixel size, not shrunk with the frame
    def label_rows(img: np.ndarray, top: int) -> int:
        """Rows of the label's green in the 20 rows above the quad's top edge."""
        return int(np.any(img[top - 20 : top, :, 1] == 220, axis=1).sum())

    full = annotate(image, None, [Seen()], "", width=None)
    assert label_rows(annotate(image, None, [Seen()], "", width=640), 100) >= label_rows(full, 200) - 1


def test_a_banner_longer_than_the_frame_is_set_smaller_not_cut_off() -> None:
    image = np.full((360, 640, 3), 60, np.uint8)
    long_text = "confirm: did S play denari_7? (OK yes, left no, right another card)  camera degraded"
    out = annotate(image, None, [], long_text, t=12.0)
    text_columns = np.nonzero(np.any(out[:30, :, 0] > 128, axis=0))[0]
    assert text_columns.max() < 640 - 4  # the last letter ends inside the frame
