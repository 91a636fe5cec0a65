"""The hierarchical prior's mixture: grid weights and the per-draw choice of component.

Model (``"hierarchical"`` in :mod:`f1posterior._core.priors`): a centre ``m`` on a
grid of ``GRID_SIZE`` points uniform in ``logit m`` on ``[-GRID_LOGIT, GRID_LOGIT]``,
hyperprior ``m ~ Uniform(0, 1)`` (grid weights ``m (1 - m)``, the Jacobian); per row
``j``, independently given ``m``,

    r_j = theta_jj ~ POOLED_WEIGHT Beta(s m, s (1 - m)) + (1 - POOLED_WEIGHT) Beta(1/2, 1/2)

with ``s = 1 / (2 min(m, 1 - m))`` (Jeffreys tails, centre ``m``), and the error
split ``theta_{j,-j} / (1 - theta_jj) ~ Dir(1/(2(M-1)), ...)`` independent of the
recall; ``mu ~ Dir(1/M)``. For ``m >= 1/2`` the pooled component is
``Beta(m / (2 (1 - m)), 1/2)`` and the row is exactly the Dirichlet row
``(a, 1/(2(M-1)), ...)``; for ``m < 1/2`` it is ``Beta(1/2, (1 - m) / (2 m))``, a
generalised-Dirichlet (Connor-Mosimann) row. The own component is the Dirichlet row
``(1/2, 1/(2(M-1)), ...)``.

Posterior: the split and ``mu`` are conjugate and the same under every component, so
the grid weights use the recalls' Beta-binomial marginals only (binomial
coefficients and the own component's terms cancel):
``w_g ∝ m_g (1 - m_g) prod_j [0.1 + 0.9 exp(d_gj)]``, ``d_gj = log BB_pooled(g, j) -
log BB_own(j)``; given ``g``, row ``j`` uses the pooled component with probability
``expit(d_gj + log 9)``. One draw picks ``g``, then each row's component, then draws
the conjugate Beta / Dirichlet posteriors: an exact finite mixture, no MCMC.

Sampling with Gamma variates (:func:`f1posterior._core.sampling.fill_block`): the
concentrations are those of the own component (``alpha_jj = 1/2``), and a draw that
uses the pooled component adds ``GRID_SHIFT[g] = a_g - 1/2`` to the diagonal cell's
shape. When ``m_g < 1/2`` its recall needs ``Beta(1/2 + c_jj, b_g + e_j)``: one extra
``E ~ Gamma(b_g - 1/2)`` (``GRID_EXTRA``) and the diagonal Gamma multiplied by
``S / (S + E)`` (``S`` the sum of the row's off-diagonal Gammas): then the recall is
``G_jj / (G_jj + S + E)`` and the split ``G_jk / S`` stays Dirichlet and independent
of it (Lukacs).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "GRID_SIZE",
    "GRID_LOGIT",
    "POOLED_WEIGHT",
    "GRID_M",
    "GRID_SHIFT",
    "GRID_EXTRA",
    "GridWeights",
    "RecallMixture",
    "gammaln",
    "grid_weights",
    "mixture_shapes",
    "shrink_diagonal",
]

#: Number of grid points of the centre ``m``.
GRID_SIZE = 81
#: The grid is uniform in ``logit m`` on ``[-GRID_LOGIT, GRID_LOGIT]``.
GRID_LOGIT = 7.0
#: Prior weight of the pooled component of each row (the rest: Jeffreys' Beta(1/2, 1/2)).
POOLED_WEIGHT = 0.9

_LOGIT = np.linspace(-GRID_LOGIT, GRID_LOGIT, GRID_SIZE)
#: The grid of centres ``m_g``.
GRID_M = 1.0 / (1.0 + np.exp(-_LOGIT))
_HIGH = GRID_M >= 0.5
_A = np.where(_HIGH, GRID_M / (2.0 * (1.0 - GRID_M)), 0.5)  # pooled Beta(a_g, b_g)
_B = np.where(_HIGH, 0.5, (1.0 - GRID_M) / (2.0 * GRID_M))
#: Added to the diagonal cell's shape by a draw of the pooled component at ``g``.
GRID_SHIFT = _A - 0.5
#: Shape of the extra Gamma ``E`` of a draw of the pooled component at ``g`` (0: none).
GRID_EXTRA = _B - 0.5
_LOG_PRIOR = np.log(GRID_M * (1.0 - GRID_M))
# log B(1/2, 1/2) - log B(a_g, b_g), once per grid point (the table-independent part)
_LOG_BETA_RATIO = np.array(
    [math.log(math.pi) - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)) for a, b in
     zip(_A.tolist(), _B.tolist(), strict=True)]
)  # fmt: skip
_LOG_ODDS = math.log(POOLED_WEIGHT / (1.0 - POOLED_WEIGHT))
_N_LOW = int(np.count_nonzero(~_HIGH))  # grid points 0.._N_LOW-1 have m < 1/2

# Stirling series of log Gamma(z) - ((z - 1/2) log z - z + log(2 pi) / 2), z >= 10
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _gammaln_numpy(x: np.ndarray) -> np.ndarray:
    """log Gamma(x) for x > 0, vectorised: shift to x >= 10 by recurrence, then Stirling."""
    z = np.array(x, dtype=np.float64)  # a copy
    prod = np.ones_like(z)
    for _ in range(10):
        low = z < 10.0
        if not low.any():
            break
        prod[low] *= z[low]
        z[low] += 1.0
    inv = 1.0 / z
    inv2 = inv * inv
    series = np.zeros_like(z)
    for c in reversed(_STIRLING):
        series = series * inv2 + c
    return (z - 0.5) * np.log(z) - z + _HALF_LOG_2PI + series * inv - np.log(prod)


def gammaln(x: np.ndarray) -> np.ndarray:
    """Vectorised ``log Gamma(x)``, ``x > 0``: scipy's when importable, else numpy's own.

    Examples
    --------
    >>> import math
    >>> bool(abs(gammaln(np.array([0.5]))[0] - math.lgamma(0.5)) < 1e-14)
    True
    """
    try:
        from scipy.special import gammaln as sp_gammaln
    except ImportError:  # pragma: no cover - exercised through _gammaln_numpy in tests
        return _gammaln_numpy(x)
    return np.asarray(sp_gammaln(x), dtype=np.float64)


LogGamma = Callable[[np.ndarray], np.ndarray]


def _log_ratio(hits: np.ndarray, rows: np.ndarray, lgamma: LogGamma | None = None) -> np.ndarray:
    """``d_gj = log BB_pooled(g) - log BB_own`` of every row, shape ``(..., G, M)``."""
    lg = gammaln if lgamma is None else lgamma
    t = hits[..., None, :]
    n = rows[..., None, :]
    e = n - t
    base_n = lg(1.0 + n)
    a = _A[_N_LOW:, None]
    b = _B[:_N_LOW, None]
    high = lg(a + t) - lg(0.5 + t) - lg(a + 0.5 + n) + base_n
    low = lg(b + e) - lg(0.5 + e) - lg(b + 0.5 + n) + base_n
    return np.concatenate([low, high], axis=-2) + _LOG_BETA_RATIO[:, None]


@dataclass(frozen=True)
class GridWeights:
    """The posterior mixture weights of tables under the hierarchical prior.

    Attributes
    ----------
    cdf : ndarray, shape (..., GRID_SIZE)
        Cumulative posterior weights of the grid points; the last is exactly 1.
    by_row : ndarray, shape (..., M, GRID_SIZE)
        Posterior probability that row ``j`` uses the pooled component, given ``g``
        (:attr:`pooled` is the same, grid axis first).
    guide : ndarray of int32, shape (..., GUIDE)
        ``guide[k]``, the number of grid points with ``cdf <= k / GUIDE``: where the
        search for a uniform in ``[k / GUIDE, (k + 1) / GUIDE)`` starts.
    """

    cdf: np.ndarray
    by_row: np.ndarray
    guide: np.ndarray

    @property
    def probs(self) -> np.ndarray:
        """The posterior weights of the grid points, ``(..., GRID_SIZE)``."""
        return np.diff(self.cdf, axis=-1, prepend=0.0)

    @property
    def pooled(self) -> np.ndarray:
        """P(row ``j`` uses the pooled component | ``g``), ``(..., GRID_SIZE, M)``."""
        return np.swapaxes(self.by_row, -1, -2)

    def take(self, i0: int, i1: int) -> GridWeights:
        """The weights of tables ``i0:i1`` of a flat batch."""
        return GridWeights(self.cdf[i0:i1], self.by_row[i0:i1], self.guide[i0:i1])


#: Buckets of the guide table (a power of two: ``u * GUIDE`` and ``cdf * GUIDE`` are exact).
GUIDE = 256


def _guide(cdf: np.ndarray) -> np.ndarray:
    """``guide[..., k] = #{g : cdf_g <= k / GUIDE}``, exactly, vectorised over tables."""
    flat = cdf.reshape(-1, GRID_SIZE)
    first = np.ceil(flat * GUIDE).astype(np.int64)  # cdf_g <= k / GUIDE  <=>  first_g <= k
    np.minimum(first, GUIDE, out=first)  # cdf_g = 1 is never <= k / GUIDE for k < GUIDE
    rows = np.arange(len(flat))[:, None] * (GUIDE + 1)
    counts = np.bincount((rows + first).ravel(), minlength=len(flat) * (GUIDE + 1))
    guide = np.cumsum(counts.reshape(-1, GUIDE + 1)[:, :GUIDE], axis=-1)
    return guide.astype(np.int32).reshape((*cdf.shape[:-1], GUIDE))


def grid_weights(counts: np.ndarray) -> GridWeights:
    """Posterior grid and component weights of confusion matrices, vectorised over tables.

    Parameters
    ----------
    counts : ndarray, shape (..., M, M)
        Confusion matrices (rows = true class), whole-number counts.

    Returns
    -------
    GridWeights

    Examples
    --------
    >>> w = grid_weights(np.array([[90.0, 10.0], [20.0, 80.0]]))
    >>> w.cdf.shape, w.pooled.shape, float(w.cdf[-1])
    ((81,), (81, 2), 1.0)
    >>> round(float(w.probs @ GRID_M), 2)  # the centre's posterior mean (two rows: vague)
    0.72
    """
    c = np.asarray(counts, dtype=np.float64)
    hits = np.diagonal(c, axis1=-2, axis2=-1)
    return weights_from_rows(hits, c.sum(axis=-1))


def weights_from_rows(
    hits: np.ndarray, rows: np.ndarray, lgamma: LogGamma | None = None
) -> GridWeights:
    """:func:`grid_weights` from each row's hits ``c_jj`` and size ``n_j``, ``(..., M)``."""
    z = _log_ratio(hits, rows, lgamma) + _LOG_ODDS  # log odds of pooled vs own, (..., G, M)
    row_log = np.logaddexp(0.0, z)  # log((0.1 + 0.9 BB_pooled / BB_own) / 0.1)
    pooled = np.exp(z - row_log)
    logw = row_log.sum(axis=-1) + _LOG_PRIOR
    w = np.exp(logw - logw.max(axis=-1, keepdims=True))
    cdf = np.cumsum(w, axis=-1)
    cdf /= cdf[..., -1:]
    cdf[..., -1] = 1.0
    by_row = np.ascontiguousarray(np.swapaxes(pooled, -1, -2))
    return GridWeights(cdf, by_row, _guide(cdf))


@dataclass(frozen=True)
class RecallMixture:
    """The data the hierarchical prior's posterior mixture needs of each table.

    Attributes
    ----------
    hits, rows : ndarray, shape (*batch, M)
        Each row's diagonal count ``c_jj`` and size ``n_j``.
    """

    hits: np.ndarray
    rows: np.ndarray

    @classmethod
    def of(cls, counts: np.ndarray) -> RecallMixture:
        """The mixture of tables ``counts`` (..., M, M)."""
        c = np.asarray(counts, dtype=np.float64)
        return cls(np.diagonal(c, axis1=-2, axis2=-1).copy(), c.sum(axis=-1))

    def flat(self) -> RecallMixture:
        """The same tables as a flat batch, ``(B, M)``."""
        m = self.hits.shape[-1]
        return RecallMixture(self.hits.reshape(-1, m), self.rows.reshape(-1, m))

    def take(self, b0: int, b1: int) -> RecallMixture:
        """Tables ``b0:b1`` of a flat batch."""
        return RecallMixture(self.hits[b0:b1], self.rows[b0:b1])

    def weights(self, b0: int | None = None, b1: int | None = None) -> GridWeights:
        """:func:`grid_weights` of tables ``b0:b1`` (of a flat batch; all by default)."""
        return weights_from_rows(self.hits[b0:b1], self.rows[b0:b1])


def grid_points(u: np.ndarray, cdf: np.ndarray, guide: np.ndarray) -> np.ndarray:
    """``searchsorted(cdf, u, side="right")``: the grid point of each uniform ``u``.

    Starts at the guide table's bucket of ``u`` and steps up, only where needed,
    while ``cdf[g] <= u`` (``GUIDE`` buckets for ``GRID_SIZE`` points: rarely a
    step), never past the last point (``cdf[-1] = 1 > u``).
    """
    g = guide[(u * GUIDE).astype(np.intp)]
    todo = np.flatnonzero(cdf[g] <= u)
    while todo.size:
        g[todo] += 1
        todo = todo[cdf[g[todo]] <= u[todo]]
    return g


def mixture_shapes(
    gen: np.random.Generator, w: tuple[np.ndarray, ...], diag: np.ndarray, nb: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """Choose each of ``nb`` draws' grid point and row components; the diagonal shapes.

    ``w`` is one table's ``(cdf, by_row, guide)`` (:class:`GridWeights`). Consumes
    ``(M + 1) nb`` uniforms of ``gen``: the grid point's, then each row's.

    Returns
    -------
    shapes : ndarray, shape (M, nb)
        The diagonal cells' Gamma shapes (``diag`` plus ``GRID_SHIFT`` where pooled).
    extra : ndarray, shape (M, nb), or None
        The extra Gamma's shape of each row and draw (0 where none), None if none at all.
    """
    cdf, by_row, guide = w
    m = len(diag)
    u = gen.random((m + 1, nb))
    g = grid_points(u[0], cdf, guide)
    use = u[1:] < by_row[:, g]
    shapes = use * GRID_SHIFT[g]
    shapes += diag[:, None]
    if g.min() >= _N_LOW or not use.any():
        return shapes, None
    extra = use * GRID_EXTRA[g]
    return shapes, (extra if extra.max() > 0.0 else None)


def shrink_diagonal(
    gen: np.random.Generator, x: np.ndarray, extra: np.ndarray, log_max: np.ndarray | None = None
) -> None:
    """Draw the extra Gammas ``E`` and multiply each diagonal Gamma by ``S / (S + E)``.

    ``x`` holds a block's Gammas ``(M + 1, M, nb)``; with ``log_max`` (the log-space
    route) they were drawn in log space and rescaled, row ``r`` by ``exp(-log_max[r])``
    per draw, and ``E`` is rescaled alike. ``S``, the sum of a row's off-diagonal
    Gammas, has shape ``1/2 + e_j`` however small its cells' are, so it is a normal
    number (and so is ``E``'s effect) whenever it matters. One call draws every ``E``,
    row by row (row-major over ``extra > 0``).
    """
    need = extra > 0.0
    e = np.zeros(extra.shape, dtype=x.dtype)
    e[need] = gen.standard_gamma(extra[need], dtype=x.dtype)
    if log_max is not None:
        with np.errstate(divide="ignore"):
            e[need] = np.exp(np.log(e[need]) - log_max[: len(e)][need])
    idx = np.arange(len(e))
    diag = x[idx, idx]  # a copy, (M, nb)
    x[idx, idx] = 0.0
    s = x[: len(e)].sum(axis=1)  # S: the diagonal is 0 here
    x[idx, idx] = np.where(need, diag * (s / (s + e)), diag)
