"""Automatic referee for live Italian and French card games."""

__version__ = "0.1.0"
