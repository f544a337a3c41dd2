"""The console's words, Italian first (the club's language) and English on request."""

from __future__ import annotations

LANGUAGES = ("it", "en")

TEXTS: dict[str, dict[str, str]] = {
    "it": {
        "title": "Arbitro del tavolo", "scoreboard": "Tabellone", "operator": "Operatore",
        "history": "Storico", "table": "Tavolo", "deal": "Mano", "match": "Partita",
        "score": "Punteggio", "points": "Punti della mano", "trump": "Briscola",
        "contract": "Contratto", "turn": "Di turno", "trick": "Presa in corso",
        "last_trick": "Ultima presa", "violations": "Infrazioni", "timer": "Tempo",
        "calls": "Chiamate", "no_match": "Nessuna partita in corso", "match_over": "Partita finita",
        "deal_over": "Mano finita", "tricks": "Prese", "fault": "Guasto", "live": "in diretta",
        "offline": "collegamento perso: riprovo", "pin": "PIN del tavolo", "login": "Entra",
        "logout": "Esci", "wrong_pin": "PIN errato", "match_setup": "Nuova partita",
        "game": "Gioco", "seats": "Posti (in ordine di gioco)", "options": "Opzioni (JSON)",
        "table_number": "Numero del tavolo", "names": "Nomi dei giocatori", "dealer": "Mazziere",
        "start_match": "Inizia la partita", "save_names": "Salva nomi",
        "deal_setup": "Nuova mano", "face_up": "Carta scoperta", "camera_reads": "la telecamera legge",
        "next_deal": "Prossima mano", "seat": "Posto", "bid": "Puntata", "called": "Carta chiamata",
        "in_mano": "in mano", "mando": "Mando (prendo)", "via": "Via (passo)",
        "discard": "Scarto", "cards": "Carte", "declare": "Dichiarazione / combinazione",
        "forfait": "Forfait", "play": "Gioca una carta", "card": "Carta", "send": "Invia",
        "undo": "Annulla l'ultima", "end_match": "Chiudi la partita", "question": "Domanda dell'arbitro",
        "is_it": "È questa carta?", "yes": "Sì", "no": "No, nessuna giocata",
        "any_card": "Un'altra carta", "no_question": "Nessuna domanda aperta",
        "export_jsonl": "Eventi (JSON Lines)", "export_calls": "Chiamate (JSON Lines)",
        "export_csv": "Riepilogo CSV", "started": "Iniziata", "ended": "Finita", "winner": "Vince",
        "events": "Eventi", "done": "Fatto", "confirm_end": "Chiudere la partita in corso?",
        "contract_for": "Contratto", "declarations": "Dichiarazioni e combinazioni",
        "manual": "Inserimento a mano", "points_target": "Punti", "target": "Si vince a",
        "rounds_to_win": "Partite per vincere:", "key_seat": "chi", "key_trump": "briscola",
        "key_bid": "puntata", "key_called": "chiamata", "key_points": "punti", "key_in_mano": "in mano",
        "key_turned": "scoperta", "key_round": "giro", "trick_no": "presa", "key_multiplier": "moltiplicatore",
        "frames": "Fotogrammi", "frames_of": "Fotogrammi della partita", "no_frames": "Nessun fotogramma tenuto (senza telecamera, o già scartati)",
        "frame_event": "evento",
    },
    "en": {
        "title": "Table referee", "scoreboard": "Scoreboard", "operator": "Operator",
        "history": "History", "table": "Table", "deal": "Deal", "match": "Match",
        "score": "Score", "points": "Deal points", "trump": "Trump",
        "contract": "Contract", "turn": "To play", "trick": "Current trick",
        "last_trick": "Last trick", "violations": "Violations", "timer": "Timer",
        "calls": "Calls", "no_match": "No match in progress", "match_over": "Match over",
        "deal_over": "Deal over", "tricks": "Tricks", "fault": "Fault", "live": "live",
        "offline": "connection lost: retrying", "pin": "Table PIN", "login": "Log in",
        "logout": "Log out", "wrong_pin": "Wrong PIN", "match_setup": "New match",
        "game": "Game", "seats": "Seats (in play order)", "options": "Options (JSON)",
        "table_number": "Table number", "names": "Player names", "dealer": "Dealer",
        "start_match": "Start the match", "save_names": "Save names",
        "deal_setup": "New deal", "face_up": "Face-up card", "camera_reads": "the camera reads",
        "next_deal": "Next deal", "seat": "Seat", "bid": "Bid", "called": "Called card",
        "in_mano": "in hand", "mando": "Take (mando)", "via": "Pass (via)",
        "discard": "Discard", "cards": "Cards", "declare": "Declaration / meld",
        "forfait": "Forfeit", "play": "Play a card", "card": "Card", "send": "Send",
        "undo": "Undo the last", "end_match": "End the match", "question": "The referee asks",
        "is_it": "Is it this card?", "yes": "Yes", "no": "No, no play",
        "any_card": "Another card", "no_question": "No open question",
        "export_jsonl": "Events (JSON Lines)", "export_calls": "Calls (JSON Lines)",
        "export_csv": "CSV summary", "started": "Started", "ended": "Ended", "winner": "Winner",
        "events": "Events", "done": "Done", "confirm_end": "End the match in progress?",
        "contract_for": "Contract", "declarations": "Declarations and melds",
        "manual": "Entered by hand", "points_target": "Points", "target": "Game to",
        "rounds_to_win": "Games to win:", "key_seat": "by", "key_trump": "trump",
        "key_bid": "bid", "key_called": "called", "key_points": "points", "key_in_mano": "in hand",
        "key_turned": "turned", "key_round": "round", "trick_no": "trick", "key_multiplier": "multiplier",
        "frames": "Frames", "frames_of": "Frames of match", "no_frames": "No frames kept (no camera, or evicted)",
        "frame_event": "event",
    },
}


def pick_language(query: str | None, accept_language: str | None) -> str:
    """``?lang=`` wins; then the first of Italian or English the browser prefers; Italian."""
    if query in LANGUAGES:
        return query
    best, best_q = "it", -1.0
    for part in (accept_language or "").split(","):
        tag, _, params = part.strip().partition(";")
        lang = tag.strip().lower().split("-")[0]
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if lang in LANGUAGES and q > best_q:
            best, best_q = lang, q
    return best
