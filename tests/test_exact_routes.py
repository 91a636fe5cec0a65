"""Exact routes the model allows.

* Per-class recall is ``Beta(A_jj, sum_{k != j} A_jk)`` (``A = alpha + C``) under
  every prior: ``evaluate`` reports its closed form, checked against scipy.stats.beta
  and an HDI found by an independent optimiser.
* Sampled accuracy / micro-F1 / recall come from the whole table: the posterior mean
  against its closed form, and draws bit-identical whatever ``workers``, ``max_memory``
  and ``index_offset``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.optimize as so
import scipy.stats as ss

import f1posterior.posterior._exact as fx
from f1posterior import Floor, evaluate
from f1posterior._core.priors import resolve_prior
from f1posterior.gating._gate import gate

#: Unequal prevalences and recalls, so that the prevalence weighting matters.
SKEWED = np.array(
    [
        [190, 6, 3, 1, 0],
        [20, 25, 3, 2, 0],
        [2, 3, 8, 5, 2],
        [1, 1, 2, 5, 1],
        [0, 1, 1, 1, 2],
    ]
)
PRIORS = [("uniform", "uniform"), ("jeffreys", "jeffreys"), ("adaptive", "adaptive")]


def _recall_beta(counts: np.ndarray, alpha, beta) -> tuple[np.ndarray, np.ndarray]:
    a, _ = resolve_prior(alpha, beta, counts)
    conc = np.broadcast_to(a + counts, counts.shape).astype(float)
    diag = np.diagonal(conc, axis1=-2, axis2=-1)
    off = conc.sum(axis=-1) - diag
    return diag, off


def _shortest_interval(a: float, b: float, prob: float) -> tuple[float, float]:
    """The HDI of Beta(a, b) by scipy's bounded scalar minimiser of the width."""
    dist = ss.beta(a, b)
    res = so.minimize_scalar(
        lambda q: dist.ppf(q + prob) - dist.ppf(q),
        bounds=(0.0, 1.0 - prob),
        method="bounded",
        options={"xatol": 1e-12},
    )
    q = float(res.x)
    return float(dist.ppf(q)), float(dist.ppf(q + prob))


# --- recall: closed form under every prior -------------------------------------------
@pytest.mark.parametrize(("alpha", "beta"), PRIORS)
def test_recall_summary_is_the_beta_closed_form_under_any_prior(alpha, beta):
    assert not fx.is_aligned(*resolve_prior(alpha, beta, SKEWED))  # not the aligned case
    res = evaluate(SKEWED, metrics=["recall"], alpha=alpha, beta=beta, ref=0.6, ci_prob=0.9)
    s = res["recall"]
    assert s.exact and s.draws == 0 and np.all(s.mc_error == 0)
    a, b = _recall_beta(SKEWED, alpha, beta)
    dist = ss.beta(a, b)
    np.testing.assert_allclose(s.mean, dist.mean(), rtol=1e-12)
    np.testing.assert_allclose(s.std, dist.std(), rtol=1e-10)
    np.testing.assert_allclose(s.median, dist.median(), rtol=1e-10)
    np.testing.assert_allclose(s.p_below, dist.cdf(0.6), rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(s.p_above, dist.sf(0.6), rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(s.eti, np.stack([dist.ppf(0.05), dist.ppf(0.95)], -1), rtol=1e-10)
    np.testing.assert_allclose(s.score, np.diag(SKEWED) / SKEWED.sum(1))
    hdi = np.array([_shortest_interval(x, y, 0.9) for x, y in zip(a, b, strict=True)])
    np.testing.assert_allclose(s.hdi, hdi, atol=2e-7)
    # the HDI is shorter than the equal-tailed interval (skewed Betas) and holds 0.9
    assert np.all(s.hdi[:, 1] - s.hdi[:, 0] <= s.eti[:, 1] - s.eti[:, 0] + 1e-12)
    np.testing.assert_allclose(dist.cdf(s.hdi[:, 1]) - dist.cdf(s.hdi[:, 0]), 0.9, atol=1e-9)


def test_recall_closed_form_on_a_batch_with_other_metrics():
    rng = np.random.default_rng(5)
    c = rng.integers(0, 40, size=(3, 2, 4, 4)) + 30 * np.eye(4, dtype=int)
    res = evaluate(
        c, metrics=["macro_f1", "recall", "micro_f1"], draws=2_000, rng=1, alpha="adaptive",
        beta="adaptive",
    )  # fmt: skip
    s = res["recall"]
    assert s.exact and s.mean.shape == (3, 2, 4) and s.hdi.shape == (3, 2, 4, 2)
    a, b = _recall_beta(c, "adaptive", "adaptive")
    np.testing.assert_allclose(s.mean, a / (a + b), rtol=1e-12)
    assert not res["micro_f1"].exact and not res["macro_f1"].exact  # sampled, as before
    # exact_posterior / exact_summary take recall under any prior, nothing else
    post = fx.exact_posterior(c, "recall", alpha="adaptive", beta="adaptive")
    np.testing.assert_allclose(post.a, a)
    with pytest.raises(ValueError, match="aligned prior .* 'f1' .*only recall"):
        fx.exact_posterior(c, "f1", alpha=1.0, beta=1.0)


def test_without_scipy_recall_is_sampled_from_its_beta_marginal(monkeypatch):
    def missing():
        raise ImportError("no scipy")

    monkeypatch.setattr(fx, "special", missing)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # silent under a non-aligned prior
        res = evaluate(
            SKEWED, metrics=["recall"], draws=20_000, rng=3, keep_draws=True, alpha="adaptive",
            beta="adaptive",
        )  # fmt: skip
    s = res["recall"]
    assert not s.exact and s.draws == 20_000 and np.all(s.mc_error > 0)
    monkeypatch.undo()
    a, b = _recall_beta(SKEWED, "adaptive", "adaptive")
    for j in range(5):
        p = ss.kstest(res.metric_draws["recall"][j], ss.beta(a[j], b[j]).cdf).pvalue
        assert p > 0.01, (j, p)
    np.testing.assert_allclose(s.mean, a / (a + b), atol=5 * s.mc_error.max())
    # under an aligned prior the warning stays (the closed forms were asked for)
    monkeypatch.setattr(fx, "special", missing)
    with pytest.warns(UserWarning, match="need.*scipy"):
        evaluate(SKEWED, metrics=["recall"], beta="aligned", draws=1_000, rng=3)


def test_gate_recall_floor_is_exact_under_a_dirichlet_prior():
    res = gate(SKEWED, [Floor("recall", 0.3)], alpha="adaptive", beta="adaptive")
    a, b = _recall_beta(SKEWED, "adaptive", "adaptive")
    probs = np.array([c.prob for c in res.checks if c.verdict != "skipped"])
    exact = [c.exact for c in res.checks if c.verdict != "skipped"]
    sf = ss.beta(a, b).sf(0.3)[[c.verdict != "skipped" for c in res.checks]]
    assert all(exact) and len(probs) >= 3
    np.testing.assert_allclose(probs, sf, rtol=1e-10)


# --- micro-F1: the whole table's draws against its closed-form mean -------------------
def test_micro_f1_exact_mean_under_the_paper_prior():
    """E[micro-F1] = sum_j E[mu_j] E[theta_jj] (DESIGN.md), 0.80274 on the Figure 3 matrix."""
    from f1posterior.io._data import figure3

    c = figure3().astype(float)
    s = evaluate(c, metrics=["micro_f1"], alpha="paper", beta="paper", rng=0)["micro_f1"]
    m = c.shape[0]
    n = c.sum(1)
    exact = np.sum((1 + n) / (m + n.sum()) * (1 + np.diag(c)) / (m + n))
    assert abs(exact - 0.80274) < 5e-6
    assert abs(s.mean - exact) < 4 * s.mc_error


# --- reproducibility: chunks, threads, index_offset -----------------------------------
def _draws(res):
    return {k: v for k, v in res.metric_draws.items()}


@pytest.mark.parametrize(
    ("b", "m", "draws", "alpha", "dtype", "small"),
    [
        (7, 3, 2_001, "adaptive", np.float64, 4),
        (3, 50, 5_000, "adaptive", np.float64, 32),  # several random blocks a matrix
        (5, 4, 1_500, 0.01, np.float64, 4),  # log-space Gammas
        (4, 6, 3_000, "jeffreys", np.float32, 4),
    ],
)
def test_bit_identical_whatever_workers_memory_and_offset(b, m, draws, alpha, dtype, small):
    rng = np.random.default_rng(m)
    c = rng.integers(0, 30, size=(b, m, m)) + 20 * np.eye(m, dtype=int)
    c[0, 1] = 0  # an empty class
    kw = dict(
        metrics=["micro_f1", "accuracy", "recall"],
        draws=draws,
        alpha=alpha,
        beta=alpha,
        rng=2024,
        dtype=dtype,
        keep_draws=True,
        ref=0.7,
    )
    base = evaluate(c, workers=1, **kw)
    d0 = _draws(base)
    assert np.isfinite(d0["micro_f1"]).all() and np.all((d0["recall"] >= 0) & (d0["recall"] <= 1))
    for workers, mem in ((2, None), (1, small << 20), (2, small << 20), (2, 64 << 20)):
        other = evaluate(c, workers=workers, max_memory=mem, **kw)
        for k, v in _draws(other).items():
            np.testing.assert_array_equal(v, d0[k], err_msg=f"{k} {workers} {mem}")
        for f in ("mean", "std", "hdi", "eti", "p_below"):
            np.testing.assert_array_equal(
                getattr(other["micro_f1"], f), getattr(base["micro_f1"], f)
            )
    # chunked evaluation through index_offset equals one call
    cut = b // 2
    parts = [evaluate(c[:cut], index_offset=0, **kw), evaluate(c[cut:], index_offset=cut, **kw)]
    for k in d0:
        joined = np.concatenate([p.metric_draws[k] for p in parts])
        np.testing.assert_array_equal(joined, d0[k])
    # and one matrix alone, by its index, draws what it draws in the batch
    one = evaluate(c[2], index_offset=2, **kw)
    np.testing.assert_array_equal(one.metric_draws["micro_f1"], d0["micro_f1"][2])


def test_log_space_recall_of_an_empty_class_is_its_beta():
    """alpha below LOG_SPACE_BELOW: the empty row's recall is Beta(alpha_jj, rest), any beta."""
    c = np.array([[30, 5, 1], [0, 0, 0], [2, 3, 40]])
    res = evaluate(
        c, metrics=["recall"], alpha=0.05, beta=1e-3, draws=20_000, rng=9, keep_draws=True
    )
    r = res.metric_draws["recall"][1]
    assert ss.kstest(r, ss.beta(0.05, 0.1).cdf).pvalue > 0.01
    # negative control: the same draws against a Beta with the row's mass doubled
    assert ss.kstest(r, ss.beta(0.1, 0.2).cdf).pvalue < 1e-10
