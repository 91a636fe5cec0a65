"""Metric functions of one confusion table, for counts and posterior draws alike.

``average`` and ``zero_division`` follow scikit-learn's ``precision_recall_fscore_support``.

Design notes: docs/design.md#metrics-multiclass
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .._core.describe import describe
from .._core.validation import (
    check_choice,
    check_labels,
    check_positive,
    check_table,
    check_zero_division,
)
from ._divide import Average, ZeroDivision, finish_average, safe_divide
from ._sums import class_sums

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "fbeta",
    "f1",
    "precision",
    "recall",
    "accuracy",
    "macro_f1_star",
]

_AVERAGES = ("micro", "macro", "weighted", "binary", None)


def check_common(
    table: ArrayLike,
    average: Any,
    labels: Any,
    pos_label: Any,
    zero_division: Any,
    averages: Sequence[Any] = _AVERAGES,
) -> tuple[np.ndarray, np.ndarray | None, ZeroDivision]:
    """Validate the arguments of a metric function taking ``average``: ``(table, labels, zd)``."""
    t = check_table(table)
    m = t.shape[-1]
    check_choice(average, "average", averages)
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


class Score(Protocol):
    # The static type of what make_score builds: mypy cannot read a signature made at run
    # time, so this one copy of the signature stays (it must equal score's below).
    def __call__(
        self,
        table: ArrayLike,
        *,
        average: Average = ...,
        labels: Sequence[int] | None = ...,
        pos_label: int = ...,
        zero_division: ZeroDivision = ...,
    ) -> np.ndarray: ...


def _parameters(averages: Sequence[str | None]) -> str:
    """The Parameters and Returns sections of every function :func:`make_score` builds."""
    first = sorted(averages, key=lambda a: a != "macro")  # numpydoc: the default first
    choices = ", ".join("None" if a is None else f'"{a}"' for a in first)
    return f"""Parameters
    ----------
    table : array_like, shape (..., M, M)
        Counts or cell probabilities; rows are true classes.
    average : {{{choices}}}, default "macro"
        ``None`` returns one value per class on a trailing axis.
    labels : sequence of int, optional
        Class indices to include (and their order for ``average=None``).
    pos_label : int, default 1
        Positive class for ``average="binary"`` (2 x 2 tables only).
    zero_division : {{"warn", 0, 1, numpy.nan}}, default "warn"
        Value of a 0/0 on counts ("warn" gives 0 and warns); NaN classes are left
        out of averages.

    Returns
    -------
    ndarray, shape (...) or (..., K)
        The value; a 0-d array for one table.
"""


def make_score(
    name: str,
    path: Callable[..., np.ndarray],
    doc: str,
    averages: tuple[str | None, ...] = _AVERAGES,
    module: str = __name__,
) -> Score:
    """A public metric function: validate, then the metric path ``path``.

    ``path(t, average=, labels=, zero_division=)`` takes the validated table and is
    called directly (a :func:`functools.partial` adds no frame), so the warnings of
    :func:`._divide.safe_divide` still point at the caller's line. ``averages`` are the
    allowed values of ``average``; ``module`` is where the function is published (for
    pickle and documentation tools). ``doc`` holds ``{parameters}`` where the shared
    Parameters and Returns sections go.
    """

    def score(
        table: ArrayLike,
        *,
        average: Average = "macro",
        labels: Sequence[int] | None = None,
        pos_label: int = 1,
        zero_division: ZeroDivision = "warn",
    ) -> np.ndarray:
        t, lab, zd = check_common(table, average, labels, pos_label, zero_division, averages)
        return path(t, average=average, labels=lab, zero_division=zd)

    score.__name__ = score.__qualname__ = name
    score.__module__ = module
    score.__doc__ = doc.replace("{parameters}", _parameters(averages))
    return score


def fbeta_values(
    t: np.ndarray,
    beta2: float,
    average: Average,
    labels: Any,
    zero_division: ZeroDivision,
) -> np.ndarray:
    """F-beta of a validated float table: ``beta2`` = beta squared, ``labels`` indices or None.

    The unchecked core of :func:`fbeta` (also lent to the threshold analysis).
    """
    tp, pred, true = class_sums(t, labels)
    if average == "micro":
        tp, pred, true = tp.sum(-1), pred.sum(-1), true.sum(-1)
    den = true + pred if beta2 == 1.0 else beta2 * true + pred  # 1.0 * x is x exactly
    score = safe_divide((1.0 + beta2) * tp, den, zero_division, "F-score")
    return finish_average(score, true, average)


def precision_values(
    t: np.ndarray, average: Average, labels: Any, zero_division: ZeroDivision
) -> np.ndarray:
    tp, pred, true = class_sums(t, labels)
    if average == "micro":
        tp, pred = tp.sum(-1), pred.sum(-1)
    return finish_average(safe_divide(tp, pred, zero_division, "Precision"), true, average)


def recall_values(
    t: np.ndarray, average: Average, labels: Any, zero_division: ZeroDivision
) -> np.ndarray:
    tp, _, true = class_sums(t, labels)
    if average == "micro":
        tp, true = tp.sum(-1), true.sum(-1)
    score = safe_divide(tp, true, zero_division, "Recall")
    return finish_average(score, true if average != "micro" else None, average)


def fbeta(
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
    average : {"macro", "micro", "weighted", "binary", None}, default "macro"
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

    See Also
    --------
    f1posterior.f1 : F-beta with beta = 1.
    f1posterior.precision, f1posterior.recall : The two scores F-beta weighs.
    f1posterior.evaluate : Their posterior given the counts.

    Examples
    --------
    >>> fbeta([[8, 2], [1, 9]], beta=2.0, average="binary")
    array(0.88235294)
    """
    t, lab, zd = check_common(table, average, labels, pos_label, zero_division)
    b = check_positive(beta, "beta")
    return fbeta_values(t, b * b, average, lab, zd)


# One call per public function of the common signature, each with its own docstring:
# the three calls share a shape, not code.
f1 = make_score(
    "f1",
    partial(fbeta_values, beta2=1.0),
    """F1 score of confusion tables (F-beta with beta = 1).

    ``F1_j = 2 tp_j / (2 tp_j + fn_j + fp_j)`` per class, averaged as scikit-learn does;
    the same function gives the observed score of counts and the posterior draws of
    sampled cell probabilities.

    {parameters}
    See Also
    --------
    f1posterior.fbeta : Any weight of recall against precision.
    f1posterior.macro_f1_star : Harmonic mean of macro precision and macro recall.
    f1posterior.evaluate : Posterior summaries of F1 and other metrics.

    Examples
    --------
    >>> f1([[8, 2], [1, 9]], average=None)
    array([0.84210526, 0.85714286])
    >>> f1([[8, 2], [1, 9]], average="micro")
    array(0.85)
    """,
)
precision = make_score(
    "precision",
    precision_values,
    """Precision ``tp_j / (tp_j + fp_j)`` of confusion tables.

    {parameters}
    See Also
    --------
    f1posterior.recall : The other half of F1.
    f1posterior.f1 : Their harmonic mean.

    Examples
    --------
    >>> precision([[8, 2], [1, 9]], average="binary")
    array(0.81818182)
    """,
)
recall = make_score(
    "recall",
    recall_values,
    """Recall ``tp_j / (tp_j + fn_j)`` of confusion tables (``theta_jj``).

    {parameters}
    See Also
    --------
    f1posterior.precision : The other half of F1.
    f1posterior.f1 : Their harmonic mean.
    f1posterior.exact_posterior : Recall's exact Beta posterior.

    Examples
    --------
    >>> recall([[8, 2], [1, 9]], average="binary")
    array(0.9)
    """,
)


def accuracy(table: ArrayLike) -> np.ndarray:
    """Accuracy ``trace / total`` (equal to micro-F1 for single-label tables).

    Parameters
    ----------
    table : array_like, shape (..., M, M)
        Counts or cell probabilities; rows are true classes.

    Returns
    -------
    ndarray, shape (...)
        The accuracy; 0 for an empty table.

    See Also
    --------
    f1posterior.f1 : ``average="micro"`` gives the same value.
    f1posterior.metrics.balanced_accuracy : Mean recall over the classes.

    Examples
    --------
    >>> accuracy([[8, 2], [1, 9]])
    array(0.85)
    """
    t = check_table(table)
    return accuracy_values(t)


def accuracy_values(t: np.ndarray) -> np.ndarray:
    return safe_divide(np.trace(t, axis1=-2, axis2=-1), t.sum(axis=(-2, -1)), 0.0, "Accuracy")


def macro_f1_star(
    table: ArrayLike,
    *,
    labels: Sequence[int] | None = None,
    zero_division: ZeroDivision = "warn",
) -> np.ndarray:
    """Macro-F1*: the harmonic mean of macro precision and macro recall.

    Not the same as macro-F1 (the mean of per-class F1); Opitz & Burst (2019)
    discuss the difference. ``0/0`` (both macro averages zero) follows
    ``zero_division``.

    Parameters
    ----------
    table : array_like, shape (..., M, M)
        Counts or cell probabilities; rows are true classes.
    labels : sequence of int, optional
        Class indices to include in the macro averages.
    zero_division : {"warn", 0, 1, numpy.nan}, default "warn"
        Value of a 0/0 on counts ("warn" gives 0 and warns).

    Returns
    -------
    ndarray, shape (...)
        The score; a 0-d array for one table.

    See Also
    --------
    f1posterior.f1 : Macro-F1 with ``average="macro"``.
    f1posterior.precision, f1posterior.recall : The two macro averages.

    Examples
    --------
    >>> macro_f1_star([[8, 2], [1, 9]])
    array(0.85176401)
    """
    t, lab, zd = check_common(table, "macro", labels, 1, zero_division)
    return f1_star(t, lab, zd)


def f1_star(t: np.ndarray, labels: Any, zero_division: ZeroDivision) -> np.ndarray:
    p = precision_values(t, "macro", labels, zero_division)
    r = recall_values(t, "macro", labels, zero_division)
    return safe_divide(2.0 * p * r, p + r, zero_division, "Macro-F1*")
