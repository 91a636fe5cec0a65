"""Closed-form posteriors under the aligned prior, against scipy and against sampling."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from f1posterior import evaluate, sample_posterior
from f1posterior._core.priors import adaptive_alpha, resolve_prior
from f1posterior.metrics._registry import METRICS
from f1posterior.posterior._exact import (
    BetaPosterior,
    exact_posterior,
    exact_summary,
    has_exact,
    is_aligned,
)

CM = np.array([[40, 10, 3], [5, 45, 2], [4, 1, 20]])


def test_micro_f1_is_scipy_beta() -> None:
    post = exact_posterior(CM, "micro_f1")
    a, b = np.trace(CM) + 3, CM.sum() - np.trace(CM) + 6
    ref = stats.beta(a, b)
    assert (post.a, post.b) == (a, b)
    assert post.mean() == pytest.approx(ref.mean(), rel=1e-14)
    assert post.std() == pytest.approx(ref.std(), rel=1e-12)
    q = np.array([0.025, 0.5, 0.975])
    np.testing.assert_allclose(post.ppf(q), ref.ppf(q), rtol=1e-12)
    np.testing.assert_allclose(post.cdf([0.7, 0.8]), ref.cdf([0.7, 0.8]), rtol=1e-12)
    np.testing.assert_allclose(post.sf([0.7, 0.8]), ref.sf([0.7, 0.8]), rtol=1e-12)


@pytest.mark.parametrize("metric", ["precision", "recall"])
def test_precision_recall_are_scipy_betas(metric: str) -> None:
    post = exact_posterior(CM, metric, alpha=0.5)
    a = 0.5 + CM
    sums = a.sum(axis=0) if metric == "precision" else a.sum(axis=1)
    d = np.diag(a)
    np.testing.assert_allclose(post.a, d)
    np.testing.assert_allclose(post.b, sums - d)
    np.testing.assert_allclose(post.mean(), stats.beta(d, sums - d).mean(), rtol=1e-13)
    np.testing.assert_allclose(post.ppf(0.3), stats.beta(d, sums - d).ppf(0.3), rtol=1e-12)


def _f1_moments_by_quadrature(a: float, b: float) -> tuple[float, float]:
    dist = stats.beta(a, b)
    m1 = integrate.quad(lambda x: 2 * x / (1 + x) * dist.pdf(x), 0, 1, epsabs=1e-13)[0]
    m2 = integrate.quad(lambda x: (2 * x / (1 + x)) ** 2 * dist.pdf(x), 0, 1, epsabs=1e-13)[0]
    return m1, np.sqrt(m2 - m1 * m1)


@pytest.mark.parametrize("ab", [(41.0, 17.0), (1.0, 1.0), (0.5, 3.0), (900.0, 250.0)])
def test_f1_moments_against_quadrature(ab: tuple[float, float]) -> None:
    post = BetaPosterior(np.array(ab[0]), np.array(ab[1]), "f1")
    mean, std = _f1_moments_by_quadrature(*ab)
    assert float(post.mean()) == pytest.approx(mean, rel=1e-9)
    assert float(post.std()) == pytest.approx(std, rel=1e-7)


def test_f1_cdf_ppf_pdf_consistent_with_beta_transform() -> None:
    post = exact_posterior(CM, "f1")
    for j in range(3):
        a, b = post.a[j], post.b[j]
        one = BetaPosterior(np.array(a), np.array(b), "f1")
        t = 0.8
        assert float(one.cdf(t)) == pytest.approx(stats.beta(a, b).cdf(t / (2 - t)), rel=1e-12)
        assert float(one.cdf(one.ppf(0.37))) == pytest.approx(0.37, rel=1e-10)
        mass = integrate.quad(one.pdf, 0, t, epsabs=1e-12)[0]
        assert mass == pytest.approx(float(one.cdf(t)), abs=1e-9)


def _grid_hdi(post: BetaPosterior, prob: float) -> tuple[float, float]:
    """Independent HDI: highest density cells of a fine grid of the exact density."""
    t = np.linspace(0, 1, 400_001)
    f = post.pdf(t)
    order = np.argsort(-f)
    mass = np.cumsum(f[order]) / f.sum()
    keep = order[: np.searchsorted(mass, prob) + 1]
    return t[keep].min(), t[keep].max()


@pytest.mark.parametrize(
    "ab,transform",
    [((41.0, 17.0), "f1"), ((3.0, 9.0), "f1"), ((2.0, 1.5), "f1"), ((12.0, 30.0), "identity")],
)
def test_hdi_equal_density_mass_and_grid(ab: tuple[float, float], transform: str) -> None:
    post = BetaPosterior(np.array(ab[0]), np.array(ab[1]), transform)
    lo, hi = post.hdi(0.9)
    assert float(post.cdf(hi) - post.cdf(lo)) == pytest.approx(0.9, abs=1e-10)
    assert float(post.pdf(lo)) == pytest.approx(float(post.pdf(hi)), rel=1e-4)
    glo, ghi = _grid_hdi(post, 0.9)
    assert lo == pytest.approx(glo, abs=2e-5)
    assert hi == pytest.approx(ghi, abs=2e-5)


def test_hdi_of_f1_is_not_transformed_hdi_of_jaccard() -> None:
    """Negative control: g(HDI of B) is a wider interval than the HDI of g(B)."""
    a, b = 3.0, 9.0
    post = BetaPosterior(np.array(a), np.array(b), "f1")
    lo, hi = post.hdi(0.95)
    jac = BetaPosterior(np.array(a), np.array(b)).hdi(0.95)
    tlo, thi = 2 * jac / (1 + jac)
    assert abs(tlo - lo) > 5e-3 and abs(thi - hi) > 5e-3
    assert hi - lo < thi - tlo


def test_monotone_density_hdi_touches_boundary() -> None:
    post = BetaPosterior(np.array(1.0), np.array(1.0), "f1")  # density increasing on [0, 1]
    lo, hi = post.hdi(0.8)
    assert hi == pytest.approx(1.0, abs=1e-9)
    assert float(post.cdf(lo)) == pytest.approx(0.2, abs=1e-9)


def test_exact_matches_sampled_draws() -> None:
    """KS test of aligned-prior draws against the exact CDFs, and moments within 5 MC errors."""
    n = 20_000
    p = sample_posterior(CM, draws=n, alpha=1.0, beta="aligned", rng=7)
    for metric in ("micro_f1", "f1", "precision", "recall"):
        x = np.asarray(METRICS[metric](p))
        post = exact_posterior(CM, metric)
        x = x[:, None] if x.ndim == 1 else x
        mean, std = np.atleast_1d(post.mean()), np.atleast_1d(post.std())
        for k in range(x.shape[1]):
            one = BetaPosterior(np.atleast_1d(post.a)[k], np.atleast_1d(post.b)[k], post.transform)
            assert stats.kstest(x[:, k], one.cdf).pvalue > 1e-3
            assert abs(x[:, k].mean() - mean[k]) < 5 * std[k] / np.sqrt(n)
            assert x[:, k].std() == pytest.approx(std[k], rel=5 * np.sqrt(2 / n))


def _alpha_array(counts: np.ndarray, alpha: float | str) -> np.ndarray:
    """The alpha array an entry point should use, built without the resolver."""
    c = np.asarray(counts, dtype=float)
    return adaptive_alpha(c) if alpha == "adaptive" else np.full(c.shape, float(alpha))


# An aligned beta makes any alpha exact: the paper's alpha = 1 and the default's
# "adaptive" alpha (which depends on the table).
@pytest.mark.parametrize("alpha", [1.0, "adaptive"])
def test_evaluate_uses_exact_path_under_aligned_prior(alpha: float | str) -> None:
    res = evaluate(
        CM,
        metrics=["micro_f1", "f1", "macro_f1"],
        alpha=alpha,
        beta="aligned",
        ref=0.8,
        draws=20_000,
        rng=3,
        keep_draws=True,
    )
    s = res["micro_f1"]
    assert s.exact and s.mc_error == 0 and s.draws == 0
    assert res["f1"].exact and not res["macro_f1"].exact
    a = _alpha_array(CM, alpha) + CM
    micro = stats.beta(np.trace(a), a.sum() - np.trace(a))  # aggregation property
    assert s.mean == pytest.approx(micro.mean(), rel=1e-12)
    assert s.std == pytest.approx(micro.std(), rel=1e-10)
    ex = exact_summary(CM, "f1", alpha=_alpha_array(CM, alpha), beta="aligned", ref=0.8)
    np.testing.assert_allclose(res["f1"].hdi, ex.hdi)
    np.testing.assert_allclose(res["f1"].score, METRICS["f1"](CM.astype(float)))
    # sampled draws of the same evaluation agree with the exact summaries
    x = res.metric_draws["f1"]
    se = ex.std / np.sqrt(x.shape[-1])
    assert np.all(np.abs(x.mean(-1) - ex.mean) < 5 * se)
    sampled_p = (x < 0.8).mean(-1)
    assert np.all(np.abs(sampled_p - ex.p_below) < 5 * np.sqrt(ex.p_below * ex.p_above / 20_000))
    assert "exact" in str(res)


@pytest.mark.parametrize("alpha", [1.0, "adaptive"])
def test_evaluate_batch_shapes_exact(alpha: float | str) -> None:
    batch = np.stack([CM, CM.T, CM + 1]).reshape(3, 1, 3, 3)
    res = evaluate(
        batch, metrics=["micro_f1", "recall"], alpha=alpha, beta="aligned", draws=100, rng=0
    )
    assert res["micro_f1"].mean.shape == (3, 1)
    assert res["recall"].hdi.shape == (3, 1, 3, 2)
    for i, table in enumerate((CM, CM.T, CM + 1)):  # an adaptive alpha per table of the batch
        single = exact_summary(table, "recall", alpha=_alpha_array(table, alpha), beta="aligned")
        np.testing.assert_allclose(res["recall"].hdi[i, 0], single.hdi)


@pytest.mark.parametrize(("alpha", "beta"), [(1.0, 1.0), ("adaptive", "adaptive")])
def test_uniform_prior_is_not_exact(alpha: float | str, beta: float | str) -> None:
    """Neither the paper's uniform prior nor the default (beta = 1/M) is aligned."""
    res = evaluate(CM, metrics="micro_f1", alpha=alpha, beta=beta, draws=500, rng=0)
    assert not res["micro_f1"].exact and res["micro_f1"].draws == 500


def test_user_callable_named_like_exact_metric_is_sampled() -> None:
    def f1(t: np.ndarray) -> np.ndarray:
        return METRICS["micro_f1"](t)

    res = evaluate(CM, metrics=[f1], beta="aligned", draws=500, rng=0)
    assert not res["f1"].exact


def test_falls_back_to_sampling_without_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    import f1posterior.posterior._exact as ex

    def missing() -> None:
        raise ImportError("no scipy")

    monkeypatch.setattr(ex, "special", missing)
    with pytest.warns(UserWarning, match="need scipy"):
        res = evaluate(CM, metrics="micro_f1", beta="aligned", draws=500, rng=0)
    assert not res["micro_f1"].exact


def test_helpers() -> None:
    assert has_exact("accuracy", 2) and not has_exact("weighted_f1", 2)
    assert is_aligned(*resolve_prior(np.full((3, 3), 0.5), [1.5, 1.5, 1.5], (3, 3)))


def test_exact_posterior_rejects_unaligned_prior() -> None:
    with pytest.raises(ValueError, match=r"aligned prior .*got alpha=1 \(uniform\), beta=1"):
        exact_posterior(CM, "micro_f1", beta=1.0)


def test_exact_posterior_rejects_unknown_metric() -> None:
    with pytest.raises(ValueError, match="metric must be one of .*got 'macro_f1'"):
        exact_posterior(CM, "macro_f1")


def test_exact_posterior_rejects_one_class() -> None:
    with pytest.raises(ValueError, match=r"M >= 2 classes .*got shape \(1, 1\)"):
        exact_posterior([[5]], "micro_f1")
