"""The organiser's password: kept as a salted scrypt hash (never the password), checked in
constant time. ``referee tournament --hash-password FILE`` writes the file.

>>> line = hash_password("segreto", salt=bytes(16))
>>> check_password("segreto", line), check_password("Segreto", line)
(True, False)
"""

from __future__ import annotations

import hashlib
import hmac
import os

from referee.errors import ConfigError

_N, _R, _P = 2**14, 8, 1


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = os.urandom(16) if salt is None else salt
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P)
    return f"scrypt${_N}${salt.hex()}${digest.hex()}"


def parse_hash(line: str, where: str) -> tuple[int, bytes, bytes]:
    parts = line.strip().split("$")
    try:
        if len(parts) != 4 or parts[0] != "scrypt":
            raise ValueError
        return int(parts[1]), bytes.fromhex(parts[2]), bytes.fromhex(parts[3])
    except ValueError:
        raise ConfigError(f"{where}: expected a line 'scrypt$N$salt$hash' made by "
                          "`referee tournament --hash-password`") from None


def check_password(password: str, line: str) -> bool:
    n, salt, digest = parse_hash(line, "organiser password")
    given = hashlib.scrypt(password.encode(), salt=salt, n=n, r=_R, p=_P)
    return hmac.compare_digest(given, digest)
