"""Rank cut-offs: top-k, proportional, calibrated and break-even."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..._core.describe import describe
from ..._core.results import value_equality
from ..._core.validation import check_choice, check_positive, check_scores
from ._common import (
    PIVOTS,
    Pivot,
    check_truth,
    first_max,
)


@value_equality
@dataclass(frozen=True, eq=False)
class RankCutoff:
    """Decisions of a rank-based cut-off.

    Attributes
    ----------
    decisions : ndarray of bool, shape (D, L)
        The ``k`` highest-ranked items of each document (row) or label (column)
        are positive; ties in score are broken by position (lower index first).
    k : ndarray of int, shape (D,) or (L,)
        Number predicted per document (``pivot="document"``) or label.
    method : str
        ``"top_k"``, ``"proportional"``, ``"calibrated"`` or ``"break_even"``.
    pivot : str
        ``"document"`` (rank labels within each document) or ``"label"``
        (rank documents within each label).

    See Also
    --------
    f1posterior.thresholds.top_k_cutoff, f1posterior.thresholds.proportional_cutoff : Cut-offs
        without the truth.
    f1posterior.thresholds.calibrated_cutoff, f1posterior.thresholds.break_even_cutoff : Oracle
        cut-offs.

    Examples
    --------
    >>> r = top_k_cutoff([[0.1, 0.7, 0.4], [0.5, 0.2, 0.3]], 1)
    >>> r.k.tolist(), r.method, r.pivot
    ([1, 1], 'top_k', 'document')
    """

    decisions: np.ndarray
    k: np.ndarray
    method: str
    pivot: str


def _check_matrix(y_score: Any) -> np.ndarray:
    s = check_scores(y_score, "y_score")
    if s.ndim != 2:
        raise ValueError(
            "y_score must be a (D documents, L labels) matrix for rank cut-offs; got shape "
            f"{s.shape}"
        )
    return s


def _top(s: np.ndarray, k: np.ndarray, pivot: str) -> np.ndarray:
    """Boolean (D, L): the k[i] best of each row (document) or column (label)."""
    axis = 1 if pivot == "document" else 0
    order = np.argsort(-s, axis=axis, kind="stable")
    ranks = np.empty_like(order)
    idx = np.arange(s.shape[axis])
    idx = idx[None, :] if axis == 1 else idx[:, None]
    np.put_along_axis(ranks, order, np.broadcast_to(idx, s.shape), axis)
    return ranks < (k[:, None] if axis == 1 else k[None, :])


def top_k_cutoff(y_score: ArrayLike, k: Any, *, pivot: Pivot = "document") -> RankCutoff:
    """Predict the ``k`` best-scored labels of each document (or documents of each label).

    Parameters
    ----------
    y_score : array_like, shape (D, L)
    k : int or array_like of int, shape (D,) or (L,)
        How many to predict, ``0 <= k <= L`` (document pivot) or ``<= D``.
    pivot : {"document", "label"}, default "document"

    Returns
    -------
    RankCutoff

    See Also
    --------
    f1posterior.thresholds.proportional_cutoff : ``k`` from training frequencies.
    f1posterior.thresholds.best_threshold : A score threshold instead of a rank.

    Examples
    --------
    >>> top_k_cutoff([[0.1, 0.7, 0.4], [0.5, 0.2, 0.3]], 1).decisions.astype(int).tolist()
    [[0, 1, 0], [1, 0, 0]]
    """
    s = _check_matrix(y_score)
    check_choice(pivot, "pivot", PIVOTS)
    size, length = (s.shape[0], s.shape[1]) if pivot == "document" else (s.shape[1], s.shape[0])
    karr = np.asarray(k)
    if karr.dtype.kind not in "iu" or karr.ndim > 1 or (karr.ndim == 1 and karr.shape != (size,)):
        raise ValueError(
            f"k must be an integer or {size} integers (one per {pivot}); got {describe(k)}"
        )
    if karr.min() < 0 or karr.max() > length:
        raise ValueError(f"k must lie in [0, {length}]; got {describe(k)}")
    kk = np.broadcast_to(karr, (size,)).astype(np.int64)
    return RankCutoff(_top(s, kk, pivot), kk.copy(), "top_k", pivot)


def proportional_cutoff(
    y_train: ArrayLike, y_score: ArrayLike, *, pivot: Pivot = "label"
) -> RankCutoff:
    """Choose cut-offs proportional to the training data (Rubin et al. 2012's "Proportional").

    Label pivot: label ``j`` is given to its ``ceil(D_test / D_train * N_train_j)``
    best-scored test documents, ``N_train_j`` being its training frequency.
    Document pivot: every document gets its ``ceil(median)`` best-scored labels,
    the median taken over training documents' label counts.

    Parameters
    ----------
    y_train : array_like of 0/1, shape (D_train, L)
        Training labels (only their frequencies are used).
    y_score : array_like, shape (D_test, L)
        Scores of the test documents.
    pivot : {"label", "document"}, default "label"

    Returns
    -------
    RankCutoff

    See Also
    --------
    f1posterior.thresholds.top_k_cutoff : A fixed ``k``.
    f1posterior.thresholds.calibrated_cutoff : ``k`` from the truth (an oracle).

    Examples
    --------
    >>> r = proportional_cutoff([[1, 0], [1, 1], [0, 0], [1, 0]],
    ...                         [[0.9, 0.1], [0.8, 0.7], [0.2, 0.6], [0.3, 0.4]])
    >>> r.k.tolist()
    [3, 1]
    """
    s = _check_matrix(y_score)
    shape = np.shape(y_train) if not isinstance(y_train, (str, bytes)) else ()
    if len(shape) != 2 or shape[0] == 0 or shape[1] != s.shape[1]:
        raise ValueError(
            f"y_train must have shape (D_train, {s.shape[1]}) with D_train >= 1 (one column "
            f"per label of y_score); got shape {shape}"
        )
    yb = check_truth(y_train, shape, "y_train", "itself")
    check_choice(pivot, "pivot", PIVOTS)
    if pivot == "label":
        k = np.ceil(s.shape[0] / yb.shape[0] * yb.sum(0) - 1e-9).astype(np.int64)
        k = np.minimum(k, s.shape[0])
    else:
        med = float(np.median(yb.sum(1)))
        k = np.full(s.shape[0], min(math.ceil(med), s.shape[1]), dtype=np.int64)
    return RankCutoff(_top(s, k, pivot), k, "proportional", pivot)


def calibrated_cutoff(
    y_true: ArrayLike, y_score: ArrayLike, *, pivot: Pivot = "document"
) -> RankCutoff:
    """Predict as many as are truly positive (an oracle cut-off, for analysis).

    With ``k`` equal to the true number of positives, precision equals recall:
    this is also the classical precision-recall break-even point.

    Parameters
    ----------
    y_true : array_like of 0/1, shape (D, L)
        True labels; their count per document (or label) is ``k``.
    y_score : array_like, shape (D, L)
        Scores; the ``k`` best-scored are predicted.
    pivot : {"document", "label"}, default "document"
        Rank labels within each document, or documents within each label.

    Returns
    -------
    RankCutoff
        The decisions and ``k``.

    See Also
    --------
    f1posterior.thresholds.break_even_cutoff : The F-beta-optimal ``k`` (an oracle).
    f1posterior.thresholds.top_k_cutoff : A fixed ``k``.

    Examples
    --------
    >>> calibrated_cutoff([[0, 1, 1]], [[0.9, 0.5, 0.1]]).decisions.astype(int).tolist()
    [[1, 1, 0]]
    """
    s = _check_matrix(y_score)
    y = check_truth(y_true, s.shape)
    check_choice(pivot, "pivot", PIVOTS)
    k = y.sum(1 if pivot == "document" else 0).astype(np.int64)
    return RankCutoff(_top(s, k, pivot), k, "calibrated", pivot)


def break_even_cutoff(
    y_true: ArrayLike, y_score: ArrayLike, *, beta: float = 1.0, pivot: Pivot = "document"
) -> RankCutoff:
    """Per document (or label), the ``k`` whose top-k maximises F-beta (an oracle).

    Rubin et al. (2012)'s "Break-Even-Point" cut-off: ``k`` maximises that
    document's F-beta (the smallest such ``k``; 0 for a document with no
    positive label). Ranks break ties in score by position.

    Parameters
    ----------
    y_true : array_like of 0/1, shape (D, L)
        True labels.
    y_score : array_like, shape (D, L)
        Scores; the ``k`` best-scored are predicted.
    beta : float, default 1.0
        Weight of recall in F-beta (> 0).
    pivot : {"document", "label"}, default "document"
        Rank labels within each document, or documents within each label.

    Returns
    -------
    RankCutoff
        The decisions and each document's (or label's) ``k``.

    See Also
    --------
    f1posterior.thresholds.calibrated_cutoff : ``k`` equal to the true count.
    f1posterior.thresholds.best_threshold : A score threshold instead of a rank.

    Examples
    --------
    >>> r = break_even_cutoff([[1, 0, 1, 0]], [[0.9, 0.8, 0.7, 0.1]])
    >>> r.k.tolist()
    [3]
    """
    s = _check_matrix(y_score)
    y = check_truth(y_true, s.shape)
    b2 = check_positive(beta, "beta") ** 2
    check_choice(pivot, "pivot", PIVOTS)
    sc, yc = (s.T, y.T) if pivot == "document" else (s, y)  # items along axis 0
    order = np.argsort(-sc, axis=0, kind="stable")
    n = sc.shape[0]
    tp = np.zeros((n + 1, sc.shape[1]))
    np.cumsum(np.take_along_axis(yc, order, 0), axis=0, out=tp[1:])
    kk = np.arange(n + 1, dtype=np.float64)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        f = (1.0 + b2) * tp / (b2 * tp[-1] + kk)
    f[0] = 0.0
    k = first_max(f).astype(np.int64)
    return RankCutoff(_top(s, k, pivot), k, "break_even", pivot)
