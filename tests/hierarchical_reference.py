"""An independent reference for the hierarchical default prior (tests and the calibration study).

Plain and deliberately slow-but-obvious: it shares no code with the package's sampler. It
uses ``scipy.special.betaln`` for the closed-form Beta-binomial marginals and numpy's
``Generator.beta`` / ``Generator.dirichlet`` for the conjugate draws.

The prior (docs/calibration.md, "The hierarchical prior"):

* a centre ``m`` on an 81-point grid uniform in ``logit m`` on [-7, 7], hyperprior
  ``m ~ Uniform(0, 1)``: on a grid uniform in logit the prior weight of a point is
  proportional to ``dm / dlogit m = m (1 - m)``;
* per row ``j``, the recall ``theta_jj`` is a mixture
  ``0.9 Beta(s m, s (1 - m)) + 0.1 Beta(1/2, 1/2)`` with ``s = 1 / (2 min(m, 1 - m))``
  (the "pooled" and the "own" component);
* the error split ``theta_{j,-j} / (1 - theta_jj) ~ Dir(1/(2(M-1)), ...)``, independent of
  the recall;
* ``mu ~ Dir(1/M, ...)``.

Posterior. Row ``j`` has ``d_j`` correct and ``e_j`` wrong documents. The split and ``mu``
do not involve ``m``, so the likelihood of ``m`` is the product over rows of the recall's
Beta-binomial marginal (the binomial coefficient cancels):

    L_j(m) = 0.9 B(a + d, b + e) / B(a, b) + 0.1 B(1/2 + d, 1/2 + e) / B(1/2, 1/2),
    (a, b) = (s m, s (1 - m)).

Grid weights ``w_g ~ m_g (1 - m_g) prod_j L_j(m_g)``; given ``g`` each row's component is
pooled with probability ``0.9 B(a + d, b + e) / B(a, b) / L_j(m_g)``; given the component the
recall is ``Beta(a + d, b + e)`` (or ``Beta(1/2 + d, 1/2 + e)``); the split is
``Dir(1/(2(M-1)) + c_{j,-j})`` and ``mu ~ Dir(1/M + n)``. A finite mixture of conjugate
posteriors, so the posterior mean of each recall is exact (:func:`recall_mean`).

Options used by the calibration study to compare variants (defaults = the prototype):
``pooled_from`` (rows get only the Jeffreys "own" component when ``M < pooled_from``: the
old default's Jeffreys rows for M = 2, 3 are ``pooled_from=4``), ``own_weight`` (0.1),
``strengths`` (per-row strength factors of the pooled component) and ``centres`` (2: the
two-centre variant, a 41 x 41 grid of pairs of centres and, per row, the pooled weight split
evenly over the two centres' Betas).

API
---
``grid()`` -> (centres (81,), log prior weights (81,))
``grid_points(centres)`` -> ([centres per pooled centre, each (G,)], log prior weights (G,))
``grid_weights(counts, ...)`` -> posterior weights of the grid points (81,), summing to 1
``component_probs(counts, ...)`` -> P(row j pooled | grid point g, C), shape (81, M)
``recall_mixture(counts, j, ...)`` -> (weights, a, b): the exact posterior of recall j as a
    mixture of Beta(a_k, b_k) (162 components; for KS tests against exact CDFs)
``recall_mean(counts, ...)`` -> exact posterior means of the recalls, (M,)
``micro_f1_mean(counts, ...)`` -> exact posterior mean of micro-F1 (= accuracy)
``sample_p(counts, draws, rng, ...)`` -> draws of ``p[u, v] = mu_u theta_uv``, (draws, M, M)
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaln, logsumexp

GRID_SIZE = 81
LOGIT_RANGE = 7.0
OWN_WEIGHT = 0.1
JEFFREYS = 0.5
TWO_CENTRE_SIZE = 41  # points per centre of the two-centre variant's grid (41 x 41 pairs)


def grid() -> tuple[np.ndarray, np.ndarray]:
    """Grid centres ``m_g`` and the log of their (normalised) prior weights."""
    logit = np.linspace(-LOGIT_RANGE, LOGIT_RANGE, GRID_SIZE)
    m = 1.0 / (1.0 + np.exp(-logit))
    logw = np.log(m) + np.log1p(-m)
    return m, logw - logsumexp(logw)


def grid_points(centres: int = 1) -> tuple[list[np.ndarray], np.ndarray]:
    """The grid of centres: one array of centres per pooled centre (each of length G) and the
    log prior weights (G,). One centre: the 81-point grid; two: every pair of a 41-point grid
    (``TWO_CENTRE_SIZE``), the centres independent and uniform."""
    if centres == 1:
        m, logw = grid()
        return [m], logw
    if centres != 2:
        raise ValueError(f"centres must be 1 or 2; got {centres}")
    logit = np.linspace(-LOGIT_RANGE, LOGIT_RANGE, TWO_CENTRE_SIZE)
    m = 1.0 / (1.0 + np.exp(-logit))
    m1, m2 = (x.ravel() for x in np.meshgrid(m, m, indexing="ij"))
    logw = np.log(m1) + np.log1p(-m1) + np.log(m2) + np.log1p(-m2)
    return [m1, m2], logw - logsumexp(logw)


def pooled_beta(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pooled component's Beta(s m, s (1 - m)), ``s = 1 / (2 min(m, 1 - m))``."""
    s = 1.0 / (2.0 * np.minimum(m, 1.0 - m))
    return s * m, s * (1.0 - m)


def _rows(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(counts, dtype=float)
    if c.ndim != 2 or c.shape[0] != c.shape[1] or c.shape[0] < 2:
        raise ValueError(f"counts must be one M x M table with M >= 2; got shape {c.shape}")
    d = np.diag(c).copy()
    return d, c.sum(axis=1) - d


def _components(pooled_from: int, m: int, strengths: tuple[float, ...], centres: int = 1):
    """Every row's prior components per grid point: (pooled count, a (G, K), b (G, K)).

    The pooled components (weight 1 - own_weight, split evenly over the centres and the
    strength factors f: Beta(f s m, f s (1 - m)) for each centre m) and the Jeffreys "own"
    component last; Jeffreys only when ``M < pooled_from``.
    """
    ms, _ = grid_points(centres)
    size = ms[0].size
    if m < pooled_from:
        return None, np.full((size, 1), JEFFREYS), np.full((size, 1), JEFFREYS)
    pairs = [pooled_beta(c) for c in ms]
    a = np.column_stack([f * a0 for a0, _ in pairs for f in strengths] + [np.full(size, JEFFREYS)])
    b = np.column_stack([f * b0 for _, b0 in pairs for f in strengths] + [np.full(size, JEFFREYS)])
    return len(strengths) * len(ms), a, b


def _log_joint(counts, pooled_from: int, own_weight: float, strengths, centres: int = 1):
    """log(component weight x Beta-binomial marginal) per grid point, row and component,
    shape (G, M, K); and the component Beta parameters a, b, each (G, K)."""
    d, e = _rows(counts)
    k_pooled, a, b = _components(pooled_from, d.size, tuple(strengths), centres)
    if k_pooled is None:
        logw = np.zeros(1)
    else:
        logw = np.r_[
            np.full(k_pooled, np.log1p(-own_weight) - np.log(k_pooled)), np.log(own_weight)
        ]
    a3, b3 = a[:, None, :], b[:, None, :]
    dd, ee = d[None, :, None], e[None, :, None]
    return logw + betaln(a3 + dd, b3 + ee) - betaln(a3, b3), a, b


def grid_weights(
    counts, pooled_from: int = 2, own_weight: float = OWN_WEIGHT, strengths=(1.0,), centres=1
) -> np.ndarray:
    """Posterior weights of the grid points given one table (they sum to 1)."""
    lj, _, _ = _log_joint(counts, pooled_from, own_weight, tuple(strengths), centres)
    _, logprior = grid_points(centres)
    logpost = logprior + logsumexp(lj, axis=2).sum(axis=1)
    return np.exp(logpost - logsumexp(logpost))


def _posterior_components(counts, pooled_from, own_weight, strengths, centres=1) -> np.ndarray:
    """P(row j's recall is from component k | grid point g, C), shape (G, M, K)."""
    lj, _, _ = _log_joint(counts, pooled_from, own_weight, tuple(strengths), centres)
    return np.exp(lj - logsumexp(lj, axis=2, keepdims=True))


def component_probs(
    counts, pooled_from: int = 2, own_weight: float = OWN_WEIGHT, strengths=(1.0,), centres=1
) -> np.ndarray:
    """P(row j's recall is from a pooled component | grid point g, C), shape (G, M)."""
    m = np.asarray(counts).shape[0]
    if m < pooled_from:
        return np.zeros((grid_points(centres)[1].size, m))
    q = _posterior_components(counts, pooled_from, own_weight, strengths, centres)
    return q[:, :, :-1].sum(2)


def recall_mixture(
    counts,
    j: int,
    pooled_from: int = 2,
    own_weight: float = OWN_WEIGHT,
    strengths=(1.0,),
    centres=1,
):
    """The exact posterior of recall ``j``: mixture weights and Beta parameters (G K each)."""
    d, e = _rows(counts)
    w = grid_weights(counts, pooled_from, own_weight, strengths, centres)
    q = _posterior_components(counts, pooled_from, own_weight, strengths, centres)[:, j, :]
    _, a, b = _log_joint(counts, pooled_from, own_weight, tuple(strengths), centres)
    return (w[:, None] * q).ravel(), (a + d[j]).ravel(), (b + e[j]).ravel()


def recall_mean(
    counts, pooled_from: int = 2, own_weight: float = OWN_WEIGHT, strengths=(1.0,), centres=1
) -> np.ndarray:
    """Exact posterior mean of every recall ``theta_jj``, shape (M,)."""
    m = np.asarray(counts).shape[0]
    out = np.empty(m)
    for j in range(m):
        w, a, b = recall_mixture(counts, j, pooled_from, own_weight, strengths, centres)
        out[j] = np.sum(w * a / (a + b))
    return out


def micro_f1_mean(
    counts, pooled_from: int = 2, own_weight: float = OWN_WEIGHT, strengths=(1.0,), centres=1
) -> float:
    """Exact posterior mean of micro-F1 = sum_j E[mu_j] E[theta_jj] (mu independent of theta)."""
    c = np.asarray(counts, dtype=float)
    m = c.shape[0]
    n = c.sum(axis=1)
    mu_mean = (1.0 / m + n) / (1.0 + n.sum())
    return float(np.sum(mu_mean * recall_mean(c, pooled_from, own_weight, strengths, centres)))


def sample_p(
    counts,
    draws: int,
    rng: np.random.Generator,
    pooled_from: int = 2,
    own_weight: float = OWN_WEIGHT,
    strengths=(1.0,),
    centres: int = 1,
) -> np.ndarray:
    """Posterior draws of ``p[u, v] = mu_u theta_uv``, shape (draws, M, M).

    Per draw: a grid point by its posterior weight; per row a component by its conditional
    probability; the recall from its conjugate Beta; the split and ``mu`` from their
    conjugate Dirichlets (which do not depend on the grid point or the component).
    """
    c = np.asarray(counts, dtype=float)
    m = c.shape[0]
    d, e = _rows(c)
    lj, a_comp, b_comp = _log_joint(c, pooled_from, own_weight, tuple(strengths), centres)
    _, logprior = grid_points(centres)
    logpost = logprior + logsumexp(lj, axis=2).sum(axis=1)
    w = np.exp(logpost - logsumexp(logpost))
    q = np.exp(lj - logsumexp(lj, axis=2, keepdims=True))  # (G, M, K)
    g = rng.choice(w.size, size=draws, p=w)  # one grid point per draw
    u = rng.random((draws, m, 1))
    k = (u > np.cumsum(q[g], axis=2)).sum(axis=2)  # one component per row and draw
    k = np.minimum(k, q.shape[2] - 1)  # rounding of the cumulative sum
    recall = rng.beta(a_comp[g[:, None], k] + d, b_comp[g[:, None], k] + e)  # (draws, M)
    theta = np.empty((draws, m, m))
    for j in range(m):
        others = [i for i in range(m) if i != j]
        split = rng.dirichlet(JEFFREYS / (m - 1) + c[j, others], size=draws)
        theta[:, j, j] = recall[:, j]
        theta[:, j, others] = (1.0 - recall[:, j])[:, None] * split
    mu = rng.dirichlet(1.0 / m + c.sum(axis=1), size=draws)
    return mu[:, :, None] * theta
