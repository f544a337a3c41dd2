"""The phone console the box serves (``[web]`` in the config; docs/design/console.md).

A second front end of the box's table beside the buttons: a scoreboard anyone on the club's
network may open, an operator view and a JSON API behind the table PIN. It runs in a thread
with its own asyncio loop (:mod:`referee.web.server`); every request that reads or changes the
table is handed to the box's main loop through one :class:`~referee.web.mailbox.Mailbox` and
run there, one at a time, in order (:mod:`referee.web.desk`), so two phones and the buttons
cannot record an event twice or out of order.
"""
