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
