"""Chance-corrected agreement of confusion tables: Matthews' correlation and Cohen's kappa.

Written with the one-vs-rest cells, so that no quantity is a difference of two nearly
equal sums.

Design notes: docs/design.md#metrics-agreement
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._core.validation import check_choice, check_table, check_zero_division
from ._divide import ZeroDivision, safe_divide
from ._sums import class_sums, one_vs_rest

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["mcc", "cohen_kappa"]


def mcc(table: ArrayLike, *, zero_division: ZeroDivision = 0.0) -> np.ndarray:
    """The Matthews correlation coefficient of confusion tables (Gorodkin's multi-class R_K).

    ``(n c - sum_k t_k p_k) / sqrt((n^2 - sum_k p_k^2)(n^2 - sum_k t_k^2))`` with ``c``
    the trace, ``t_k``/``p_k`` the true/predicted totals; equal to scikit-learn's
    ``matthews_corrcoef`` on the predictions the table summarises, and to
    ``(tp tn - fp fn) / sqrt((tp+fp)(tp+fn)(tn+fp)(tn+fn))`` for two classes. In [-1, 1].

    Parameters
    ----------
    table : array_like, shape (..., M, M)
        Counts or cell probabilities; rows are true classes.
    zero_division : {0, "warn", 1, numpy.nan}, default 0
        Value when all truths or all predictions are one class (scikit-learn: 0.0).

    Returns
    -------
    ndarray, shape (...)
        The correlation; a 0-d array for one table.

    See Also
    --------
    f1posterior.metrics.cohen_kappa : Agreement beyond chance.
    f1posterior.evaluate : The posterior of ``mcc`` given the counts.

    Examples
    --------
    >>> mcc([[8, 2], [1, 9]])  # (72 - 2) / sqrt(9 * 11 * 10 * 10)
    array(0.70352647)
    """
    t = check_table(table)
    return mcc_values(t, check_zero_division(zero_division))


def mcc_values(t: np.ndarray, zero_division: ZeroDivision = 0.0) -> np.ndarray:
    tp, fp, fn, tn = one_vs_rest(t)
    cov = (tp * tn - fp * fn).sum(axis=-1)
    var_pred = ((tp + fp) * (fn + tn)).sum(axis=-1)
    var_true = ((tp + fn) * (fp + tn)).sum(axis=-1)
    den = np.sqrt(var_pred) * np.sqrt(var_true)  # not sqrt of the product: no underflow
    # clipped: a perfect table's ratio a / (sqrt(a) sqrt(a)) can round to 1 + eps
    return np.asarray(np.clip(safe_divide(cov, den, zero_division, "Matthews correlation"), -1, 1))


_WEIGHTS = (None, "linear", "quadratic")


def cohen_kappa(
    table: ArrayLike, *, weights: str | None = None, zero_division: ZeroDivision = np.nan
) -> np.ndarray:
    """Kappa (Cohen, 1960) of confusion tables: agreement of truth and prediction beyond chance.

    ``(p_o - p_e) / (1 - p_e)`` with ``p_o`` the accuracy and ``p_e = sum_k t_k p_k /
    n^2`` the agreement of independent truth and predictions with the same totals;
    with ``weights``, ``1 - sum w O / sum w E`` for ``w_uv = |u - v|`` ("linear") or
    ``(u - v)^2`` ("quadratic") and ``E = t p^T / n``. Equal to scikit-learn's
    ``cohen_kappa_score(y_true, y_pred, labels=range(M), weights=...)``. At most 1.

    Parameters
    ----------
    table : array_like, shape (..., M, M)
        Counts or cell probabilities; rows are true classes.
    weights : {None, "linear", "quadratic"}, default None
        Disagreement weights of ordered classes; None counts every error alike.
    zero_division : {numpy.nan, "warn", 0, 1}, default numpy.nan
        Value when chance agreement is certain (every document and prediction in one
        class) or the table is empty; scikit-learn's ``replace_undefined_by``.

    Returns
    -------
    ndarray, shape (...)
        Kappa; a 0-d array for one table.

    See Also
    --------
    f1posterior.metrics.mcc : The Matthews correlation.
    f1posterior.accuracy : The observed agreement ``p_o``.

    Examples
    --------
    >>> cohen_kappa([[8, 2], [1, 9]])  # (0.85 - 0.5) / (1 - 0.5)
    array(0.7)
    """
    t = check_table(table)
    check_choice(weights, "weights", _WEIGHTS)
    zd = check_zero_division(zero_division)
    if weights is None:
        return kappa(t, zd)
    m = t.shape[-1]
    k = np.arange(m, dtype=float)
    w = np.abs(k[:, None] - k[None, :])
    w = w if weights == "linear" else w * w
    _, pred, true = class_sums(t)
    n = true.sum(axis=-1)
    observed = (w * t).sum(axis=(-2, -1))
    expected = safe_divide(np.einsum("...u,uv,...v->...", true, w, pred), n, np.nan)
    return safe_divide(expected - observed, expected, zd, "Cohen's kappa")


def kappa(t: np.ndarray, zero_division: ZeroDivision = np.nan) -> np.ndarray:
    tp, fp, fn, tn = one_vs_rest(t)
    num = (tp * tn - fp * fn).sum(axis=-1)
    den = ((tp + fn) * (fn + tn)).sum(axis=-1)
    return safe_divide(num, den, zero_division, "Cohen's kappa")
