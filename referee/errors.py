"""One exception root for the whole referee, mixed with the built-in type it resembles."""

from __future__ import annotations


class RefereeError(Exception):
    """Base of every error the referee raises on purpose."""


class BadCardError(RefereeError, ValueError):
    """A card code or deck name that does not exist."""


class ConfigError(RefereeError, ValueError):
    """A configuration file or option with a wrong key or value (the message names it)."""


class ModelError(RefereeError, RuntimeError):
    """A missing, corrupt or mismatched recogniser model (the message names the file)."""


class CameraError(RefereeError, RuntimeError):
    """A camera or frame source that cannot deliver frames."""
