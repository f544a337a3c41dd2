"""Three buttons (left, OK, right; to GND, internal pull-ups), short press and hold.

Six gestures cover everything the table needs; while a question about a card is open a
press answers it, and in a menu (contract, deal card, the card picker) the same buttons move
through the menu instead (:data:`MENU_GESTURES`):

========  ===============  ======================  =========================  ============================
button    press            hold (``pins.hold_s``)   press on a question        in the menu
========  ===============  ======================  =========================  ============================
left      show last trick  undo the last play      no (not that card)         previous value / (hold) back
OK        confirm card     open the entry menu     yes, the card shown        next field / (hold) cancel
right     show the score   next deal               next card offered; after   next value
                                                   the last, the card picker
========  ===============  ======================  =========================  ============================

The entry menu (:mod:`referee.box.entry_menu`) enters what the camera cannot see: contract,
declarations and melds, discard, forfait, via, the game. The card picker (suit, then card)
names any card of the deck: OK answers the question with it;
backed out of (hold left on the suit, or hold OK) it gives the question back, except after
"did <seat> play?", where backing out means the seat did not play. While a question is open
the hold of right does not start the next deal (answer the question first).

>>> from gpiozero.pins.mock import MockFactory
>>> buttons = Buttons(PinsConfig(), on_gesture=print, pin_factory=MockFactory())
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.box.config import PinsConfig

GESTURES: dict[tuple[str, str], str] = {
    ("left", "press"): "last_trick",
    ("left", "hold"): "undo",
    ("ok", "press"): "confirm",
    ("ok", "hold"): "menu",
    ("right", "press"): "score",
    ("right", "hold"): "next_deal",
}
MENU_GESTURES: dict[tuple[str, str], str] = {
    ("left", "press"): "prev",
    ("left", "hold"): "back",
    ("ok", "press"): "select",
    ("ok", "hold"): "cancel",
    ("right", "press"): "next",
    ("right", "hold"): "next",
}


class Buttons:
    """Calls ``on_gesture(button, "press"|"hold")``: a press on release, a hold once held."""

    def __init__(
        self,
        pins: PinsConfig,
        on_gesture: Callable[[str, str], None],
        pin_factory: Any = None,
    ) -> None:
        from gpiozero import Button

        self.on_gesture = on_gesture
        self.buttons: dict[str, Any] = {}
        for name, pin in (("left", pins.button_left), ("ok", pins.button_ok), ("right", pins.button_right)):
            button = Button(pin, hold_time=pins.hold_s, bounce_time=None, pin_factory=pin_factory)
            button.when_held = self._held(name)
            button.when_released = self._released(name)
            self.buttons[name] = button
        self._was_held: dict[str, bool] = dict.fromkeys(self.buttons, False)

    def _held(self, name: str) -> Callable[[], None]:
        def fire() -> None:
            self._was_held[name] = True
            self.on_gesture(name, "hold")

        return fire

    def _released(self, name: str) -> Callable[[], None]:
        def fire() -> None:
            if not self._was_held[name]:  # a hold already fired its gesture
                self.on_gesture(name, "press")
            self._was_held[name] = False

        return fire

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
