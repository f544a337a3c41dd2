"""Words on the box's display, Italian (default) and English.

Only short strings: the OLED is 128 px wide and must be readable at arm's length.
"""

from __future__ import annotations

import re

from referee.cards import ITALIAN_RANK_NAMES, parse_card

MESSAGES: dict[str, dict[str, str]] = {
    "score": {"it": "PUNTI", "en": "SCORE"},
    "score_to": {"it": "PUNTI (a {n})", "en": "SCORE (to {n})"},
    "calibrate_title": {"it": "NUOVO TAVOLO", "en": "NEW TABLE"},
    "calibrate": {"it": "Calibra il tavolo", "en": "Calibrate the table"},
    "calibrate_how": {"it": "referee calibrate, poi riavvia", "en": "run referee calibrate, restart"},
    "turn": {"it": "Tocca a {seat}", "en": "{seat} to play"},
    "trick": {"it": "PRESA {n}", "en": "TRICK {n}"},
    "takes": {"it": "prende", "en": "takes"},
    "points": {"it": "{n} punti", "en": "{n} points"},
    "violation": {"it": "IRREGOLARE", "en": "VIOLATION"},
    "in_trick": {"it": "presa {n}", "en": "trick {n}"},
    "last_trick": {"it": "ULTIMA PRESA {n}", "en": "LAST TRICK {n}"},
    "dealer": {"it": "MAZZIERE", "en": "DEALER"},
    "highest_card": {"it": "carta più alta", "en": "highest card"},
    "timer": {"it": "TEMPO", "en": "TIME"},
    "hurry": {"it": "AFFRETTATI!", "en": "HURRY UP!"},
    "confirm": {"it": "CONFERMA?", "en": "CONFIRM?"},
    # right: the next card offered; after the last one, the picker with every card of the deck
    "confirm_keys": {"it": "OK=sì ◀=no ▶=altra", "en": "OK=yes ◀=no ▶=other"},
    "confirm_keys_more": {"it": "OK=sì ◀=no ▶=tutte", "en": "OK=yes ◀=no ▶=all"},
    "missed": {"it": "{seat} HA GIOCATO?", "en": "DID {seat} PLAY?"},
    "missed_keys": {"it": "OK=sì ◀=no ▶=altra", "en": "OK=yes ◀=no ▶=other"},
    "instead_of": {"it": "al posto di {card}?", "en": "instead of {card}?"},
    "as_recorded": {"it": "come registrata", "en": "as recorded"},
    "field_played": {"it": "Carta giocata da {seat}", "en": "Card {seat} played"},
    "played_card": {"it": "GIOCATA?", "en": "PLAYED?"},
    "deal_end": {"it": "FINE SMAZZATA", "en": "DEAL OVER"},
    "match_end": {"it": "FINE PARTITA", "en": "MATCH OVER"},
    "winner": {"it": "vince {team}", "en": "{team} wins"},
    "draw": {"it": "pareggio", "en": "draw"},
    "fault": {"it": "GUASTO", "en": "FAULT"},
    "fault_camera": {"it": "Camera: niente immagini", "en": "Camera: no frames"},
    "fault_retry": {"it": "riprovo... ({n})", "en": "retrying... ({n})"},
    "fault_state": {"it": "Archivio non scrivibile", "en": "Record not writable"},
    "fault_kept": {"it": "Partita salvata", "en": "Match is saved"},
    "fault_start": {"it": "Avvio non riuscito: vedi il log", "en": "Could not start: see the log"},
    "fault_config": {"it": "Configurazione errata: vedi il log", "en": "Error in the config: see the log"},
    "fault_record": {"it": "Archivio danneggiato: recuperato", "en": "Record damaged: salvaged"},
    "menu_keys": {"it": "◀ ▶ cambia  OK avanti", "en": "◀ ▶ change  OK next"},
    "contract": {"it": "CONTRATTO", "en": "CONTRACT"},
    "field_seat": {"it": "Chi chiama", "en": "Declarer"},
    "field_trump": {"it": "Briscola", "en": "Trump"},
    "field_called": {"it": "Carta chiamata", "en": "Called card"},
    "field_points": {"it": "Punti", "en": "Points"},
    "field_bid": {"it": "Offerta", "en": "Bid"},
    "field_called_suit": {"it": "Chiamata: seme", "en": "Called: suit"},
    "field_called_rank": {"it": "Chiamata: carta", "en": "Called: card"},
    "field_points_tens": {"it": "Punti: decine", "en": "Points: tens"},
    "field_points_units": {"it": "Punti: unità", "en": "Points: units"},
    "field_in_mano": {"it": "In mano?", "en": "In hand?"},
    "field_bid_tens": {"it": "Offerta: decine", "en": "Bid: tens"},
    "field_bid_units": {"it": "Offerta: unità", "en": "Bid: units"},
    "no": {"it": "no", "en": "no"},
    "none": {"it": "nessuno", "en": "none"},
    "entry": {"it": "INSERISCI", "en": "ENTER"},
    "field_entry": {"it": "Cosa inserire?", "en": "What to enter?"},
    "entry_contract": {"it": "CONTRATTO", "en": "CONTRACT"},
    "entry_discard": {"it": "SCARTO", "en": "DISCARD"},
    "entry_declare": {"it": "ACCUSO", "en": "DECLARE"},
    "entry_forfait": {"it": "FORFAIT", "en": "FORFAIT"},
    "entry_via": {"it": "VIA", "en": "PASS"},
    "entry_game": {"it": "GIOCO", "en": "GAME"},
    "entry_enrol": {"it": "REGISTRA MAZZO", "en": "ENROL DECK"},
    "enrol_rows": {"it": "{n} carte, file di {columns}: OK", "en": "{n} cards, rows of {columns}: OK"},
    "enrol_plan": {"it": "{cards} carte: {layouts} disposizioni", "en": "{cards} cards: {layouts} layouts"},
    "enrol_plan_one": {"it": "{cards} carte: 1 disposizione", "en": "{cards} cards: 1 layout"},
    "enrol_plan_rows": {"it": "file da {columns}", "en": "rows of {columns}"},
    "enrol_wait": {"it": "Attendere", "en": "Please wait"},
    "enrol_reading": {"it": "leggo le carte...", "en": "reading the cards..."},
    "enrol_done": {"it": "MAZZO REGISTRATO", "en": "DECK ENROLLED"},
    "enrol_summary": {"it": "{confused} incerte, {seconds} s  ▶", "en": "{confused} unsure, {seconds} s  ▶"},
    "enrol_place": {"it": "fila {row}, col. {column}: {margin}", "en": "row {row}, col. {column}: {margin}"},
    "field_seat_of": {"it": "Di chi?", "en": "Whose?"},
    "field_game": {"it": "Gioco (nuova partita)", "en": "Game (next match)"},
    "no_cards": {"it": "nessuna carta", "en": "no cards"},
    "done_n": {"it": "FINE ({n})", "en": "DONE ({n})"},
    "refused": {"it": "RIFIUTATO", "en": "REFUSED"},
    "game_busy": {"it": "Partita in corso: finiscila prima di cambiare le regole",
                  "en": "A match is in progress: finish it before changing the rules"},
    "deal_card": {"it": "SMAZZATA", "en": "NEW DEAL"},
    "field_deal_card": {"it": "Briscola scoperta?", "en": "Face-up trump?"},
    "field_turned": {"it": "Carta girata?", "en": "Turned card?"},
    "field_done": {"it": "Conferma", "en": "Confirm"},
    "ready": {"it": "PRONTO", "en": "READY"},
    "table_n": {"it": "TAVOLO {n}", "en": "TABLE {n}"},
    "versus": {"it": "contro", "en": "versus"},
    "round_n": {"it": "turno {n}", "en": "round {n}"},
    "waiting_deal": {"it": "in attesa della smazzata", "en": "waiting for a deal"},
    "undo": {"it": "ANNULLATA", "en": "UNDONE"},
    "redraw": {"it": "RIPESCANO", "en": "DRAW AGAIN"},
    "partner": {"it": "COMPAGNO", "en": "PARTNER"},
    "withdrawn": {"it": "RITIRATA", "en": "WITHDRAWN"},
    "declaration": {"it": "ACCUSO", "en": "DECLARED"},
    "points_short": {"it": "{n} pt", "en": "{n} pts"},
    "yes": {"it": "sì", "en": "yes"},
    "in_mano": {"it": "in mano", "en": "in hand"},
}

RULES: dict[str, dict[str, str]] = {
    "out_of_turn": {"it": "Fuori turno", "en": "Out of turn"},
    "revoke": {"it": "Non risponde", "en": "Revoke"},
    "must_trump": {"it": "Doveva tagliare", "en": "Must trump"},
    "must_overtrump": {"it": "Doveva surtagliare", "en": "Must overtrump"},
    "duplicate_card": {"it": "Carta doppia", "en": "Duplicate card"},
    "bad_card": {"it": "Carta estranea", "en": "Foreign card"},
    "move_timer": {"it": "Tempo scaduto", "en": "Time is up"},
    "false_declaration": {"it": "Accuso falso", "en": "False declaration"},
    "false_meld": {"it": "Accuso falso", "en": "False meld"},
    "wrong_dealer": {"it": "Mazziere sbagliato", "en": "Wrong dealer"},
    # chiamata: the caller called "in mano" a card another seat then played
    "in_mano_card_elsewhere": {"it": "Chiamata in mano falsa", "en": "False in-hand call"},
}

#: declaration kinds (belotta rule 3, binocolo rule 3) as the table calls them
DECLARATIONS: dict[str, dict[str, str]] = {
    "terza": {"it": "TERZA", "en": "TIERCE"},
    "cinquanta": {"it": "CINQUANTA", "en": "FIFTY"},
    "cento": {"it": "CENTO", "en": "HUNDRED"},
    "carre": {"it": "CARRÉ", "en": "CARRÉ"},
    "belotta": {"it": "BELOTTA", "en": "BELOTE"},
    "nove": {"it": "NOVE", "en": "DIX"},
    "coppia": {"it": "COPPIA", "en": "MARRIAGE"},
    "quattro_jack": {"it": "4 FANTI", "en": "4 JACKS"},
    "quattro_donne": {"it": "4 DONNE", "en": "4 QUEENS"},
    "quattro_re": {"it": "4 RE", "en": "4 KINGS"},
    "quattro_assi": {"it": "4 ASSI", "en": "4 ACES"},
    "binocolo": {"it": "BINOCOLO", "en": "PINOCHLE"},
    "scala": {"it": "SCALA", "en": "RUN"},
}

#: rule options as the game menu names them (docs/games.md explains each)
OPTIONS: dict[str, dict[str, str]] = {
    "out_of_turn": {"it": "Fuori turno", "en": "Out of turn"},
    "tie": {"it": "Pareggio", "en": "Tie"},
    "rounds_to_win": {"it": "Giochi per vincere", "en": "Games to win"},
    "move_timer_s": {"it": "Tempo a mossa (s)", "en": "Move timer (s)"},
    "first_leader": {"it": "Primo di mano", "en": "First to lead"},
    "end_at_61": {"it": "Fine a 61", "en": "End at 61"},
    "deals": {"it": "Smazzate", "en": "Deals"},
    "auction": {"it": "Asta", "en": "Auction"},
    "multiplier_needs_two": {"it": "Doppia solo col 2", "en": "Double needs the 2"},
    "multiplier_on_loss": {"it": "Doppia se perde", "en": "Double on a loss"},
    "forfait_dealer": {"it": "Mazziere dopo forfait", "en": "Dealer after forfait"},
    "must_undertrump": {"it": "Obbligo sottotaglio", "en": "Must undertrump"},
    "longer_cento_wins": {"it": "Vince il cento lungo", "en": "Longer cento wins"},
    "bagno_belotta_stays": {"it": "Belotta nel bagno", "en": "Belote in a bagno"},
    "target": {"it": "Punti per vincere", "en": "Points to win"},
    "card_order": {"it": "Ordine carte", "en": "Card order"},
    "overtrump": {"it": "Surtaglio", "en": "Overtrump"},
    "bestia": {"it": "Bestia", "en": "Bestia"},
    "declarer_scores": {"it": "Chi chiama segna", "en": "Declarer scores"},
    "scala": {"it": "Scala", "en": "Run"},
    "meld_reuse": {"it": "Carte in più accusi", "en": "Cards in 2 melds"},
    "min_bid": {"it": "Offerta minima", "en": "Lowest bid"},
}

ITALIAN_SUIT_SHORT = {"bastoni": "Bas", "coppe": "Cop", "denari": "Den", "spade": "Spa"}
FRENCH_SUIT_SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
ENGLISH_RANK_NAMES = {"1": "ace", "8": "knave", "9": "knight", "10": "king"}
ENGLISH_SUIT_NAMES = {"bastoni": "batons", "coppe": "cups", "denari": "coins", "spade": "swords"}
ITALIAN_RANK_SHORT = {"1": "A", "8": "F", "9": "C", "10": "R"}


#: seats as the table names them: in Italian W (west) is O (Ovest)
SEAT_NAMES = {"it": {"W": "O"}}
_SEAT_TOKEN = re.compile(r"(?<![A-Za-z])[NWSE](?![A-Za-z])")


def seat_text(lang: str, text: str) -> str:
    """``text`` naming seats (``W``, ``W+E``, ``N W S E``, ``W: 3 Cop``) as ``lang`` names
    them; other words are left alone.

    >>> seat_text("it", "W+E"), seat_text("en", "W+E")
    ('O+E', 'W+E')
    """
    names = SEAT_NAMES.get(lang)
    if not names:
        return text
    return _SEAT_TOKEN.sub(lambda m: names.get(m.group(0), m.group(0)), text)


def tr(lang: str, key: str, **values: object) -> str:
    """The message ``key`` in ``lang`` (falls back to Italian), formatted with ``values``."""
    entry = MESSAGES[key]
    return entry.get(lang, entry["it"]).format(**values)


def rule_name(lang: str, rule: str) -> str:
    """A violation rule's display name; unknown game-specific rules show their code."""
    entry = RULES.get(rule)
    return entry.get(lang, entry["it"]) if entry else rule.replace("_", " ")


def option_name(lang: str, option: str) -> str:
    """A rule option's name on the game menu; an unknown one shows its key."""
    entry = OPTIONS.get(option)
    return entry.get(lang, entry["it"]) if entry else option.replace("_", " ")


def declaration_name(lang: str, kind: str) -> str:
    """A declaration's (or meld's) name; an unknown kind shows its code."""
    entry = DECLARATIONS.get(kind)
    return entry.get(lang, entry["it"]) if entry else kind.replace("_", " ").upper()


def card_short(code: str) -> str:
    """A card in a few characters: ``coppe_10`` -> ``R Cop``, ``10H`` -> ``10♥``."""
    card = parse_card(code)
    if card.italian:
        return f"{ITALIAN_RANK_SHORT.get(card.rank, card.rank)} {ITALIAN_SUIT_SHORT[card.suit]}"
    return f"{card.rank}{FRENCH_SUIT_SYMBOL[card.suit]}"


def card_long(lang: str, code: str) -> str:
    """A card in words for the larger screens: ``re di denari`` / ``10♥``."""
    card = parse_card(code)
    if not card.italian:
        return card_short(code)
    if lang == "it":
        return f"{ITALIAN_RANK_NAMES.get(card.rank, card.rank)} di {card.suit}"
    rank = ENGLISH_RANK_NAMES.get(card.rank, card.rank)
    return f"{rank} of {ENGLISH_SUIT_NAMES[card.suit]}"
