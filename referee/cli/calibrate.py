"""``referee calibrate``: the printable ArUco mat, and a table layout from one frame of it.

    referee calibrate --print-mat mat.png                     # print, put at the table's corners
    referee calibrate --image frame.png --out layout.json     # or --source 0 to grab a frame
    referee calibrate --image frame.png --out layout.json --seats N,W,S,E --preview zones.png
    referee calibrate --image frame.png --mat mat-A4        # the mat laid was the one-sheet A4
    referee calibrate --source picamera --size 1920x1080 --out layout.json   # the config's frame size

Besides the layout it says how tall a card will lie in the frame (``--mat`` names the printed
mat, whose size gives the scale) and warns when that is under what the recogniser reads.

The work is :mod:`referee.vision.calibrate`.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

import cv2
import numpy.typing as npt

from referee.errors import RefereeError
from referee.vision.calibrate import (
    calibrate_image,
    draw_layout,
    find_markers,
    homography_from_markers,
    render_mat,
)
from referee.vision.layout import LayoutError, default_seat_names
from referee.vision.table_scale import MAT_PRINTS, mat_width_mm, table_scale


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--print-mat", metavar="PNG", help="write the printable mat image and exit")
    parser.add_argument("--image", metavar="FRAME", help="a frame showing the mat")
    parser.add_argument("--source", metavar="SRC", help="grab the frame from a camera source instead")
    parser.add_argument("--size", metavar="WxH", type=_size, default=None,
                        help="frame size to grab from --source: the config's camera.width x camera.height "
                             "(default: the source's own, 1280x720 for picamera)")
    parser.add_argument("--out", metavar="JSON", default="layout.json", help="layout file to write")
    parser.add_argument("--seats", help="seat names in play order, comma separated (default N,W,S,E)")
    parser.add_argument("--players", type=int, help="number of seats when --seats is not given")
    parser.add_argument("--preview", metavar="PNG", help="also write the frame with the zones drawn")
    parser.add_argument("--mat", choices=list(MAT_PRINTS), default="corners-A4",
                        help="the printed mat laid on the table (hardware/mat/; default corners-A4, the "
                             "88 cm corner kit): its size tells how tall the cards will be")


def _size(text: str) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` as (width, height)."""
    w, sep, h = text.lower().partition("x")
    if not (sep and w.isdigit() and h.isdigit() and int(w) > 0 and int(h) > 0):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1920x1080, got {text!r}")
    return int(w), int(h)


def _seats(args: argparse.Namespace) -> tuple[str, ...]:
    if args.seats:
        return tuple(s.strip() for s in args.seats.split(",") if s.strip())
    return default_seat_names(args.players or 4)


def _frame(args: argparse.Namespace) -> npt.NDArray[Any]:
    if args.image:
        image = cv2.imread(args.image, cv2.IMREAD_COLOR)
        if image is None:
            raise LayoutError(f"cannot read image {args.image}")
        result: npt.NDArray[Any] = image
        return result
    from referee.vision.sources import open_source

    with open_source(args.source, **({"size": args.size} if args.size else {})) as source:
        for _ in range(50):  # a camera may need a few reads to deliver
            frame = source.read()
            if frame is not None:
                grabbed: npt.NDArray[Any] = frame.image
                return grabbed
        raise LayoutError(f"no frame from {args.source}: {source.last_error}")


def run(args: argparse.Namespace) -> int:
    try:
        if args.print_mat:
            mat = render_mat(seats=_seats(args) if (args.seats or args.players) else None)
            if not cv2.imwrite(args.print_mat, mat):
                raise LayoutError(f"cannot write {args.print_mat}")
            print(f"wrote {args.print_mat}: print it, put markers 0..3 at the table's corners "
                  "(0 top left as the camera sees it, clockwise)")
            return 0
        if not args.image and not args.source:
            print("referee calibrate: give --print-mat PNG, or --image FRAME / --source SRC", file=sys.stderr)
            return 2
        frame = _frame(args)
        # the mat laid is kept with the layout: its printed size gives the card size later
        # (the deck's enrolment plans its grid from it)
        layout = replace(calibrate_image(frame, _seats(args)), mat=args.mat)
        layout.save(args.out)
        _, error = homography_from_markers(find_markers(frame))
        print(f"wrote {args.out}: {layout.frame_size[0]}x{layout.frame_size[1]}, seats "
              f"{','.join(layout.seats)}, marker error {error:.2f} px")
        if args.preview:
            cv2.imwrite(args.preview, draw_layout(frame, layout))
        scale = table_scale(layout.homography, mat_width_mm(args.mat), layout.frame_size)
        print(f"with the {args.mat} mat: {scale.summary()}")
        warning = scale.warning()
        if warning is not None:
            print(f"referee calibrate: WARNING: {warning}", file=sys.stderr)
        return 0
    except RefereeError as exc:
        print(f"referee calibrate: {exc}", file=sys.stderr)
        return 2
