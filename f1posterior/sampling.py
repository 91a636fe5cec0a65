"""Exact conjugate sampling of the posterior cell probabilities.

Under the Zhang et al. model the posterior is

    mu      | C ~ Dir(beta + n)          n = row sums of C
    theta_j | C ~ Dir(alpha_j + c_j)

and the cell probabilities are ``p[u, v] = mu_u * theta_uv``. One posterior
draw of a matrix needs ``M * (M + 1)`` Gamma variates: we stack the
concentrations into an ``(M + 1, M)`` array (rows ``0..M-1`` are
``alpha + C``, row ``M`` is ``beta + n``), draw Gammas of that shape, and
normalise each row.

Random streams (the reproducibility contract)
---------------------------------------------
Every matrix ``b`` (flat index into the batch) and every block ``k`` of
``block_draws(M)`` consecutive draws has its own stream, seeded by
``SeedSequence(root.entropy, spawn_key=root.spawn_key + (b, k))``. Block size
depends on ``M`` only. So the draws of matrix ``b`` depend on the seed, ``b``,
``M`` and its own concentrations, never on the other matrices in the batch,
on how work is chunked, or on how many threads run it.

Small concentrations
--------------------
Gamma(a) with a tiny ``a`` underflows to exactly 0 (DESIGN.md, Numerics).
Where any concentration of a matrix is below ``LOG_SPACE_BELOW`` that
matrix's blocks are drawn in log space, ``log Gamma(a) = log Gamma(a + 1) +
log(U) / a``, and rescaled by the row maximum before exponentiating, so no
row normalises 0/0. Cell probabilities are finally floored at the smallest
normal float, so every draw is finite and strictly positive and no metric
divides 0 by 0 (the floor moves a probability by at most 2.2e-308).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from .priors import PriorArg, resolve_prior
from .validation import check_counts, check_draws, check_dtype, check_rng

__all__ = ["sample_posterior", "concentrations", "block_draws", "iter_cell_chunks"]

#: Target number of Gamma variates per random-stream block.
BLOCK_VARIATES = 1 << 16
#: Concentrations below this are sampled in log space.
LOG_SPACE_BELOW = 0.1


def block_draws(m: int) -> int:
    """Number of draws per random-stream block for ``M = m`` classes."""
    return max(1, BLOCK_VARIATES // (m * (m + 1)))


def concentrations(counts: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """Posterior Dirichlet parameters stacked as ``(*batch, M + 1, M)``.

    Rows ``0..M-1`` are ``alpha + C``, row ``M`` is ``beta + n``.
    """
    rows = alpha + counts
    prev = beta + counts.sum(axis=-1)
    shape = np.broadcast_shapes(rows.shape[:-2], prev.shape[:-1])
    rows = np.broadcast_to(rows, shape + rows.shape[-2:])
    prev = np.broadcast_to(prev, shape + prev.shape[-1:])
    return np.concatenate([rows, prev[..., None, :]], axis=-2)


def _stream(root: np.random.SeedSequence, b: int, k: int) -> np.random.Generator:
    child = np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, b, k), pool_size=root.pool_size
    )
    return np.random.Generator(np.random.PCG64(child))


def _fill_gammas(gen: np.random.Generator, conc: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` (n, M+1, M) with Gamma(conc) variates, row-scaled where needed.

    Rows may be scaled by positive constants (log-space path); callers only
    ever use each row normalised.
    """
    small = conc < LOG_SPACE_BELOW
    if not small.any():
        gen.standard_gamma(conc, dtype=out.dtype, out=out)
        return
    gen.standard_gamma(conc + small, dtype=out.dtype, out=out)
    u = 1.0 - gen.random(out.shape, dtype=out.dtype)  # in (0, 1]: log never -inf
    np.log(out, out=out)
    out += np.where(small, np.log(u) / conc, 0.0).astype(out.dtype)
    out -= out.max(axis=-1, keepdims=True)
    np.exp(out, out=out)


def _cells(gammas: np.ndarray) -> np.ndarray:
    """Turn Gamma rows ``(..., M+1, M)`` into cell probabilities ``(..., M, M)``."""
    m = gammas.shape[-1]
    sums = gammas.sum(axis=-1)  # (..., M+1)
    mu = gammas[..., m, :] / sums[..., m : m + 1]
    p = gammas[..., :m, :] * (mu / sums[..., :m])[..., :, None]
    np.maximum(p, np.finfo(p.dtype).tiny, out=p)
    return p


def iter_cell_chunks(
    conc: np.ndarray,
    draws: int,
    root: np.random.SeedSequence,
    dtype: np.dtype,
    max_variates: int = 1 << 22,
    index_offset: int = 0,
) -> Iterator[tuple[slice, slice, np.ndarray]]:
    """Yield posterior cell draws of a flat batch in memory-bounded chunks.

    Parameters
    ----------
    conc : ndarray, shape (B, M + 1, M)
        Stacked posterior concentrations (see :func:`concentrations`).
    draws : int
        Draws per matrix.
    root : SeedSequence
        Root of the random streams.
    dtype : numpy dtype
        float64 or float32.
    max_variates : int
        Upper bound on the Gamma variates held in one chunk (at least one
        block is always held).
    index_offset : int
        Flat batch index of ``conc[0]`` in the whole batch (its stream key).

    Yields
    ------
    matrices : slice
        Which matrices of ``conc`` the chunk covers.
    draw_range : slice
        Which draws the chunk covers.
    cells : ndarray, shape (n_matrices, n_draws, M, M)
        Posterior draws of ``p``; the result does not depend on
        ``max_variates``.
    """
    n_mat, m1, m = conc.shape
    per_draw = m1 * m
    bd = block_draws(m)
    if draws * per_draw <= max_variates:
        group = max(1, max_variates // (draws * per_draw))
        for b0 in range(0, n_mat, group):
            b1 = min(n_mat, b0 + group)
            buf = np.empty((b1 - b0, draws, m1, m), dtype=dtype)
            for i in range(b1 - b0):
                for k, d0 in enumerate(range(0, draws, bd)):
                    gen = _stream(root, index_offset + b0 + i, k)
                    _fill_gammas(gen, conc[b0 + i], buf[i, d0 : d0 + bd])
            yield slice(b0, b1), slice(0, draws), _cells(buf)
        return
    blocks_per_chunk = max(1, max_variates // (bd * per_draw))
    step = blocks_per_chunk * bd
    for b in range(n_mat):
        for d0 in range(0, draws, step):
            d1 = min(draws, d0 + step)
            buf = np.empty((1, d1 - d0, m1, m), dtype=dtype)
            for s0 in range(d0, d1, bd):
                gen = _stream(root, index_offset + b, s0 // bd)
                _fill_gammas(gen, conc[b], buf[0, s0 - d0 : s0 - d0 + bd])
            yield slice(b, b + 1), slice(d0, d1), _cells(buf)


def sample_posterior(
    counts: ArrayLike,
    *,
    draws: int,
    alpha: PriorArg = 1.0,
    beta: PriorArg = 1.0,
    rng: Any = None,
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
    """Exact posterior draws of the cell probabilities ``p = mu_u * theta_uv``.

    Parameters
    ----------
    counts : array_like, shape (*batch, M, M)
        Confusion matrices of whole-number counts; rows are true classes,
        columns predicted classes (scikit-learn's layout).
    draws : int
        Number of posterior draws per matrix, >= 1.
    alpha : float, array_like or {"uniform", "jeffreys"}, default 1.0
        Dirichlet prior on each row ``theta_j``; broadcasts against ``(M, M)``
        or ``(*batch, M, M)``.
    beta : float, array_like or {"uniform", "jeffreys", "aligned"}, default 1.0
        Dirichlet prior on the prevalences ``mu``; broadcasts against ``(M,)``.
        ``"aligned"`` sets ``beta_j = sum_k alpha_jk`` (one Dirichlet over
        the cells; see :mod:`f1posterior.priors`).
    rng : None, int, SeedSequence or Generator
        Source of randomness, passed through :func:`numpy.random.default_rng`.
    dtype : numpy.float64 or numpy.float32
        Floating type of the draws.

    Returns
    -------
    ndarray, shape (*batch, draws, M, M)
        Posterior draws of ``p``; each ``(M, M)`` table is positive and sums
        to 1.

    Examples
    --------
    >>> import numpy as np
    >>> p = sample_posterior([[8, 2], [1, 9]], draws=4, rng=0)
    >>> p.shape
    (4, 2, 2)
    >>> bool(np.allclose(p.sum(axis=(-2, -1)), 1.0))
    True
    """
    c = check_counts(counts)
    n_draws = check_draws(draws)
    dt = check_dtype(dtype)
    root = check_rng(rng)
    a, b = resolve_prior(alpha, beta, c.shape)
    conc = concentrations(c, a, b)
    batch, m = conc.shape[:-2], conc.shape[-1]
    flat = conc.reshape((-1, m + 1, m))
    out = np.empty((flat.shape[0], n_draws, m, m), dtype=dt)
    for mats, rows, cells in iter_cell_chunks(flat, n_draws, root, dt):
        out[mats, rows] = cells
    return out.reshape((*batch, n_draws, m, m))
