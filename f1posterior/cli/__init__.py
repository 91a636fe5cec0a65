"""The ``f1posterior`` command line.

Each subcommand lives in its own module with a ``register(subparsers)``
function that adds its parser and sets ``run`` to a function of the parsed
arguments returning the exit status. Exit status: 0 success (or gate
passed), 1 gate failed, 2 usage or input error, 3 gate inconclusive. Errors are one line on
stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from . import compare, gate, summarize

__all__ = ["main", "build_parser"]

#: Subcommand modules, in the order they are listed in ``--help``.
SUBCOMMANDS = [summarize, compare, gate]


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (for documentation and tests)."""
    parser = _Parser(
        prog="f1posterior",
        description="How far to trust an F1 score: exact Bayesian posteriors of F-scores.",
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"f1posterior {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in SUBCOMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.run(args))
    except (ValueError, TypeError, OSError) as exc:
        message = " ".join(str(exc).split())
        print(f"f1posterior {args.command}: error: {message}", file=sys.stderr)
        return 2
