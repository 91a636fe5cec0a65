"""Exact sampling routes that need less than the whole table.

Accuracy (= micro-F1, single-label) and per-class recall are functions of
the prevalences ``mu`` and the diagonal ``theta_jj`` alone:

    accuracy = micro-F1 = sum_j mu_j theta_jj        recall_j = theta_jj

and under the posterior of the Zhang et al. model ``mu``, ``theta_1``, ...,
``theta_M`` are independent, ``mu ~ Dir(beta + n)`` and, by the aggregation
property of the Dirichlet, ``theta_jj ~ Beta(A_jj, sum_{k != j} A_jk)`` with
``A = alpha + C``. The *joint* posterior of (accuracy, recall_1..M) is
therefore drawn exactly from ``3 M`` Gamma variates a draw (``M`` for ``mu``,
two for each ``theta_jj``) instead of the ``M (M + 1)`` of the whole table:

    theta_jj = X_j / (X_j + Y_j),   X_j ~ Gamma(A_jj), Y_j ~ Gamma(sum_{k != j} A_jk)
    mu_j     = Z_j / sum_k Z_k,     Z_j ~ Gamma(beta_j + n_j)

:func:`f1posterior.evaluate` takes this route when every metric it must
sample is one of :data:`REDUCED_METRICS` (named, not a callable); a metric
that needs the whole table (macro-F1, precision, ...) sends every metric
through the whole table, so that the draws of all metrics stay one joint draw.

Random streams
--------------
The same keys as the whole-table engine (:mod:`f1posterior._core.sampling`): matrix
``b`` (flat index in the whole batch) and block ``k`` of :func:`block_draws`
consecutive draws get ``SeedSequence(root.entropy, spawn_key=root.spawn_key +
(b, k))``. A block is ``STREAM_BLOCK_VARIATES // (3 M)`` draws (depends on
``M`` only). Within a block the stream is consumed as the ``M`` pairs
``(X_j, Y_j)`` in class order, all the block's draws of a variate at a time
(then, for a matrix with a concentration below ``LOG_SPACE_BELOW``, uniforms
for its small pair entries), then the ``M`` variates ``Z_j`` (then uniforms
for its small ones). So, as on the whole-table route, a matrix's draws depend
on the seed, its index, ``M``, the number of draws and its own counts and
prior, never on the batch around it, ``workers``, ``max_memory`` or how a
batch is split with ``index_offset``: results are bit-identical. They are not
the whole-table route's numbers for the same seed (different variates); their
distribution is the same (tests/test_exact_routes.py: two-sample KS tests
against the whole table, with a negative control).

Small concentrations use the whole-table sampler's log-space Gamma
(:func:`f1posterior._core.sampling.fill_block`): each pair ``(X_j, Y_j)`` is
rescaled by its own maximum and ``Z`` by its maximum, so no ratio is 0/0; a
recall below float range comes out as 0 or a subnormal, not floored.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Any

import numpy as np

from .._core.sampling import LOG_SPACE_BELOW, STREAM_BLOCK_VARIATES, fill_block
from .._core.streams import block_keys, block_streams
from .batch import collector, plan, run_groups, summarize_rows
from .summary import MetricSummary

__all__ = ["REDUCED_METRICS", "block_draws", "reduced_concentrations", "applies", "run"]

#: Named metrics the reduced route draws (anything else needs the whole table).
REDUCED_METRICS = frozenset({"micro_f1", "accuracy", "recall"})
#: Private switch: False sends every metric through the whole table (benchmarks, tests).
_ENABLED = True
#: Working bytes of one chunk, at most, whatever the budget (cache-sized, as the engine).
_CHUNK_BYTES = 8 << 20
#: ... unless that leaves fewer draws than this in a chunk (large M).
_MIN_CHUNK_DRAWS = 512
#: Streams of a group are made in one bulk call when there are at most this many.
_BULK_STREAMS = 4096

Progress = Callable[[int, int], None]


def block_draws(m: int) -> int:
    """Draws per random-stream block of the reduced route for ``M = m`` classes."""
    return max(1, STREAM_BLOCK_VARIATES // (3 * m))


def applies(metrics: Sequence[tuple[str, Any]], m: int) -> bool:
    """True when every metric is a named one of :data:`REDUCED_METRICS` (and ``M >= 2``).

    Examples
    --------
    >>> from f1posterior.metrics.multiclass import resolve_metric
    >>> applies([resolve_metric("micro_f1"), resolve_metric("recall")], 3)
    True
    >>> applies([resolve_metric("micro_f1"), resolve_metric("macro_f1")], 3)
    False
    """
    from ..metrics.multiclass import METRICS

    return (
        _ENABLED
        and m >= 2
        and bool(metrics)
        and all(n in REDUCED_METRICS and fn is METRICS.get(n) for n, fn in metrics)
    )


def reduced_concentrations(conc: np.ndarray) -> np.ndarray:
    """``(B, 3 M)`` Gamma shapes from stacked concentrations ``(B, M + 1, M)``.

    Entries ``2 j`` and ``2 j + 1`` are ``A_jj`` and ``sum_{k != j} A_jk``
    (the off-diagonal sum is added directly, not ``row - A_jj``, so it keeps
    full relative precision); entries ``2 M + j`` are ``beta_j + n_j``.

    Examples
    --------
    >>> import numpy as np
    >>> conc = np.array([[[3.0, 1.0], [2.0, 5.0], [4.0, 7.0]]])
    >>> reduced_concentrations(conc)
    array([[3., 1., 5., 2., 4., 7.]])
    """
    m = conc.shape[-1]
    rows = conc[:, :m]
    eye = np.eye(m, dtype=bool)
    diag = np.diagonal(rows, axis1=-2, axis2=-1)
    off = np.where(eye, 0.0, rows).sum(axis=-1)
    pairs = np.stack([diag, off], axis=-1).reshape(conc.shape[0], 2 * m)
    return np.ascontiguousarray(np.concatenate([pairs, conc[:, m]], axis=-1))


def _fill(
    red: np.ndarray,
    small_any: np.ndarray,
    b0: int,
    b1: int,
    d0: int,
    d1: int,
    bd: int,
    gens: Sequence[np.random.Generator],
    out: np.ndarray,
) -> None:
    """Gamma variates of matrices ``b0:b1``, draws ``d0:d1`` into ``out`` (n, 3M, d1 - d0)."""
    m = red.shape[-1] // 3
    streams = iter(gens)
    smalls = small_any[b0:b1].tolist()
    for i in range(b1 - b0):
        r = red[b0 + i]
        pairs_c, mu_c = r[: 2 * m].reshape(m, 2), r[2 * m :].reshape(1, m)
        pairs_rows, mu_rows = pairs_c.tolist(), mu_c.tolist()
        sp = sm = None
        if smalls[i]:
            sp, sm = pairs_c < LOG_SPACE_BELOW, mu_c < LOG_SPACE_BELOW
            sp = sp if sp.any() else None
            sm = sm if sm.any() else None
        for s0 in range(d0, d1, bd):
            s1 = min(d1, s0 + bd)
            gen = next(streams)
            block = out[i, :, s0 - d0 : s1 - d0]
            fill_block(gen, pairs_rows, pairs_c, sp, block[: 2 * m].reshape(m, 2, s1 - s0))
            fill_block(gen, mu_rows, mu_c, sm, block[2 * m :].reshape(1, m, s1 - s0))


def _metrics_of(g: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Accuracy ``(n, d)`` and recall ``theta`` ``(n, M, d)`` from Gammas ``g`` (n, 3M, d).

    Overwrites ``g``'s prevalence rows. Reductions run over the class axis
    with the draws axis innermost, so each value is the same whatever the
    chunk (every chunk holds two draws or more).
    """
    n, m3, d = g.shape
    m = m3 // 3
    pairs = g[:, : 2 * m].reshape(n, m, 2, d)
    x, y = pairs[:, :, 0], pairs[:, :, 1]
    np.add(x, y, out=theta)
    np.divide(x, theta, out=theta)
    z = g[:, 2 * m :]
    total = np.add.reduce(z, axis=1)
    np.multiply(z, theta, out=z)
    acc = np.add.reduce(z, axis=1)
    acc /= total
    return acc, theta


def _draw_chunks(draws: int, bd: int, max_blocks: int) -> list[tuple[int, int]]:
    """Whole blocks, at most ``max_blocks`` a chunk, two draws or more each (unless 1)."""
    step = max(2, max(1, max_blocks) * bd)
    edges = [*range(0, draws, step), draws]
    if len(edges) > 2 and edges[-1] - edges[-2] == 1:
        del edges[-2]
    return list(zip(edges[:-1], edges[1:], strict=True))


def _chunks(
    n: int, draws: int, bd: int, chunk_draws: int, split: int
) -> list[tuple[int, int, int, int]]:
    """Chunks ``(i0, i1, d0, d1)`` covering ``n`` matrices x ``draws`` (as the engine's)."""
    if split <= 1 and draws <= chunk_draws:
        per = max(1, chunk_draws // draws)
        return [(i, min(n, i + per), 0, draws) for i in range(0, n, per)]
    max_blocks = max(1, chunk_draws // bd)
    if split > 1:
        max_blocks = min(max_blocks, math.ceil(math.ceil(draws / bd) / split))
    pieces = _draw_chunks(draws, bd, max_blocks)
    return [(i, i + 1, d0, d1) for i in range(n) for d0, d1 in pieces]


def run(
    conc: np.ndarray,
    metrics: Sequence[tuple[str, Any]],
    scores: dict[str, np.ndarray],
    *,
    draws: int,
    root: np.random.SeedSequence,
    dtype: np.dtype,
    ci_prob: float,
    ref: float | None,
    keep_draws: bool,
    workers: int,
    max_memory: int,
    index_offset: int = 0,
    progress: Progress | None = None,
) -> tuple[dict[str, list[MetricSummary]], dict[str, list[np.ndarray]]]:
    """Summaries (and draws) of accuracy, micro-F1 and recall for a flat batch ``conc``.

    The reduced-route counterpart of :func:`f1posterior.posterior.batch.run`, with the
    same arguments (less ``values``) and return value: groups of matrices
    within ``max_memory`` (the engine's :func:`~f1posterior.posterior.batch.plan`),
    chunks of whole random blocks, ``workers`` threads.

    Parameters
    ----------
    conc : ndarray, shape (B, M + 1, M)
        Posterior concentrations (:func:`f1posterior._core.sampling.concentrations`).
    metrics : sequence of (name, callable)
        Metrics, every one in :data:`REDUCED_METRICS` (see :func:`applies`).
    scores : dict of str to ndarray, shape (B,) or (B, M)
        Observed scores.
    draws, root, dtype, ci_prob, ref, keep_draws, workers, max_memory, index_offset, progress
        As in :func:`f1posterior.posterior.batch.run`.

    Returns
    -------
    parts : dict of str to list of MetricSummary
        Per metric, the summaries of consecutive groups of matrices (flat).
    kept : dict of str to list of ndarray
        Per metric, the draws ``(group, [M,] draws)`` of each group when
        ``keep_draws``; empty lists otherwise.
    """
    n_mat, _, m = conc.shape
    red = reduced_concentrations(conc)
    small_any = np.asarray((red < LOG_SPACE_BELOW).any(axis=-1))
    bd = block_draws(m)
    n_blocks = math.ceil(draws / bd)
    names = [n for n, _ in metrics]
    widths = [m if n == "recall" else 1 for n in names]
    p = plan(n_mat, m, draws, widths, dtype.itemsize, workers, max_memory)
    # Gammas 3M, recall M in dtype; sum, accuracy and the metric outputs in float64
    per_draw = dtype.itemsize * 4 * m + 8 * (2 + sum(widths))
    half = max(1, max_memory // workers) // 2
    chunk_draws = max(1, min(half // per_draw, max(_CHUNK_BYTES // per_draw, _MIN_CHUNK_DRAWS)))
    groups = [(g0, min(n_mat, g0 + p.group)) for g0 in range(0, n_mat, p.group)]
    local = threading.local()

    def reused(key: str, size: int, dt: Any) -> np.ndarray:
        arr = getattr(local, key, None)
        if arr is None or arr.size < size:
            arr = np.empty(size, dtype=dt)
            setattr(local, key, arr)
        return arr

    def group_streams(g0: int, g1: int) -> list[np.random.Generator] | None:
        if (g1 - g0) * n_blocks > _BULK_STREAMS:
            return None
        return block_streams(root, *block_keys(index_offset + g0, index_offset + g1, 0, n_blocks))

    def sample_into(
        md: dict[str, np.ndarray],
        g0: int,
        c: tuple[int, int, int, int],
        gens: list[np.random.Generator] | None,
    ) -> None:
        i0, i1, d0, d1 = c
        n, d = i1 - i0, d1 - d0
        k0, k1 = d0 // bd, math.ceil(d1 / bd)
        if gens is None:
            mine = block_streams(
                root, *block_keys(index_offset + g0 + i0, index_offset + g0 + i1, k0, k1)
            )
        else:
            mine = [gens[i * n_blocks + k] for i in range(i0, i1) for k in range(k0, k1)]
        g = reused("gamma", 3 * m * n * d, dtype)[: 3 * m * n * d].reshape(n, 3 * m, d)
        _fill(red, small_any, g0 + i0, g0 + i1, d0, d1, bd, mine, g)
        theta = reused("theta", m * n * d, dtype)[: m * n * d].reshape(n, m, d)
        acc, rec = _metrics_of(g, theta)
        for name in names:
            md[name][i0:i1, ..., d0:d1] = rec if name == "recall" else acc

    def new_draws(n: int) -> dict[str, np.ndarray]:
        out = {}
        for name, w in zip(names, widths, strict=True):
            shape = (n, w, draws) if name == "recall" else (n, draws)
            if keep_draws:  # handed back to the caller: fresh arrays
                out[name] = np.empty(shape)
                continue
            size = math.prod(shape)
            buf = reused("md_" + name, max(size, size // n * p.group), np.float64)
            out[name] = buf[:size].reshape(shape)
        return out

    def finish(md: dict[str, np.ndarray], g0: int, g1: int) -> tuple[list, list]:
        summaries, kept = [], []
        for name in names:
            x = md[name]
            if not np.isfinite(x).all():  # pragma: no cover - a defect, not an input
                raise ValueError(f"metric {name!r} returned non-finite values on posterior draws")
            work = reused("summary", x.size, np.float64)
            summaries.append(
                summarize_rows(x, score=scores[name][g0:g1], ci_prob=ci_prob, ref=ref, work=work)
            )
            kept.append(x if keep_draws else None)
        return summaries, kept

    def whole_group(gr: tuple[int, int]) -> tuple[list, list]:
        g0, g1 = gr
        md = new_draws(g1 - g0)
        gens = group_streams(g0, g1)
        for c in _chunks(g1 - g0, draws, bd, chunk_draws, 1):
            sample_into(md, g0, c, gens)
        return finish(md, g0, g1)

    parts, kept, collect = collector(names, keep_draws, n_mat, progress)

    def split_group(gr: tuple[int, int], pool: Executor) -> tuple[list, list]:
        g0, g1 = gr
        md = new_draws(g1 - g0)
        pieces = _chunks(g1 - g0, draws, bd, chunk_draws, workers)
        gens = group_streams(g0, g1)
        list(pool.map(lambda c: sample_into(md, g0, c, gens), pieces))
        return finish(md, g0, g1)

    run_groups(groups, whole_group, split_group, workers, p.parallel_draws, collect)
    return parts, kept
