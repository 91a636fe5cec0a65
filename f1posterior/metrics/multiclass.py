"""Metric functions of one confusion table, for counts and posterior draws alike.

Every function takes a table of shape ``(..., M, M)`` (rows = true class,
columns = predicted class) holding either document counts or cell
probabilities, and returns the metric over the leading axes: ``(...)``, or
``(..., K)`` for ``average=None`` (one value per selected class). Because the
number of documents cancels from every F-score, precision, recall and
accuracy, the same code gives the observed score from counts and the
posterior draws from sampled probabilities (the cell probabilities
``p[u, v] = mu_u * theta_uv`` of Zhang, Wang & Zhao, ICTIR 2015).

``average`` and ``zero_division`` follow scikit-learn's
``precision_recall_fscore_support`` exactly; on counts the results equal
scikit-learn's on the predictions the table summarises, with
``labels=range(M)``.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from .._core.describe import describe
from .._core.validation import (
    check_choice,
    check_labels,
    check_positive,
    check_table,
    check_zero_division,
)

__all__ = [
    "UndefinedMetricWarning",
    "fbeta_score",
    "f1_score",
    "precision_score",
    "recall_score",
    "accuracy_score",
    "macro_f1_star_score",
    "METRICS",
    "PER_CLASS_METRICS",
    "resolve_metric",
]

Average = Literal["micro", "macro", "weighted", "binary"] | None
ZeroDivision = float | str
_AVERAGES = ("micro", "macro", "weighted", "binary", None)


class UndefinedMetricWarning(RuntimeWarning):
    """A score divided 0 by 0 on counts and took the ``zero_division`` value."""


def _divide(num: np.ndarray, den: np.ndarray, zero_division: ZeroDivision, what: str) -> np.ndarray:
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


_SHARED = threading.local()


@contextmanager
def shared_class_sums(table: np.ndarray) -> Iterator[None]:
    """Within the block, metrics of ``table`` (this very object) share its class sums.

    The batch engine passes each chunk of cell draws through several metrics; the
    diagonal, column sums and row sums are then computed once, by the same numpy
    calls, and reused (read-only), so every metric's value is unchanged bit for bit.
    Per thread; blocks may nest.
    """
    previous = getattr(_SHARED, "entry", None)
    _SHARED.entry = [table, None]
    try:
        yield
    finally:
        _SHARED.entry = previous


def _class_sums(table: np.ndarray, labels: np.ndarray | None):
    """tp, predicted totals and true totals per class, trailing class axis."""
    entry = getattr(_SHARED, "entry", None)
    if entry is not None and entry[0] is table:
        if entry[1] is None:
            entry[1] = _class_sums_of(table)
        tp, pred, true = entry[1]
    else:
        tp, pred, true = _class_sums_of(table)
    if labels is not None:
        tp, pred, true = tp[..., labels], pred[..., labels], true[..., labels]
    return tp, pred, true


def _class_sums_of(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.diagonal(table, axis1=-2, axis2=-1), table.sum(axis=-2), table.sum(axis=-1)


def _average(values: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """scikit-learn's ``_nanaverage`` over the trailing class axis.

    NaN values (``zero_division=np.nan``) are left out, with their weights; a
    weighted average whose remaining weights are all zero (``labels`` without
    support) is the plain mean of the values; only an all-NaN slice is NaN.
    """
    if weights is None:
        mean = values.mean(axis=-1)
        # a NaN among the values makes their mean NaN: look for them only then
        if np.isnan(mean).any() and np.isnan(values).any():
            return _nanmean(values)
        return mean
    total = weights.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (values * weights).sum(axis=-1) / total
    if not np.isnan(out).any():  # the common case: no NaN value, some support
        return out
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


def _check_common(table, average, labels, pos_label, zero_division):
    t = check_table(table)
    m = t.shape[-1]
    check_choice(average, "average", _AVERAGES)
    zd = check_zero_division(zero_division)
    lab = check_labels(labels, m)
    if average == "binary":
        if m != 2:
            raise ValueError(
                f'average="binary" needs a 2 x 2 table; got M = {m} classes '
                '(use average=None and pick a class, or "micro"/"macro"/"weighted")'
            )
        if lab is not None:
            raise ValueError('labels must be None with average="binary"; use pos_label')
        if isinstance(pos_label, bool) or pos_label not in (0, 1):
            raise ValueError(
                f'pos_label must be 0 or 1 (the positive class\'s index) with average="binary"; '
                f"got {describe(pos_label)}"
            )
        lab = np.array([int(pos_label)])
    return t, lab, zd


def _fbeta(t, beta2, average, labels, zero_division):
    tp, pred, true = _class_sums(t, labels)
    if average == "micro":
        tp, pred, true = tp.sum(-1), pred.sum(-1), true.sum(-1)
    den = true + pred if beta2 == 1.0 else beta2 * true + pred  # 1.0 * x is x exactly
    score = _divide((1.0 + beta2) * tp, den, zero_division, "F-score")
    return _finish(score, true, average)


def _precision(t, average, labels, zero_division):
    tp, pred, true = _class_sums(t, labels)
    if average == "micro":
        tp, pred = tp.sum(-1), pred.sum(-1)
    return _finish(_divide(tp, pred, zero_division, "Precision"), true, average)


def _recall(t, average, labels, zero_division):
    tp, _, true = _class_sums(t, labels)
    if average == "micro":
        tp, true = tp.sum(-1), true.sum(-1)
    score = _divide(tp, true, zero_division, "Recall")
    return _finish(score, true if average != "micro" else None, average)


def _finish(score, true, average):
    if average in ("micro", None):
        return score
    if average == "binary":
        return score[..., 0]
    return _average(score, true if average == "weighted" else None)


def fbeta_score(
    table: ArrayLike,
    *,
    beta: float,
    average: Average = "macro",
    labels: Sequence[int] | None = None,
    pos_label: int = 1,
    zero_division: ZeroDivision = "warn",
) -> np.ndarray:
    """F-beta score of confusion tables.

    ``F_beta_j = (1 + b^2) tp_j / ((1 + b^2) tp_j + b^2 fn_j + fp_j)`` per
    class, averaged as scikit-learn does.

    Parameters
    ----------
    table : array_like, shape (..., M, M)
        Counts or cell probabilities; rows are true classes.
    beta : float
        Weight of recall against precision, > 0.
    average : {"micro", "macro", "weighted", "binary", None}, default "macro"
        ``None`` returns one score per class on a trailing axis.
    labels : sequence of int, optional
        Class indices to include (and their order for ``average=None``).
    pos_label : int, default 1
        Positive class for ``average="binary"`` (2 x 2 tables only).
    zero_division : {"warn", 0, 1, numpy.nan}, default "warn"
        Value of a 0/0 score on counts ("warn" gives 0 and warns).

    Returns
    -------
    ndarray, shape (...) or (..., K)
        The score; a 0-d array for one table.

    Examples
    --------
    >>> fbeta_score([[8, 2], [1, 9]], beta=2.0, average="binary")
    array(0.88235294)
    """
    t, lab, zd = _check_common(table, average, labels, pos_label, zero_division)
    b = check_positive(beta, "beta")
    return _fbeta(t, b * b, average, lab, zd)


def f1_score(
    table: ArrayLike,
    *,
    average: Average = "macro",
    labels: Sequence[int] | None = None,
    pos_label: int = 1,
    zero_division: ZeroDivision = "warn",
) -> np.ndarray:
    """F1 score of confusion tables (F-beta with beta = 1).

    Parameters and returns as :func:`fbeta_score`.

    Examples
    --------
    >>> f1_score([[8, 2], [1, 9]], average=None)
    array([0.84210526, 0.85714286])
    >>> f1_score([[8, 2], [1, 9]], average="micro")
    array(0.85)
    """
    t, lab, zd = _check_common(table, average, labels, pos_label, zero_division)
    return _fbeta(t, 1.0, average, lab, zd)


def precision_score(
    table: ArrayLike,
    *,
    average: Average = "macro",
    labels: Sequence[int] | None = None,
    pos_label: int = 1,
    zero_division: ZeroDivision = "warn",
) -> np.ndarray:
    """Precision ``tp_j / (tp_j + fp_j)`` of confusion tables.

    Parameters and returns as :func:`fbeta_score` (without ``beta``).

    Examples
    --------
    >>> precision_score([[8, 2], [1, 9]], average="binary")
    array(0.81818182)
    """
    t, lab, zd = _check_common(table, average, labels, pos_label, zero_division)
    return _precision(t, average, lab, zd)


def recall_score(
    table: ArrayLike,
    *,
    average: Average = "macro",
    labels: Sequence[int] | None = None,
    pos_label: int = 1,
    zero_division: ZeroDivision = "warn",
) -> np.ndarray:
    """Recall ``tp_j / (tp_j + fn_j)`` of confusion tables (``theta_jj``).

    Parameters and returns as :func:`fbeta_score` (without ``beta``).

    Examples
    --------
    >>> recall_score([[8, 2], [1, 9]], average="binary")
    array(0.9)
    """
    t, lab, zd = _check_common(table, average, labels, pos_label, zero_division)
    return _recall(t, average, lab, zd)


def accuracy_score(table: ArrayLike) -> np.ndarray:
    """Accuracy ``trace / total`` (equal to micro-F1 for single-label tables).

    Parameters
    ----------
    table : array_like, shape (..., M, M)

    Returns
    -------
    ndarray, shape (...)

    Examples
    --------
    >>> accuracy_score([[8, 2], [1, 9]])
    array(0.85)
    """
    t = check_table(table)
    return _accuracy(t)


def _accuracy(t: np.ndarray) -> np.ndarray:
    return _divide(np.trace(t, axis1=-2, axis2=-1), t.sum(axis=(-2, -1)), 0.0, "Accuracy")


def macro_f1_star_score(
    table: ArrayLike,
    *,
    labels: Sequence[int] | None = None,
    zero_division: ZeroDivision = "warn",
) -> np.ndarray:
    """Macro-F1*: the harmonic mean of macro precision and macro recall.

    Not the same as macro-F1 (the mean of per-class F1); Opitz & Burst (2019)
    discuss the difference. ``0/0`` (both macro averages zero) follows
    ``zero_division``.

    Examples
    --------
    >>> macro_f1_star_score([[8, 2], [1, 9]])
    array(0.85176401)
    """
    t, lab, zd = _check_common(table, "macro", labels, 1, zero_division)
    return _f1_star(t, lab, zd)


def _f1_star(t, labels, zero_division):
    p = _precision(t, "macro", labels, zero_division)
    r = _recall(t, "macro", labels, zero_division)
    return _divide(2.0 * p * r, p + r, zero_division, "Macro-F1*")


# --- named metrics for evaluate(): callables of a validated float table --------------

_Z = 0.0  # zero_division of named metrics on counts: scikit-learn's default value, silently

METRICS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "micro_f1": lambda t: _fbeta(t, 1.0, "micro", None, _Z),
    "macro_f1": lambda t: _fbeta(t, 1.0, "macro", None, _Z),
    "weighted_f1": lambda t: _fbeta(t, 1.0, "weighted", None, _Z),
    "macro_f1_star": lambda t: _f1_star(t, None, _Z),
    "accuracy": _accuracy,
    "macro_precision": lambda t: _precision(t, "macro", None, _Z),
    "macro_recall": lambda t: _recall(t, "macro", None, _Z),
    "weighted_precision": lambda t: _precision(t, "weighted", None, _Z),
    "weighted_recall": lambda t: _recall(t, "weighted", None, _Z),
    "f1": lambda t: _fbeta(t, 1.0, None, None, _Z),
    "precision": lambda t: _precision(t, None, None, _Z),
    "recall": lambda t: _recall(t, None, None, _Z),
}
#: Named metrics with one value per class (trailing class axis).
PER_CLASS_METRICS = frozenset({"f1", "precision", "recall"})


def resolve_metric(metric: Any, name: str = "metrics") -> tuple[str, Callable[[np.ndarray], Any]]:
    """Return ``(display name, function of a table)`` for a metric name or callable.

    Examples
    --------
    >>> resolve_metric("macro_f1")[0]
    'macro_f1'
    """
    if callable(metric):
        return getattr(metric, "__name__", "custom"), metric
    if isinstance(metric, str) and metric in METRICS:
        return metric, METRICS[metric]
    raise ValueError(
        f"{name} must name known metrics ({', '.join(METRICS)}) or be callables of a "
        f"(..., M, M) table; got {describe(metric)}"
    )
