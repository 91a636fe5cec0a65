"""Reproduce Table 1 of Zhang, Wang & Zhao (2015) from the Figure 3 matrix.

The paper's numbers come from one Metropolis chain of 50,000 samples whose
effective sample size is "a few thousand" (its autocorrelation); we take a
conservative ESS of 1,000 for the paper, so its Monte Carlo standard error
for a mean is std / sqrt(1000), for a probability sqrt(p (1 - p) / 1000),
and for a 2.5%/97.5% quantile sqrt(q (1 - q) / 1000) / density. Published
figures are rounded to 3 decimals (0.0005) or 0.1 percentage points. Each
comparison allows 4 paper standard errors plus our own (far smaller) error
plus the rounding. The published numbers are package data
(:data:`f1posterior.io.TABLE1`, :data:`f1posterior.io._data.FIGURE3_MATRIX`).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as ss

from f1posterior import evaluate
from f1posterior.io._data import FIGURE3_MATRIX, TABLE1
from f1posterior.metrics._registry import METRICS

PAPER_ESS = 1000
DRAWS = 200_000


#: The paper's prior, pinned explicitly: by its preset name and as numbers (the default
#: prior is no longer the paper's, see f1posterior.prior_preset).
PAPER_PRIORS = {"preset": ("paper", "paper"), "numbers": (1, 1)}


@pytest.fixture(scope="module", params=list(PAPER_PRIORS))
def result(request):
    counts = np.array(FIGURE3_MATRIX)
    alpha, beta = PAPER_PRIORS[request.param]
    return evaluate(
        counts,
        metrics=("micro_f1", "macro_f1"),
        draws=DRAWS,
        ref=0.8,
        rng=2015,
        alpha=alpha,
        beta=beta,
    )


@pytest.mark.parametrize("metric", ["micro_f1", "macro_f1"])
def test_table1(result, metric):
    paper = TABLE1[metric]  # the published numbers (package data)
    # the published score is the metric of the published Figure 3 matrix (both transcribed)
    assert float(METRICS[metric](np.array(FIGURE3_MATRIX))) == pytest.approx(
        paper["score"], abs=0.0005
    )
    s = result[metric]
    ours_se = s.std / np.sqrt(DRAWS)
    paper_se = s.std / np.sqrt(PAPER_ESS)
    assert s.score == pytest.approx(paper["score"], abs=0.0005)
    assert abs(s.mean - paper["mean"]) < 4 * (paper_se + ours_se) + 0.0005
    # std of a near-normal quantity estimated from ESS draws: se ~ std / sqrt(2 ESS)
    assert abs(s.std - paper["std"]) < 4 * s.std / np.sqrt(2 * PAPER_ESS) + 0.0005
    assert paper["mc_error"] == 0.0 and round(s.mc_error, 3) == 0.0
    p = s.p_below
    p_se = np.sqrt(p * (1 - p) / PAPER_ESS)
    assert abs(100 * p - paper["pct_below"]) < 100 * 4 * p_se + 0.05
    assert abs(100 * s.p_above - paper["pct_above"]) < 100 * 4 * p_se + 0.05
    density = ss.norm.pdf(ss.norm.ppf(0.025)) / s.std  # normal approximation at the tails
    q_se = np.sqrt(0.025 * 0.975 / PAPER_ESS) / density
    for ours, theirs in zip(s.hdi, paper["hdi"], strict=True):
        assert abs(ours - theirs) < 4 * q_se + 0.0005


def test_exact_mean_of_micro_f1(result):
    """The exact posterior mean of micro-F1 for Figure 3 under alpha = beta = 1 is 0.80274:
    sum_j (1 + n_j) / (M + N) * (1 + c_jj) / (M + n_j), by the independence of mu and theta
    in the model of Zhang, Wang & Zhao (2015)."""
    s = result["micro_f1"]
    assert abs(s.mean - 0.80274) < 4 * s.mc_error + 5e-6


def test_negative_control_jeffreys_prior_does_not_reproduce_the_paper():
    """The same checks must reject a run that used another prior than the paper's."""
    counts = np.array(FIGURE3_MATRIX)
    res = evaluate(counts, draws=DRAWS, ref=0.8, rng=2015, alpha="jeffreys", beta="jeffreys")
    s = res["macro_f1"]
    paper = TABLE1["macro_f1"]
    assert abs(s.mean - paper["mean"]) > 4 * s.std / np.sqrt(PAPER_ESS) + 0.0005
