"""The table layer: between the camera and the rules core, the plays the camera proposes, the
questions the referee asks and the answers it gets, as typed values; and one
:class:`~referee.table.session.TableSession` per table (rules core + arbiter + what follows
an applied event) that ``referee watch``, the demo and the box drive.  See
``docs/design/table.md``.

Import the values from their modules (``referee.table.question`` ...); this package imports
nothing, so the arbiter and the values can import each other's modules freely.
"""
