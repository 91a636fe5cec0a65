"""Clustered documents: a Bayesian bootstrap over clusters of per-cluster confusion counts.

Documents that share a user, a conversation or a source are not independent; the unit
of resampling is the cluster. Each draw weights the clusters with
``w ~ Dirichlet(1, ..., 1)`` and returns the metric of the weighted pooled table
``sum_c w_c N_c``; the design effect compares its variance with the document-level
(i.i.d.) bootstrap of the same pooled table.

Design notes: docs/design.md#posterior-clusters
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.describe import describe
from .._core.results import plain
from .._core.streams import DEFAULT_DRAWS, child_seed, run_seed
from .._core.validation import SeedLike, check_sampling_args
from ..metrics import confusion_matrix, grouped_counts, label_array, label_codes
from ._cluster_result import ClusterEvaluation, unit_text
from ._documents import dirichlet_weights
from ._evaluation import check_metric_fns
from ._summary import MetricSummary, summarize_draws

__all__ = [
    "MIN_CLUSTERS",
    "ClusterTables",
    "cluster_draws",
    "cluster_tables",
    "design_effects",
    "evaluate_cluster_tables",
    "evaluate_clusters",
    "few_clusters_warning",
]

#: Below this many clusters the interval under-covers (benchmarks/cluster_calibration.py):
#: a warning says so.
MIN_CLUSTERS = 50
#: Cells of pooled tables held at once (memory bound: 16 MiB of float64).
TABLE_BUDGET = 1 << 21
#: Smallest Dirichlet concentration of the cluster weights.
MIN_CONCENTRATION = 0.05
#: Draws of the document-level bootstrap behind the design effect (a variance ratio: its
#: Monte Carlo relative error is about sqrt(2 / IID_DRAWS), 1%).
IID_DRAWS = 20_000
#: Spawn-key word of the document-level (i.i.d.) draws of the design effect.
IID_KEY = 0x69696431


@dataclass(frozen=True, eq=False)
class ClusterTables:
    """Per-cluster confusion counts of clustered predictions.

    Attributes
    ----------
    tables : ndarray of int64, shape (C, M, M)
        One confusion matrix per cluster (rows = true class), clusters in order
        of first appearance.
    clusters : list
        The cluster ids, in the order of ``tables``.
    labels : list
        The classes, in the order of the rows and columns.
    codes : ndarray of int or None
        Each document's cluster, as a position in ``clusters``.
    """

    tables: np.ndarray
    clusters: list[Any]
    labels: list[Any]
    codes: np.ndarray | None = None

    @property
    def sizes(self) -> np.ndarray:
        """Documents per cluster, shape (C,)."""
        return np.asarray(self.tables.sum(axis=(-2, -1)))


def cluster_codes(cluster: Any, n: int) -> tuple[np.ndarray, list[Any]]:
    """Integer code of each document's cluster (order of first appearance) and the ids.

    Raises
    ------
    ValueError
        ``cluster`` does not give one id per document, holds NaN, or names one cluster.
    TypeError
        Not a 1-D sequence, or ids of mixed kinds.
    """
    arr = label_array(cluster, "cluster")
    if arr.shape[0] != n:
        raise ValueError(f"cluster must give one cluster id per document ({n}); got {arr.shape[0]}")
    ids = list(dict.fromkeys(v.item() if isinstance(v, np.generic) else v for v in arr.tolist()))
    if len(ids) < 2:
        raise ValueError(
            "cluster must name at least two clusters (a cluster-aware interval resamples "
            f"clusters; with one there is no between-cluster variation to measure); got "
            f"{describe(ids)} for all {n} documents"
        )
    codes = label_codes(arr, {v: i for i, v in enumerate(ids)}, "cluster")
    return codes, ids


def cluster_tables(
    y_true: ArrayLike, y_pred: ArrayLike, cluster: ArrayLike, labels: Sequence[Any] | None = None
) -> ClusterTables:
    """Count clustered predictions into one confusion matrix per cluster.

    Parameters
    ----------
    y_true, y_pred : array_like, shape (D,)
        True and predicted label of each document.
    cluster : array_like, shape (D,)
        The cluster (user, conversation, source, ...) of each document: any
        hashable ids of one kind, no NaN, at least two distinct.
    labels : sequence, optional
        The classes, as in :func:`f1posterior.confusion_matrix`.

    Returns
    -------
    ClusterTables

    Examples
    --------
    >>> ct = cluster_tables([0, 1, 1, 0], [0, 1, 0, 0], ["u1", "u1", "u2", "u2"])
    >>> ct.clusters, ct.tables.tolist()
    (['u1', 'u2'], [[[1, 0], [0, 1]], [[1, 0], [1, 0]]])
    """
    whole = confusion_matrix(y_true, y_pred, labels=labels)
    codes, ids = cluster_codes(cluster, label_array(y_true, "y_true").shape[0])
    tables = grouped_counts(y_true, y_pred, codes, len(ids), whole.labels)
    return ClusterTables(tables, ids, list(whole.labels), codes)


def cluster_draws(
    tables: np.ndarray,
    fns: Sequence[tuple[str, Callable[[np.ndarray], Any]]],
    draws: int,
    root: np.random.SeedSequence,
    concentration: float = 1.0,
) -> dict[str, np.ndarray]:
    """Bayesian bootstrap over clusters: metric draws ``(*inner, [K,] draws)`` per metric.

    ``tables`` is ``(C, *inner, M, M)``: per cluster, one or more tables (two models'
    tables of the same documents share each draw's weights: the paired comparison).
    Draw ``i`` is ``fn(sum_c w_ic tables[c])`` with ``w_i ~ Dir(1_C)``
    (:func:`f1posterior.posterior._documents.dirichlet_weights`, random streams of
    ``root``).
    """
    c = tables.shape[0]
    inner = tables.shape[1:]
    flat = np.asarray(tables, dtype=np.float64).reshape(c, -1)
    out: dict[str, list[np.ndarray]] = {n: [] for n, _ in fns}
    rows = max(1, TABLE_BUDGET // flat.shape[1])  # pooled tables held at once
    for _, _, w in dirichlet_weights(c, draws, root, concentration):
        for r0 in range(0, w.shape[0], rows):
            pooled = (w[r0 : r0 + rows] @ flat).reshape(-1, *inner)  # (n, *inner, M, M)
            _append_metrics(out, fns, pooled)
    return {n: np.concatenate(parts, axis=-1) for n, parts in out.items()}


def _append_metrics(
    out: dict[str, list[np.ndarray]],
    fns: Sequence[tuple[str, Callable[[np.ndarray], Any]]],
    pooled: np.ndarray,
) -> None:
    """Each metric of the tables ``(n, ..., M, M)``, draws last, appended to ``out``."""
    for n, fn in fns:
        v = np.asarray(fn(pooled), dtype=np.float64)  # (n, ..., [K])
        out[n].append(np.moveaxis(v, 0, -1))


def t_quantile(q: float, nu: float) -> float:
    """Student's t quantile ``q`` (> 0.5) with ``nu >= 1`` degrees of freedom, numpy only.

    With ``x = sqrt(nu) tan(phi)``, ``F(x) - 1/2`` is proportional to the integral of
    ``cos(u) ** (nu - 1)`` from 0 to ``phi``: integrated on a fine grid and inverted.
    """
    phi = np.linspace(0.0, np.pi / 2, 20_001)
    f = np.cos(phi) ** (nu - 1.0)
    cum = np.concatenate([[0.0], np.cumsum((f[1:] + f[:-1]) / 2)])
    target = (q - 0.5) / 0.5 * cum[-1]
    return float(math.sqrt(nu) * math.tan(float(np.interp(target, cum, phi))))


def effective_clusters(sizes: np.ndarray) -> float:
    """Kish's effective number of clusters, ``(sum n_c)^2 / sum n_c^2``."""
    n = np.asarray(sizes, dtype=np.float64)
    return float(n.sum() ** 2 / (n * n).sum())


def small_sample_concentration(sizes: np.ndarray, ci_prob: float) -> float:
    """Dirichlet concentration ``a`` of the cluster weights (1 = the Bayesian bootstrap).

    With ``w ~ Dir(a 1_C)`` the variance of a weighted mean is ``s_b^2 / (C a + 1)``
    (``s_b^2`` the clusters' spread); ``a`` is chosen so that it is inflated, against
    the Bayesian bootstrap's ``s_b^2 / (C + 1)``, by ``(C + 1) / (C - 1)`` (the unbiased
    spread) times ``(t_nu / z)^2`` at ``ci_prob`` with ``nu = C_eff - 1`` (Kish's
    effective number of clusters): the small-sample intervals of a mean of clusters.
    """
    from statistics import NormalDist  # here: it loads fractions and decimal

    c = len(sizes)
    nu = max(effective_clusters(sizes) - 1.0, 1.0)
    q = 0.5 + ci_prob / 2.0
    z = NormalDist().inv_cdf(q)
    v = (c + 1) / max(c - 1, 1) * (t_quantile(q, nu) / z) ** 2
    return max(((c + 1) / v - 1.0) / c, MIN_CONCENTRATION)


def iid_draws(
    table: np.ndarray,
    fns: Sequence[tuple[str, Callable[[np.ndarray], Any]]],
    draws: int,
    root: np.random.SeedSequence,
) -> dict[str, np.ndarray]:
    """The document-level Bayesian bootstrap of a pooled table: cells ~ Dirichlet(counts).

    Weighting ``D`` documents by ``Dir(1_D)`` and summing them by cell gives
    ``Dirichlet(n_cells)`` over the cells (Gamma(1) variates add up to a Gamma(n)),
    so this is the i.i.d. counterpart of :func:`cluster_draws` without a weight per
    document. Cells with no document get none.
    """
    flat = np.asarray(table, dtype=np.float64).reshape(-1)
    nz = np.flatnonzero(flat)
    gen = np.random.Generator(np.random.PCG64(child_seed(root, IID_KEY)))
    out: dict[str, list[np.ndarray]] = {n: [] for n, _ in fns}
    rows = max(1, TABLE_BUDGET // flat.size)
    for d0 in range(0, draws, rows):  # one stream, read in order: the same whatever `rows`
        n = min(rows, draws - d0)
        pooled = np.zeros((n, flat.size))
        pooled[:, nz] = gen.standard_gamma(flat[nz], size=(n, nz.size))
        _append_metrics(out, fns, pooled.reshape(n, *table.shape))
    return {n: np.concatenate(parts, axis=-1) for n, parts in out.items()}


def design_effects(
    clustered: np.ndarray, iid: np.ndarray, n_clusters: int, concentration: float = 1.0
) -> np.ndarray:
    """The design effect: variance of the cluster bootstrap over the i.i.d. one's.

    ``clustered`` are draws under weights ``Dir(a 1_C)``; their variance is brought
    back to the Bayesian bootstrap's (``a = 1``) by ``(C a + 1) / (C + 1)``, exact for
    a weighted mean, so the ratio measures the clustering, not the small-sample
    correction. NaN where the i.i.d. variance is 0.
    """
    scale = (n_clusters * concentration + 1.0) / (n_clusters + 1.0)
    vc, vi = np.var(clustered, axis=-1) * scale, np.var(iid, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(vi > 0, vc / np.where(vi > 0, vi, 1.0), np.nan)


def few_clusters_warning(n_clusters: int, stacklevel: int = 3) -> None:
    """Warn that fewer than :data:`MIN_CLUSTERS` clusters give intervals that under-cover."""
    if n_clusters < MIN_CLUSTERS:
        warnings.warn(
            f"only {n_clusters} clusters of documents: below {MIN_CLUSTERS} clusters that "
            "differ strongly the intervals are a little too narrow (95% HDIs covered "
            "0.91-0.93 of simulated truths at intra-cluster correlation 0.1-0.3); read them "
            "as slightly optimistic, or collect more clusters",
            UserWarning,
            stacklevel=stacklevel,
        )


def evaluate_clusters(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    cluster: ArrayLike,
    *,
    metrics: Any = ("micro_f1", "macro_f1"),
    labels: Sequence[Any] | None = None,
    draws: int = DEFAULT_DRAWS,
    ref: float | None = None,
    ci_prob: float = 0.95,
    rng: SeedLike = None,
    keep_draws: bool = False,
) -> ClusterEvaluation:
    """Evaluate metrics of clustered documents (a Bayesian bootstrap over clusters).

    Documents that share a user, conversation, speaker or source are not
    independent. Each draw weights the clusters with ``w ~ Dirichlet(1, ..., 1)``
    and computes the metric of the pooled table ``sum_c w_c N_c`` of the
    per-cluster confusion counts ``N_c`` (mathematics and coverage in
    docs/design.md#posterior-clusters and docs/clusters.md). The score is the
    metric of the pooled counts, as in :func:`evaluate`.

    Parameters
    ----------
    y_true, y_pred : array_like, shape (D,)
        True and predicted label of each document.
    cluster : array_like, shape (D,)
        Cluster id of each document (any hashable ids of one kind; no NaN; at
        least two clusters).
    metrics : str, callable or sequence, default ("micro_f1", "macro_f1")
        As in :func:`evaluate` (names or callables of a (..., M, M) table).
    labels : sequence, optional
        The classes, in order (as in :func:`f1posterior.confusion_matrix`).
    draws : int, default 50_000
        Bootstrap draws.
    ref : float, optional
        Reference value; adds ``p_below``/``p_above``.
    ci_prob : float, default 0.95
        Probability of the HDI and equal-tailed interval.
    rng : None, int, SeedSequence or Generator
        Source of randomness.
    keep_draws : bool, default False
        Keep the draws in ``result.metric_draws``.

    Returns
    -------
    ClusterEvaluation
        An :class:`Evaluation` with ``n_clusters``, ``n_documents``,
        ``design_effect`` and ``effective_documents``.

    Raises
    ------
    ValueError
        ``cluster`` of another length than ``y_true``, NaN ids, one cluster;
        and the errors of :func:`f1posterior.confusion_matrix`.

    Warns
    -----
    UserWarning
        Fewer than :data:`MIN_CLUSTERS` (50) clusters: with strongly different
        clusters the intervals under-cover a little (0.91-0.93 for 95%).

    See Also
    --------
    evaluate : Independent documents.
    f1posterior.compare_predictions : ``cluster=`` for the paired comparison.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> user = np.repeat(np.arange(50), 20)  # 50 users, 20 documents each
    >>> skill = rng.uniform(0.6, 0.95, 50)[user]  # each user's own accuracy
    >>> y = rng.integers(0, 2, user.size)
    >>> pred = np.where(rng.random(user.size) < skill, y, 1 - y)
    >>> res = evaluate_clusters(y, pred, user, draws=4_000, rng=0)
    >>> res.n_clusters, res.n_documents, round(res["micro_f1"].score, 3)
    (50, 1000, 0.785)
    >>> bool(res.design_effect["micro_f1"] > 2)
    True
    """
    ct = cluster_tables(y_true, y_pred, cluster, labels)
    return evaluate_cluster_tables(
        ct, metrics=metrics, draws=draws, ref=ref, ci_prob=ci_prob, rng=rng,
        keep_draws=keep_draws, stacklevel=4,
    )  # fmt: skip


def evaluate_cluster_tables(
    ct: ClusterTables,
    *,
    metrics: Any = ("micro_f1", "macro_f1"),
    draws: int = DEFAULT_DRAWS,
    ref: float | None = None,
    ci_prob: float = 0.95,
    rng: SeedLike = None,
    keep_draws: bool = False,
    stacklevel: int = 3,
) -> ClusterEvaluation:
    """:func:`evaluate_clusters` of counted clusters (:func:`cluster_tables`), for the gate."""
    sa = check_sampling_args(draws, ci_prob, ref, rng)
    fns = check_metric_fns(metrics)
    few_clusters_warning(len(ct.clusters), stacklevel=stacklevel)
    return summarize_clusters(ct, fns, sa.draws, sa.root, sa.ci_prob, sa.ref, keep_draws)


def summarize_clusters(
    ct: ClusterTables,
    fns: Sequence[tuple[str, Callable[[np.ndarray], Any]]],
    draws: int,
    root: np.random.SeedSequence,
    ci_prob: float,
    ref: float | None,
    keep_draws: bool,
) -> ClusterEvaluation:
    """The :class:`ClusterEvaluation` of per-cluster tables (checked arguments)."""
    a = small_sample_concentration(ct.sizes, ci_prob)
    x = cluster_draws(ct.tables, fns, draws, root, a)
    pooled = ct.tables.sum(axis=0).astype(np.float64)
    iid = iid_draws(pooled, fns, min(draws, IID_DRAWS), root)
    n_docs = int(pooled.sum())
    summaries: dict[str, MetricSummary] = {}
    deff: dict[str, Any] = {}
    for n, fn in fns:
        score = np.asarray(fn(pooled), dtype=np.float64)
        summaries[n] = summarize_draws(x[n], score=score, ci_prob=ci_prob, ref=ref)
        deff[n] = plain(design_effects(x[n], iid[n], len(ct.clusters), a))
    eff = {n: plain(n_docs / np.asarray(v)) for n, v in deff.items()}
    c = len(ct.clusters)
    return ClusterEvaluation(
        summaries=summaries,
        prior=f"Bayesian bootstrap over {unit_text(c, n_docs)}; Dirichlet({a:.3g}, ..., "
        f"{a:.3g}) weights on clusters",
        draws=draws,
        ci_prob=ci_prob,
        ref=ref,
        seed=run_seed(root),
        batch_shape=(),
        labels=[str(v) for v in ct.labels],
        metric_draws=dict(x) if keep_draws else None,
        n_clusters=c,
        n_documents=n_docs,
        design_effect=deff,
        effective_documents=eff,
    )
