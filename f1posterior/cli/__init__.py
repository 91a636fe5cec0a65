"""The ``f1posterior`` command line.

Each subcommand lives in its own module with a ``register(subparsers)``
function that adds its parser and sets ``run`` to a function of the parsed
arguments returning the exit status. Exit status: 0 success (or gate
passed), 1 gate failed, 2 usage or input error (and any other failure),
3 gate inconclusive, 130 interrupted, 141 stdout closed (broken pipe).
Errors are one line on stderr, never a traceback: :func:`main` turns every
exception into one line ``f1posterior COMMAND: error: ...`` and exit 2.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

from . import aggregate, compare, gate, plan, summarize
from .common import check_interrupt, on_sigint, reset_interrupt

__all__ = ["main", "build_parser"]

#: Subcommand modules, in the order they are listed in ``--help``.
SUBCOMMANDS = [summarize, compare, gate, plan]
SUBCOMMANDS.append(aggregate)


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """argparse's invalid-choice error, with the closest choices suggested."""
        choices = action.choices
        if choices is not None and value not in choices and isinstance(value, str):
            from .._core.validation import did_you_mean

            names = [str(c) for c in choices]
            raise argparse.ArgumentError(
                action,
                f"invalid choice: {value!r}{did_you_mean(value, names)} (choose from "
                + ", ".join(names)
                + ")",
            )
        super()._check_value(action, value)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (for documentation and tests)."""
    parser = _Parser(
        prog="f1posterior",
        description="How far to trust an F1 score: exact Bayesian posteriors of F-scores.",
    )
    from .._core.version import __version__

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
    prefix = f"f1posterior {args.command}"
    reset_interrupt()
    previous = _install_sigint()
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning  # one line each, never a source excerpt
            status = int(args.run(args))
        check_interrupt()  # an interrupt whose KeyboardInterrupt Python dropped
        return status
    except BrokenPipeError:
        # stdout was closed (e.g. `| head -1`): no traceback, no message; exit 141
        # (128 + SIGPIPE, the shell's convention), never 0, so a closed pipe cannot turn
        # a failed gate into a pass. stdout goes to devnull so the final flush is silent.
        _silence_stdout()
        return 141
    except KeyboardInterrupt:
        print(f"{prefix}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError) as exc:
        print(f"{prefix}: error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except Exception as exc:  # every other failure: one line, exit 2, never a traceback
        print(f"{prefix}: error: {_describe_unexpected(exc)}", file=sys.stderr)
        return 2
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _install_sigint() -> Any:
    """Install :func:`~.common.on_sigint`; the previous handler (None off the main thread)."""
    try:
        return signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread: keep Python's default behaviour
        return None


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """``warnings.showwarning`` of the command line: ``f1posterior: warning: ...``, one line."""
    print(f"f1posterior: warning: {_one_line(str(message), 500)}", file=sys.stderr)


def _one_line(text: str, limit: int = 2000) -> str:
    """Whitespace (newlines included) collapsed, so the message is one line; long ones cut."""
    from .._core.text import escape_text

    line = escape_text(" ".join(text.split()))  # no raw ANSI escapes on the terminal
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _describe_unexpected(exc: BaseException) -> str:
    """A one-line message for an exception that is not a usage or input error."""
    name = type(exc).__name__
    what = {
        RecursionError: "the input is nested too deeply",
        MemoryError: "not enough memory (an input or --draws too large?)",
        EOFError: "the input ended unexpectedly (empty or truncated file?)",
        ZeroDivisionError: "division by zero (degenerate input or option)",
        OverflowError: "a number is too large",
    }
    for kind, text in what.items():
        if isinstance(exc, kind):
            detail = _one_line(str(exc), 300)
            return f"{text} ({name}{': ' + detail if detail else ''})"
    detail = _one_line(str(exc), 500)
    return f"{name}{': ' + detail if detail else ''}"


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
