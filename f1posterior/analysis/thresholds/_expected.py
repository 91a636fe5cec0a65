"""Expected-F-beta decisions from calibrated probabilities (Poisson-binomial, exact)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..._core.results import value_equality
from ..._core.validation import (
    check_choice,
    check_positive,
)
from ._common import (
    STRATEGIES,
    Strategy,
    check_probabilities,
    check_truth,
    check_zero_division,
    first_max,
    out,
)


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
@dataclass(frozen=True, eq=False)
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

    See Also
    --------
    f1posterior.thresholds.expected_fbeta_decisions : The function that returns it.

    Examples
    --------
    >>> d = expected_fbeta_decisions([0.9, 0.6, 0.3, 0.05])
    >>> int(d.n_positive), round(float(d.expected), 4), d.decisions.tolist()
    (2, 0.7587, [True, True, False, False])
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
    """Choose the decisions that maximise the exact expected F-beta of calibrated labels.

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

    See Also
    --------
    f1posterior.thresholds.expected_fbeta : The expectation of any decisions.
    f1posterior.thresholds.best_threshold : The observed optimum given labels.

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
    p = check_probabilities(probabilities)
    b = check_positive(beta, "beta")
    check_choice(strategy, "strategy", STRATEGIES)
    zd = check_zero_division(zero_division)
    one_d = p.ndim == 1 or strategy == "shared"
    p2 = p.reshape(-1, 1) if one_d else p
    order = np.argsort(-p2, axis=0, kind="stable")
    ps = np.take_along_axis(p2, order, 0)
    curve = _expected_curve(ps, b * b, zd)
    kbest = first_max(curve)
    n, cols = p2.shape[0], np.arange(p2.shape[1])
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(n)[:, None], 0)
    decisions = (ranks < kbest).reshape(p.shape)
    expected = curve[kbest, cols]
    thr = np.where(kbest > 0, ps[np.maximum(kbest - 1, 0), cols], np.inf)
    nxt = np.where(kbest < n, ps[np.minimum(kbest, n - 1), cols], -np.inf)
    return ExpectedFbetaDecision(
        decisions=decisions,
        expected=out(expected, one_d),
        n_positive=out(kbest, one_d),
        threshold=out(thr, one_d),
        next_probability=out(nxt, one_d),
        theory_threshold=out(expected / (1.0 + b * b), one_d),
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

    See Also
    --------
    f1posterior.thresholds.expected_fbeta_decisions : The decisions that maximise it.
    f1posterior.thresholds.best_threshold : The observed optimum given labels.

    Examples
    --------
    >>> round(expected_fbeta([0.5, 0.5], [1, 0]), 6)  # (1/4)(1) + (1/4)(2/3)
    0.416667
    """
    p = check_probabilities(probabilities)
    if p.ndim != 1:
        raise ValueError(f"probabilities must have shape (n,); got shape {p.shape}")
    d = check_truth(decisions, p.shape, "decisions", "probabilities")
    b = check_positive(beta, "beta")
    zd = check_zero_division(zero_division)
    # predicted items first (any order within each group gives the same expectation)
    ps = np.concatenate([p[d], p[~d]])[:, None]
    return float(_expected_curve(ps, b * b, zd)[int(d.sum()), 0])
