"""The frames that decided each play, for a dispute, on the history page: listed per match with
the deal, trick, seat and card each decided, served as JPEG, behind the table PIN."""

from __future__ import annotations

from pathlib import Path

from box.helpers import BRISCOLA4_DEAL

from referee.box.frames import FrameKeeper
from referee.web.console import Console
from web.helpers import make_box
from web.test_api import AUTH, Client, serve


def fake_jpeg(image: object) -> bytes:
    return b"\xff\xd8" + str(image).encode() + b"\xff\xd9"


def test_history_lists_and_serves_the_frames_behind_the_pin(tmp_path: Path) -> None:
    box = make_box(tmp_path, "briscola-4", '["N", "W", "S", "E"]')
    box.frames = keeper = FrameKeeper(tmp_path / "frames", encode=fake_jpeg)
    box.start()
    box.handle(BRISCOLA4_DEAL)
    for pos, (seat, card) in enumerate([("N", "spade_3"), ("W", "spade_7"), ("S", "spade_1"), ("E", "coppe_2"),
                                        ("S", "bastoni_4")], start=10):
        keeper.offer(pos, f"frame {pos}")
        box.handle({"event": "play", "seat": seat, "card": card}, source_pos=pos)

    async def test(client: Client, console: Console) -> None:
        assert (await client.get("/api/matches/1/frames")).status == 401
        assert (await client.get("/api/matches/1/frames/2.jpg")).status == 401
        listing = await client.get("/api/matches/1/frames", headers=AUTH)
        frames = (await listing.json())["frames"]
        assert [(f["event"], f["deal"], f["trick"], f["seat"], f["card"]) for f in frames] == [
            (2, 1, 1, "N", "spade_3"), (3, 1, 1, "W", "spade_7"), (4, 1, 1, "S", "spade_1"), (5, 1, 1, "E", "coppe_2"),
            (6, 1, 2, "S", "bastoni_4")]
        image = await client.get("/api/matches/1/frames/6.jpg", headers=AUTH)
        assert image.status == 200 and image.content_type == "image/jpeg"
        assert await image.read() == fake_jpeg("frame 14")
        assert (await client.get("/api/matches/1/frames/1.jpg", headers=AUTH)).status == 404  # the deal: no frame
        assert (await client.get("/api/matches/9/frames", headers=AUTH)).status == 404
        page = await (await client.get("/history?lang=en")).text()
        assert 'id="frames"' in page

    serve(box, test, tmp_path)


def test_a_box_without_a_camera_lists_no_frames(tmp_path: Path) -> None:
    box = make_box(tmp_path, "briscola-4", '["N", "W", "S", "E"]')
    box.handle(BRISCOLA4_DEAL)

    async def test(client: Client, console: Console) -> None:
        assert (await (await client.get("/api/matches/1/frames", headers=AUTH)).json()) == {"frames": []}
        assert (await client.get("/api/matches/1/frames/1.jpg", headers=AUTH)).status == 404

    serve(box, test, tmp_path)
