"""``referee`` command line: one sub-command per module, imported only when used.

Each module named in :data:`COMMANDS` (one per sub-command, most in this package) provides
``add_arguments(parser)`` and ``run(args) -> int``: the command line, printing and exit status,
calling into the library for the work.  Importing lazily keeps ``referee replay`` free of OpenCV and
``referee run`` free of training code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from referee import __version__
from referee.errors import RefereeError

#: what ``referee --help`` says before the commands
DESCRIPTION = (
    "Card table referee: a camera over the table recognises the cards laid face up, referees "
    "Briscola (2, 4, chiamata), Belotta and Binocolo, and keeps a crash-safe record of each match."
)
EPILOG = "Start with 'referee demo' (a simulated game, no camera needed). 'referee COMMAND --help' shows a command's options."

#: exit status of a command that stopped on a RefereeError (argparse's for a bad command line)
EXIT_ERROR = 2

#: sub-command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("referee.cli.replay", "referee a JSON Lines event log, print the calls"),
    "demo": ("referee.cli.demo", "simulate a game on video and referee it end to end"),
    "detect": ("referee.cli.detect", "find and recognise face-up cards in images"),
    "calibrate": ("referee.cli.calibrate", "make a table layout file from one frame"),
    "watch": ("referee.cli.watch", "run the live camera loop and print calls"),
    "train": ("referee.cli.train", "train a card recogniser and export ONNX"),
    "enroll": ("referee.cli.enroll", "adapt the recogniser to a club's own deck"),
    "run": ("referee.cli.run", "the appliance main loop started by the service"),
    "history": ("referee.cli.history", "list recorded matches, export one as JSON Lines"),
    "tournament": ("referee.cli.tournament", "the club's tournament service: results, room page"),
}


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="referee", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    # Only the chosen command's module is imported; the others just show their help line.
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            importlib.import_module(module_name).add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one sub-command; its exit status.

    From the command line (``argv`` None) an error the referee raises on purpose
    (:class:`~referee.errors.RefereeError`: its message names the file, line or key) is printed
    as one line, status 2, never a traceback; called with ``argv`` (tests, other programs) it
    propagates, so callers can tell the errors apart.
    """
    command_line = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(argv).parse_args(argv)
    module = importlib.import_module(COMMANDS[args.command][0])
    try:
        result: int = module.run(args)
    except RefereeError as exc:
        if not command_line:
            raise
        print(f"referee {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return result


if __name__ == "__main__":
    sys.exit(main())
