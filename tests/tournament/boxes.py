"""Simulated boxes: a random legal match recorded exactly as ``referee run`` records it (the
box's own MatchStore), and its records as the messages the publisher sends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.box.state import MatchStore
from referee.rules import Referee
from referee.rules.playout import random_match_events
from referee.tournament.messages import RecordMessage

TEAMS = {"briscola-4": [["N", "S"], ["W", "E"]], "belotta": [["N", "S"], ["W", "E"]]}


def record_match(store: MatchStore, game: str, seed: int, *, upto: int | None = None) -> int:
    """Referee one random match of ``game`` into ``store`` (the first ``upto`` events only);
    returns the box's match id."""
    events = random_match_events(game, seed)
    seats = next(e["seats"] for e in events if e["event"] == "deal")
    match = store.begin_match(game, {"game": game, "seats": seats, "teams": TEAMS.get(game, [])})
    append_events(store, match, events[:upto])
    return match


def append_events(store: MatchStore, match: int, events: list[dict[str, Any]],
                  referee: Referee | None = None) -> Referee:
    referee = referee or Referee()
    for event in events:
        calls = [c.to_dict() for c in referee.apply(event)]
        store.append(match, event, calls, ends_match=any(c["call"] == "match_end" for c in calls))
    return referee


def messages(store: MatchStore, table: int, match: int) -> list[RecordMessage]:
    game = next(m.game for m in store.matches() if m.id == match)
    return [RecordMessage(table, match, r.seq, r.kind, game, r.body) for r in store.records(match)]


def box_store(tmp: Path, table: int) -> MatchStore:
    return MatchStore.open(tmp / f"box-{table}")


def box_config(path: Path, state: Path, broker_url: str, password_file: Path | str, table: int,
               extra: str = "") -> Path:
    """Write a briscola-4 box's config at ``path`` for ``referee run`` on ``table`` of the
    tournament at ``broker_url`` (plus ``extra`` TOML), and return ``path``."""
    path.write_text(
        f'state_dir = "{state}"\n[game]\nname = "briscola-4"\n'
        f'[tournament]\nbroker = "{broker_url}"\ntable = {table}\n'
        f'password_file = "{password_file}"\n' + extra
    )
    return path

