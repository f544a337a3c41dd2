"""``referee train --real-negatives``: crops of no card from the pinochle photos' training half.

The quads are a committed file (``benchmarks/data/pinochle_negative_quads.csv``, written by
``benchmarks/pinochle_negatives.py``); tested on the drawn stand-in photos of ``photo_root``
and files written here, so no real photo is needed.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from referee.cards import RECOGNISER_LABELS
from referee.errors import ConfigError
from referee.paths import REPO_ROOT
from referee.recognition import real_crops
from referee.recognition.real_crops import BLOCK, TRAINABLE, build_negative_set, negative_quads
from referee.recognition.train_options import TrainOptions

FRENCH = RECOGNISER_LABELS["french"]
HEADER = "image,kind,x0,y0,x1,y1,x2,y2,x3,y3,on_cards,read,confidence\n"
#: a card-shaped quad on the drawn photos' cloth, off their one card (60-180 x 50-220)
OFF_CARD = "185,40,235,40,235,110,185,110"


def _quads(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "negatives.csv"
    path.write_text("# made by a test\n" + HEADER + "".join(r + "\n" for r in rows))
    return path


def test_the_quads_are_read_in_portrait_order_with_their_photo(tmp_path: Path) -> None:
    path = _quads(tmp_path, f"IMG_0001.JPG,window,{OFF_CARD},0.0,back,0.99", f"IMG_0002.JPG,proposal,{OFF_CARD},0.05,AS,0.7")
    rows = negative_quads(path)
    assert [name for name, _ in rows] == ["IMG_0001.JPG", "IMG_0002.JPG"]
    assert rows[0][1].shape == (4, 2) and rows[0][1][2].tolist() == [235.0, 110.0]


def test_a_corner_that_is_no_number_is_named_with_its_file_and_line(tmp_path: Path) -> None:
    path = _quads(tmp_path, f"IMG_0001.JPG,window,{OFF_CARD},0,back,0.99", "IMG_0002.JPG,window,1,2,3,x,5,6,7,8,0,back,0.9")
    with pytest.raises(ConfigError, match=r"negatives.csv line 4: a corner is not a number"):
        negative_quads(path)


def test_a_missing_column_and_a_missing_file_are_named(tmp_path: Path) -> None:
    path = _quads(tmp_path)
    path.write_text("image,x0,y0\nIMG_0001.JPG,1,2\n")
    with pytest.raises(ConfigError, match=r"negatives.csv line 1: missing column\(s\) x1, y1"):
        negative_quads(path)
    with pytest.raises(ConfigError, match=r"no such file .*absent.csv \(benchmarks/pinochle_negatives.py writes it\)"):
        negative_quads(tmp_path / "absent.csv")


def test_the_no_card_set_is_seeded_copies_of_back_only(photo_root: Path, tmp_path: Path) -> None:
    path = _quads(tmp_path, f"IMG_0001.JPG,window,{OFF_CARD},0,back,0.99", f"IMG_0041.JPG,proposal,{OFF_CARD},0,AS,0.9")
    a = build_negative_set(FRENCH, (64, 96), seed=2, root=photo_root, path=path, variants=3)
    b = build_negative_set(FRENCH, (64, 96), seed=2, root=photo_root, path=path, variants=3)
    assert a.images.shape == (6, 96, 64, 3) and (a.crops, a.photos) == (2, 2)
    assert np.array_equal(a.images, b.images)
    assert not np.array_equal(a.images[0], a.images[1])  # the first is the quad's crop, the others jittered
    assert (a.allowed.sum(axis=1) == 1).all() and {FRENCH[i] for i in np.flatnonzero(a.allowed[0])} == {"back"}
    # the crop is the drawn photos' green cloth, not their white card
    assert a.images[0, 10:-10, 10:-10, 1].mean() > 2 * a.images[0, 10:-10, 10:-10, 2].mean()


def test_a_quad_on_the_held_out_half_is_refused(photo_root: Path, tmp_path: Path) -> None:
    held = f"IMG_{BLOCK + 1:04d}.JPG"  # the second block stays held out
    path = _quads(tmp_path, f"IMG_0001.JPG,window,{OFF_CARD},0,back,0.99", f"{held},window,{OFF_CARD},0,back,0.99")
    with pytest.raises(ConfigError, match=f"quads on photos outside the training half \\({held}\\)"):
        build_negative_set(FRENCH, (64, 96), seed=0, root=photo_root, path=path)
    with pytest.raises(ConfigError, match="no quads"):
        build_negative_set(FRENCH, (64, 96), seed=0, root=photo_root, path=_quads(tmp_path))


@pytest.mark.parametrize(("given", "why"), [
    ({"deck": "italian", "real_negatives": 0.03}, "--real-negatives: french only"),
    ({"deck": "french", "real_negatives": 1.2}, r"--real-negatives 1.2: expected a share"),
])
def test_a_bad_no_card_share_is_named(given: dict[str, object], why: str) -> None:
    with pytest.raises(ConfigError, match=why):
        TrainOptions(**given)  # type: ignore[arg-type]
    assert TrainOptions(deck="french", real_negatives=0.03, batch=128).negatives_per_batch == 4


@pytest.mark.slow
def test_training_with_no_card_crops_records_them(train_fake: Callable[..., dict[str, object]], photo_root: Path,
                                                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    path = _quads(tmp_path, f"IMG_0001.JPG,window,{OFF_CARD},0,back,0.99", f"IMG_0003.JPG,window,{OFF_CARD},0,back,0.99")
    monkeypatch.setattr(real_crops, "NEGATIVE_QUADS", path)
    meta = train_fake(tmp_path / "m", tmp_path / "cache", "--real-negatives", "0.25", "--shared", str(photo_root))
    training = meta["training"]
    assert isinstance(training, dict)
    assert training["real_negatives"] == {"set": TRAINABLE["french"], "share": 0.25, "quads": "negatives.csv",
                                          "crops": 2, "photos": 2, "variants": real_crops.NEGATIVE_VARIANTS}
    plain = train_fake(tmp_path / "p", tmp_path / "cache")["training"]
    assert isinstance(plain, dict) and "real_negatives" not in plain  # the committed plans stay as they were


def _miner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pinochle_negatives", REPO_ROOT / "benchmarks" / "pinochle_negatives.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["pinochle_negatives"] = module
    spec.loader.exec_module(module)
    return module


def test_the_table_windows_lie_inside_the_photo_and_off_its_cards() -> None:
    miner = _miner()
    boxes = [(60, 50, 180, 220), (200, 300, 320, 470)]
    shape = (504, 378, 3)
    drawn = miner.windows(Path("IMG_1.JPG"), boxes, shape)
    assert len(drawn) == miner.WINDOWS
    for quad, share in drawn:
        assert quad.min() >= 0 and quad[:, 0].max() < shape[1] and quad[:, 1].max() < shape[0]
        assert share <= miner.MAX_ON_CARD and miner.on_cards(quad, boxes, shape) == share
        long_side = max(np.linalg.norm(quad[1] - quad[2]), np.linalg.norm(quad[0] - quad[1]))
        assert 0.6 * 170 - 1 <= long_side <= 1.1 * 170 + 1  # the boxes' median long side is 170
    again = miner.windows(Path("IMG_1.JPG"), boxes, shape)
    assert all(np.array_equal(a, b) for (a, _), (b, _) in zip(drawn, again, strict=True))  # seeded by the name
    # a quad half on a card is on the cards by half
    half = np.array([[120, 50], [240, 50], [240, 220], [120, 220]], np.float32)
    assert miner.on_cards(half, boxes[:1], shape) == pytest.approx(0.5, abs=0.02)
