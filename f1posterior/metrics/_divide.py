"""The one divide and the one class average of the metric path.

Every metric of :mod:`f1posterior.metrics` is a ratio of per-class sums of a
confusion table, divided by :func:`safe_divide` (scikit-learn's
``_prf_divide``: a 0/0 takes the ``zero_division`` value) and averaged over
classes by :func:`average_classes` (scikit-learn's ``_nanaverage``).
"""

from __future__ import annotations

import warnings
from typing import Literal

import numpy as np

__all__ = ["UndefinedMetricWarning", "safe_divide", "average_classes", "finish_average"]

Average = Literal["micro", "macro", "weighted", "binary"] | None
ZeroDivision = float | str


class UndefinedMetricWarning(RuntimeWarning):
    """A score divided 0 by 0 on counts and took the ``zero_division`` value.

    Raised as a warning by the table metric functions under ``zero_division="warn"``
    (their default); pass a number as ``zero_division`` to choose the value silently.

    See Also
    --------
    f1posterior.metrics.safe_divide : The one divide that warns.

    Examples
    --------
    >>> import warnings
    >>> from f1posterior import UndefinedMetricWarning, precision
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = precision([[5, 0], [3, 0]], average=None)
    >>> value, caught[0].category is UndefinedMetricWarning
    (array([0.625, 0.   ]), True)
    """


def safe_divide(
    num: np.ndarray, den: np.ndarray, zero_division: ZeroDivision = 0.0, what: str = "Score"
) -> np.ndarray:
    """``num / den``, with ``zero_division`` where ``den == 0``.

    Parameters
    ----------
    num, den : ndarray
        Broadcastable arrays; ``den`` is a sum of non-negative cells (counts or
        probabilities).
    zero_division : {0.0, "warn"} or float, default 0.0
        Value where ``den == 0``; ``"warn"`` gives 0.0 and an
        :class:`UndefinedMetricWarning` naming ``what``. Any float, ``numpy.nan``
        included, is used as it is, silently.
    what : str
        The metric's name, for the warning.

    Returns
    -------
    ndarray
        The broadcast shape, in the floating type of ``num / den``.

    See Also
    --------
    f1posterior.UndefinedMetricWarning : The warning of ``zero_division="warn"``.
    f1posterior.precision : A metric function built on this divide.

    Examples
    --------
    >>> safe_divide(np.array([1.0, 0.0]), np.array([4.0, 0.0]), np.nan)
    array([0.25,  nan])
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.asarray(num / den)
    if np.size(den) and np.min(den) > 0:  # the common case, one cheap pass: no 0/0
        return out
    undefined = den == 0
    if np.any(undefined):
        value = 0.0 if zero_division == "warn" else float(zero_division)
        out = np.where(undefined, value, out)
        if zero_division == "warn":
            warnings.warn(
                f"{what} is ill-defined (0/0) for some classes and is set to 0.0; "
                "choose another value with zero_division",
                UndefinedMetricWarning,
                stacklevel=4,
            )
    return out


def average_classes(values: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """scikit-learn's ``_nanaverage`` over the trailing class axis.

    NaN values (``zero_division=np.nan``) are left out, with their weights; a
    weighted average whose remaining weights are all zero (``labels`` without
    support) is the plain mean of the values; only an all-NaN slice is NaN.

    Examples
    --------
    >>> average_classes(np.array([0.5, np.nan, 1.0]), np.array([1.0, 5.0, 3.0]))
    array(0.875)
    """
    if weights is None:
        mean = values.mean(axis=-1)
        # a NaN among the values makes their mean NaN: look for them only then
        if np.isnan(mean).any() and np.isnan(values).any():
            return _nanmean(values)
        return np.asarray(mean)
    total = weights.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (values * weights).sum(axis=-1) / total
    if not np.isnan(out).any():  # the common case: no NaN value, some support
        return np.asarray(out)
    nan = np.isnan(values)
    w = np.where(nan, 0.0, weights)
    total = w.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (np.where(nan, 0.0, values) * w).sum(axis=-1) / total
    return np.where(total == 0, _nanmean(values), out)


def _nanmean(values: np.ndarray) -> np.ndarray:
    """Mean over the trailing axis ignoring NaN; NaN where every value is NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(np.nanmean(values, axis=-1))


def finish_average(score: np.ndarray, support: np.ndarray | None, average: Average) -> np.ndarray:
    """Per-class scores (trailing class axis) averaged as ``average`` asks.

    ``"micro"`` scores are already ratios of sums and ``None`` keeps the class
    axis: both pass through; ``"binary"`` takes the one selected class;
    ``"macro"`` and ``"weighted"`` (by ``support``, the true totals) go through
    :func:`average_classes`.
    """
    if average in ("micro", None):
        return score
    if average == "binary":
        return score[..., 0]
    return average_classes(score, support if average == "weighted" else None)
