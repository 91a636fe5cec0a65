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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.sampling import LOG_SPACE_BELOW, STREAM_BLOCK_VARIATES, fill_block
from .._core.streams import block_keys, block_streams
from .batch import RunSettings
from .batch import run as run_batch
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


def run(
    conc: np.ndarray,
    metrics: Sequence[tuple[str, Any]],
    scores: dict[str, np.ndarray],
    settings: RunSettings,
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
    settings : RunSettings
        As in :func:`f1posterior.posterior.batch.run`.

    Returns
    -------
    parts, kept : dict of str to list
        As from :func:`f1posterior.posterior.batch.run` (recall's draws ``(group, M, draws)``).
    """
    n_mat, _, m = conc.shape
    dtype, workers = settings.sampling.dtype, settings.workers
    names = [n for n, _ in metrics]
    widths = [m if n == "recall" else 1 for n in names]
    # Gammas 3M, recall M in dtype; sum, accuracy and the metric outputs in float64
    per_draw = dtype.itemsize * 4 * m + 8 * (2 + sum(widths))
    half = max(1, settings.max_memory // workers) // 2
    chunk_draws = max(1, min(half // per_draw, max(_CHUNK_BYTES // per_draw, _MIN_CHUNK_DRAWS)))
    red = reduced_concentrations(conc)
    sampler = _Reduced(
        red=red,
        small_any=np.asarray((red < LOG_SPACE_BELOW).any(axis=-1)),
        names=names,
        block=block_draws(m),
        chunk_draws=chunk_draws,
        root=settings.sampling.root,
        index_offset=settings.index_offset,
        dtype=dtype,
    )
    return run_batch(conc, metrics, scores, _no_values, settings, sampler=sampler)


def _no_values(fn: Any, table: np.ndarray, name: str) -> np.ndarray:  # pragma: no cover
    raise AssertionError("the reduced route computes its metrics itself")


@dataclass
class _Reduced:
    """The reduced route as a sampler of the batch engine (:class:`.batch.Sampler`)."""

    red: np.ndarray  # (B, 3 M) Gamma shapes (reduced_concentrations)
    small_any: np.ndarray  # (B,) any shape below LOG_SPACE_BELOW
    names: list[str]
    block: int
    chunk_draws: int
    root: np.random.SeedSequence
    index_offset: int
    dtype: np.dtype

    # the signature of the Protocol method batch.Sampler.sample, repeated as typing requires
    def sample(
        self,
        md: dict[str, np.ndarray],
        b0: int,
        b1: int,
        d0: int,
        d1: int,
        gens: list[np.random.Generator] | None,
        reused: Callable[[str, int, Any], np.ndarray],
    ) -> None:
        m = self.red.shape[-1] // 3
        n, d, bd, off = b1 - b0, d1 - d0, self.block, self.index_offset
        if gens is None:
            k0, k1 = d0 // bd, math.ceil(d1 / bd)
            gens = block_streams(self.root, *block_keys(off + b0, off + b1, k0, k1))
        g = reused("gamma", 3 * m * n * d, self.dtype)[: 3 * m * n * d].reshape(n, 3 * m, d)
        _fill(self.red, self.small_any, b0, b1, d0, d1, bd, gens, g)
        theta = reused("theta", m * n * d, self.dtype)[: m * n * d].reshape(n, m, d)
        acc, rec = _metrics_of(g, theta)
        for name in self.names:
            md[name][..., d0:d1] = rec if name == "recall" else acc
