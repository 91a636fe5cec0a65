"""evaluate(..., prevalence=): metrics at a deployment prevalence, against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from f1posterior import evaluate
from f1posterior.metrics._multiclass import f1
from f1posterior.posterior._prevalence import TargetPrevalence, reweight

# class 0 = negatives (1000 documents), class 1 = positives (200)
C = np.array([[900, 100], [20, 180]])
C3 = np.array([[30, 4, 2], [6, 25, 5], [1, 3, 40]])
PI = 0.1  # deployment prevalence of the positive class


def ppv(pi, tpr, fpr):
    return pi * tpr / (pi * tpr + (1 - pi) * fpr)


def ks_stat(a, b):
    """Two-sample Kolmogorov-Smirnov statistic (numpy only)."""
    a, b = np.sort(a), np.sort(b)
    grid = np.concatenate([a, b])
    fa = np.searchsorted(a, grid, side="right") / a.size
    fb = np.searchsorted(b, grid, side="right") / b.size
    return np.abs(fa - fb).max()


def ks_critical(n, m, level=1e-3):
    """Asymptotic two-sample KS critical value: c(level) sqrt((n + m) / (n m))."""
    return math.sqrt(-0.5 * math.log(level / 2)) * math.sqrt((n + m) / (n * m))


def draws_at(prevalence, rng=3, draws=4000, counts=C, metrics=("precision", "recall", "accuracy")):
    return evaluate(
        counts, metrics=metrics, draws=draws, rng=rng, keep_draws=True, prevalence=prevalence
    ).metric_draws


def test_precision_is_the_closed_form_draw_by_draw():
    # the same cell draws (same seed): TPR = recall of class 1, FPR = 1 - recall of class 0
    base = draws_at(None)
    at = draws_at([1 - PI, PI])
    tpr, fpr = base["recall"][1], 1 - base["recall"][0]
    np.testing.assert_allclose(at["precision"][1], ppv(PI, tpr, fpr), rtol=1e-10)
    np.testing.assert_allclose(at["precision"][0], ppv(1 - PI, 1 - fpr, 1 - tpr), rtol=1e-10)
    # negative control: the test set's own precision is far from it
    assert abs(base["precision"][1].mean() - at["precision"][1].mean()) > 0.1  # 0.64 vs 0.50


def test_recall_does_not_change_and_accuracy_is_the_weighted_diagonal():
    pi = np.array([0.5, 0.2, 0.3])
    m = ("recall", "accuracy", "macro_f1")
    base, at = draws_at(None, counts=C3, metrics=m), draws_at(pi, counts=C3, metrics=m)
    np.testing.assert_allclose(at["recall"], base["recall"], rtol=1e-12)
    np.testing.assert_allclose(at["accuracy"], pi @ base["recall"], rtol=1e-12)
    assert not np.allclose(at["accuracy"], base["accuracy"], rtol=1e-3)  # it did change


def test_precision_distribution_matches_independent_betas():
    # theta's rows are independent Dirichlets whatever the prevalence: with alpha = 1,
    # TPR ~ Beta(181, 21) and FPR ~ Beta(101, 901), sampled here by numpy directly
    n = 20_000
    res = evaluate(C, metrics="precision", alpha=1.0, beta=1.0, draws=n, rng=11,
                   keep_draws=True, prevalence=[1 - PI, PI])  # fmt: skip
    got = res.metric_draws["precision"][1]
    g = np.random.default_rng(12)
    tpr, fpr = g.beta(181, 21, n), g.beta(101, 901, n)
    crit = ks_critical(n, n)  # the level-0.001 critical value, ~0.019
    assert ks_stat(got, ppv(PI, tpr, fpr)) < crit
    # the posterior mean within 4 Monte Carlo standard errors of both samples
    se = math.sqrt(2 / n) * got.std()
    assert abs(got.mean() - ppv(PI, tpr, fpr).mean()) < 4 * se
    # negative control: the same test rejects a slightly different prevalence
    assert ks_stat(got, ppv(0.12, tpr, fpr)) > crit


def test_uncertain_prevalence_matches_independent_sampling():
    n = 20_000
    res = evaluate(C, metrics=("precision", "recall"), alpha=1.0, beta=1.0, draws=n, rng=5,
                   keep_draws=True, prevalence=("dirichlet", [90, 10]))  # fmt: skip
    got = res.metric_draws["precision"][1]
    g = np.random.default_rng(6)
    pi, tpr, fpr = g.beta(10, 90, n), g.beta(181, 21, n), g.beta(101, 901, n)
    crit = ks_critical(n, n)
    assert ks_stat(got, ppv(pi, tpr, fpr)) < crit
    assert ks_stat(got, ppv(PI, tpr, fpr)) > crit  # negative control: fixed pi is narrower
    # the cell draws are those without a target (the prevalence has streams of its own)
    plain = evaluate(C, metrics=("precision", "recall"), alpha=1.0, beta=1.0, draws=n, rng=5,
                     keep_draws=True)  # fmt: skip
    np.testing.assert_allclose(res.metric_draws["recall"], plain.metric_draws["recall"], rtol=1e-12)
    assert res.to_dict()["prevalence"] == {"kind": "dirichlet", "values": [90.0, 10.0]}


def test_uncertain_prevalence_is_reproducible_whatever_workers_and_memory():
    batch = np.stack([C3 + i for i in range(5)])
    kw = dict(metrics=("macro_f1", "precision"), draws=3000, rng=7,
              prevalence=("dirichlet", [2.0, 0.05, 3.0]))  # fmt: skip
    a = evaluate(batch, workers=1, **kw)
    b = evaluate(batch, workers=2, max_memory=3 << 20, **kw)
    assert a == b
    one = evaluate(batch[3:4], index_offset=3, workers=1, **kw)
    assert one["macro_f1"].mean[0] == a["macro_f1"].mean[3]
    assert evaluate(batch, workers=1, **{**kw, "rng": 8}) != a


def test_score_is_the_reweighted_observed_table():
    res = evaluate(C, metrics=("precision", "recall"), draws=2000, rng=1, prevalence=[1 - PI, PI])
    tpr, fpr = 180 / 200, 100 / 1000
    assert res["precision"].score[1] == pytest.approx(ppv(PI, tpr, fpr), rel=1e-12)
    np.testing.assert_allclose(res["recall"].score, [0.9, 0.9], rtol=1e-12)
    # Dirichlet target: the score is taken at its mean prevalence
    d = evaluate(C, metrics="precision", draws=2000, rng=1, prevalence=("dirichlet", [9, 1]))
    assert d["precision"].score[1] == pytest.approx(ppv(PI, tpr, fpr), rel=1e-12)
    # a class without documents has no behaviour to re-weight: NaN
    with np.errstate(invalid="ignore"):
        t = reweight(np.array([[0, 0], [3, 7]]), np.array([0.5, 0.5]))
    assert np.isnan(t[0]).all()


def test_batch_of_prevalences_equals_one_by_one():
    pis = np.array([[0.9, 0.1], [0.5, 0.5], [0.2, 0.8]])
    batch = np.stack([C, C, C])
    res = evaluate(batch, metrics="f1", draws=2000, rng=4, prevalence=pis, keep_draws=True)
    for i, pi in enumerate(pis):
        one = evaluate(batch[i : i + 1], metrics="f1", draws=2000, rng=4, prevalence=pi,
                       index_offset=i, keep_draws=True)  # fmt: skip
        np.testing.assert_array_equal(res.metric_draws["f1"][i], one.metric_draws["f1"][0])
    # f1 of the re-weighted observed table, by the package's own metric on the same table
    expect = f1(reweight(batch, pis), average=None)
    np.testing.assert_allclose(res["f1"].score, expect, rtol=1e-12)


def test_exact_routes_with_a_prevalence():
    # recall keeps its closed form (theta_jj); accuracy's assumes the test set's mu
    pytest.importorskip("scipy")
    kw = dict(metrics=("recall", "accuracy"), beta="aligned", draws=2000, rng=2)
    plain, at = evaluate(C3, **kw), evaluate(C3, prevalence=[0.2, 0.3, 0.5], **kw)
    assert plain["accuracy"].exact and not at["accuracy"].exact
    assert at["recall"].exact
    for key in ("mean", "std", "hdi", "eti"):  # the same closed form
        np.testing.assert_array_equal(getattr(at["recall"], key), getattr(plain["recall"], key))
    np.testing.assert_allclose(at["recall"].score, plain["recall"].score, rtol=1e-14)


def test_prior_check_uses_the_reweighted_score():
    # under a vanishing prior E[theta_uu] = c_uu / n_u: accuracy's posterior mean at a
    # fixed pi is the re-weighted score, so a weak prior is not flagged, a strong one is
    pi = [0.8, 0.1, 0.1]
    weak = evaluate(C3, metrics="accuracy", draws=20_000, rng=1, prevalence=pi)
    assert weak["accuracy"].prior_dominated is False
    strong = evaluate(C3, metrics="accuracy", alpha=50.0, draws=20_000, rng=1, prevalence=pi)
    assert strong["accuracy"].prior_dominated is True


def test_recorded_in_result():
    res = evaluate(C, draws=1000, rng=1, prevalence=[0.99, 0.01])
    assert res.prevalence == TargetPrevalence("fixed", np.array([0.99, 0.01]))
    assert res.to_dict()["prevalence"] == {"kind": "fixed", "values": [0.99, 0.01]}
    assert "at prevalence [0.99, 0.01]" in str(res)
    d = evaluate(C, draws=1000, rng=1, prevalence=("dirichlet", [990, 10]))
    assert "at prevalence Dirichlet(990, 10)" in str(d)
    assert "prevalence" not in evaluate(C, draws=1000, rng=1).to_dict()


@pytest.mark.parametrize(
    ("prevalence", "exc", "match"),
    [
        ([0.5, 0.6], ValueError, r"prevalence must sum to 1 \(within 1e-09\); got sums \[1\.1"),
        ([0.2, 0.3, 0.5], ValueError, r"last axis of length M = 2 .*got shape \(3,\)"),
        ([1.0, 0.0], ValueError, r"finite positive numbers; got array"),
        ([np.nan, 1.0], ValueError, r"finite positive numbers"),
        ([True, False], TypeError, r"prevalence must be a probability vector .*dtype bool"),
        ("0.5,0.5", TypeError, r"prevalence must be a probability vector .*got '0.5,0.5'"),
        ([[0.5, 0.5]] * 3, ValueError, r"broadcast over the batch of shape \(\) .*\(3, 2\)"),
        (("beta", [1, 2]), ValueError, r"or \('dirichlet', concentrations\); got \('beta'"),
        (("dirichlet", [0, 2]), ValueError, r"prevalence\[1\] must hold finite positive"),
        (("dirichlet", [1, 2, 3]), ValueError, r"prevalence\[1\] must have a last axis"),
        (("dirichlet", "ab"), TypeError, r"prevalence\[1\] must be Dirichlet concentrations"),
    ],
)
def test_bad_prevalence(prevalence, exc, match):
    with pytest.raises(exc, match=match):
        evaluate(C, draws=100, prevalence=prevalence)


def test_dask_passes_prevalence_and_chance_through():
    da = pytest.importorskip("dask.array")
    import dask

    from f1posterior.integrations import dask as f1dask

    batch = np.stack([C3 + i for i in range(7)])
    kw = dict(metrics=("macro_f1", "precision"), draws=1500, rng=21, chance=True,
              prevalence=("dirichlet", [2.0, 1.0, 3.0]))  # fmt: skip
    with dask.config.set(scheduler="synchronous"):
        res = f1dask.evaluate(da.from_array(batch, chunks=(3, 3, 3)), **kw)
    mem = evaluate(batch, **kw)
    assert res.prevalence == mem.prevalence and res.chance
    for name in kw["metrics"]:
        for f in ("mean", "hdi", "chance", "chance_score", "p_above_chance"):
            np.testing.assert_array_equal(getattr(res[name], f), getattr(mem[name], f))
    with pytest.raises(ValueError, match=r"prevalence must be the same for every matrix with"):
        f1dask.evaluate(da.from_array(batch), prevalence=np.full((7, 3), 1 / 3))
