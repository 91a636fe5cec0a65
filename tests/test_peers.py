"""f1posterior against prob_conf_mat, the peer that samples the same Dirichlet model.

prob_conf_mat is a benchmark-only peer, never a dependency: these tests check the
statements of docs/peers.md and are skipped when it is not installed. Nothing of
f1posterior's own behaviour is tested only here.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import f1posterior as f1p
from f1posterior.io._data import figure3

pcm = pytest.importorskip("prob_conf_mat")
stats = pytest.importorskip("scipy.stats")

DOMINANT = np.array([[800, 50, 30, 20], [10, 20, 5, 5], [10, 5, 15, 0], [2, 3, 0, 5]])


def _study(c: np.ndarray, metrics: tuple[str, ...], draws: int, prevalence_prior: float) -> object:
    with warnings.catch_warnings():  # its advice to draw more samples
        warnings.simplefilter("ignore")
        s = pcm.Study(seed=0, num_samples=draws, ci_probability=0.95)
        s.add_experiment(
            "e/e", confusion_matrix=c, prevalence_prior=prevalence_prior, confusion_prior=1.0
        )
        for m in metrics:
            s.add_metric(m)
    return s


def _values(s: object, metric: str, method: str) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(s.get_metric_samples(metric, "e/e", method).values)  # type: ignore[attr-defined]


@pytest.mark.parametrize("c", [figure3(), DOMINANT, np.array([[950, 10], [30, 10]])])
def test_prob_conf_mat_micro_is_the_weighted_average(c: np.ndarray) -> None:
    # Truth: f1posterior's point values, which equal scikit-learn's (tested in
    # test_sklearn_parity); prob_conf_mat's "micro" is an alias of its weighted average.
    s = _study(c, ("f1@micro", "acc"), 10, 1.0)
    ev = f1p.evaluate(c, metrics=("micro_f1", "weighted_f1"), draws=200, rng=0)
    theirs_micro = _values(s, "f1@micro", "input").item()
    assert theirs_micro == pytest.approx(ev["weighted_f1"].score, abs=1e-12)
    # negative control: it is not micro-F1 (= accuracy) on these tables ...
    assert abs(theirs_micro - ev["micro_f1"].score) > 5e-4
    # ... while its accuracy is
    assert _values(s, "acc", "input").item() == pytest.approx(ev["micro_f1"].score, abs=1e-12)


def test_prob_conf_mat_draws_follow_the_exact_aligned_posterior() -> None:
    # Same model: prevalence_prior = M, confusion_prior = 1 is f1posterior's aligned
    # prior alpha = 1, beta_j = M, under which accuracy ~ Beta(trace A, sum A - trace A)
    # exactly. A KS test of 20,000 independent draws at a fixed seed (threshold 1e-3,
    # so a correct sampler fails it 0.1% of seeds); negative control: the exact law
    # under alpha = 1.2, whose mean is 0.2 posterior sd lower (KS D ~ 0.08 against a
    # 1% critical value of 1.63 / sqrt(20,000) = 0.012), must be rejected.
    c = figure3()
    acc = _values(_study(c, ("acc",), 20_000, 5.0), "acc", "posterior").ravel()
    right = f1p.exact_posterior(c, "micro_f1", alpha=1.0, beta="aligned")
    wrong = f1p.exact_posterior(c, "micro_f1", alpha=1.2, beta="aligned")
    assert stats.kstest(acc, right.cdf).pvalue > 1e-3
    assert stats.kstest(acc, wrong.cdf).pvalue < 1e-6
