"""The hierarchical prior's mixture: grid weights and the per-draw choice of component.

The default prior's posterior is a finite mixture of conjugate posteriors over a grid of
recall centres, drawn exactly (no MCMC).

Design notes: docs/design.md#core-hierarchical
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .rowsums import row_sums

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
    "ExtraGammas",
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
#: The extra Gamma of a draw of the pooled component at ``g`` (0: none) has this shape
#: plus the row's off-diagonal concentrations (:class:`ExtraGammas`).
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


def gammaln_numpy(x: np.ndarray) -> np.ndarray:
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
    except ImportError:  # pragma: no cover - exercised through gammaln_numpy in tests
        return gammaln_numpy(x)
    return np.asarray(sp_gammaln(x), dtype=np.float64)


LogGamma = Callable[[np.ndarray], np.ndarray]


def _log_ratio(hits: np.ndarray, rows: np.ndarray, lgamma: LogGamma | None = None) -> np.ndarray:
    """``d_gj = log BB_pooled(g) - log BB_own`` of every row, shape ``(..., G, M)``."""
    lg = gammaln if lgamma is None else lgamma
    t = hits[..., None, :]
    n = rows[..., None, :]
    e = n - t
    base_n = lg(1.0 + n)
    a = _A[_N_LOW:]
    b = _B[:_N_LOW]
    high = _lg_grid(a, hits, lg) - lg(0.5 + t) - _lg_grid(a + 0.5, rows, lg) + base_n
    low = _lg_grid(b, rows - hits, lg) - lg(0.5 + e) - _lg_grid(b + 0.5, rows, lg) + base_n
    return np.concatenate([low, high], axis=-2) + _LOG_BETA_RATIO[:, None]


def _lg_grid(shift: np.ndarray, x: np.ndarray, lg: LogGamma) -> np.ndarray:
    """``lg(shift[:, None] + x[..., None, :])``, ``(..., G', M)``, from one value per
    distinct ``x`` when at most half of them are distinct (counts repeat across a batch
    of tables): the same sums, so the same values, bit for bit, at a fraction of the
    log-gamma calls."""
    values, inverse = np.unique(x, return_inverse=True)
    if 2 * values.size > x.size:
        return lg(shift[:, None] + x[..., None, :])
    table = lg(shift[:, None] + values)  # (G', distinct)
    return np.moveaxis(np.take(table, inverse.reshape(x.shape), axis=1), 0, -2)


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

    Notes
    -----
    The log weights are differences of log-gamma values of the counts, so their
    absolute error is about ``1e-16 n log n`` for rows of ``n`` documents
    (2e-8 at ten million documents a row). Cost: 162 log-gamma values
    per class and table (scipy's ``gammaln`` when importable, else a numpy
    series about ten times slower), or per distinct count where a batch's counts
    repeat; callers compute it a group of tables at a time, once per table.

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
    """:func:`grid_weights` from each row's hits ``c_jj`` and size ``n_j``, ``(..., M)``.

    A row's terms depend on its ``(c_jj, n_j)`` alone: where at most half of a batch's
    rows are distinct pairs, each pair's are computed once and gathered (the same
    values, bit for bit)."""
    distinct = _distinct_rows(hits, rows)
    if distinct is None:
        row_log, pooled = _row_terms(hits, rows, lgamma)  # (..., G, M)
        by_row = np.ascontiguousarray(np.swapaxes(pooled, -1, -2))
    else:
        first, inverse = distinct
        row_log_u, pooled_u = _row_terms(hits.ravel()[first], rows.ravel()[first], lgamma)
        at = inverse.reshape(hits.shape)[..., None, :] + np.arange(GRID_SIZE)[:, None] * first.size
        row_log = np.take(row_log_u.ravel(), at)  # (..., G, M), C order as the direct route
        by_row = np.take(pooled_u.T, inverse.reshape(hits.shape), axis=0)  # (..., M, G)
    logw = row_log.sum(axis=-1) + _LOG_PRIOR
    w = np.exp(logw - logw.max(axis=-1, keepdims=True))
    cdf = np.cumsum(w, axis=-1)
    cdf /= cdf[..., -1:]
    cdf[..., -1] = 1.0
    return GridWeights(cdf, by_row, _guide(cdf))


def _row_terms(
    hits: np.ndarray, rows: np.ndarray, lgamma: LogGamma | None
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``log((0.1 + 0.9 BB_pooled / BB_own) / 0.1)`` and probability of the
    pooled component, given each grid point, ``(..., G, M)`` each."""
    z = _log_ratio(hits, rows, lgamma) + _LOG_ODDS  # log odds of pooled vs own
    row_log = np.logaddexp(0.0, z)
    return row_log, np.exp(z - row_log)


def _distinct_rows(hits: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The first flat index of each distinct ``(hits, rows)`` pair and each row's pair,
    if at most half of the rows are distinct (else None)."""
    if hits.size < 8:
        return None
    _, first, inverse = np.unique(
        (hits + 1j * rows).ravel(), return_index=True, return_inverse=True
    )
    if 2 * first.size > hits.size:
        return None
    return first, inverse


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


#: At most this many uniforms left after the guide's two steps are searched one by one.
FEW = 32


def grid_points(u: np.ndarray, cdf: np.ndarray, guide: np.ndarray) -> np.ndarray:
    """``searchsorted(cdf[i], u[i, j], side="right")`` for every table ``i``, (n, d).

    ``u`` (n, d) uniforms, ``cdf`` (n, G), ``guide`` (n, GUIDE). Starts at the guide
    table's bucket of each ``u`` and steps up once where ``cdf[g] <= u``; the few left
    (a bucket holding several points) finish by ``searchsorted``: one at a time
    if at most ``FEW``, else one call per table if in at most ``FEW`` tables, else by
    bisection, never past the last point (``cdf[-1] = 1 > u``). Flat indices throughout
    (``np.take`` is the fast gather).
    """
    n, d = u.shape
    flat_u, flat_cdf = u.ravel(), cdf.ravel()
    rows = (np.arange(n) * GRID_SIZE)[:, None]
    bucket = (u * GUIDE).astype(np.intp)
    bucket += (np.arange(n) * GUIDE)[:, None]
    f2 = np.take(guide.ravel().astype(np.intp), bucket)  # flat indices: no casts below
    f2 += rows
    f = f2.reshape(-1)
    todo = np.flatnonzero(np.take(flat_cdf, f) <= flat_u)
    f[todo] += 1
    todo = todo[np.take(flat_cdf, f[todo]) <= flat_u[todo]]
    if 0 < todo.size <= FEW:  # one search each (a call costs less than a bisection pass)
        for t in todo.tolist():
            i = t // d
            f[t] = i * GRID_SIZE + cdf[i].searchsorted(flat_u[t], side="right")
    elif todo.size and not _searched_by_table(todo, d, f, flat_u, cdf):  # bisection
        # cdf[lo] <= u < cdf[hi]
        lo, hi, x = f[todo], (todo // d) * GRID_SIZE + (GRID_SIZE - 1), flat_u[todo]
        while True:
            wide = hi - lo > 1
            if not wide.any():
                break
            mid = (lo + hi) // 2
            below = np.take(flat_cdf, mid) <= x
            lo = np.where(wide & below, mid, lo)
            hi = np.where(wide & ~below, mid, hi)
        f[todo] = hi
    f2 -= rows
    return f2


def _searched_by_table(
    todo: np.ndarray, d: int, f: np.ndarray, flat_u: np.ndarray, cdf: np.ndarray
) -> bool:
    """:func:`grid_points`' last uniforms ``todo`` (flat, ascending) by one ``searchsorted``
    of each table's uniforms, if they are in at most ``FEW`` tables (else False: nothing
    done). Most are the grid's tails (``u`` below the first bucket's end or above the
    last's start), where a bucket holds many points."""
    table = todo // d
    cuts = np.flatnonzero(table[1:] != table[:-1]) + 1
    if cuts.size >= FEW:
        return False
    edges = [0, *cuts.tolist(), todo.size]
    for s, e, i in zip(edges[:-1], edges[1:], table[edges[:-1]].tolist(), strict=True):
        at = todo[s:e]
        f[at] = cdf[i].searchsorted(flat_u[at], side="right") + i * GRID_SIZE
    return True


@dataclass
class ExtraGammas:
    """The extra Gammas ``T`` of a chunk: one per row and draw that uses the pooled
    component at a centre below 1/2, at ``flat``, their flat indices into the chunk's
    ``(table, row, draw)`` array, ``(n, M, d)``, in C order.

    ``T ~ Gamma(b_g + e_j)``: ``shape`` is ``GRID_EXTRA[g]`` plus the row's
    off-diagonal concentrations (``1/2 + e_j``). ``value`` is filled block by block
    (:meth:`entries` says which entries a block of draws holds).
    """

    flat: np.ndarray
    m: int  # classes
    draws: int  # the chunk's draws per table, d
    shape: np.ndarray
    value: np.ndarray
    bounds: np.ndarray  # entries of table i: bounds[i]:bounds[i + 1]

    @property
    def table(self) -> np.ndarray:
        """Each entry's table."""
        return self.flat // (self.m * self.draws)

    @property
    def row(self) -> np.ndarray:
        """Each entry's row."""
        return (self.flat // self.draws) % self.m

    @property
    def draw_at(self) -> np.ndarray:
        """Each entry's draw, within the chunk."""
        return self.flat % self.draws

    def entries(self, i: int, a: int, b: int) -> slice | np.ndarray:
        """The entries of table ``i``'s block of draws ``a:b``, in row-major order."""
        lo, hi = int(self.bounds[i]), int(self.bounds[i + 1])
        if lo == hi or (a == 0 and b == self.draws):
            return slice(lo, hi)
        j = self.flat[lo:hi] % self.draws
        if j.min() < a or j.max() >= b:  # several blocks of this table in the chunk
            return np.flatnonzero((j >= a) & (j < b)) + lo
        return slice(lo, hi)

    def draw(self, gen: np.random.Generator, i: int, a: int, b: int) -> None:
        """Draw the extra Gammas of table ``i``'s block of draws ``a:b`` from ``gen``."""
        at = self.entries(i, a, b)
        shape = self.shape[at]
        if shape.size:
            self.value[at] = gen.standard_gamma(shape, dtype=self.value.dtype)


def mixture_shapes(
    u: np.ndarray, w: GridWeights, diag: np.ndarray, off: np.ndarray, dtype: Any = np.float64
) -> tuple[np.ndarray, ExtraGammas | None]:
    """Each draw's grid point and row components, and the diagonal cells' shapes.

    ``u`` (n, M + 1, d): per table and draw, the grid point's uniform, then each
    row's; ``diag`` (n, M): the diagonal concentrations of the own component;
    ``off`` (n, M): the sum of each row's off-diagonal concentrations.

    Returns
    -------
    shapes : ndarray, shape (n, M, d)
        The diagonal cells' Gamma shapes (``diag`` plus ``GRID_SHIFT`` where pooled).
    extra : ExtraGammas or None
        The rows and draws that need an extra Gamma (pooled, centre below 1/2), with
        its shape; None if none.
    """
    n, m1, d = u.shape
    m = m1 - 1
    g = grid_points(u[:, 0], w.cdf, w.guide)
    at = (np.arange(n * m) * GRID_SIZE).reshape(n, m, 1) + g[:, None, :]
    use = u[:, 1:] < np.take(w.by_row.ravel(), at)
    # diag + GRID_SHIFT[g] where the row is pooled, diag where it is its own
    shapes = np.take((diag[:, :, None] + GRID_SHIFT).ravel(), at)
    np.copyto(shapes, diag[:, :, None], where=~use)
    low = g < _N_LOW
    if not low.any():
        return shapes, None
    use &= low[:, None, :]
    flat = np.flatnonzero(use)  # C order of (table, row, draw)
    if not flat.size:
        return shapes, None
    shape = np.take((off[:, :, None] + GRID_EXTRA).ravel(), np.take(at.reshape(-1), flat))
    bounds = np.searchsorted(flat, np.arange(n + 1) * (m * d))
    value = np.zeros(flat.size, dtype=dtype)
    return shapes, ExtraGammas(flat, m, d, shape, value, bounds)


#: Off-diagonal sums are gathered cell by cell while at most this fraction of a
#: chunk's rows and draws has an extra Gamma; above it, whole rows are reduced.
GATHER_BELOW = 0.125


def shrink_diagonal(x: np.ndarray, extra: ExtraGammas, log_max: np.ndarray | None = None) -> None:
    """Multiply each diagonal Gamma ``G`` with an extra Gamma ``T`` by ``S / T``.

    ``x`` holds a chunk's Gammas ``(n, M + 1, M, d)``; ``S`` is the sum of the row's
    off-diagonal Gammas. The row then normalises to recall ``G / (G + T)``, a
    ``Beta(1/2 + c_jj, b_g + e_j)``, and the split ``G_jk / S`` stays the Dirichlet it
    was, independent of it (Lukacs). Where ``log_max`` (n, M + 1, d) is given (the
    log-space route), row ``r`` was rescaled by ``exp(-log_max[r])`` per draw (0 for
    tables not on it), and ``T`` is rescaled alike. ``S`` has shape ``1/2 + e_j``
    however small its cells' are, so it is a normal number whenever it matters (and
    ``T`` too). ``S`` is summed over the columns in order either way (a gather of the
    rows with a ``T``, or, when there are many, a reduction of every row with its
    diagonal set to 0 meanwhile): the same sums, bit for bit.
    """
    n, m1, m, d = x.shape
    f, ev = extra.flat, extra.value
    if log_max is not None:  # log_max[i, r, j] is at f + i d
        ev = ev * np.exp(-np.take(log_max.reshape(-1), f + extra.table * d)).astype(ev.dtype)
    tr = f // d  # i M + r
    at = f + tr * (m * d)  # flat x[i, r, r, j]
    flat = x.reshape(-1)
    if len(ev) <= GATHER_BELOW * n * m * d:
        r = tr % m
        start = at - r * d  # flat x[i, r, 0, j]; cell k is at + k d
        s = np.zeros(len(ev), dtype=x.dtype)
        for k in range(m):
            s += np.where(r == k, 0.0, flat[start + k * d])
    else:
        idx = np.arange(m)
        rows = x[:, :m]
        keep = rows[:, idx, idx].copy()  # (n, M, d)
        rows[:, idx, idx] = 0.0
        sums = row_sums(rows, np.empty((n, m, d), x.dtype))  # k in order, as the gather
        rows[:, idx, idx] = keep
        s = np.take(sums.reshape(-1), f)
    flat[at] *= s / ev
