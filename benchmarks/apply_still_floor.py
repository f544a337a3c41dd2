"""A still floor applied to saved reads, so a candidate floor is judged without reading photos again.

    python benchmarks/apply_still_floor.py build/rd.jsonl build/rd_floor.jsonl denari_1 0.95
    python benchmarks/real_decks.py --rescore build/rd_floor.jsonl

Reads a ``--results`` file of ``real_decks.py`` (rows with ``detections``) or ``vision_photos.py``
(rows with ``cards``) and writes it again without the detections read CARD less surely than FLOOR.
``FramePipeline.process_still`` applies the model's ``still_floor`` last, after the copies rule,
whose survivors of a card are that card's surest reads, so this is the floor's exact effect.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a --results JSON Lines file")
    parser.add_argument("out", type=Path, help="where the floored copy goes")
    parser.add_argument("card", help="the card code the floor is for, e.g. denari_1")
    parser.add_argument("floor", type=float, help="a probability 0..1")
    args = parser.parse_args(argv)
    if not 0.0 <= args.floor <= 1.0:
        parser.error(f"floor {args.floor}: expected a probability between 0 and 1")
    try:
        lines = args.results.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        parser.error(f"cannot read {args.results}: {exc}")
    rows, dropped = [], 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            key = "cards" if "cards" in row else "detections"
            keep = [d for d in row[key] if not (d["card"] == args.card and float(d["confidence"]) < args.floor)]
        except (ValueError, KeyError, TypeError) as exc:
            parser.error(f"{args.results}:{number}: not a --results line ({exc!r})")
        dropped += len(row[key]) - len(keep)
        rows.append(json.dumps({**row, key: keep}))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(r + "\n" for r in rows), encoding="utf-8")
    print(f"{args.out}: dropped {dropped} detections read {args.card} below {args.floor}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
