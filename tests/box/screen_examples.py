"""One example of every screen, named; the golden PNGs in tests/data/box/ are these rendered."""

from __future__ import annotations

from referee.box.screens import (
    AssignmentScreen,
    CalibrateScreen,
    ConfirmScreen,
    DealerScreen,
    DeclarationScreen,
    FaultScreen,
    LastTrickScreen,
    MenuScreen,
    MessageScreen,
    RefusedScreen,
    ResultScreen,
    ScoreScreen,
    Screen,
    TimerScreen,
    TrickScreen,
    ViolationScreen,
    WithdrawnScreen,
)

EXAMPLES: dict[str, Screen] = {
    "score": ScoreScreen(points=[("N+S", 45), ("W+E", 30)], turn="W", games="1-0", contract="R Cop"),
    # a 0 over a 0 must not touch (it read as an 8)
    "score_zeros": ScoreScreen(points=[("N+S", 0), ("W+E", 0)], turn="N", games="0-0", contract="A Den"),
    # belotta: the written score toward 151, the trump and who chose it
    "score_belotta": ScoreScreen(points=[("N+S", 80), ("W+E", 100)], turn="E", contract="♥ W", target=151),
    # chiamata: each seat's credits (not card points), the called card and the target
    "score_five": ScoreScreen(points=[("A", 4), ("B", -2), ("C", -1), ("D", 0), ("E", -1)], turn="C",
                              contract="B: 3 Cop 71"),
    # binocolo, four seats: the running score toward 100, the declarer's bid and trump
    "score_four": ScoreScreen(points=[("N", 45), ("W", -20), ("S", 100), ("E", 7)], turn="S",
                              contract="N 20 ♠", target=100),
    "calibrate": CalibrateScreen(),
    # the entry menu (hold OK): what to enter, then e.g. a meld's cards one by one
    "menu_entry": MenuScreen(title="binocolo", label_key="field_entry", value="SCARTO", step="2/4",
                             header_key="entry"),
    "menu_cards": MenuScreen(title="declare", label_key="", value="♠ picche", step="2/3",
                             header_key="entry_declare", label="W: K♥ Q♥"),
    "menu_called_rank": MenuScreen(title="briscola-chiamata", label_key="field_called_rank", value="3 Cop",
                                   step="3/6"),
    "menu_points_units": MenuScreen(title="briscola-chiamata", label_key="field_points_units", value="71",
                                    step="5/6"),
    "refused": RefusedScreen(reason="key 'cards': the declarer discards as many cards as the widow holds (4), got 3"),
    "trick": TrickScreen(number=3, winner="S", points=14),
    "violation": ViolationScreen(seat="W", rule="out_of_turn", trick=3),
    "violation_overtrump": ViolationScreen(seat="E", rule="must_overtrump", trick=5),
    "last_trick": LastTrickScreen(
        number=7, winner="S", cards=[("N", "coppe_3"), ("W", "denari_10"), ("S", "coppe_1"), ("E", "spade_8")]
    ),
    "last_trick_french": LastTrickScreen(
        number=2, winner="E", cards=[("N", "10H"), ("W", "JH"), ("S", "AS"), ("E", "9H")]
    ),
    "dealer": DealerScreen(seat="E", card="denari_10"),
    "timer": TimerScreen(seat="N", left_s=17, total_s=20),
    "timer_warning": TimerScreen(seat="N", left_s=4, total_s=20, warning=True),
    "confirm": ConfirmScreen(seat="S", card="bastoni_9"),
    "confirm_missed": ConfirmScreen(seat="N", card="coppe_3", missed=True),
    "confirm_violation": ConfirmScreen(seat="W", card="8C", violation="revoke"),
    "confirm_correction": ConfirmScreen(seat="E", card="coppe_9", instead_of="coppe_8"),
    # the last card offered: right opens the picker with every card of the deck
    "confirm_more": ConfirmScreen(seat="S", card="bastoni_9", more=True),
    "confirm_premise_more": ConfirmScreen(seat="N", card="AC", instead_of="AS", more=True),
    "menu_played_card": MenuScreen(title="N", label_key="field_played", value="3 di coppe", step="2/2",
                                   header_key="played_card", seat="N"),
    "deal_end": ResultScreen(match=False, winner="N+S", points=[("N+S", 70), ("W+E", 50)]),
    "match_end": ResultScreen(match=True, winner="W+E", points=[("N+S", 1), ("W+E", 2)]),
    "deal_end_belotta": ResultScreen(match=False, winner="W+E", points=[("N+S", 4), ("W+E", 12)]),
    "deal_end_chiamata": ResultScreen(match=False, winner="A+B", points=[("A", 4), ("B", 2), ("C", -2), ("D", -2),
                                                                          ("E", -2)]),
    "deal_end_bestia": ResultScreen(match=False, winner=None, points=[("N", -20), ("W", 34), ("S", 40)],
                                    note="N: BESTIA -20"),
    "deal_draw": ResultScreen(match=False, winner=None, points=[("N+S", 60), ("W+E", 60)]),
    "menu_trump": MenuScreen(title="belotta", label_key="field_trump", value="♥ cuori", step="2/3"),
    "menu_called": MenuScreen(title="briscola-chiamata", label_key="field_called", value="3 Cop", step="2/4"),
    "menu_bid": MenuScreen(title="binocolo", label_key="field_bid", value="20", step="2/4"),
    "menu_deal_card": MenuScreen(title="briscola-4", label_key="field_deal_card", value="3 di coppe",
                                 step="2/2", header_key="deal_card"),
    "violation_false_declaration": ViolationScreen(seat="W", rule="false_declaration", trick=2),
    "violation_wrong_dealer": ViolationScreen(seat="E", rule="wrong_dealer", trick=0),
    "violation_in_mano": ViolationScreen(seat="C", rule="in_mano_card_elsewhere", trick=4),
    "fault_camera": FaultScreen(what_key="fault_camera", retries=3),
    "fault_state": FaultScreen(what_key="fault_state", retries=1),
    "fault_start": FaultScreen(what_key="fault_start"),
    "fault_config": FaultScreen(what_key="fault_config"),
    # the tournament's assignment, before the match's first deal
    "assignment": AssignmentScreen(3, ("Rossi/Bianchi", "Verdi/Neri"), round=1),
    "assignment_five": AssignmentScreen(12, ("Rossi", "Bianchi", "Verdi", "Neri", "Gallo"), round=2),
    "ready": MessageScreen(title_key="ready", big="Briscola 4", line="N W S E"),
    "partner": MessageScreen(title_key="partner", big="D", line="3 Cop"),
    "undo": MessageScreen(title_key="undo", big="N: 3 Cop"),
    "redraw": MessageScreen(title_key="redraw", big="N S"),
    "withdrawn": WithdrawnScreen(seat="W", rule="revoke", trick=1),
    "withdrawn_long_rule": WithdrawnScreen(seat="E", rule="must_overtrump", trick=5),
    "declaration_belotta": DeclarationScreen(seat="W", kind="belotta", points=20, cards=("KH", "QH")),
    "declaration_terza": DeclarationScreen(seat="N", kind="terza", points=20, cards=("AS", "KS", "QS")),
    "declaration_cento": DeclarationScreen(
        seat="E", kind="cento", points=100, cards=("7D", "8D", "9D", "10D", "JD", "QD", "KD", "AD")
    ),
    "declaration_meld": DeclarationScreen(seat="S", kind="quattro_assi", points=10, cards=("AC", "AD", "AH", "AS")),
}
