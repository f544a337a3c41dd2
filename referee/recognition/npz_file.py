"""Read an ``.npz`` data file without ever unpickling it, every failure a clear error.

Unpickling runs whatever code a crafted file carries (numpy unpickles object arrays when
allowed to), so data files (enrollments, crops for calibration and benchmarks) hold plain
numeric and string arrays only; an array of Python objects is refused by name.  A file that is missing, empty, cut short or not
an ``.npz`` at all is named too, with what it should have been.

    arrays = read_npz(Path("club.npz"), "enrollment file", ModelError)
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.errors import RefereeError

#: what reading a damaged file raises, by kind: a file cut short is no longer a zip
#: (BadZipFile) or ends inside an array (EOFError, zlib.error); a foreign file is a ValueError
DAMAGED = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error)


def read_npz(path: Path, what: str, error: type[RefereeError]) -> dict[str, npt.NDArray[Any]]:
    """Every array of ``path``, loaded now; ``error`` (naming ``what`` and ``path``) otherwise."""
    try:
        if path.stat().st_size == 0:
            raise error(f"corrupt {what} {path}: the file is empty (0 bytes)")
        z = np.load(path, allow_pickle=False)
        if not isinstance(z, np.lib.npyio.NpzFile):
            raise error(f"corrupt {what} {path}: a single .npy array, not an .npz archive")
        with z:
            return {key: _array(z, key, what, path, error) for key in z.files}
    except FileNotFoundError as exc:
        raise error(f"{what} not found: {path}") from exc
    except DAMAGED as exc:
        raise error(f"corrupt {what} {path}: cut short or not an .npz file ({type(exc).__name__}: {exc})") from exc


def _array(z: np.lib.npyio.NpzFile, key: str, what: str, path: Path,
           error: type[RefereeError]) -> npt.NDArray[Any]:
    try:
        out: npt.NDArray[Any] = z[key]
    except ValueError as exc:
        if "allow_pickle" not in str(exc):
            raise
        raise error(f"{what} {path}: array {key!r} holds Python objects, which are never unpickled "
                    "(a crafted file could run code): write it with plain numbers and strings") from exc
    return out
