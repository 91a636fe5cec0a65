"""Arguments and helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._core.priors import DEFAULT_PRIOR, PRIOR_HELP, PRIOR_PRESETS, prior_preset

__all__ = [
    "DEFAULT_SEED",
    "add_sampling_arguments",
    "prior_from_args",
    "probability",
    "warn_prior",
]

#: Default seed of the command line: runs are deterministic unless --seed says otherwise.
DEFAULT_SEED = 20150927


def probability(text: str) -> float:
    """argparse type: a probability in the open interval (0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1); got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1); got {text!r}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1; got {text!r}")
    return value


def seed(text: str) -> int:
    """argparse type: a non-negative integer seed."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer; got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer; got {text!r}")
    return value


def add_sampling_arguments(p: argparse.ArgumentParser, draws: int = 50_000) -> None:
    """--draws, --seed, --prior, --ci-prob."""
    p.add_argument(
        "--draws", type=positive_int, default=draws, help=f"posterior draws (default {draws:,})"
    )
    p.add_argument(
        "--seed", type=seed, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})"
    )
    p.add_argument(
        "--prior",
        choices=list(PRIOR_PRESETS),
        default=DEFAULT_PRIOR,
        help="prior preset (default %(default)s). "
        + "; ".join(f"{name}: {text}" for name, text in PRIOR_HELP.items()),
    )
    p.add_argument(
        "--ci-prob",
        "--hdi-prob",
        type=probability,
        default=0.95,
        help="probability of the posterior intervals, HDI and ETI (default 0.95; "
        "--hdi-prob is its old name)",
    )


def prior_from_args(args: Any) -> dict[str, Any]:
    """Keyword arguments ``alpha``/``beta`` for the chosen preset."""
    alpha, beta = prior_preset(args.prior)
    return {"alpha": alpha, "beta": beta}


def warn_prior(result: Any) -> None:
    """Print the result's prior-dominance warning, if any, as one line on stderr."""
    line = result.prior_warning() if hasattr(result, "prior_warning") else None
    if line:
        print(f"f1posterior: {line}", file=sys.stderr)
