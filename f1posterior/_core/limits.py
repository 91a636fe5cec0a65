"""Numeric limits of the inputs: exact table totals, Dirichlet concentrations, draws.

Re-exported by :mod:`f1posterior._core.validation`, which applies them.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "MAX_EXACT_TOTAL",
    "MIN_CONCENTRATION",
    "MAX_CONCENTRATION",
    "MIN_SUMMARY_DRAWS",
    "MIN_PRIOR_CHECK_DRAWS",
    "MAX_BASELINE_BYTES",
    "check_exact_totals",
    "check_concentrations",
]

#: Largest table total: every whole number up to 2**53 is exact in float64, so a
#: table's total (and every partial sum of its cells) adds up exactly.
MAX_EXACT_TOTAL = 2**53
#: Smallest Dirichlet concentration (prior or target prevalence): the smallest normal
#: float64; below it Gamma variates and their logarithms lose all precision.
MIN_CONCENTRATION = float(np.finfo(np.float64).tiny)
#: Largest Dirichlet concentration: far enough below the float maximum that a sum over
#: the classes, and the counts added to it, stay finite.
MAX_CONCENTRATION = 1e300
#: Fewest posterior draws a summary is made from: its standard deviation and Monte Carlo
#: error are estimated from the draws (one draw gives a standard deviation of 0).
MIN_SUMMARY_DRAWS = 2
#: Fewest draws the prior check is made from: it divides by the posterior's standard
#: deviation, estimated from the draws (within about 7% from 100 draws; from 3 draws a
#: standard deviation many times too small flags the prior at random).
MIN_PRIOR_CHECK_DRAWS = 100
#: Largest saved baseline read (``--baseline`` of a ``--save-baseline`` file), in bytes: a
#: 1,000-class matrix of large counts is about 20 MB.
MAX_BASELINE_BYTES = 64 << 20


def check_exact_totals(arr: np.ndarray, totals: np.ndarray, name: str) -> None:
    """Refuse a table whose total exceeds :data:`MAX_EXACT_TOTAL` (whole-number ``arr``).

    A float sum is within a relative ``M**2 * eps`` of the true total, so only tables
    whose float total is above ``2**52`` are summed again exactly, with Python ints.
    """
    near = np.argwhere(~(totals <= MAX_EXACT_TOTAL // 2))
    for idx in map(tuple, near):
        cells = arr[idx] if idx else arr
        exact = sum(int(v) for v in cells.ravel())
        if exact > MAX_EXACT_TOTAL:
            where = f" at batch index {tuple(int(i) for i in idx)}" if idx else ""
            shown = f"{exact:,}" if exact < 10**20 else f"about 10^{len(str(exact)) - 1}"
            raise ValueError(
                f"{name} must be whole-number counts small enough that a table's total adds up "
                f"exactly in float64 (total <= 2**53 = {MAX_EXACT_TOTAL:,}); got a total of "
                f"{shown}{where}"
            )


def check_concentrations(arr: np.ndarray, name: str, allowed: str) -> np.ndarray:
    """Dirichlet concentrations (a prior, a target prevalence): normal finite floats.

    Every entry must lie in [:data:`MIN_CONCENTRATION`, :data:`MAX_CONCENTRATION`]
    (NaN and infinities are refused). ``allowed`` words the message's "must ...".

    Examples
    --------
    >>> check_concentrations(np.array([0.5, 2.0]), "alpha", "be > 0").tolist()
    [0.5, 2.0]
    >>> check_concentrations(np.array([5e-324]), "alpha", "be > 0")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: alpha must be > 0; got minimum 5e-324, maximum 5e-324 (accepted: normal ...)
    """
    if arr.size and not (np.all(arr >= MIN_CONCENTRATION) and np.all(arr <= MAX_CONCENTRATION)):
        raise ValueError(
            f"{name} must {allowed}; got minimum {float(np.min(arr))!r}, maximum "
            f"{float(np.max(arr))!r} (accepted: normal floats from {MIN_CONCENTRATION!r} to "
            f"{MAX_CONCENTRATION!r})"
        )
    return arr
