"""Arguments and helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .._core.limits import MIN_SUMMARY_DRAWS
from .._core.priors import DEFAULT_PRIOR, PRIOR_HELP, PRIOR_PRESETS, prior_preset
from .._core.signals import (
    clear_stop,
    raise_if_stopped,
    raise_stop,
    request_stop,
    stop_requested,
)
from .._core.streams import DEFAULT_DRAWS, DEFAULT_SEED
from .._core.validation import did_you_mean

__all__ = [
    "add_sampling_arguments",
    "check_interrupt",
    "interrupt_seen",
    "on_sigint",
    "reset_interrupt",
    "finite_number",
    "nonnegative_number",
    "number_type",
    "plot_path",
    "positive_int",
    "positive_number",
    "seed",
    "unit_number",
    "prior_from_args",
    "probability",
    "save_figure",
    "warn_prior",
]


def number_type(
    convert: Callable[[str], Any], ok: Callable[[Any], bool], allowed: str, name: str
) -> Callable[[str], Any]:
    """An argparse ``type``: ``convert(text)``, refused unless ``ok(value)``.

    The error names what is ``allowed`` and echoes the text received.
    """

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {allowed}; got {text!r}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"expected {allowed}; got {text!r}")
        return value

    parse.__name__ = name
    return parse


#: File suffixes of the figures the commands draw (matplotlib picks the format from them).
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def plot_path(text: str) -> str:
    """An argparse ``type``: a file name ending in one of :data:`PLOT_SUFFIXES`."""
    if Path(text).suffix.lower() not in PLOT_SUFFIXES:
        raise argparse.ArgumentTypeError(
            f"expected a file name ending in {', '.join(PLOT_SUFFIXES)}; got {text!r}"
        )
    return text


#: A probability in the open interval (0, 1).
probability = number_type(float, lambda v: 0.0 < v < 1.0, "a number in (0, 1)", "probability")
#: An integer >= 1.
positive_int = number_type(int, lambda v: v >= 1, "an integer >= 1", "positive_int")
#: Posterior draws of a summary: an integer >= 2 (its spread is estimated from the draws).
summary_draws = number_type(
    int, lambda v: v >= MIN_SUMMARY_DRAWS, f"an integer >= {MIN_SUMMARY_DRAWS}", "summary_draws"
)
#: A non-negative integer seed.
seed = number_type(int, lambda v: v >= 0, "a non-negative integer", "seed")
#: A number in the closed interval [0, 1].
unit_number = number_type(float, lambda v: 0.0 <= v <= 1.0, "a number in [0, 1]", "unit_number")
#: A finite number (the metric's own range is checked by the library).
finite_number = number_type(float, math.isfinite, "a finite number", "finite_number")
#: A finite number >= 0.
nonnegative_number = number_type(
    float, lambda v: 0.0 <= v < float("inf"), "a number >= 0", "nonnegative_number"
)
#: A finite number > 0.
positive_number = number_type(
    float, lambda v: 0.0 < v < float("inf"), "a number > 0", "positive_number"
)


def add_sampling_arguments(p: argparse.ArgumentParser, draws: int = DEFAULT_DRAWS) -> None:
    """--draws, --seed, --prior, --ci-prob."""
    p.add_argument(
        "--draws", type=summary_draws, default=draws, help=f"posterior draws (default {draws:,})"
    )
    p.add_argument(
        "--seed", type=seed, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})"
    )
    add_prior_argument(p)
    p.add_argument(
        "--ci-prob",
        type=probability,
        default=0.95,
        help="probability of the posterior intervals, HDI and ETI (default 0.95)",
    )


def add_prior_argument(p: argparse.ArgumentParser) -> None:
    """--prior, a preset of :data:`f1posterior._core.priors.PRIOR_PRESETS`."""
    p.add_argument(
        "--prior",
        choices=list(PRIOR_PRESETS),
        default=DEFAULT_PRIOR,
        help="prior preset (default %(default)s). "
        + "; ".join(f"{name}: {text}" for name, text in PRIOR_HELP.items()),
    )


#: ``why`` of :func:`check_metric_names` for a multi-label metric without --multilabel.
SINGLE_LABEL_WHY = "is a multi-label metric; add --multilabel, or use one of"


def check_metric_names(metrics: list[str], allowed: Sequence[str], why: str) -> None:
    """A one-line ValueError for the first of ``metrics`` not in ``allowed``.

    The message reads ``--metric NAME WHY A, B, ...`` (``why`` ends with "use one of").
    """
    unknown = [m for m in metrics if m not in allowed]
    if unknown:
        hint = did_you_mean(unknown[0], allowed)
        raise ValueError(f"--metric {unknown[0]} {why} " + ", ".join(allowed) + hint)


def refuse_options(option: str, flags: Sequence[tuple[str, Any]], why: str) -> None:
    """One line, ``OPTION takes no FLAG: WHY``, for the first of ``flags`` given (truthy)."""
    given = [flag for flag, on in flags if on]
    if given:
        raise ValueError(f"{option} takes no {given[0]}: {why}")


def prior_from_args(args: Any) -> dict[str, Any]:
    """Keyword arguments ``alpha``/``beta`` for the chosen preset."""
    alpha, beta = prior_preset(args.prior)
    return {"alpha": alpha, "beta": beta}


def warn_prior(result: Any) -> None:
    """Print the result's prior-dominance warning, if any, as one line on stderr."""
    line = result.prior_warning() if hasattr(result, "prior_warning") else None
    if line:
        print(f"f1posterior: {line}", file=sys.stderr)


def save_figure(fig: Any, path: str, flag: str) -> None:
    """Save a matplotlib figure to ``path`` (format from the suffix) through the one safe
    writer (:func:`f1posterior.io.atomic_output`), and say so on stderr."""
    from .._core.text import escape_text
    from ..io import atomic_output

    fmt = Path(path).suffix.lower().lstrip(".")
    with atomic_output(path, binary=True, flag=flag) as fh:
        fig.savefig(fh, format=fmt, dpi=120)
    print(f"{flag.removeprefix('--')} written to {escape_text(path)}", file=sys.stderr)


# ------------------------------------------------------------------------- interrupts
#: When a stop handler last raised (the stop itself is kept by ``_core.signals``).
_INTERRUPT = {"raised": -math.inf}
#: A stop signal within this many seconds of the last raise only adds to the flag.
RAISE_AGAIN_AFTER = 1.0


def on_sigint(signum: int, frame: Any) -> None:
    """SIGINT and SIGTERM handler of the command line: remember the signal, then raise.

    SIGINT raises ``KeyboardInterrupt`` (exit status 130), SIGTERM
    :class:`~f1posterior._core.signals.Terminated` (143). A signal repeated within
    :data:`RAISE_AGAIN_AFTER` seconds of the last raise (Ctrl-C pressed twice) only
    sets the flag: a second exception would cut short the clean-up of the first
    (the temporary output file, the worker processes). A ``KeyboardInterrupt``
    raised while the main thread runs a finaliser (``__del__``, a weakref or
    at-fork callback) is printed and dropped by Python, and the run would go on;
    the flag survives that, so the batch engine's waits, :func:`check_interrupt`
    (between chunks) and ``main`` (at the end) still stop with the right status,
    and a later signal raises again.
    """
    request_stop(signum)
    now = time.monotonic()
    if now - _INTERRUPT["raised"] < RAISE_AGAIN_AFTER:
        return
    _INTERRUPT["raised"] = now
    raise_stop(stop_requested())


def check_interrupt() -> None:
    """Raise if SIGINT or SIGTERM arrived (even if its first raise was lost)."""
    raise_if_stopped()


def interrupt_seen() -> int:
    """The first stop signal of this run, or 0."""
    return stop_requested()


def reset_interrupt() -> None:
    """Forget an earlier interrupt (each ``main`` call starts clean)."""
    clear_stop()
    _INTERRUPT["raised"] = -math.inf
