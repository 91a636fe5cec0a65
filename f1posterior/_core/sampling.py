"""Exact conjugate sampling of the posterior cell probabilities.

Gamma variates normalised row by row, one random stream per matrix and block of draws
(bit-identical whatever the chunking), and floors that keep every table finite.

Design notes: docs/design.md#core-sampling
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .blocks import LOG_SPACE_BELOW, PER_CELL_MIN_DRAWS, fill_block, fill_mixture_chunk
from .priors import DEFAULT_PRIOR, PriorArg, resolve
from .rowsums import row_sums
from .streams import block_keys, block_stream, block_streams
from .validation import SeedLike, check_counts, check_draws, check_dtype, check_rng

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, DTypeLike

    from .hierarchical import GridWeights, RecallMixture

__all__ = [
    "sample_posterior",
    "concentrations",
    "block_draws",
    "short_blocks",
    "iter_cell_chunks",
    "prevalence_floor",
    "RaggedGammas",
    "fill_block",
    "LOG_SPACE_BELOW",
]

#: Gamma variates drawn and normalised at a time by :func:`sample_posterior` (8 MiB).
_SAMPLE_CHUNK_VARIATES = 1 << 20
#: Target number of Gamma variates per random-stream block of the batch engine.
STREAM_BLOCK_VARIATES = 1 << 18


#: Fewest draws in a random-stream block (:func:`fill_block` fills a block one cell at a
#: time, a scalar shape a call, from ``_PER_CELL_MIN_DRAWS`` draws; numpy's array of
#: shapes costs about 25% more a variate, and longer blocks spread each call's cost) ...
MIN_BLOCK_DRAWS = 512
#: ... unless that block would hold more than this many variates (16 MiB in float64: the
#: least working memory of one large matrix; 100 classes still get 207-draw blocks).
MAX_BLOCK_VARIATES = 1 << 21


def block_length(per_draw: int) -> int:
    """Draws per random-stream block of ``per_draw`` variates a draw: about
    ``STREAM_BLOCK_VARIATES`` variates, at least ``MIN_BLOCK_DRAWS`` draws unless that
    exceeds ``MAX_BLOCK_VARIATES``."""
    longest = max(MIN_BLOCK_DRAWS, STREAM_BLOCK_VARIATES // per_draw)
    return max(1, min(longest, MAX_BLOCK_VARIATES // per_draw))


def block_draws(m: int) -> int:
    """Number of draws per random-stream block for ``M = m`` classes (:func:`block_length`)."""
    return block_length(m * (m + 1))


def short_blocks(m: int) -> bool:
    """Whether a table of ``M = m`` classes is drawn in blocks of fewer than
    ``PER_CELL_MIN_DRAWS`` draws (above about 128 classes), each in one call with an
    array of shapes: numpy writes that only into a contiguous array, so such a block is
    drawn in place only as a chunk of its own (the batch engine's chunks are then one
    block long; a longer chunk's blocks are strided and go through a copy)."""
    return block_draws(m) < PER_CELL_MIN_DRAWS


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


def gamma_chunk(
    conc: np.ndarray,
    small_any: np.ndarray,
    b0: int,
    b1: int,
    d0: int,
    d1: int,
    root: np.random.SeedSequence,
    index_offset: int,
    dtype: np.dtype,
    work: np.ndarray | None = None,
    gens: Sequence[np.random.Generator] | None = None,
    weights: GridWeights | None = None,
) -> np.ndarray:
    """Gamma variates of matrices ``b0:b1`` and draws ``d0:d1``: (n, M+1, M, d1 - d0).

    ``d0`` must be a multiple of ``block_draws(M)``. With ``work`` (a flat array of
    ``dtype`` with room for them) the variates are written into its start, so a
    caller can reuse one buffer for every chunk instead of allocating each time.
    ``gens``, the chunk's streams in the order of :func:`block_keys` (made in bulk
    by the caller for many chunks at once), saves making them here. ``weights``, the
    grid weights of matrices ``b0:b1`` under the hierarchical prior (None: a Dirichlet
    prior), draws them as a mixture (:func:`f1posterior._core.blocks.fill_mixture_chunk`).
    """
    m1, m = conc.shape[-2:]
    bd = block_draws(m)
    shape = (b1 - b0, m1, m, d1 - d0)
    if work is None:
        buf = np.empty(shape, dtype=dtype)
    else:
        buf = work[: math.prod(shape)].reshape(shape)
    starts = range(d0, d1, bd)
    if gens is None:
        k0 = d0 // bd
        gens = block_streams(
            root, *block_keys(index_offset + b0, index_offset + b1, k0, k0 + len(starts))
        )
    smalls = small_any[b0:b1].tolist()
    if weights is not None:
        spans = [(i, s0 - d0, min(d1, s0 + bd) - d0) for i in range(b1 - b0) for s0 in starts]
        fill_mixture_chunk(list(gens), conc[b0:b1], smalls, spans, weights, buf)
        return buf
    streams = iter(gens)
    for i, rows in enumerate(conc[b0:b1].tolist()):
        b = b0 + i
        small = conc[b] < LOG_SPACE_BELOW if smalls[i] else None
        if len(starts) == 1:
            fill_block(next(streams), rows, conc[b], small, buf[i])
            continue
        for s0 in starts:
            s1 = min(d1, s0 + bd)
            fill_block(next(streams), rows, conc[b], small, buf[i, :, :, s0 - d0 : s1 - d0])
    return buf


class RaggedGammas:
    """Gamma variates of independent Dirichlet rows of any lengths, on keyed streams.

    The ragged counterpart of :func:`gamma_chunk` (whose rows are the square
    ``(M + 1, M)`` concentrations of a table): ``conc[s0:s1]`` for each
    ``(s0, s1)`` in ``segments`` is one Dirichlet row, and the segments cover
    ``conc`` in order. Block ``i`` of ``block`` consecutive draws uses the stream
    keyed ``(index, i)`` below ``root`` and fills the segments in order, each with
    :func:`fill_block` (log space below ``LOG_SPACE_BELOW``, every row rescaled by
    its own maximum). A draw depends on its block only, never on how draws are
    chunked.

    Parameters
    ----------
    conc : ndarray, shape (V,)
        Concentrations, > 0.
    segments : list of (int, int)
        The rows, ``conc[s0:s1]`` each, in order.
    root : SeedSequence
        Root of the streams.
    index : int, default 0
        First key of the streams below ``root``.

    Examples
    --------
    >>> g = RaggedGammas(np.array([1.0, 2.0, 0.5, 3.0, 4.0]), [(0, 2), (2, 5)],
    ...                  np.random.SeedSequence(1))
    >>> out = np.empty((5, 10))
    >>> g.fill(0, 10, out)
    >>> bool((out > 0).all()), g.per_draw
    (True, 5)
    """

    #: Fewest draws in one block (:func:`block_length`).
    MIN_BLOCK_DRAWS = MIN_BLOCK_DRAWS

    def __init__(
        self,
        conc: np.ndarray,
        segments: Sequence[tuple[int, int]],
        root: np.random.SeedSequence,
        index: int = 0,
    ) -> None:
        self.root, self.index = root, index
        self.per_draw = len(conc)
        self.block = block_length(self.per_draw)
        self.rows = []
        for s0, s1 in segments:
            c = conc[None, s0:s1]
            low = c < LOG_SPACE_BELOW
            self.rows.append((s0, s1, c.tolist(), c, low if low.any() else None))

    def fill(self, d0: int, d1: int, out: np.ndarray) -> None:
        """Write draws ``d0:d1`` (``d0`` a multiple of ``block``) to ``out``, (V, d1 - d0)."""
        for b0 in range(d0, d1, self.block):
            b1 = min(d1, b0 + self.block)
            gen = block_stream(self.root, self.index, b0 // self.block)
            for s0, s1, lists, c, low in self.rows:
                fill_block(gen, lists, c, low, out[None, s0:s1, b0 - d0 : b1 - d0])


def prevalence_floor(dtype: DTypeLike) -> float:
    """Smallest prevalence ``mu_u`` a table of ``dtype`` cells is built with.

    The square root of the smallest normal number, a power of two: ``2**-511``
    in float64, ``2**-63`` in float32. Multiplying a row of ``theta`` by it is
    exact wherever the product is normal (see "Small concentrations" above).

    Examples
    --------
    >>> import numpy as np
    >>> prevalence_floor(np.float64) == 2.0**-511, prevalence_floor(np.float32) == 2.0**-63
    (True, True)
    >>> bool(prevalence_floor(np.float64) ** 2 == np.finfo(np.float64).tiny)
    True
    """
    return math.ldexp(1.0, int(np.finfo(dtype).minexp) // 2)


#: A cell whose concentration is at least this, in a row not drawn in log space, is a
#: float64 product ``mu_u * theta_uv`` below ``tiny`` with probability below 1e-70
#: (``theta_uv < s`` needs ``G_uv < s S_u``: at most ``(s S_u)**a / Gamma(a + 1)``, ``s``
#: the prevalence floor), and so is a prevalence ``mu_u`` below ``s``: the floors'
#: checks read only the others.
FLOOR_FREE_FROM = 0.5
#: The check reads the whole table when more than this fraction of its cells need it.
_GATHER_CELLS_BELOW = 0.25


def floor_checks(conc: np.ndarray, small_any: np.ndarray, dtype: np.dtype) -> np.ndarray | None:
    """The Gammas of tables ``conc`` (B, M + 1, M) that :func:`cells_inplace` checks against
    the floors: a mask (B, M + 1, M), every Gamma of a table with a row drawn in log
    space (rescaled per draw) and every one below ``FLOOR_FREE_FROM`` otherwise
    (row M: the prevalences, checked against the prevalence floor); None (check every
    one) in any precision but float64."""
    if np.dtype(dtype) != np.float64:
        return None
    mask = conc < FLOOR_FREE_FROM
    if np.any(small_any):  # the tables with a row drawn in log space: every row whose
        # concentrations are all below LOG_SPACE_BELOW (fill_block, log_space_tables)
        logs = (conc.max(axis=-1) < LOG_SPACE_BELOW).any(axis=-1)
        mask[logs & np.asarray(small_any, dtype=bool)] = True
    return mask


def cells_inplace(
    buf: np.ndarray, work: np.ndarray | None = None, check: np.ndarray | None = None
) -> np.ndarray:
    """Turn Gammas ``(n, M+1, M, d)`` into cells ``p``, a view ``(n, d, M, M)``.

    Overwrites the first ``M`` rows of ``buf``. ``work``, a flat array of
    ``buf.dtype`` with room for ``(2 M + 1) n d`` values, holds the row sums and
    scales instead of fresh arrays. ``check`` (n, M + 1, M), from :func:`floor_checks`:
    the Gammas whose prevalence or cell may fall below its floor (None: any may); a
    floor is applied to every value if one of them is below it.
    """
    n, m1, m, d = buf.shape
    if work is None or work.size < (m1 + m) * n * d:
        work = np.empty((m1 + m) * n * d, dtype=buf.dtype)
    sums = row_sums(buf, work[: m1 * n * d].reshape(n, m1, d))
    scale = np.divide(  # mu, then mu / row sum, (n, M, d)
        buf[:, m], sums[:, m : m + 1], out=work[m1 * n * d : (m1 + m) * n * d].reshape(n, m, d)
    )
    floor = prevalence_floor(buf.dtype)
    prevalences = check is None or bool(check[:, m].any())
    if scale.size and prevalences and not scale.min() >= floor:  # rare: raise only then
        np.fmax(scale, floor, out=scale)  # fmax: a NaN (0/0) becomes the floor too
    scale /= sums[:, :m]
    p = buf[:, :m]
    p *= scale[:, :, None, :]
    if _below_tiny(p, None if check is None else check[:, :m]):  # a read: cheaper than a write
        np.fmax(p, np.finfo(p.dtype).tiny, out=p)
    return p.transpose(0, 3, 1, 2)


def _below_tiny(p: np.ndarray, check: np.ndarray | None) -> bool:
    """Whether a cell of ``p`` (n, M, M, d) that ``check`` (n, M, M; None: all) names is
    below ``tiny`` (or NaN): one read of those cells."""
    if not p.size:
        return False
    tiny = np.finfo(p.dtype).tiny
    n, m, _, d = p.shape
    if check is None or np.count_nonzero(check) > _GATHER_CELLS_BELOW * check.size:
        return not p.min() >= tiny
    i, c = np.nonzero(check.reshape(n, m * m))
    return bool(i.size) and not p.reshape(n, m * m, d)[i, c].min() >= tiny


def draw_chunks(draws: int, m: int, max_blocks: int) -> list[tuple[int, int]]:
    """Split ``range(draws)`` into chunks of whole blocks, at most ``max_blocks`` each.

    Every chunk holds at least two draws (unless ``draws == 1``): a final
    one-draw remainder joins the chunk before it, so numpy's reductions see
    the same memory layout in every chunk, whatever the budget.
    """
    bd = block_draws(m)
    step = max(2, max(1, max_blocks) * bd)
    edges = [*range(0, draws, step), draws]
    if len(edges) > 2 and edges[-1] - edges[-2] == 1:
        del edges[-2]
    return list(zip(edges[:-1], edges[1:], strict=True))


def iter_cell_chunks(
    conc: np.ndarray,
    draws: int,
    root: np.random.SeedSequence,
    dtype: np.dtype,
    max_variates: int = 1 << 22,
    index_offset: int = 0,
    mixture: RecallMixture | None = None,
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
        block, and two draws, are always held).
    index_offset : int
        Flat batch index of ``conc[0]`` in the whole batch (its stream key).
    mixture : RecallMixture, optional
        The hierarchical prior's data of the same (flat) tables
        (:class:`f1posterior._core.priors.ResolvedPrior`); None under a Dirichlet prior.

    Yields
    ------
    matrices : slice
        Which matrices of ``conc`` the chunk covers.
    draw_range : slice
        Which draws the chunk covers.
    cells : ndarray, shape (n_matrices, n_draws, M, M)
        Posterior draws of ``p`` (a transposed view: draws vary fastest in
        memory); the values do not depend on ``max_variates``.
    """
    n_mat, m1, m = conc.shape
    per_draw = m1 * m
    small_any = np.asarray((conc < LOG_SPACE_BELOW).any(axis=(-2, -1)))
    if draws * per_draw <= max_variates:
        group = max(1, max_variates // (draws * per_draw))
        for b0 in range(0, n_mat, group):
            b1 = min(n_mat, b0 + group)
            w = None if mixture is None else mixture.weights(b0, b1)
            buf = gamma_chunk(
                conc, small_any, b0, b1, 0, draws, root, index_offset, dtype, weights=w
            )
            yield slice(b0, b1), slice(0, draws), cells_inplace(buf)
        return
    chunks = draw_chunks(draws, m, max_variates // (block_draws(m) * per_draw))
    for b in range(n_mat):
        w = None if mixture is None else mixture.weights(b, b + 1)
        for d0, d1 in chunks:
            buf = gamma_chunk(
                conc, small_any, b, b + 1, d0, d1, root, index_offset, dtype, weights=w
            )
            yield slice(b, b + 1), slice(d0, d1), cells_inplace(buf)


def sample_posterior(
    counts: ArrayLike,
    *,
    draws: int,
    alpha: PriorArg = DEFAULT_PRIOR,
    beta: PriorArg = DEFAULT_PRIOR,
    rng: SeedLike = None,
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
    alpha : float, array_like or str, default "hierarchical"
        Prior on each row ``theta_j``: a preset name of
        :data:`f1posterior.PRIOR_PRESETS` (``"hierarchical"``, the default, is a
        mixture over a grid of recall centres, not one Dirichlet; ``"adaptive"``,
        ``"paper"``, ``"uniform"``, ``"jeffreys"``, ``"perks"``) or Dirichlet
        concentrations broadcasting against ``(M, M)`` or ``(*batch, M, M)``.
    beta : float, array_like or str, default "hierarchical"
        Dirichlet prior on the prevalences ``mu``; broadcasts against ``(M,)``.
        A preset name gives its ``beta`` (``1/M`` for ``"hierarchical"``,
        ``"adaptive"`` and ``"perks"``, 1 for ``"paper"`` and ``"uniform"``, 1/2
        for ``"jeffreys"``); ``"aligned"`` sets ``beta_j = sum_k alpha_jk`` (one
        Dirichlet over the cells).
    rng : None, int, SeedSequence or Generator
        Source of randomness, passed through :func:`numpy.random.default_rng`.
        Matrix ``b`` of the batch gets its own random streams, so its draws
        do not depend on the other matrices.
    dtype : numpy.float64 or numpy.float32
        Floating type of the draws.

    Returns
    -------
    ndarray, shape (*batch, draws, M, M)
        Posterior draws of ``p``; each ``(M, M)`` table is positive and sums
        to 1. The array is a transposed view in which draws vary fastest in
        memory (the layout :func:`f1posterior.evaluate` computes metrics on,
        so a metric of these draws equals evaluate's, bit for bit); use
        :func:`numpy.ascontiguousarray` if C order matters.

    See Also
    --------
    f1posterior.evaluate : Summaries of metrics of these draws.
    f1posterior.f1 : A metric function that takes the draws.
    f1posterior.summarize_draws : Summaries of any draws.

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
    prior = resolve(alpha, beta, c)
    conc = concentrations(c, prior.alpha, prior.beta)
    batch, m = conc.shape[:-2], conc.shape[-1]
    flat = conc.reshape((-1, m + 1, m))
    mixture = None if prior.mixture is None else prior.mixture.flat()
    n_mat = flat.shape[0]
    small_any = np.asarray((flat < LOG_SPACE_BELOW).any(axis=(-2, -1)))
    checks = floor_checks(flat, small_any, dt)
    buf = np.empty((n_mat, m + 1, m, n_draws), dtype=dt)
    # Matrices are drawn and normalised a cache-sized group at a time, into the one
    # output buffer: the normalising temporaries stay small and hot (one pass over a
    # fresh buffer of the whole batch's size cost as much as drawing it). Each matrix
    # is computed exactly as on its own, so the values do not depend on the grouping.
    per = max(1, _SAMPLE_CHUNK_VARIATES // ((m + 1) * m * n_draws))
    work = np.empty((2 * m + 1) * min(per, n_mat) * n_draws, dtype=dt)
    for i0 in range(0, n_mat, per):
        i1 = min(n_mat, i0 + per)
        part = buf[i0:i1]
        w = None if mixture is None else mixture.weights(i0, i1)
        gamma_chunk(flat, small_any, i0, i1, 0, n_draws, root, 0, dt, part.reshape(-1), weights=w)
        cells_inplace(part, work, None if checks is None else checks[i0:i1])
    return buf[:, :m].transpose(0, 3, 1, 2).reshape((*batch, n_draws, m, m))
