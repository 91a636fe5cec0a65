"""The prior of tau in the random-effects aggregate: the default rule, its coverage and width.

Truths used:

- the grid posterior under a half-Cauchy prior: a brute-force 2-D grid over (mu, tau);
- the rule: Higgins & Thompson's typical variance (closed form for equal variances);
- coverage: folds simulated from a known truth on the logit scale, binomial tolerances,
  with pooling (tau = 0) as the negative control;
- width: the pooled interval on five folds of one population.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np
import pytest

from f1posterior import aggregate
from f1posterior.analysis import _random_effects as rem
from f1posterior.analysis._aggregate import MAX_TAU_SCALE
from f1posterior.cli import main

Y = np.array([0.4, 1.1, 0.9, 1.6, 0.7])
S2 = np.array([0.04, 0.09, 0.05, 0.12, 0.06])


# ---------------------------------------------------------------------------- the rule


def test_the_default_scale_is_the_tables_typical_sd():
    s2 = np.full(6, 0.07)
    a, family = rem.default_tau_prior(s2)
    assert family == rem.DEFAULT_TAU_PRIOR == "half_cauchy"
    assert a == pytest.approx(rem.DEFAULT_TAU_MULTIPLE * math.sqrt(0.07), rel=1e-12)
    assert rem.DEFAULT_TAU_MULTIPLE == 3.0  # the study's choice (docs/aggregation.md)
    # unequal variances: the typical variance lies between the smallest and the largest
    a, _ = rem.default_tau_prior(S2)
    assert math.sqrt(S2.min()) < a / rem.DEFAULT_TAU_MULTIPLE < math.sqrt(S2.max())
    # the log scale keeps a light tail: exp(mu + tau^2 / 2) must stay finite
    assert rem.default_tau_prior(S2, "log") == (0.5, "half_normal")
    assert rem.default_tau_prior(S2, "fisher_z") == rem.default_tau_prior(S2, "logit")


@pytest.mark.parametrize(
    ("s2", "match"),
    [
        ([0.1], r"s2 must be the working-scale variances of at least 2 tables.*got \[0.1\]"),
        ([0.1, 0.0], r"each positive and finite; got \[0.1, 0.0\]"),
        ([0.1, float("nan")], r"each positive and finite; got \[0.1, nan\]"),
        ([[0.1, 0.2]], r"at least 2 tables"),
    ],
)
def test_the_rule_refuses_bad_variances(s2, match):
    with pytest.raises(ValueError, match=match):
        rem.default_tau_prior(s2)
    with pytest.raises(ValueError, match=r"scale must be one of 'logit', .*got 'probit'"):
        rem.default_tau_prior([0.1, 0.2], "probit")


def test_an_unknown_prior_family_is_refused():
    with pytest.raises(ValueError, match=r"prior must be one of 'half_normal', 'half_cauchy'; got 'cauchy'"):  # fmt: skip
        rem.tau_posterior(Y, S2, 0.3, prior="cauchy")


# ----------------------------------------------------------- the half-Cauchy posterior


def test_half_cauchy_grid_matches_a_brute_force_two_dimensional_grid():
    a = 0.3
    mu_g = np.linspace(-3.0, 5.0, 401)
    # tau up to 10, where the posterior's tail (tau^-6 with 5 tables) has left less than
    # 1e-5 of its mass
    tau_g = np.linspace(0.0, 10.0, 5001)
    var = S2[None, None, :] + tau_g[None, :, None] ** 2
    ll = -0.5 * (np.log(var) + (Y[None, None, :] - mu_g[:, None, None]) ** 2 / var).sum(-1)
    logp = ll - np.log1p((tau_g[None, :] / a) ** 2)
    p = np.exp(logp - logp.max())
    p /= p.sum()
    p_mu, p_tau = p.sum(1), p.sum(0)
    post = rem.tau_posterior(Y, S2, a, prior="half_cauchy")
    assert post.prior == "half_cauchy" and post.prior_scale == a
    cdf = np.cumsum(p_tau)
    for q in (0.5, 0.9):  # the brute-force grid's spacing is 0.002
        assert post.quantile(q) == pytest.approx(np.interp(q, cdf, tau_g), abs=0.004)
    n = 200_000
    mu, tau = rem.draw_mu_tau(post, n, np.random.default_rng(0))
    mean = float(np.sum(p_mu * mu_g))
    sd = float(np.sqrt(np.sum(p_mu * (mu_g - mean) ** 2)))
    assert abs(mu.mean() - mean) < 4 * sd / math.sqrt(n) + 1e-3
    assert abs(mu.std() - sd) < 4 * sd / math.sqrt(2 * n) + 2e-3
    # negative control: the half-normal posterior of the same scale is another one
    assert rem.tau_posterior(Y, S2, a).quantile(0.9) < post.quantile(0.9) - 0.05


def test_the_heavy_tail_lets_the_data_show_a_tau_far_above_the_scale():
    # 10 tables 20 standard errors apart: tau = 1 where the default scale is 0.05
    rng = np.random.default_rng(3)
    s2 = np.full(10, 0.05**2)
    y = 1.0 * rng.standard_normal(10) + 0.05 * rng.standard_normal(10)
    a, family = rem.default_tau_prior(s2)
    lo, hi = rem.tau_posterior(y, s2, a, prior=family).quantile([0.025, 0.975])
    sd = float(np.std(y, ddof=1))
    assert lo < sd < hi and lo > 0.4
    # negative control: a half-normal of the same scale holds tau below the truth and
    # below the half-Cauchy's whole interval
    assert rem.tau_posterior(y, s2, a).quantile(0.975) < min(lo, 1.0)


# ------------------------------------------------------------------------- coverage


def _simulate(k: int, tau: float, n_sim: int, seed: int, prior: Any) -> tuple[float, float]:
    """Coverage of the population mean's 95% HDI and the mean width relative to pooling,
    on folds of 100 to 1,000 documents whose true logit metric is mu + tau z_k (the
    benchmark's design, benchmarks/aggregate_calibration.py). ``prior``: "auto" (the
    default rule), ``(family, c)`` for a scale ``c s``, ``(family, "fixed", A)``, or None
    (pooling). The same seed gives the same folds whatever the prior (paired runs)."""
    rng = np.random.default_rng(seed)
    hits, ratios = 0, []
    for _ in range(n_sim):
        n = math.exp(rng.uniform(math.log(100), math.log(1000))) * rng.uniform(0.8, 1.2, k)
        mu = math.log(0.8 / 0.2) + rng.uniform(-0.5, 0.5)
        theta = mu + tau * rng.standard_normal(k)
        f = 1 / (1 + np.exp(-theta))
        s2 = 1 / (n * f * (1 - f))
        y = theta + np.sqrt(s2) * rng.standard_normal(k)
        gen = np.random.default_rng(int(rng.integers(2**63)))
        truth = float(rem.population_mean(np.array([mu]), np.array([tau]), "logit")[0])
        w = 1 / s2
        pooled = rem.from_scale(
            np.sum(w * y) / w.sum() + gen.standard_normal(1500) / math.sqrt(w.sum()), "logit"
        )
        if prior is None:
            draws = pooled
        else:
            if prior == "auto":
                a, family = rem.default_tau_prior(s2)
            elif prior[1] == "fixed":
                family, a = prior[0], prior[2]
            else:
                family, a = prior[0], prior[1] * math.sqrt(rem.typical_variance(s2))
            post = rem.tau_posterior(y, s2, a, prior=family)
            m, t = rem.draw_mu_tau(post, 1500, gen)
            draws = rem.population_mean(m, t, "logit")
        lo, hi = _hdi(draws)
        plo, phi = _hdi(pooled)
        hits += lo <= truth <= hi
        ratios.append((hi - lo) / (phi - plo))
    return hits / n_sim, float(np.mean(ratios))


def _hdi(x: np.ndarray) -> tuple[float, float]:
    s = np.sort(x)
    m = int(math.ceil(0.95 * s.size))
    i = int(np.argmin(s[m - 1 :] - s[: s.size - m + 1]))
    return float(s[i]), float(s[i + m - 1])


OLD = ("half_normal", "fixed", 0.5)  # the earlier default


@pytest.mark.parametrize(("k", "tau"), [(3, 0.5), (5, 0.0), (5, 0.2), (5, 1.0), (10, 0.5)])
def test_the_default_covers_the_population_mean(k, tau):
    n = 300
    cov, _ = _simulate(k, tau, n, seed=k * 100 + int(tau * 10), prior="auto")
    se = math.sqrt(0.93 * 0.07 / n)
    # at least the study's floor (0.93) within 3 binomial SE; a Bayesian interval may
    # over-cover where tau sits at the edge of its support (tau = 0)
    assert 0.93 - 3 * se <= cov <= 1.0


def test_negative_control_pooling_under_covers_folds_that_differ():
    n = 300
    cov, _ = _simulate(5, 0.2, n, seed=520, prior=None)
    # pooling targets these 5 folds, not their population: about 0.74 in the study, far
    # below 0.93 - 3 SE (0.89)
    assert cov < 0.8


def test_the_default_covers_where_the_earlier_prior_fell_short():
    # 3 folds that differ by tau = 1: the study measured 0.795 for half-normal(0.5) and
    # 0.895 for the default (800 replicates); on 300 paired replicates the difference's
    # standard error is below 0.03
    n = 300
    old, _ = _simulate(3, 1.0, n, seed=31, prior=OLD)
    new, _ = _simulate(3, 1.0, n, seed=31, prior="auto")
    assert new - old > 0.04


def test_the_trade_off_a_narrower_tied_scale_under_covers():
    # why not half-Cauchy(s): narrower when the folds agree, but it under-covers 3 folds
    # that differ by tau = 0.5 (0.856 in the study against the default's 0.927)
    n = 300
    narrow_cov, _ = _simulate(3, 0.5, n, seed=35, prior=("half_cauchy", 1.0))
    cov, _ = _simulate(3, 0.5, n, seed=35, prior="auto")
    assert narrow_cov < 0.93 - 3 * math.sqrt(0.93 * 0.07 / n) < cov
    _, narrow_width = _simulate(5, 0.0, 150, seed=50, prior=("half_cauchy", 1.0))
    _, width = _simulate(5, 0.0, 150, seed=50, prior="auto")
    assert narrow_width < width - 0.1


def test_the_default_is_no_wider_than_the_earlier_prior_when_folds_agree():
    # tau = 0, 5 folds: 1.53 against 1.57 times the pooled width in the study; paired
    # replicates, the mean ratios' difference has a standard error below 0.01
    _, old = _simulate(5, 0.0, 200, seed=7, prior=OLD)
    _, new = _simulate(5, 0.0, 200, seed=7, prior="auto")
    assert new < old + 0.02


# ----------------------------------------------------- five folds of one population


def _digits_like_folds(rng: np.random.Generator, k: int = 5) -> np.ndarray:
    """k 10-class folds of 360 documents from one population (accuracy 0.95 per class,
    errors spread evenly): the true macro-F1 of every fold is 0.95."""
    out = np.zeros((k, 10, 10))
    for i in range(k):
        per = rng.multinomial(360, np.full(10, 0.1))
        for j in range(10):
            p = np.full(10, 0.05 / 9)
            p[j] = 0.95
            out[i, j] = rng.multinomial(per[j], p)
    return out


def test_five_folds_of_one_population_width_before_and_after():
    rng = np.random.default_rng(11)
    ratios_old, ratios_new = [], []
    for r in range(6):
        t = _digits_like_folds(rng)
        pooled = aggregate(t, method="pooled", draws=4000, rng=r).summary.hdi
        old = aggregate(t, tau_prior="half_normal", tau_scale=0.5, draws=4000, rng=r)
        new = aggregate(t, draws=4000, rng=r)
        w = pooled[1] - pooled[0]
        ratios_old.append((old.summary.hdi[1] - old.summary.hdi[0]) / w)
        ratios_new.append((new.summary.hdi[1] - new.summary.hdi[0]) / w)
        assert "half-Cauchy" in new.prior and "typical sd" in new.heterogeneity.tau_prior
    # the reported case (five folds of one population): 1.71x the pooled width before and
    # 1.89x with the default on these folds (their s is large: 3 s = 0.7 > 0.5); the
    # study's 5-fold cell gives 1.57 and 1.53. No prior that covers when folds differ
    # comes near the pooled width: for folds of one population, pool (docs/aggregation.md)
    old, new = float(np.mean(ratios_old)), float(np.mean(ratios_new))
    assert 1.3 < old < 2.0
    assert 1.3 < new < old + 0.3


# ----------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"tau_scale": "big"}, ValueError, r"tau_scale must be 'auto' or a number > 0 and at most 1e\+06; got 'big'"),
        ({"tau_scale": 0}, ValueError, r"tau_scale must be a finite number > 0; got 0"),
        ({"tau_scale": [0.5]}, TypeError, r"tau_scale must be a finite number > 0; got \[0.5\]"),
        ({"tau_scale": 2 * MAX_TAU_SCALE}, ValueError, r"tau_scale must be at most 1e\+06"),
        ({"tau_prior": "cauchy"}, ValueError, r"tau_prior must be one of 'auto', 'half_normal', 'half_cauchy'; got 'cauchy'"),
    ],
)  # fmt: skip
def test_bad_tau_arguments(kwargs, exc, match):
    tables = _digits_like_folds(np.random.default_rng(0), 3)
    with pytest.raises(exc, match=match):
        aggregate(tables, draws=100, **kwargs)


def test_a_fixed_scale_and_family_are_stated_in_the_result():
    tables = _digits_like_folds(np.random.default_rng(0), 3)
    res = aggregate(tables, tau_prior="half_normal", tau_scale=0.5, draws=500, rng=0)
    assert "tau ~ half-normal(0.5) on the logit scale" in res.prior
    assert res.heterogeneity.tau_prior == "half-normal(0.5)"


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--tau-scale", "big"], r"--tau-scale: expected 'auto' or a number > 0 and at most 1e\+06; got 'big'"),
        (["--tau-prior", "cauchy"], r"argument --tau-prior: invalid choice: 'cauchy'"),
    ],
)  # fmt: skip
def test_command_line_errors_are_one_line_exit_2(tmp_path, capsys, args, match):
    f = tmp_path / "folds.npy"
    np.save(f, np.array([[[40, 10], [5, 45]], [[38, 12], [6, 44]]]))
    with pytest.raises(SystemExit) as e:
        main(["aggregate", str(f), *args])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert re.search(match, err), err


def test_command_line_auto_and_a_fixed_prior_equal_the_library(tmp_path, capsys):
    folds = [[[40, 10], [5, 45]], [[38, 12], [6, 44]], [[42, 8], [4, 46]]]
    f = tmp_path / "folds.npy"
    np.save(f, np.array(folds))
    for extra, kw in (
        ([], {}),
        (["--tau-scale", "auto"], {}),
        (["--tau-prior", "half_normal", "--tau-scale", "0.5"], dict(tau_prior="half_normal", tau_scale=0.5)),
    ):  # fmt: skip
        code = main(["aggregate", str(f), "--metric", "accuracy", "--draws", "1000",
                     "--seed", "5", "--format", "json", *extra])  # fmt: skip
        out = capsys.readouterr().out
        assert code == 0
        got = json.loads(out)
        want = aggregate(np.array(folds), metric="accuracy", draws=1000, rng=5, **kw)
        assert [got["summary"]["hdi_low"], got["summary"]["hdi_high"]] == want.summary.hdi.tolist()
        assert got["prior"] == want.prior
