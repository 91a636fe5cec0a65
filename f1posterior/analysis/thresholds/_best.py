"""F1-optimal thresholds on scores: `best_threshold` (Lipton, Elkan & Naryanaswamy 2014)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..._core.results import value_equality
from ..._core.validation import (
    check_choice,
    check_positive,
    check_scores,
)
from ._common import (
    STRATEGIES,
    Strategy,
    as_2d,
    check_truth,
    check_zero_division,
    first_max,
    out,
    tables,
)

__all__ = ["ThresholdResult", "best_threshold"]


@value_equality
@dataclass(frozen=True, eq=False)
class ThresholdResult:
    """Result of :func:`best_threshold`.

    Attributes
    ----------
    threshold : float or ndarray, shape (L,)
        Predict positive when ``score >= threshold``. It is one of the observed
        scores, or ``+inf`` (predict nothing) for a label without positives.
        One value for ``(n,)`` input or ``strategy="shared"``, else one per label.
    score : float or ndarray, shape (L,)
        F-beta achieved on the data: per label, or micro-averaged over labels
        for ``strategy="shared"``.
    table : ndarray, shape (2, 2) or (L, 2, 2)
        Confusion table(s) at the threshold, ``[[tn, fp], [fn, tp]]`` (rows =
        truth, as the core metric functions take them).
    beta : float
        The F-beta weight.
    strategy : str
        ``"per_label"`` or ``"shared"``.

    See Also
    --------
    f1posterior.thresholds.best_threshold : The function that returns it.

    Examples
    --------
    >>> r = best_threshold([1, 0, 1, 0, 0], [0.9, 0.8, 0.8, 0.3, 0.1])
    >>> r.threshold, r.predict([0.85, 0.5]).tolist()
    (0.8, [True, False])
    """

    threshold: Any
    score: Any
    table: np.ndarray
    beta: float
    strategy: str

    def predict(self, y_score: ArrayLike) -> np.ndarray:
        """Boolean decisions ``y_score >= threshold`` for new scores of the same layout."""
        s = check_scores(y_score, "y_score")
        return np.asarray(s >= self.threshold)


def _sweep(
    s: np.ndarray, y: np.ndarray, beta2: float, zd: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Best cut per column of (n, L) scores: (threshold, score, tp, k, positives), each (L,).

    Works on the transposed, contiguous (L, n) arrays so that every sort and
    cumulative sum runs along contiguous memory.
    """
    st, yt = np.ascontiguousarray(s.T), np.ascontiguousarray(y.T)
    n_lab, n = st.shape
    order = np.argsort(-st, axis=1)  # tie order is irrelevant: cuts inside ties are masked
    ss = np.take_along_axis(st, order, 1)
    tp = np.zeros((n_lab, n + 1))
    np.cumsum(np.take_along_axis(yt, order, 1), axis=1, out=tp[:, 1:])
    pos = tp[:, -1]
    k = np.arange(n + 1, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        f = (1.0 + beta2) * tp / (beta2 * pos[:, None] + k)
    f[:, 0] = np.where(pos > 0, 0.0, zd)
    # a cut after k items is possible only between different scores (ties go together)
    f[:, 1:n][ss[:, :-1] == ss[:, 1:]] = -np.inf
    kbest = first_max(f.T)
    rows = np.arange(n_lab)
    thr = np.where(kbest == 0, np.inf, ss[rows, np.maximum(kbest - 1, 0)])
    return thr, f[rows, kbest], tp[rows, kbest], kbest, pos


def best_threshold(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    beta: float = 1.0,
    strategy: Strategy = "per_label",
    zero_division: float = 0.0,
) -> ThresholdResult:
    """Threshold that maximises the observed F-beta of ``y_score >= threshold``.

    One sort and one sweep over the cut points: ``O(n log n)`` per label,
    vectorised over labels. Only cuts between different scores are
    considered, so tied scores are always predicted together. Among
    thresholds with equal F-beta the highest is returned (fewest positives).

    Parameters
    ----------
    y_true : array_like, shape (n,) or (D, L)
        True labels, 0/1 (bool, integer, or float equal to 0 or 1).
    y_score : array_like, same shape
        Finite real scores; higher means more likely positive.
    beta : float, default 1.0
        Weight of recall in F-beta (> 0).
    strategy : {"per_label", "shared"}, default "per_label"
        ``"per_label"``: one threshold per label, each maximising that label's
        F-beta (the decisions that maximise macro-F-beta). ``"shared"``: one
        threshold for all labels maximising micro-F-beta (pooled tp, fp, fn).
        The two agree for ``(n,)`` input.
    zero_division : {0, 1}, default 0
        Score of a label (or, shared, a whole matrix) without any positive, for
        which the returned decision is to predict nothing (threshold ``+inf``).

    Returns
    -------
    ThresholdResult
        ``threshold``, ``score`` and ``table`` (``[[tn, fp], [fn, tp]]``).

    See Also
    --------
    f1posterior.thresholds.evaluate_threshold : An honest score for the chosen threshold.
    f1posterior.thresholds.expected_fbeta_decisions : The optimum for calibrated probabilities.
    f1posterior.fbeta : F-beta of the returned tables.

    Examples
    --------
    >>> r = best_threshold([1, 0, 1, 0, 0], [0.9, 0.8, 0.8, 0.3, 0.1])
    >>> r.threshold, round(r.score, 4)
    (0.8, 0.8)
    >>> r.table.tolist()
    [[2, 1], [0, 2]]
    >>> best_threshold([[0, 1], [1, 0]], [[0.2, 0.9], [0.7, 0.1]]).threshold.tolist()
    [0.7, 0.9]
    """
    s = check_scores(y_score, "y_score")
    y = check_truth(y_true, s.shape)
    b = check_positive(beta, "beta")
    check_choice(strategy, "strategy", STRATEGIES)
    zd = check_zero_division(zero_division)
    one_d = s.ndim == 1
    s2, y2 = as_2d(s), as_2d(y)
    if strategy == "per_label" or one_d:
        thr, score, tp, k, pos = _sweep(s2, y2, b * b, zd)
        table = tables(tp, k, pos, s2.shape[0])
        return ThresholdResult(
            threshold=out(thr, one_d),
            score=out(score, one_d),
            table=table[0] if one_d else table,
            beta=b,
            strategy=strategy,
        )
    thr1, score1, *_ = _sweep(s2.reshape(-1, 1), y2.reshape(-1, 1), b * b, zd)
    pred = s2 >= thr1[0]
    table = tables((pred & y2).sum(0), pred.sum(0), y2.sum(0), s2.shape[0])
    return ThresholdResult(
        threshold=float(thr1[0]), score=float(score1[0]), table=table, beta=b, strategy=strategy
    )
