"""Write the printable calibration mats of this folder (PDF, stated physical size).

    .venv/bin/python hardware/mat/make_mat.py            # mat-A4.pdf, mat-A3.pdf, corners-A4.pdf, corners-A3.pdf

The drawing lives in :mod:`referee.vision.printable_mat`, next to the layout it must match.
"""

import argparse
from pathlib import Path

from referee.vision.printable_mat import write_mats


def main() -> int:
    parser = argparse.ArgumentParser(description="write the printable calibration mats (PDF)")
    parser.add_argument("--out", type=Path, default=Path("hardware/mat"), help="folder to write into")
    for line in write_mats(parser.parse_args().out):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
