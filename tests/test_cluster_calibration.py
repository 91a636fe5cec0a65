"""Coverage of the cluster-aware posterior from known truths (a fast benchmarks/cluster_calibration.py).

Clusters with their own class mix and confusion rows, drawn around a population's
(Dirichlet with concentration 1/ICC - 1), sizes log-normal; the truth is the
population's micro- and macro-F1. The cluster bootstrap's 95% HDI must cover within
3.5 binomial standard errors of 0.95; the naive i.i.d. posterior (``evaluate`` of the
pooled table) is the negative control and must under-cover at ICC 0.3. At ICC 0 the
design effect is 1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from f1posterior import evaluate, evaluate_clusters
from f1posterior.metrics import METRICS

MU = np.array([0.5, 0.3, 0.2])
THETA = np.array([[0.85, 0.075, 0.075], [0.125, 0.75, 0.125], [0.175, 0.175, 0.65]])
NAMES = ("micro_f1", "macro_f1")
TRUTH = {n: float(METRICS[n](MU[:, None] * THETA)) for n in NAMES}
REPS = 200
Z = 3.5


def documents(icc: float, n_clusters: int, gen: np.random.Generator):
    """True labels, predictions and clusters of one clustered test set."""
    sizes = np.clip(np.rint(np.exp(gen.normal(math.log(20), 0.8, n_clusters))), 2, None)
    ys, ps, cs = [], [], []
    for c, n in enumerate(sizes.astype(int)):
        mu, theta = MU, THETA
        if icc > 0:
            kappa = 1 / icc - 1
            mu = gen.dirichlet(kappa * MU)
            theta = np.stack([gen.dirichlet(kappa * row) for row in THETA])
        y = gen.choice(3, size=n, p=mu)
        u = (theta[y].cumsum(axis=1) > gen.random((n, 1))).argmax(axis=1)
        ys.append(y), ps.append(u), cs.append(np.full(n, c))
    return np.concatenate(ys), np.concatenate(ps), np.concatenate(cs)


def coverage(icc: float, n_clusters: int, seed: int):
    gen = np.random.default_rng(seed)
    hits = {"cluster": [], "naive": []}
    deff = []
    for r in range(REPS):
        y, u, c = documents(icc, n_clusters, gen)
        res = evaluate_clusters(y, u, c, labels=[0, 1, 2], draws=2_000, rng=r)
        counts = np.bincount(y * 3 + u, minlength=9).reshape(3, 3)
        naive = evaluate(counts, metrics=list(NAMES), draws=2_000, rng=r)
        for key, ev in (("cluster", res), ("naive", naive)):
            hits[key].append([ev[n].hdi[0] <= TRUTH[n] <= ev[n].hdi[1] for n in NAMES])
        deff.append(res.design_effect["micro_f1"])
    return {k: np.mean(v, axis=0) for k, v in hits.items()}, float(np.mean(deff))


@pytest.mark.parametrize(("icc", "n_clusters", "seed"), [(0.3, 100, 11), (0.1, 60, 12)])
def test_cluster_intervals_cover_and_the_naive_ones_do_not(icc, n_clusters, seed):
    cov, deff = coverage(icc, n_clusters, seed)
    se = math.sqrt(0.95 * 0.05 / REPS)
    assert np.all(np.abs(cov["cluster"] - 0.95) <= Z * se), cov
    # negative control: documents treated as independent; far below 0.95
    assert np.all(cov["naive"] < 0.95 - Z * se), cov
    assert deff > 2


def test_no_cluster_effect_no_design_effect():
    cov, deff = coverage(0.0, 100, 13)
    se = math.sqrt(0.95 * 0.05 / REPS)
    assert np.all(np.abs(cov["cluster"] - 0.95) <= Z * se), cov
    assert abs(deff - 1) < 0.1
