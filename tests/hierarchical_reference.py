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
old default's Jeffreys rows for M = 2, 3 are ``pooled_from=4``), ``own_weight`` (0.1).

API
---
``grid()`` -> (centres (81,), log prior weights (81,))
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


def grid() -> tuple[np.ndarray, np.ndarray]:
    """Grid centres ``m_g`` and the log of their (normalised) prior weights."""
    logit = np.linspace(-LOGIT_RANGE, LOGIT_RANGE, GRID_SIZE)
    m = 1.0 / (1.0 + np.exp(-logit))
    logw = np.log(m) + np.log1p(-m)
    return m, logw - logsumexp(logw)


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


def _log_terms(counts, pooled_from: int, own_weight: float):
    """Log of the two mixture terms of every row's marginal, each (81, M)."""
    d, e = _rows(counts)
    m, _ = grid()
    a, b = pooled_beta(m)
    a, b = a[:, None], b[:, None]
    own = np.log(own_weight) + betaln(JEFFREYS + d, JEFFREYS + e) - betaln(JEFFREYS, JEFFREYS)
    own = np.broadcast_to(own, (GRID_SIZE, d.size))
    if d.size < pooled_from:  # Jeffreys rows only: the own component with weight 1
        return np.full((GRID_SIZE, d.size), -np.inf), own - np.log(own_weight)
    pooled = np.log1p(-own_weight) + betaln(a + d, b + e) - betaln(a, b)
    return pooled, own


def grid_weights(counts, pooled_from: int = 2, own_weight: float = OWN_WEIGHT) -> np.ndarray:
    """Posterior weights of the 81 grid points given one table (they sum to 1)."""
    pooled, own = _log_terms(counts, pooled_from, own_weight)
    _, logprior = grid()
    logpost = logprior + np.logaddexp(pooled, own).sum(axis=1)
    return np.exp(logpost - logsumexp(logpost))


def component_probs(counts, pooled_from: int = 2, own_weight: float = OWN_WEIGHT) -> np.ndarray:
    """P(row j's recall is from the pooled component | grid point g, C), shape (81, M)."""
    pooled, own = _log_terms(counts, pooled_from, own_weight)
    return np.exp(pooled - np.logaddexp(pooled, own))


def recall_mixture(counts, j: int, pooled_from: int = 2, own_weight: float = OWN_WEIGHT):
    """The exact posterior of recall ``j``: mixture weights and Beta parameters, 162 each."""
    d, e = _rows(counts)
    w = grid_weights(counts, pooled_from, own_weight)
    q = component_probs(counts, pooled_from, own_weight)[:, j]
    a, b = pooled_beta(grid()[0])
    weights = np.concatenate([w * q, w * (1.0 - q)])
    alpha = np.concatenate([a + d[j], np.full(GRID_SIZE, JEFFREYS + d[j])])
    beta = np.concatenate([b + e[j], np.full(GRID_SIZE, JEFFREYS + e[j])])
    return weights, alpha, beta


def recall_mean(counts, pooled_from: int = 2, own_weight: float = OWN_WEIGHT) -> np.ndarray:
    """Exact posterior mean of every recall ``theta_jj``, shape (M,)."""
    m = np.asarray(counts).shape[0]
    out = np.empty(m)
    for j in range(m):
        w, a, b = recall_mixture(counts, j, pooled_from, own_weight)
        out[j] = np.sum(w * a / (a + b))
    return out


def micro_f1_mean(counts, pooled_from: int = 2, own_weight: float = OWN_WEIGHT) -> float:
    """Exact posterior mean of micro-F1 = sum_j E[mu_j] E[theta_jj] (mu independent of theta)."""
    c = np.asarray(counts, dtype=float)
    m = c.shape[0]
    n = c.sum(axis=1)
    mu_mean = (1.0 / m + n) / (1.0 + n.sum())
    return float(np.sum(mu_mean * recall_mean(c, pooled_from, own_weight)))


def sample_p(
    counts,
    draws: int,
    rng: np.random.Generator,
    pooled_from: int = 2,
    own_weight: float = OWN_WEIGHT,
) -> np.ndarray:
    """Posterior draws of ``p[u, v] = mu_u theta_uv``, shape (draws, M, M).

    Per draw: a grid point by its posterior weight; per row a component by its conditional
    probability; the recall from its conjugate Beta; the split and ``mu`` from their
    conjugate Dirichlets (which do not depend on the grid point or the component).
    """
    c = np.asarray(counts, dtype=float)
    m = c.shape[0]
    d, e = _rows(c)
    w = grid_weights(c, pooled_from, own_weight)
    q = component_probs(c, pooled_from, own_weight)
    a_grid, b_grid = pooled_beta(grid()[0])
    g = rng.choice(GRID_SIZE, size=draws, p=w)  # one grid point per draw
    pooled = rng.random((draws, m)) < q[g]  # one component per row and draw
    a = np.where(pooled, a_grid[g][:, None], JEFFREYS) + d
    b = np.where(pooled, b_grid[g][:, None], JEFFREYS) + e
    recall = rng.beta(a, b)  # (draws, M), each draw its own parameters
    theta = np.empty((draws, m, m))
    for j in range(m):
        others = [k for k in range(m) if k != j]
        split = rng.dirichlet(JEFFREYS / (m - 1) + c[j, others], size=draws)
        theta[:, j, j] = recall[:, j]
        theta[:, j, others] = (1.0 - recall[:, j])[:, None] * split
    mu = rng.dirichlet(1.0 / m + c.sum(axis=1), size=draws)
    return mu[:, :, None] * theta
