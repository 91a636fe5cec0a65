"""Decision thresholds that maximise F-beta, and honest scores for them.

Lipton, Elkan & Narayanaswamy (2014, "Optimal thresholding of classifiers to
maximize F1 measure", ECML PKDD) show that the F1-optimal
threshold of calibrated probabilities is half the optimal F1 (for F-beta:
``F* / (1 + beta**2)``), that an uninformative classifier is F1-optimal when it
predicts everything positive, and that thresholds chosen on the data they are
scored on are optimistic (a winner's curse). This module turns those results
into tools:

- :func:`best_threshold`: the empirical F-beta-optimal threshold of scores
  against true labels (one sort and one sweep, ``O(n log n)``; ties handled;
  one threshold per label or one shared by all labels);
- :func:`expected_fbeta_decisions`: for calibrated, independent probabilities,
  the decisions that maximise the *exact* expected F-beta of a batch (the
  plug-in algorithm of Lipton et al.'s section 4.1), with the threshold relation
  of Theorem 4.2 beside them;
- rank-based cut-offs for multi-label scores (Rubin, Chambers, Smyth &
  Steyvers 2012, "Statistical topic models for multi-label document
  classification", Machine Learning 88): :func:`top_k_cutoff`, :func:`proportional_cutoff`,
  :func:`calibrated_cutoff`, :func:`break_even_cutoff`;
- :func:`evaluate_threshold`: choose thresholds on some folds, score them on
  the held-out fold, sum the held-out confusion tables over folds and report
  the exact Bayesian posterior of F-beta of that table, with the optimism of
  the in-sample score.

Conventions
-----------
Scores and labels are ``(n,)`` for one binary problem or ``(D, L)`` for ``D``
documents and ``L`` labels. A prediction is positive when
``score >= threshold``, so tied scores are always predicted together.
Confusion tables use scikit-learn's ``multilabel_confusion_matrix`` layout
``[[tn, fp], [fn, tp]]``: rows are the truth (negative, positive), columns the
prediction. That is the core's ``(M, M)`` layout with ``M = 2`` and class 1
positive, so ``fbeta_score(table, beta=b, average="binary")`` gives the score
and :func:`f1posterior.evaluate` takes the tables as they are.

A label without any positive document has F-beta ``0/0`` when nothing is
predicted and ``0`` otherwise. The functions here then predict nothing
(threshold ``+inf``, cut-off 0) and report ``zero_division`` (default 0, as
scikit-learn) as its score.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from .._core.priors import PRIOR_PRESETS, prior_preset
from .._core.results import value_equality
from .._core.sampling import concentrations, iter_cell_chunks
from .._core.validation import (
    check_choice,
    check_draws,
    check_indicator,
    check_positive,
    check_prob,
    check_rng,
    check_scores,
    child_seed,
    describe,
)
from ..metrics.multiclass import _fbeta
from ..posterior.summary import MetricSummary, summarize_draws

__all__ = [
    "ThresholdResult",
    "best_threshold",
    "ExpectedFbetaDecision",
    "expected_fbeta_decisions",
    "expected_fbeta",
    "RankCutoff",
    "top_k_cutoff",
    "proportional_cutoff",
    "calibrated_cutoff",
    "break_even_cutoff",
    "ThresholdEvaluation",
    "evaluate_threshold",
]

Strategy = Literal["per_label", "shared"]
Pivot = Literal["document", "label"]
_STRATEGIES = ("per_label", "shared")
_PIVOTS = ("document", "label")
#: Relative tolerance under which two F-beta values count as tied (rounding).
_TIE = 1e-12


# --- validation ------------------------------------------------------------------------


def _check_truth(y: Any, shape: tuple[int, ...], name: str = "y_true", other: str = "scores"):
    """0/1 labels of the given shape, as bool."""
    return check_indicator(y, name, shape=shape, like=other)


def _check_probabilities(p: Any, name: str = "probabilities") -> np.ndarray:
    arr = check_scores(p, name)
    if arr.min() < 0 or arr.max() > 1:
        bad = float(arr.min()) if arr.min() < 0 else float(arr.max())
        raise ValueError(f"{name} must lie in [0, 1]; got {bad!r}")
    return arr


def _check_zero_division(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value not in (0, 1):
        raise ValueError(f"zero_division must be 0 or 1; got {describe(value)}")
    return float(value)


def _as_2d(arr: np.ndarray) -> np.ndarray:
    return arr[:, None] if arr.ndim == 1 else arr


def _out(x: np.ndarray, one_d: bool) -> Any:
    """Scalar for one label, array otherwise."""
    if one_d:
        v = x[0]
        return v.item() if isinstance(v, np.generic) else v
    return x


def _first_max(f: np.ndarray) -> np.ndarray:
    """Index (axis 0) of the first value within rounding of the column maximum."""
    best = f.max(axis=0)
    return np.argmax(f >= best - _TIE * np.abs(best), axis=0)


def _tables(tp: np.ndarray, pred: np.ndarray, pos: np.ndarray, n: int | np.ndarray) -> np.ndarray:
    """(..., 2, 2) tables [[tn, fp], [fn, tp]] from tp, predicted and actual positives."""
    fp, fn = pred - tp, pos - tp
    tn = n - pred - fn
    return np.stack([np.stack([tn, fp], -1), np.stack([fn, tp], -1)], -2).astype(np.int64)


# --- empirical optimal thresholds ------------------------------------------------------


@value_equality
@dataclass(frozen=True)
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
    """

    threshold: Any
    score: Any
    table: np.ndarray
    beta: float
    strategy: str

    def predict(self, scores: ArrayLike) -> np.ndarray:
        """Boolean decisions ``scores >= threshold`` for new scores of the same layout."""
        s = check_scores(scores)
        return np.asarray(s >= self.threshold)


def _sweep(s: np.ndarray, y: np.ndarray, beta2: float, zd: float):
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
    kbest = _first_max(f.T)
    rows = np.arange(n_lab)
    thr = np.where(kbest == 0, np.inf, ss[rows, np.maximum(kbest - 1, 0)])
    return thr, f[rows, kbest], tp[rows, kbest], kbest, pos


def best_threshold(
    scores: ArrayLike,
    y_true: ArrayLike,
    *,
    beta: float = 1.0,
    strategy: Strategy = "per_label",
    zero_division: float = 0.0,
) -> ThresholdResult:
    """Threshold that maximises the observed F-beta of ``scores >= threshold``.

    One sort and one sweep over the cut points: ``O(n log n)`` per label,
    vectorised over labels. Only cuts between different scores are
    considered, so tied scores are always predicted together. Among
    thresholds with equal F-beta the highest is returned (fewest positives).

    Parameters
    ----------
    scores : array_like, shape (n,) or (D, L)
        Finite real scores; higher means more likely positive.
    y_true : array_like, same shape
        True labels, 0/1 (bool, integer, or float equal to 0 or 1).
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

    Examples
    --------
    >>> r = best_threshold([0.9, 0.8, 0.8, 0.3, 0.1], [1, 0, 1, 0, 0])
    >>> r.threshold, round(r.score, 4)
    (0.8, 0.8)
    >>> r.table.tolist()
    [[2, 1], [0, 2]]
    >>> best_threshold([[0.2, 0.9], [0.7, 0.1]], [[0, 1], [1, 0]]).threshold.tolist()
    [0.7, 0.9]
    """
    s = check_scores(scores)
    y = _check_truth(y_true, s.shape)
    b = check_positive(beta, "beta")
    check_choice(strategy, "strategy", _STRATEGIES)
    zd = _check_zero_division(zero_division)
    one_d = s.ndim == 1
    s2, y2 = _as_2d(s), _as_2d(y)
    if strategy == "per_label" or one_d:
        thr, score, tp, k, pos = _sweep(s2, y2, b * b, zd)
        table = _tables(tp, k, pos, s2.shape[0])
        return ThresholdResult(
            threshold=_out(thr, one_d),
            score=_out(score, one_d),
            table=table[0] if one_d else table,
            beta=b,
            strategy=strategy,
        )
    thr1, score1, *_ = _sweep(s2.reshape(-1, 1), y2.reshape(-1, 1), b * b, zd)
    pred = s2 >= thr1[0]
    table = _tables((pred & y2).sum(0), pred.sum(0), y2.sum(0), s2.shape[0])
    return ThresholdResult(
        threshold=float(thr1[0]), score=float(score1[0]), table=table, beta=b, strategy=strategy
    )


# --- expected F-beta of calibrated, independent probabilities ---------------------------


def _poisson_binomial(p: np.ndarray) -> np.ndarray:
    """P(A = a), a = 0..n, for A a sum of independent Bernoulli(p_i); p (n, L) -> (n+1, L)."""
    n, n_lab = p.shape
    dist = np.zeros((n + 1, n_lab))
    dist[0] = 1.0
    for i in range(n):
        dist[1 : i + 2] = dist[1 : i + 2] * (1.0 - p[i]) + dist[: i + 1] * p[i]
        dist[0] *= 1.0 - p[i]
    return dist


def _expected_curve(ps: np.ndarray, beta2: float, zd: float) -> np.ndarray:
    """Exact E[F-beta] of predicting the top k of sorted probabilities, k = 0..n.

    ``ps`` is (n, L), each column sorted in decreasing order; returns (n+1, L).
    With A the number of actual positives and A_{-i} the same without item i,
    ``E[F_k] = (1+b^2) sum_a h_k(a) / (b^2 a + k)`` where
    ``h_k(a) = E[TP_k 1{A = a}] = sum_{i <= k} p_i P(A_{-i} = a - 1)``. The
    leave-one-out distributions come from the full one by deconvolution,
    forwards in ``a`` for ``p_i <= 1/2`` and backwards for ``p_i > 1/2`` (each
    step multiplies rounding errors by ``min(p, 1-p)/max(p, 1-p) <= 1``, so
    they do not grow). Visiting one ``a`` at a time for all items keeps memory
    at ``O(n L)``; time is ``O(n^2 L)``.
    """
    n, n_lab = ps.shape
    dist = _poisson_binomial(ps)
    k = np.arange(1, n + 1, dtype=np.float64)[:, None]
    acc = np.zeros((n, n_lab))
    fwd = ps <= 0.5
    den_f = np.where(fwd, 1.0 - ps, 1.0)
    den_b = np.where(fwd, 1.0, ps)
    q = np.zeros((n, n_lab))
    for a in range(n):  # q = P(A_{-i} = a), contributing to A = a + 1
        q = np.where(fwd, (dist[a] - ps * q) / den_f, 0.0)
        acc += np.cumsum(ps * q, axis=0) / (beta2 * (a + 1) + k)
    q = np.zeros((n, n_lab))
    for a in range(n, 0, -1):  # q = P(A_{-i} = a - 1), contributing to A = a
        q = np.where(fwd, 0.0, (dist[a] - (1.0 - ps) * q) / den_b)
        acc += np.cumsum(ps * q, axis=0) / (beta2 * a + k)
    curve = np.empty((n + 1, n_lab))
    curve[0] = zd * dist[0]
    curve[1:] = (1.0 + beta2) * acc
    return curve


@value_equality
@dataclass(frozen=True)
class ExpectedFbetaDecision:
    """Result of :func:`expected_fbeta_decisions`.

    Attributes
    ----------
    decisions : ndarray of bool, same shape as the probabilities
        The decisions that maximise the expected F-beta.
    expected : float or ndarray, shape (L,)
        Their exact expected F-beta, ``F*`` (per label, or micro over the
        whole matrix for ``strategy="shared"``).
    n_positive : int or ndarray, shape (L,)
        How many are predicted positive.
    threshold : float or ndarray, shape (L,)
        The lowest probability predicted positive (``+inf`` if none).
    next_probability : float or ndarray, shape (L,)
        The highest probability predicted negative (``-inf`` if none).
    theory_threshold : float or ndarray, shape (L,)
        ``F* / (1 + beta**2)``, the threshold of Theorem 4.2 and Corollary 1
        (``F*/2`` for F1). For large batches
        ``next_probability <= theory_threshold <= threshold`` up to ``O(1/n)``.
    curve : ndarray, shape (n + 1,) or (n + 1, L)
        Exact expected F-beta of predicting the ``k`` most probable, ``k = 0..n``.
    beta : float
    strategy : str
    """

    decisions: np.ndarray
    expected: Any
    n_positive: Any
    threshold: Any
    next_probability: Any
    theory_threshold: Any
    curve: np.ndarray = field(repr=False)
    beta: float = 1.0
    strategy: str = "per_label"


def expected_fbeta_decisions(
    probabilities: ArrayLike,
    *,
    beta: float = 1.0,
    strategy: Strategy = "per_label",
    zero_division: float = 0.0,
) -> ExpectedFbetaDecision:
    """Decisions maximising the exact expected F-beta of calibrated, independent labels.

    The plug-in algorithm of Lipton et al. (2014), section 4.1, for independent labels:
    sort the probabilities, compute the exact expected F-beta of predicting
    the ``k`` most probable for every ``k`` (over the Poisson-binomial
    distribution of true and actual positives), and keep the best ``k`` (the
    smallest on ties). With independent labels the best set of each size is
    the most probable one, so the result maximises expected F-beta over all
    ``2**n`` decision sets (checked by exhaustive enumeration in the tests).

    Parameters
    ----------
    probabilities : array_like, shape (n,) or (D, L)
        Calibrated probabilities that each item is positive, in [0, 1],
        independent across items.
    beta : float, default 1.0
        Weight of recall (> 0).
    strategy : {"per_label", "shared"}, default "per_label"
        ``"per_label"``: each column is its own batch (maximises each label's
        expected F-beta, hence expected macro-F-beta). ``"shared"``: the whole
        matrix is one batch (maximises expected micro-F-beta).
    zero_division : {0, 1}, default 0
        Value of F-beta when there is no actual positive and nothing is predicted.

    Returns
    -------
    ExpectedFbetaDecision

    Notes
    -----
    Time ``O(n^2)`` per batch of ``n`` items (``O(D^2 L)`` per label,
    ``O((D L)^2)`` shared), memory ``O(n)``: 1-2 s for
    ``n = 10_000`` on one core.

    Examples
    --------
    >>> r = expected_fbeta_decisions([0.9, 0.6, 0.3, 0.05])
    >>> r.decisions.tolist(), r.n_positive
    ([True, True, False, False], 2)
    >>> round(r.expected, 4), round(r.theory_threshold, 4)  # 0.3 < F*/2 < 0.6
    (0.7587, 0.3793)
    >>> expected_fbeta_decisions([0.02] * 5).n_positive  # Theorem 4.3: all positive
    5
    """
    p = _check_probabilities(probabilities)
    b = check_positive(beta, "beta")
    check_choice(strategy, "strategy", _STRATEGIES)
    zd = _check_zero_division(zero_division)
    one_d = p.ndim == 1 or strategy == "shared"
    p2 = p.reshape(-1, 1) if one_d else p
    order = np.argsort(-p2, axis=0, kind="stable")
    ps = np.take_along_axis(p2, order, 0)
    curve = _expected_curve(ps, b * b, zd)
    kbest = _first_max(curve)
    n, cols = p2.shape[0], np.arange(p2.shape[1])
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(n)[:, None], 0)
    decisions = (ranks < kbest).reshape(p.shape)
    expected = curve[kbest, cols]
    thr = np.where(kbest > 0, ps[np.maximum(kbest - 1, 0), cols], np.inf)
    nxt = np.where(kbest < n, ps[np.minimum(kbest, n - 1), cols], -np.inf)
    return ExpectedFbetaDecision(
        decisions=decisions,
        expected=_out(expected, one_d),
        n_positive=_out(kbest, one_d),
        threshold=_out(thr, one_d),
        next_probability=_out(nxt, one_d),
        theory_threshold=_out(expected / (1.0 + b * b), one_d),
        curve=curve[:, 0] if one_d else curve,
        beta=b,
        strategy=strategy,
    )


def expected_fbeta(
    probabilities: ArrayLike,
    decisions: ArrayLike,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
) -> float:
    """Exact expected F-beta of fixed decisions for independent Bernoulli labels.

    Parameters
    ----------
    probabilities : array_like, shape (n,)
        Probability that each item is positive, in [0, 1].
    decisions : array_like of 0/1 or bool, shape (n,)
        Which items are predicted positive.
    beta : float, default 1.0
    zero_division : {0, 1}, default 0
        F-beta when nothing is predicted and nothing is positive.

    Returns
    -------
    float
        ``E[F-beta]``, computed in ``O(n^2)``.

    Examples
    --------
    >>> round(expected_fbeta([0.5, 0.5], [1, 0]), 6)  # (1/4)(1) + (1/4)(2/3)
    0.416667
    """
    p = _check_probabilities(probabilities)
    if p.ndim != 1:
        raise ValueError(f"probabilities must have shape (n,); got shape {p.shape}")
    d = _check_truth(decisions, p.shape, "decisions", "probabilities")
    b = check_positive(beta, "beta")
    zd = _check_zero_division(zero_division)
    # predicted items first (any order within each group gives the same expectation)
    ps = np.concatenate([p[d], p[~d]])[:, None]
    return float(_expected_curve(ps, b * b, zd)[int(d.sum()), 0])


# --- rank-based cut-offs ----------------------------------------------------------------


@value_equality
@dataclass(frozen=True)
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
    """

    decisions: np.ndarray
    k: np.ndarray
    method: str
    pivot: str


def _check_matrix(scores: Any) -> np.ndarray:
    s = check_scores(scores)
    if s.ndim != 2:
        raise ValueError(
            "scores must be a (D documents, L labels) matrix for rank cut-offs; got shape "
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


def top_k_cutoff(scores: ArrayLike, k: Any, *, pivot: Pivot = "document") -> RankCutoff:
    """Predict the ``k`` best-scored labels of each document (or documents of each label).

    Parameters
    ----------
    scores : array_like, shape (D, L)
    k : int or array_like of int, shape (D,) or (L,)
        How many to predict, ``0 <= k <= L`` (document pivot) or ``<= D``.
    pivot : {"document", "label"}, default "document"

    Returns
    -------
    RankCutoff

    Examples
    --------
    >>> top_k_cutoff([[0.1, 0.7, 0.4], [0.5, 0.2, 0.3]], 1).decisions.astype(int).tolist()
    [[0, 1, 0], [1, 0, 0]]
    """
    s = _check_matrix(scores)
    check_choice(pivot, "pivot", _PIVOTS)
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
    scores: ArrayLike, y_train: ArrayLike, *, pivot: Pivot = "label"
) -> RankCutoff:
    """Cut-offs proportional to the training data (Rubin et al. 2012's "Proportional").

    Label pivot: label ``j`` is given to its ``ceil(D_test / D_train * N_train_j)``
    best-scored test documents, ``N_train_j`` being its training frequency.
    Document pivot: every document gets its ``ceil(median)`` best-scored labels,
    the median taken over training documents' label counts.

    Parameters
    ----------
    scores : array_like, shape (D_test, L)
    y_train : array_like of 0/1, shape (D_train, L)
        Training labels (only their frequencies are used).
    pivot : {"label", "document"}, default "label"

    Returns
    -------
    RankCutoff

    Examples
    --------
    >>> r = proportional_cutoff([[0.9, 0.1], [0.8, 0.7], [0.2, 0.6], [0.3, 0.4]],
    ...                         [[1, 0], [1, 1], [0, 0], [1, 0]])
    >>> r.k.tolist()
    [3, 1]
    """
    s = _check_matrix(scores)
    shape = np.shape(y_train) if not isinstance(y_train, (str, bytes)) else ()
    if len(shape) != 2 or shape[0] == 0 or shape[1] != s.shape[1]:
        raise ValueError(
            f"y_train must have shape (D_train, {s.shape[1]}) with D_train >= 1 (one column "
            f"per label of scores); got shape {shape}"
        )
    yb = _check_truth(y_train, shape, "y_train", "itself")
    check_choice(pivot, "pivot", _PIVOTS)
    if pivot == "label":
        k = np.ceil(s.shape[0] / yb.shape[0] * yb.sum(0) - 1e-9).astype(np.int64)
        k = np.minimum(k, s.shape[0])
    else:
        med = float(np.median(yb.sum(1)))
        k = np.full(s.shape[0], min(math.ceil(med), s.shape[1]), dtype=np.int64)
    return RankCutoff(_top(s, k, pivot), k, "proportional", pivot)


def calibrated_cutoff(
    scores: ArrayLike, y_true: ArrayLike, *, pivot: Pivot = "document"
) -> RankCutoff:
    """Predict as many as are truly positive (an oracle cut-off, for analysis).

    With ``k`` equal to the true number of positives, precision equals recall:
    this is also the classical precision-recall break-even point.

    Examples
    --------
    >>> calibrated_cutoff([[0.9, 0.5, 0.1]], [[0, 1, 1]]).decisions.astype(int).tolist()
    [[1, 1, 0]]
    """
    s = _check_matrix(scores)
    y = _check_truth(y_true, s.shape)
    check_choice(pivot, "pivot", _PIVOTS)
    k = y.sum(1 if pivot == "document" else 0).astype(np.int64)
    return RankCutoff(_top(s, k, pivot), k, "calibrated", pivot)


def break_even_cutoff(
    scores: ArrayLike, y_true: ArrayLike, *, beta: float = 1.0, pivot: Pivot = "document"
) -> RankCutoff:
    """Per document (or label), the ``k`` whose top-k maximises F-beta (an oracle).

    Rubin et al. (2012)'s "Break-Even-Point" cut-off: ``k`` maximises that
    document's F-beta (the smallest such ``k``; 0 for a document with no
    positive label). Ranks break ties in score by position.

    Examples
    --------
    >>> r = break_even_cutoff([[0.9, 0.8, 0.7, 0.1]], [[1, 0, 1, 0]])
    >>> r.k.tolist()
    [3]
    """
    s = _check_matrix(scores)
    y = _check_truth(y_true, s.shape)
    b2 = check_positive(beta, "beta") ** 2
    check_choice(pivot, "pivot", _PIVOTS)
    sc, yc = (s.T, y.T) if pivot == "document" else (s, y)  # items along axis 0
    order = np.argsort(-sc, axis=0, kind="stable")
    n = sc.shape[0]
    tp = np.zeros((n + 1, sc.shape[1]))
    np.cumsum(np.take_along_axis(yc, order, 0), axis=0, out=tp[1:])
    kk = np.arange(n + 1, dtype=np.float64)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        f = (1.0 + b2) * tp / (b2 * tp[-1] + kk)
    f[0] = 0.0
    k = _first_max(f).astype(np.int64)
    return RankCutoff(_top(s, k, pivot), k, "break_even", pivot)


# --- honest evaluation of a chosen threshold ---------------------------------------------


@value_equality
@dataclass(frozen=True)
class ThresholdEvaluation:
    """Result of :func:`evaluate_threshold`.

    Attributes
    ----------
    metric : str
        The headline metric: ``"fbeta"`` for ``(n,)`` input, ``"macro_fbeta"``
        (strategy ``"per_label"``) or ``"micro_fbeta"`` (``"shared"``).
    held_out : MetricSummary
        Posterior of the headline metric given the held-out table(s), summed
        over folds; ``held_out.score`` is its plug-in value.
    summaries : dict of str to MetricSummary
        ``"fbeta"`` (per label, shape (L,) for matrices), and for matrices
        ``"macro_fbeta"`` and ``"micro_fbeta"``.
    in_sample : float
        The headline metric when thresholds are chosen and scored on all data.
    optimism : float
        ``in_sample - held_out.mean``.
    p_below_in_sample : float
        Posterior probability that the headline metric is below ``in_sample``.
    table : ndarray of int, shape (2, 2) or (L, 2, 2)
        Held-out confusion table(s), ``[[tn, fp], [fn, tp]]``, summed over folds
        (every document is held out exactly once).
    thresholds : ndarray, shape (folds,) or (folds, L)
        Thresholds chosen on the training part of each fold.
    in_sample_threshold : float or ndarray, shape (L,)
        Thresholds chosen on all data.
    fold_index : ndarray of int, shape (n,)
        The fold of each document (row).
    folds : int
    beta : float
    strategy : str
    prior : tuple
        ``(alpha, beta)`` Dirichlet prior of the posterior.
    seed : int
        Entropy of the root seed.
    """

    metric: str
    held_out: MetricSummary
    summaries: dict[str, MetricSummary]
    in_sample: float
    optimism: float
    p_below_in_sample: float
    table: np.ndarray
    thresholds: np.ndarray
    in_sample_threshold: Any
    fold_index: np.ndarray
    folds: int
    beta: float
    strategy: str
    prior: tuple[Any, Any]
    seed: Any = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary of the fields."""

        def plain(v: Any) -> Any:
            if isinstance(v, np.ndarray | np.generic):
                return np.asarray(v).tolist()
            return v

        out = {k: plain(getattr(self, k)) for k in self.__dataclass_fields__}
        out["held_out"] = self.held_out.to_dict()
        out["summaries"] = {k: v.to_dict() for k, v in self.summaries.items()}
        out["prior"] = list(self.prior)
        return out


def _check_folds(folds: Any, n: int) -> int:
    if isinstance(folds, bool) or not isinstance(folds, numbers.Integral):
        raise TypeError(f"folds must be an integer >= 2; got {describe(folds)}")
    if not 2 <= int(folds) <= n:
        raise ValueError(
            f"folds must be an integer in [2, {n}] (the number of documents); got {folds}"
        )
    return int(folds)


def _check_prior(prior: Any) -> tuple[Any, Any]:
    if isinstance(prior, str):
        return prior_preset(prior)
    if isinstance(prior, tuple) and len(prior) == 2:
        return prior
    raise ValueError(
        f"prior must be a preset name ({', '.join(map(repr, PRIOR_PRESETS))}) or an "
        f"(alpha, beta) tuple; got {describe(prior)}"
    )


def evaluate_threshold(
    scores: ArrayLike,
    y_true: ArrayLike,
    *,
    folds: int = 5,
    beta: float = 1.0,
    strategy: Strategy = "per_label",
    draws: int = 20_000,
    prior: Any = "adaptive",
    hdi_prob: float = 0.95,
    rng: Any = None,
) -> ThresholdEvaluation:
    """Choose F-beta thresholds on part of the data and score them on the rest.

    Documents (rows) are split at random into ``folds`` folds. For each fold
    the threshold(s) are chosen by :func:`best_threshold` on the other folds
    and applied to it; the held-out confusion tables of all folds are summed
    (cross-fitting: every document is scored once, by thresholds that never
    saw it). The posterior of F-beta given that table follows the core model
    (one independent binary model per label, prior ``prior``), and the
    in-sample F-beta (thresholds chosen and scored on all data) is reported
    with its optimism against the held-out posterior.

    Parameters
    ----------
    scores : array_like, shape (n,) or (D, L)
    y_true : array_like of 0/1, same shape
    folds : int, default 5
        Number of folds, ``2 <= folds <= n``.
    beta : float, default 1.0
        F-beta weight (not the Dirichlet prior: see ``prior``).
    strategy : {"per_label", "shared"}, default "per_label"
        As in :func:`best_threshold`; the headline metric is macro-F-beta for
        ``"per_label"`` and micro-F-beta for ``"shared"``.
    draws : int, default 20_000
        Posterior draws. Memory holds ``L * draws`` per-label values.
    prior : str or (alpha, beta), default "adaptive"
        Dirichlet prior of the core model (:func:`f1posterior.prior_preset`).
    hdi_prob : float, default 0.95
    rng : None, int, SeedSequence or Generator
        Randomness of the fold split and of the posterior draws.

    Returns
    -------
    ThresholdEvaluation

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> y = gen.random(400) < 0.3
    >>> s = np.where(y, gen.normal(1, 1, 400), gen.normal(0, 1, 400))
    >>> r = evaluate_threshold(s, y, folds=5, draws=4000, rng=1)
    >>> r.metric, r.table.sum()
    ('fbeta', np.int64(400))
    >>> bool(r.optimism > 0), bool(r.held_out.hdi[0] < r.held_out.score < r.held_out.hdi[1])
    (True, True)
    """
    s = check_scores(scores)
    y = _check_truth(y_true, s.shape)
    b = check_positive(beta, "beta")
    check_choice(strategy, "strategy", _STRATEGIES)
    n = s.shape[0]
    k = _check_folds(folds, n)
    n_draws = check_draws(draws)
    prob = check_prob(hdi_prob, "hdi_prob")
    alpha_p, beta_p = _check_prior(prior)
    root = check_rng(rng)
    one_d = s.ndim == 1
    s2, y2 = _as_2d(s), _as_2d(y)
    n_lab = s2.shape[1]

    split = np.random.default_rng(child_seed(root, 0))
    fold_of = np.empty(n, dtype=np.int64)
    fold_of[split.permutation(n)] = np.arange(n) % k
    table = np.zeros((n_lab, 2, 2), dtype=np.int64)
    thresholds = []
    for f in range(k):
        train, test = fold_of != f, fold_of == f
        res = best_threshold(s2[train], y2[train], beta=b, strategy=strategy)
        thr = np.broadcast_to(np.asarray(res.threshold, dtype=np.float64), (n_lab,))
        pred = s2[test] >= thr
        yt = y2[test]
        table += _tables((pred & yt).sum(0), pred.sum(0), yt.sum(0), int(test.sum()))
        thresholds.append(res.threshold if strategy == "shared" else thr.copy())
    full = best_threshold(s, y, beta=b, strategy=strategy)

    # posterior: one binary model per label; per-label F-beta draws, pooled micro counts
    b2 = b * b
    post_root = child_seed(root, 1)
    from .._core.priors import resolve_prior

    a_arr, b_arr = resolve_prior(alpha_p, beta_p, table.astype(np.float64))
    conc = concentrations(table.astype(np.float64), a_arr, b_arr).reshape(n_lab, 3, 2)
    per_label = np.empty((n_lab, n_draws))
    pooled = np.zeros((n_draws, 2, 2))
    for mats, rows, cells in iter_cell_chunks(conc, n_draws, post_root, np.dtype(np.float64)):
        per_label[mats, rows] = _fbeta(cells, b2, "binary", np.array([1]), 0.0)
        pooled[rows] += cells.sum(axis=0)
    tab_f = table.astype(np.float64)
    point = _fbeta(tab_f, b2, "binary", np.array([1]), 0.0)
    summaries = {"fbeta": summarize_draws(per_label, score=point, hdi_prob=prob)}
    if one_d:
        metric, in_sample = "fbeta", float(full.score)
        summaries = {"fbeta": summarize_draws(per_label[0], score=point[0], hdi_prob=prob)}
        head_draws = per_label[0]
    else:
        micro_draws = _fbeta(pooled, b2, "binary", np.array([1]), 0.0)
        summaries["macro_fbeta"] = summarize_draws(
            per_label.mean(0), score=float(point.mean()), hdi_prob=prob
        )
        micro_point = _fbeta(tab_f.sum(0), b2, "binary", np.array([1]), 0.0)
        summaries["micro_fbeta"] = summarize_draws(
            micro_draws, score=float(micro_point), hdi_prob=prob
        )
        if strategy == "per_label":
            metric, in_sample, head_draws = (
                "macro_fbeta",
                float(np.mean(full.score)),
                per_label.mean(0),
            )
        else:
            metric, in_sample, head_draws = "micro_fbeta", float(full.score), micro_draws
    held = summaries[metric]
    return ThresholdEvaluation(
        metric=metric,
        held_out=held,
        summaries=summaries,
        in_sample=in_sample,
        optimism=in_sample - float(held.mean),
        p_below_in_sample=float(np.mean(head_draws < in_sample)),
        table=table[0] if one_d else table,
        thresholds=np.asarray(thresholds, dtype=np.float64).reshape(
            (k,) if one_d or strategy == "shared" else (k, n_lab)
        ),
        in_sample_threshold=full.threshold,
        fold_index=fold_of,
        folds=k,
        beta=b,
        strategy=strategy,
        prior=(alpha_p, beta_p),
        seed=root.entropy,
    )
