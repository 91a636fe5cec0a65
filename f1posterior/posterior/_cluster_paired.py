"""Clustered documents, paired: k classifiers on the same clustered documents.

Each draw weights the clusters once (``w ~ Dir(a 1_C)``) and every classifier's pooled
table uses the same weights, so the draws of the classifiers are paired as their
documents are. The design effect of the difference compares it with the document-level
bootstrap of the joint (true, A, B) cells.

Design notes: docs/design.md#posterior-clusters
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.streams import child_seed
from ._cluster_result import unit_text
from ._clusters import (
    IID_DRAWS,
    IID_KEY,
    cluster_codes,
    cluster_draws,
    design_effects,
    few_clusters_warning,
    small_sample_concentration,
)

__all__ = ["ClusterPairedDraws", "paired_cluster_draws"]


@dataclass(frozen=True, eq=False)
class ClusterPairedDraws:
    """Paired cluster-bootstrap draws of k classifiers' metric.

    Attributes
    ----------
    draws : ndarray, shape (k, draws)
    n_clusters, n_documents : int
    design_effect : float
        Of the difference of the first two classifiers (NaN when the i.i.d.
        difference does not vary, e.g. identical predictions).
    prior : str
        The model, naming the unit with its counts and the design effect.
    """

    draws: np.ndarray
    n_clusters: int
    n_documents: int
    design_effect: float
    prior: str


def paired_cluster_draws(
    codes_t: np.ndarray,
    codes: np.ndarray,
    m: int,
    cluster: Any,
    fn: Callable[[np.ndarray], Any],
    draws: int,
    root: np.random.SeedSequence,
    ci_prob: float,
) -> ClusterPairedDraws:
    """Paired metric draws ``(k, draws)`` from class codes of the truth ``(N,)`` and of
    k classifiers' predictions ``(k, N)`` (``0 .. m - 1``) and each document's cluster."""
    n = codes_t.shape[0]
    k = codes.shape[0]
    cc, ids = cluster_codes(cluster, n)
    c = len(ids)
    few_clusters_warning(c, stacklevel=5)
    # per cluster and classifier: (C, k, M, M)
    keys = ((cc[None, :] * k + np.arange(k)[:, None]) * m + codes_t[None, :]) * m + codes
    tables = np.bincount(keys.reshape(-1), minlength=c * k * m * m).reshape(c, k, m, m)
    a = small_sample_concentration(tables[:, 0].sum(axis=(-2, -1)), ci_prob)
    x = cluster_draws(tables, [("m", fn)], draws, root, a)["m"]  # (k, draws)
    iid = _iid_paired(codes_t, codes, m, fn, min(draws, IID_DRAWS), root)
    deff = float(design_effects(x[0] - x[-1], iid[0] - iid[-1], c, a)) if k > 1 else np.nan
    eff = n / deff if deff > 0 else float("nan")
    prior = (
        f"Bayesian bootstrap over {unit_text(c, n)}, the same cluster weights for each "
        f"classifier; Dirichlet({a:.3g}, ..., {a:.3g}) weights on clusters; design effect of "
        f"the difference {deff:.2f} (effective documents {eff:,.0f})"
    )
    return ClusterPairedDraws(x, c, n, deff, prior)


def _iid_paired(
    codes_t: np.ndarray,
    codes: np.ndarray,
    m: int,
    fn: Callable[[np.ndarray], Any],
    draws: int,
    root: np.random.SeedSequence,
) -> np.ndarray:
    """Document-level bootstrap of the joint cells (true, each prediction): ``(k, draws)``."""
    k = codes.shape[0]
    joint = codes_t.astype(np.int64)
    for j in range(k):
        joint = joint * m + codes[j]
    cells, counts = np.unique(joint, return_counts=True)
    gen = np.random.Generator(np.random.PCG64(child_seed(root, IID_KEY)))
    g = gen.standard_gamma(counts.astype(np.float64), size=(draws, cells.size))
    digits = [cells // m**k]  # the true class, then each prediction
    for j in range(k):
        digits.append(cells // m ** (k - 1 - j) % m)
    out = np.empty((k, draws))
    for j in range(k):
        onehot = np.zeros((cells.size, m * m))
        onehot[np.arange(cells.size), digits[0] * m + digits[1 + j]] = 1.0
        table = (g @ onehot).reshape(draws, m, m)
        out[j] = np.asarray(fn(table), dtype=np.float64)
    return out
