"""The deck exchange: every pair brings a deck, which is checked, sealed and handed to another
pair (tournament document, "Ogni coppia deve presentarsi con un mazzo"): a table never plays
with the deck of a pair sitting at it, and one deck is at one table at a time."""

from __future__ import annotations

from collections.abc import Collection, Sequence


def pick_deck(order: Sequence[str], at_table: Collection[str], in_use: Collection[str]) -> str | None:
    """The deck (its owner's id) for a table seating ``at_table``: the first owner in draw
    ``order`` after the table's first entrant, cyclically, that is neither at the table nor
    lending its deck to another table. ``None`` when no deck is free."""
    if not order:
        return None
    first = next((order.index(e) for e in at_table if e in order), 0)
    for step in range(1, len(order) + 1):
        owner = order[(first + step) % len(order)]
        if owner not in at_table and owner not in in_use:
            return owner
    return None
