"""Write the printable calibration mats of this folder (PDF, stated physical size).

    .venv/bin/python hardware/mat/make_mat.py            # mat-A4.pdf, mat-A3.pdf, corners-A4.pdf, corners-A3.pdf

The drawing lives in :mod:`referee.vision.printable_mat`, next to the layout it must match.
"""

from referee.vision.printable_mat import main

if __name__ == "__main__":
    raise SystemExit(main(["--out", "hardware/mat"]))
