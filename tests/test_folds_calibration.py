"""Calibration of compare_folds from known truths (fast version of
benchmarks/folds_calibration.py).

Each fold's documents are drawn from a joint distribution of (A right, B right) whose true
accuracy difference is ``d_k = mu + tau z_k``. The 95% HDI of the mean difference over
these folds must cover ``mean_k d_k`` within 3.5 binomial standard errors of 0.95, both when
the folds share one population (tau = 0) and when they differ (tau = 0.04, about twice a
fold's posterior sd). Negative controls: the same interval read as the population mean
``mu`` (what pooling the folds claims) under-covers when the folds differ, and five
separate per-fold verdicts miss at least one fold's truth far more often than 5%.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from f1posterior import compare_folds

Z = 3.5  # binomial standard errors
REPS, K, N, DRAWS = 300, 5, 200, 1000
P_B, C = 0.75, 0.10  # B's accuracy; the rate at which only B is right


def simulate(mu, tau, gen):
    d = mu + tau * np.clip(gen.standard_normal(K), -3.0, 3.0)
    fold = np.repeat(np.arange(K), N)
    probs = np.stack([np.full(K, P_B - C), C + d, np.full(K, C), 1 - P_B - C - d], axis=1)
    cell = (gen.random(K * N)[:, None] > np.cumsum(probs[fold], axis=1)).sum(axis=1)
    y = gen.integers(0, 2, K * N)
    a = np.where(cell <= 1, y, 1 - y)  # cells 0 and 1: A right
    b = np.where((cell == 0) | (cell == 2), y, 1 - y)
    return y, a, b, fold, d


def run(mu, tau, seed):
    gen = np.random.default_rng(seed)
    these = population_read = any_miss = 0
    for r in range(REPS):
        y, a, b, fold, d = simulate(mu, tau, gen)
        res = compare_folds(y, a, b, folds=fold, metric="accuracy", draws=DRAWS, rng=seed + r)
        lo, hi = res.difference.hdi
        these += lo <= d.mean() <= hi
        population_read += lo <= mu <= hi
        fh = np.asarray(res.folds.hdi)
        any_miss += bool(np.any((d < fh[:, 0]) | (d > fh[:, 1])))
    return these / REPS, population_read / REPS, any_miss / REPS


LOW = 0.95 - Z * math.sqrt(0.95 * 0.05 / REPS)
HIGH = 0.95 + Z * math.sqrt(0.95 * 0.05 / REPS)


@pytest.mark.parametrize("tau", [0.0, 0.04])
def test_the_mean_over_these_folds_covers(tau):
    these, population_read, any_miss = run(0.03, tau, seed=11 if tau else 12)
    assert LOW <= these <= HIGH, these
    # five separate verdicts: at least one fold's interval misses its truth ~1 - 0.95^5
    assert any_miss > 0.12, any_miss
    if tau:  # negative control: read as the population mean, the same interval under-covers
        assert population_read < LOW, population_read
