"""The results export: one CSV row per match (with every correction: who, why, the result
before), and each box match's records as JSON Lines, as the service took them."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from referee.tournament import Tournament
from referee.tournament_service.store import TournamentStore

COLUMNS = ["match", "round", "table", "entrants", "winner", "score", "source", "box_match",
           "corrected_by", "why", "before"]


def results_csv(t: Tournament) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for m in t.matches.values():
        entrants = [t.entrants[e].name for e in t.entrants_of(m) if e is not None]
        r = m.result
        fixes = [c for c in t.corrections if c.match == m.id]
        last = fixes[-1] if fixes else None
        writer.writerow([
            m.id, m.round, m.table or "", " - ".join(entrants),
            t.entrants[r.winner].name if r and r.winner else "",
            " ".join(f"{t.entrants[e].name}={v}" for e, v in r.score.items()) if r else "",
            r.source if r else "", r.box_match if r and r.box_match else "",
            last.who if last else "", last.why if last else "",
            ("" if last is None or last.before is None else
             f"winner {t.entrants[last.before.winner].name}" if last.before.winner else "no winner"),
        ])
    return out.getvalue()


def match_records_jsonl(store: TournamentStore, table: int, box_match: int) -> str:
    return "".join(json.dumps({"seq": seq, "kind": kind, "body": body}, ensure_ascii=False) + "\n"
                   for seq, kind, body in store.records(table, box_match))


def write_export(t: Tournament, store: TournamentStore, folder: Path) -> list[Path]:
    """``results.csv`` and ``records/table-N-match-M.jsonl`` in ``folder``; the files written."""
    (folder / "records").mkdir(parents=True, exist_ok=True)
    written = [folder / "results.csv"]
    written[0].write_text(results_csv(t), encoding="utf-8")
    for bm in store.box_matches():
        path = folder / "records" / f"table-{bm.table}-match-{bm.box_match}.jsonl"
        path.write_text(match_records_jsonl(store, bm.table, bm.box_match), encoding="utf-8")
        written.append(path)
    return written
