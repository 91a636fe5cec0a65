"""Small prevalences keep every draw's distribution.

An empty class with a tiny ``beta_j`` has a prevalence ``mu_j`` below float
range in most draws. Its recall is ``theta_jj`` and must follow exactly
``Beta(alpha_jj, sum_{k != j} alpha_jk)`` whatever ``beta`` (``theta_j`` is
independent of ``mu``); before the fix it came out exactly ``1/M`` whenever
``mu_j`` underflowed. See the design notes of ``f1posterior._core.sampling``
(docs/design.md#core-sampling, "Small concentrations") for what the sampler guarantees.

With ``alpha`` tiny the Beta puts most of its mass below float range, so the
draws are rounded (massive ties at values near 0 and at 1): the KS statistic
below knows the rounding the sampler may do, and stays conservative under the
Kolmogorov distribution; for a continuous sample it is the usual statistic.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as ss
from scipy.special import expit, logit, logsumexp

from f1posterior import evaluate, sample_posterior
from f1posterior._core.sampling import (
    LOG_SPACE_BELOW,
    cells_inplace,
    concentrations,
    gamma_chunk,
    prevalence_floor,
)
from f1posterior.metrics._registry import METRIC_RANGES, METRICS

KS_PASS = 1e-3  # a correct sampler fails this at a fixed seed with probability <= 0.001
KS_REJECT = 1e-6  # a negative control must be rejected at least this strongly
ISSUE = np.array([[10, 2, 0], [1, 8, 0], [0, 0, 0]])  # the issue's example: class 2 is empty
DTYPES = [np.float64, np.float32]


# --- a KS statistic that knows how the sampler rounds ------------------------------------


def rounded_ks(x, cdf, *, lump=0.0, log_odds=0.0, eps=0.0):
    """KS statistic and p-value of a sample ``x`` of values in [0, 1] against ``cdf``.

    The sampler may report a true value ``t`` as any ``u`` with ``t`` in
    ``[lo(u), hi(u)]``, where ``hi(u) = expit(logit(min(u + eps, 1)) + log_odds)``
    and ``lo(u) = expit(logit(clip(u - lump, 0, 1 - 2 eps)) - log_odds)``:
    ``lump`` is an absolute error near 0 (values below float range reported as
    small numbers), ``eps`` the rounding of values near 1, ``log_odds`` a
    relative rounding error of ``t`` and ``1 - t``. Over the distinct values
    ``u`` of the sample,

        D = max(F_n(u) - F(hi(u)), F(lo(u)) - F_n(u-)).

    ``F_n(u) <= G_n(hi(u))`` and ``F_n(u-) >= G_n(lo(u)-)``, with ``G_n`` the
    empirical CDF of the (unseen) true values, because ``lo`` and ``hi`` are
    non-decreasing. So ``D`` is at most the KS statistic of the true values and
    ``kstwo.sf(D, n)`` is a conservative p-value. With no slack and no ties
    ``D`` is the usual two-sided KS statistic.
    """
    x = np.sort(np.asarray(x, dtype=np.float64).ravel())
    n = x.size
    u, first = np.unique(x, return_index=True)
    below = first / n  # F_n(u-)
    upto = np.append(first[1:], n) / n  # F_n(u)
    with np.errstate(divide="ignore"):
        hi = np.minimum(u + eps, 1.0)
        hi = np.where(hi >= 1.0, 1.0, expit(logit(hi) + log_odds))
        lo = np.clip(u - lump, 0.0, 1.0 - 2 * eps) if eps else np.clip(u - lump, 0.0, 1.0)
        lo = np.where(lo <= 0.0, 0.0, expit(logit(lo) - log_odds))
    d = float(max(np.max(upto - cdf(hi)), np.max(cdf(lo) - below)))
    return d, float(ss.kstwo.sf(d, n))


def sampler_slack(dtype, alpha_row, m):
    """``rounded_ks`` slack of a recall drawn by the sampler (sampling.py, "Small concentrations").

    ``lump``: recall is exact up to an absolute ``tiny / max(mu_j, s) <= s``
    (twice that, for rounding). ``log_odds``: in log space ``log Gamma(a) =
    log Gamma(a + 1) + log(U) / a`` with ``|log U| < 40``, each of the few
    operations on it rounds by ~``eps * |log Gamma|``; recall's log-odds is a
    difference of two such numbers plus a normalisation over ``m`` cells.
    ``eps``: values within one ulp of 1.
    """
    fi = np.finfo(dtype)
    eps = float(fi.eps)
    a_min = float(np.min(alpha_row))
    return {
        "lump": 2 * prevalence_floor(dtype),
        "log_odds": 8 * eps * (40 / min(a_min, 1.0) + 40) + 8 * m * eps,
        "eps": eps,
    }


def _recall(p, j):
    p = np.asarray(p, dtype=np.float64)
    return p[..., j, j] / p[..., j, :].sum(-1)


def test_rounded_ks_is_the_usual_statistic_on_a_continuous_sample():
    x = ss.beta(2.0, 3.0).rvs(size=5000, random_state=1)
    d, pv = rounded_ks(x, ss.beta(2.0, 3.0).cdf)
    ref = ss.kstest(x, ss.beta(2.0, 3.0).cdf)
    assert d == pytest.approx(ref.statistic, abs=1e-12)
    assert pv == pytest.approx(ref.pvalue, rel=1e-6)
    assert rounded_ks(x, ss.beta(2.2, 3.0).cdf)[1] < KS_REJECT  # and it has power


# --- the empty row's recall is exactly Beta, whatever beta -------------------------------


@pytest.mark.parametrize("alpha", [1.0, 0.1, 1e-3, 1e-6])
@pytest.mark.parametrize("beta", [1e-3, 1e-6])
@pytest.mark.parametrize("dtype", DTYPES)
def test_empty_row_recall_is_exact_beta(dtype, beta, alpha):
    n, j, m = 20_000, 2, 3
    law = ss.beta(alpha, 2 * alpha)  # Beta(alpha_jj, sum_{k != j} alpha_jk)
    slack = sampler_slack(dtype, [alpha] * m, m)
    p = sample_posterior(ISSUE, draws=n, alpha=alpha, beta=beta, rng=101, dtype=dtype)
    # the draws exercise the floor: mu_2 is below it in most of them
    mu = np.asarray(p[:, j].sum(-1), dtype=np.float64)
    assert np.mean(mu <= prevalence_floor(dtype) * (1 + 1e-6)) > 0.5
    d, pv = rounded_ks(_recall(p, j), law.cdf, **slack)
    assert pv > KS_PASS, (d, pv)
    res = evaluate(
        ISSUE,
        metrics=("recall",),
        alpha=alpha,
        beta=beta,
        draws=n,
        rng=202,
        dtype=dtype,
        keep_draws=True,
    )
    d, pv = rounded_ks(res.metric_draws["recall"][j], law.cdf, **slack)
    assert pv > KS_PASS, (d, pv)


def _perks_counts(m):
    """An ``m``-class matrix whose last ``m // 2`` classes are empty."""
    c = np.zeros((m, m), dtype=np.int64)
    full = m // 2
    c[np.arange(full), np.arange(full)] = 3 + np.arange(full) % 7
    c[np.arange(full), (np.arange(full) + 1) % full] = 1 + np.arange(full) % 2
    return c, np.arange(full, m)


@pytest.mark.parametrize(
    ("dtype", "m", "draws"), [(np.float64, 200, 250), (np.float32, 20, 10_000)]
)
def test_empty_rows_recall_under_a_perks_prior(dtype, m, draws):
    """alpha = beta = 1/M: every empty row's recall is Beta(1/M, 1 - 1/M).

    The rows of theta are independent and identically distributed for the empty
    classes, so their recalls are pooled into one sample of ``draws * M / 2``.
    """
    c, empty = _perks_counts(m)
    a = 1.0 / m
    law = ss.beta(a, 1.0 - a)
    slack = sampler_slack(dtype, [a] * m, m)
    p = sample_posterior(c, draws=draws, alpha=a, beta=a, rng=303, dtype=dtype)
    rows = np.asarray(p[:, empty], dtype=np.float64)  # (draws, empty, M)
    mu = rows.sum(-1)
    assert np.mean(mu <= prevalence_floor(dtype) * (1 + 1e-6)) > 0.1  # the floor is exercised
    rec = rows[:, np.arange(empty.size), empty] / mu
    d, pv = rounded_ks(rec, law.cdf, **slack)
    assert pv > KS_PASS, (d, pv)
    res = evaluate(
        c, metrics=("recall",), alpha=a, beta=a, draws=draws, rng=404, dtype=dtype, keep_draws=True
    )
    d, pv = rounded_ks(res.metric_draws["recall"][empty], law.cdf, **slack)
    assert pv > KS_PASS, (d, pv)


# --- negative controls: the old sampler, and a wrong law ---------------------------------


def _old_cells(buf):
    """The cells before the fix: prevalences not floored, cells floored at tiny."""
    n, m1, m, d = buf.shape
    sums = np.add.reduce(buf, axis=-2)
    scale = buf[:, m] / sums[:, m : m + 1]
    scale /= sums[:, :m]
    p = buf[:, :m] * scale[:, :, None, :]
    tiny = np.finfo(p.dtype).tiny
    if p.size and not p.min() >= tiny:
        np.maximum(p, tiny, out=p)
    return p.transpose(0, 3, 1, 2)


def _gammas(counts, alpha, beta, draws, seed, dtype):
    """The sampler's own Gamma variates of one matrix, (1, M + 1, M, draws)."""
    c = np.asarray(counts)
    m = c.shape[-1]
    conc = concentrations(c, np.full((m, m), float(alpha)), np.full(m, float(beta)))[None]
    small = np.asarray((conc < LOG_SPACE_BELOW).any(axis=(-2, -1)))
    root = np.random.SeedSequence(seed)
    return gamma_chunk(conc, small, 0, 1, 0, draws, root, 0, np.dtype(dtype))


@pytest.mark.parametrize("alpha", [1.0, 1e-3])
@pytest.mark.parametrize("beta", [1e-3, 1e-6])
@pytest.mark.parametrize("dtype", DTYPES)
def test_rounded_ks_rejects_the_old_sampler(dtype, beta, alpha):
    """Same Gamma variates: the old cells fail the KS test, the new ones pass it."""
    n, j = 20_000, 2
    law = ss.beta(alpha, 2 * alpha)
    slack = sampler_slack(dtype, [alpha] * 3, 3)
    g = _gammas(ISSUE, alpha, beta, n, 7, dtype)
    old = _old_cells(g.copy())[0]
    new = cells_inplace(g.copy())[0]
    assert np.mean(np.isclose(_recall(old, j), 1 / 3, rtol=1e-6, atol=0)) > 0.4  # the bug
    d_old, p_old = rounded_ks(_recall(old, j), law.cdf, **slack)
    assert p_old < KS_REJECT, (d_old, p_old)
    d_new, p_new = rounded_ks(_recall(new, j), law.cdf, **slack)
    assert p_new > KS_PASS, (d_new, p_new)
    # only the draws whose prevalence fell below the floor changed, bit for bit
    mu_old = g[0, 3] / g[0, 3].sum(0)  # (M, draws)
    raised = (mu_old < prevalence_floor(dtype)).any(axis=0)
    assert raised.any()
    np.testing.assert_array_equal(new[~raised], old[~raised])


@pytest.mark.parametrize("alpha", [1e-3, 1e-6])
def test_rounded_ks_rejects_a_wrong_law(alpha):
    """Beta(2a, a) instead of Beta(a, 2a): the mass near 0 is 1/3, not 2/3."""
    p = sample_posterior(ISSUE, draws=20_000, alpha=alpha, beta=1e-3, rng=5)
    slack = sampler_slack(np.float64, [alpha] * 3, 3)
    d, pv = rounded_ks(_recall(p, 2), ss.beta(2 * alpha, alpha).cdf, **slack)
    assert pv < KS_REJECT, (d, pv)


@pytest.mark.parametrize(
    ("alpha", "beta"), [(1.0, 1.0), (0.05, 0.5), (0.5, 0.05), (1e-3, 1.0), (2.0, 0.3)]
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_draws_with_no_small_prevalence_are_bit_identical(dtype, alpha, beta):
    """Where no prevalence falls below the floor, the fix changes no bit."""
    counts = np.array([[5, 2, 0, 1], [1, 3, 1, 0], [0, 2, 6, 1], [2, 0, 1, 9]])
    g = _gammas(counts, alpha, beta, 3000, 11, dtype)
    mu = g[0, 4] / g[0, 4].sum(0)
    assert mu.min() >= prevalence_floor(dtype)
    np.testing.assert_array_equal(cells_inplace(g.copy()), _old_cells(g.copy()))


# --- the issue's example, end to end -----------------------------------------------------


def _reference_f1(counts, alpha, beta, n, seed):
    """Per-class F1 draws by an independent sampler working in log space throughout.

    ``log Gamma(a) = log Gamma(a + 1) + log(U) / a`` (numpy's Generator, not the
    package's streams), ``log p = log mu + log theta``, and
    ``F1_j = expit(log(2 tp_j) - log(fn_j + fp_j))``: nothing underflows.
    """
    gen = np.random.default_rng(seed)
    c = np.asarray(counts, dtype=np.float64)
    m = c.shape[0]

    def log_dirichlet(conc):
        conc = np.broadcast_to(conc, (n, *np.shape(conc)))
        lg = np.log(gen.standard_gamma(conc + 1.0)) + np.log1p(-gen.random(conc.shape)) / conc
        return lg - logsumexp(lg, axis=-1, keepdims=True)

    log_mu = log_dirichlet(beta + c.sum(1))  # (n, M)
    log_theta = log_dirichlet(alpha + c)  # (n, M, M)
    log_p = log_mu[:, :, None] + log_theta
    f1 = np.empty((n, m))
    for j in range(m):
        off = np.concatenate([np.delete(log_p[:, j, :], j, 1), np.delete(log_p[:, :, j], j, 1)], 1)
        f1[:, j] = expit(np.log(2.0) + log_p[:, j, j] - logsumexp(off, axis=1))
    return f1


def _mean_and_se(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    return x.mean(axis), x.std(axis) / np.sqrt(x.shape[axis])


def test_issue_example_end_to_end():
    n = 40_000
    res = evaluate(
        ISSUE,
        metrics=("recall", "f1", "macro_f1"),
        alpha=1,
        beta=1e-3,
        draws=n,
        rng=2024,
        keep_draws=True,
    )
    # recall_j ~ Beta(alpha_jj + c_jj, sum of the rest of row j of alpha + C), whatever beta
    a = ISSUE + 1.0
    exact = ss.beta(np.diag(a), a.sum(1) - np.diag(a))
    rec = res.metric_draws["recall"]  # (M, draws)
    mean, se = _mean_and_se(rec)
    assert np.all(np.abs(mean - exact.mean()) < 4 * se), (mean, exact.mean(), se)
    # the summary itself is recall's closed form under any prior (scipy is installed here)
    assert res["recall"].exact and abs(res["recall"].mean[2] - 1 / 3) < 1e-12
    # the spread too: the old sampler's recall_2 was exactly 1/3 in half the draws, and its
    # variance came out ~0.028 instead of 1/18 (its mean was right by coincidence: 1/M)
    sq = (rec - exact.mean()[:, None]) ** 2
    var, var_se = _mean_and_se(sq)
    assert np.all(np.abs(var - exact.var()) < 4 * var_se), (var, exact.var(), var_se)
    assert rounded_ks(rec[2], ss.beta(1, 2).cdf, **sampler_slack(np.float64, [1.0], 3))[1] > KS_PASS
    # F1 depends on beta through mu (the empty class's F1 is ~3e-4 here, ~0.2 with beta = 1):
    # its law is checked against an independent log-space sampler, which never underflows
    ref = _reference_f1(ISSUE, 1.0, 1e-3, n, seed=77)
    f1, f1_se = _mean_and_se(res.metric_draws["f1"])
    ref_mean, ref_se = _mean_and_se(ref.T)
    assert np.all(np.abs(f1 - ref_mean) < 4 * np.hypot(f1_se, ref_se)), (f1, ref_mean)
    assert f1[2] < 0.01  # tp_2 ~ mu_2 theta_22 is tiny next to fp_2 ~ 0.05
    macro, macro_se = _mean_and_se(res.metric_draws["macro_f1"])
    ref_macro, ref_macro_se = _mean_and_se(ref.mean(1))
    assert abs(macro - ref_macro) < 4 * np.hypot(macro_se, ref_macro_se), (macro, ref_macro)
    assert abs(res["macro_f1"].mean - ref_macro) < 4 * np.hypot(
        res["macro_f1"].mc_error, ref_macro_se
    )


# --- every draw finite and in range --------------------------------------------------------


@pytest.mark.parametrize(("alpha", "beta"), [(1e-6, 1e-6), (1e-3, 1e-6), (1e-6, 1.0), (1.0, 1e-6)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_draw_finite_and_in_range(dtype, alpha, beta):
    counts = np.array([[10, 0, 0, 0], [0, 0, 0, 0], [3, 0, 5, 0], [0, 0, 0, 0]])
    n = 5_000
    p = sample_posterior(counts, draws=n, alpha=alpha, beta=beta, rng=9, dtype=dtype)
    assert p.dtype == dtype
    assert np.all(np.isfinite(p)) and np.all(p > 0)
    np.testing.assert_allclose(p.sum(axis=(-2, -1)), 1.0, rtol=1e-5)
    # no prevalence below the floor; a row whose mu was raised is s * theta exactly
    assert p.sum(-1).min() >= prevalence_floor(dtype) * (1 - 1e-6)
    res = evaluate(
        counts,
        metrics=tuple(METRICS),
        alpha=alpha,
        beta=beta,
        draws=n,
        rng=9,
        dtype=dtype,
        keep_draws=True,
    )
    for name, v in res.metric_draws.items():
        lo, hi = METRIC_RANGES[name]
        assert np.all(np.isfinite(v)) and np.all((v >= lo) & (v <= hi)), name


def test_paired_model_keeps_an_empty_rows_recall_exact():
    """The paired sampler uses the core's prevalence floor: empty row's recall ~ Beta(1, 2)."""
    from f1posterior.analysis._paired import paired_metric_draws

    joint = np.zeros((3, 9))
    joint[0, 0], joint[0, 4], joint[1, 4], joint[1, 0] = 10, 2, 8, 1  # class 2 never true
    alpha, beta = np.full((3, 9), 1 / 3), np.full(3, 1e-3)  # each marginal: alpha = 1

    def recall_2(t):
        return t[..., 2, 2] / t[..., 2, :].sum(axis=-1)

    v = paired_metric_draws(joint, alpha, beta, 2, recall_2, 20_000, np.random.SeedSequence(1))
    for model in v:
        assert ss.kstest(model, ss.beta(1, 2).cdf).pvalue > 1e-3
