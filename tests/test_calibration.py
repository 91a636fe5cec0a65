"""Calibration regression: the default prior's 95% HDIs cover known truths (docs/calibration.md).

Small scenarios of the pre-registered grid, simulated from a known classifier at fixed
seeds. With R test sets, a coverage estimate has binomial standard error
sqrt(0.95 * 0.05 / R); the band asserted is the study's goal [0.93, 0.97] widened by 2.5
standard errors. The paper's prior is the negative control: on a 10-class table it must
miss, as the study found, so the test can fail.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from f1posterior import evaluate
from f1posterior.metrics.multiclass import METRICS

REPS = 300
SE = math.sqrt(0.95 * 0.05 / REPS)
LOW, HIGH = 0.93 - 2.5 * SE, 0.97 + 2.5 * SE
GOLDEN = 0.618034
LEVELS = {"medium": (0.65, 0.90), "strong": (0.85, 0.97), "near-perfect": (0.97, 0.999)}


def truth(m: int, prevalence: str, classifier: str) -> np.ndarray:
    """True cells p = mu_u theta_uv of the protocol: recalls spread, errors uniform."""
    mu = np.full(m, 1.0 / m) if prevalence == "balanced" else 1.0 / np.arange(1, m + 1)
    mu = mu / mu.sum()
    lo, hi = LEVELS[classifier]
    recall = lo + (hi - lo) * ((np.arange(m) * GOLDEN) % 1.0)
    theta = np.repeat(((1 - recall) / (m - 1))[:, None], m, axis=1)
    theta[np.arange(m), np.arange(m)] = recall
    return mu[:, None] * theta


def coverage(m, prevalence, classifier, n_min, seed, metrics, **prior):
    p = truth(m, prevalence, classifier)
    n_docs = round(n_min / (p.sum(axis=1).min()))
    rng = np.random.default_rng(seed)
    tables = rng.multinomial(n_docs, p.ravel(), size=REPS).reshape(REPS, m, m)
    res = evaluate(tables, metrics=metrics, draws=1000, rng=seed, prior_check=False, **prior)
    out = {}
    for name in metrics:
        true = METRICS[name](p)
        hdi = np.asarray(res[name].hdi)
        hit = (hdi[..., 0] <= true) & (true <= hdi[..., 1])
        out[name] = hit.mean(axis=0)  # per class for per-class metrics
    return out


@pytest.mark.parametrize(
    ("m", "prevalence", "classifier", "n_min"),
    [
        (10, "balanced", "strong", 30),
        (5, "zipf", "medium", 30),
        (2, "balanced", "near-perfect", 30),
    ],
)
def test_default_prior_covers_aggregates(m, prevalence, classifier, n_min):
    cov = coverage(m, prevalence, classifier, n_min, 20261122, ("micro_f1", "macro_f1"))
    for name, c in cov.items():
        assert LOW <= c <= HIGH, (name, c)


def test_default_prior_covers_per_class_recall_and_f1_on_average():
    cov = coverage(5, "balanced", "medium", 30, 7, ("recall", "f1"))
    for name, c in cov.items():
        assert LOW <= c.mean() <= HIGH, (name, c)
        assert c.min() >= 0.90 - 2.5 * SE, (name, c)  # the study's floor, every class


def test_paper_prior_misses_on_ten_classes_negative_control():
    cov = coverage(
        10, "balanced", "strong", 30, 20261122, ("micro_f1",), alpha="paper", beta="paper"
    )
    assert cov["micro_f1"] < 0.5
