"""The ``f1posterior`` command line.

Exit status: 0 success (or gate passed), 1 gate failed, 2 usage or input error, 3 gate
inconclusive, 130/143 interrupted/terminated, 141 stdout closed. Errors are one line.

Design notes: docs/design.md#cli
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import signal
import sys
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

from .._core.signals import (
    Terminated,
    end_startup,
    exit_now,
    exit_on_signal,
    exit_with,
    install,
    is_command,
    restore,
    signal_word,
)
from ._common import check_interrupt, interrupt_seen, on_sigint, reset_interrupt

__all__ = ["main", "build_parser"]

#: Each subcommand's module, in the order they are listed in ``--help``; a run imports
#: only its own command's module.
SUBCOMMANDS = {
    "summarize": "._summarize",
    "compare": "._compare",
    "gate": "._gate",
    "plan": "._plan",
    "aggregate": "._aggregate",
    "schema": "._schema",
}


def _terminal_columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` reads it (``COLUMNS``, then the
    terminal of stdout, else 80), without importing ``shutil`` (and its archive modules)
    on every run: argparse builds a formatter for each option it registers."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, its width from :func:`_terminal_columns`."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = _terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line on stderr and exit status 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

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


def build_parser(commands: Sequence[str] = tuple(SUBCOMMANDS)) -> argparse.ArgumentParser:
    """The full argument parser (for documentation and tests).

    Parameters
    ----------
    commands : sequence of str, optional
        The subcommands to register (default: every one); a run registers only its own.

    Returns
    -------
    argparse.ArgumentParser
        The parser of every subcommand.

    See Also
    --------
    f1posterior.cli.main : Parse and run.

    Examples
    --------
    >>> build_parser().parse_args(["summarize", "m.json"]).command
    'summarize'
    """
    parser = _Parser(
        prog="f1posterior",
        description="How far to trust an F1 score: exact Bayesian posteriors of F-scores.",
    )
    from .._core.version import __version__

    parser.add_argument("--version", action="version", version=f"f1posterior {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in commands:
        importlib.import_module(SUBCOMMANDS[name], __name__).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments; None reads ``sys.argv``.

    Returns
    -------
    int
        The exit status: 0 success, 1 gate failed, 2 usage or input error, 3 inconclusive.

    See Also
    --------
    f1posterior.cli.build_parser : The parser.
    f1posterior.evaluate : What ``summarize`` computes.

    Examples
    --------
    >>> main(["summarize", "no-such-file.json"])  # one line on stderr, exit status 2
    2
    """
    reset_interrupt()
    previous = install(on_sigint)  # SIGINT -> 130, SIGTERM -> 143, from the start
    hook, sys.unraisablehook = sys.unraisablehook, _quiet_interrupts(sys.unraisablehook)
    status = 2
    try:
        status = _run(argv)
        exit_with(status)  # the command may end without the interpreter's teardown
        return status
    finally:
        sys.unraisablehook = hook
        if is_command():  # the process is about to exit: a late signal exits at once
            install(exit_on_signal)
            # what is left is freed with the process: the interpreter's exit need not
            # trace it once more (docs/ci-gate.md, start-up)
            gc.freeze()
            if interrupt_seen():
                # stopped: exit now, not through the interpreter's teardown, during which
                # Python restores the default handlers (a second Ctrl-C would kill it)
                exit_now(status)
        else:  # main called from Python: its handlers back, and no stop left pending
            restore(previous)
            reset_interrupt()


def _quiet_interrupts(hook: Any) -> Any:
    """``sys.unraisablehook`` that drops the interrupts Python cannot raise (in a
    finaliser): the stop is kept by the handler, and reported once by :func:`main`."""

    def quiet(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            hook(unraisable)

    return quiet


def _run(argv: Sequence[str] | None) -> int:
    prefix = "f1posterior"
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        parser = build_parser(
            argv[:1] if argv[:1] and argv[0] in SUBCOMMANDS else list(SUBCOMMANDS)
        )
        args = parser.parse_args(argv)
        if getattr(args, "run", None) is None:
            parser.print_help(sys.stderr)
            return 2
        prefix = f"f1posterior {args.command}"
        end_startup()  # the command's modules are loaded: the collector from here
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
    except KeyboardInterrupt as exc:
        return _stopped(prefix, signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)
    except (ValueError, TypeError, OSError) as exc:
        if interrupt_seen():  # e.g. a worker pool broken by the same Ctrl-C
            return _stopped(prefix, interrupt_seen())
        print(f"{prefix}: error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except Exception as exc:  # every other failure: one line, exit 2, never a traceback
        if interrupt_seen():
            return _stopped(prefix, interrupt_seen())
        print(f"{prefix}: error: {_describe_unexpected(exc)}", file=sys.stderr)
        return 2


def _stopped(prefix: str, signum: int) -> int:
    """Report a stop by ``signum`` (one line); the exit status 128 + ``signum``."""
    print(f"{prefix}: {signal_word(signum)}", file=sys.stderr)
    return 128 + int(signum)


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
