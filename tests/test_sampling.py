"""The conjugate sampler against exact closed forms (DESIGN.md, "Exact oracles")."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as ss

from f1posterior import f1, precision, recall, sample_posterior
from f1posterior._core.priors import adaptive_alpha, resolve_prior
from f1posterior._core.sampling import (
    LOG_SPACE_BELOW,
    RaggedGammas,
    concentrations,
    iter_cell_chunks,
)
from f1posterior.io._data import figure3

SMALL = np.array([[5, 2, 0], [1, 3, 1], [0, 2, 6]])
KS_PASS = 1e-3  # a correct sampler fails this at a fixed seed with probability 0.001
KS_REJECT = 1e-6  # a negative control must be rejected at least this strongly


@pytest.mark.parametrize("batch", [(), (3,), (2, 3)])
def test_shapes_and_simplex(batch):
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 10, size=(*batch, 4, 4))
    counts[..., 0, 0] += 1
    p = sample_posterior(counts, draws=7, rng=1)
    assert p.shape == (*batch, 7, 4, 4)
    assert np.all(p > 0)
    np.testing.assert_allclose(p.sum(axis=(-2, -1)), 1.0, rtol=1e-12)


def test_same_seed_same_numbers_and_generator_advances():
    a = sample_posterior(SMALL, draws=50, rng=11)
    b = sample_posterior(SMALL, draws=50, rng=np.random.SeedSequence(11))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, sample_posterior(SMALL, draws=50, rng=12))
    gen = np.random.default_rng(5)
    first, second = (sample_posterior(SMALL, draws=5, rng=gen) for _ in range(2))
    assert not np.array_equal(first, second)
    again = sample_posterior(SMALL, draws=5, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(first, again)


def test_matrix_results_do_not_depend_on_the_rest_of_the_batch():
    stack = np.stack([SMALL, SMALL.T, 2 * SMALL])
    out = sample_posterior(stack, draws=30, rng=3)
    np.testing.assert_array_equal(out[0], sample_posterior(SMALL, draws=30, rng=3))
    other = stack.copy()
    other[1] = 7
    out2 = sample_posterior(other, draws=30, rng=3)
    np.testing.assert_array_equal(out[0], out2[0])
    np.testing.assert_array_equal(out[2], out2[2])


def test_chunking_never_changes_results():
    conc = concentrations(SMALL[None].astype(float), np.ones((3, 3)), np.ones(3))
    conc = np.concatenate([conc, conc + 1])
    root = np.random.SeedSequence(9)

    def collect(max_variates):
        out = np.empty((2, 20_000, 3, 3))
        for mats, rows, cells in iter_cell_chunks(
            conc, 20_000, root, np.dtype(float), max_variates
        ):
            out[mats, rows] = cells
        return out

    ref = collect(1 << 30)
    for budget in (1, 5_000, 200_000):
        np.testing.assert_array_equal(collect(budget), ref)


def _aligned_draws(counts, draws=20_000, rng=1, alpha=1.0):
    return sample_posterior(counts, draws=draws, alpha=alpha, beta="aligned", rng=rng)


def _aligned_concentration(counts, alpha):
    """A = alpha + C, with the adaptive alpha computed independently of the resolver."""
    c = np.asarray(counts, float)
    return (adaptive_alpha(c) if alpha == "adaptive" else np.broadcast_to(alpha, c.shape)) + c


# The aggregation-property Beta laws hold for any alpha under an aligned beta: check the
# paper's alpha = 1 and the default "adaptive" alpha (an array that depends on the table).
@pytest.mark.parametrize("alpha", [1.0, "adaptive"])
def test_aligned_micro_f1_is_beta(alpha):
    a = _aligned_concentration(SMALL, alpha)
    micro = f1(_aligned_draws(SMALL, alpha=alpha), average="micro")
    oracle = ss.beta(np.trace(a), a.sum() - np.trace(a))
    assert ss.kstest(micro, oracle.cdf).pvalue > KS_PASS


@pytest.mark.parametrize("alpha", [1.0, "adaptive"])
@pytest.mark.parametrize("j", [0, 1, 2])
def test_aligned_per_class_f1_precision_recall_are_beta_transforms(j, alpha):
    a = _aligned_concentration(SMALL, alpha)
    p = _aligned_draws(SMALL, rng=20 + j, alpha=alpha)
    row, col, tp = a[j].sum(), a[:, j].sum(), a[j, j]
    b_f1 = ss.beta(tp, row + col - 2 * tp)
    f1_draws = f1(p, average=None)[:, j]
    assert ss.kstest(f1_draws, lambda x: b_f1.cdf(x / (2 - x))).pvalue > KS_PASS
    prec = precision(p, average=None)[:, j]
    assert ss.kstest(prec, ss.beta(tp, col - tp).cdf).pvalue > KS_PASS
    rec = recall(p, average=None)[:, j]
    assert ss.kstest(rec, ss.beta(tp, row - tp).cdf).pvalue > KS_PASS


def test_negative_controls_wrong_distributions_are_rejected():
    """The KS oracle must detect a wrong prior and a transposed table."""
    a = SMALL + 1.0
    tp, row, col = a[1, 1], a[1].sum(), a[:, 1].sum()
    wrong_prior = sample_posterior(SMALL, draws=20_000, alpha=1.0, beta=1.0, rng=1)
    f1_draws = f1(wrong_prior, average=None)[:, 1]
    oracle = ss.beta(tp, row + col - 2 * tp)
    assert ss.kstest(f1_draws, lambda x: oracle.cdf(x / (2 - x))).pvalue < KS_REJECT
    a2 = np.array([[30, 2, 0], [10, 30, 1], [10, 2, 60]]) + 1.0
    rec = recall(_aligned_draws(a2 - 1.0), average=None)[:, 0]
    transposed = ss.beta(a2[0, 0], a2[:, 0].sum() - a2[0, 0])  # rows and columns swapped
    assert ss.kstest(rec, transposed.cdf).pvalue < KS_REJECT
    right = ss.beta(a2[0, 0], a2[0].sum() - a2[0, 0])
    assert ss.kstest(rec, right.cdf).pvalue > KS_PASS


def micro_moments(counts, alpha=1.0, beta=1.0):
    """Exact mean and variance of micro-F1 = sum_j mu_j theta_jj under Dirichlet priors
    (any alpha (M, M) and beta (M,); the defaults are the paper's prior, not the package's)."""
    c = np.asarray(counts, float)
    m = c.shape[0]
    a = np.broadcast_to(alpha, (m, m)) + c
    b = np.broadcast_to(beta, (m,)) + c.sum(1)
    bs, asum = b.sum(), a.sum(1)
    et = np.diag(a) / asum
    et2 = np.diag(a) * (np.diag(a) + 1) / (asum * (asum + 1))
    emu_mu = np.outer(b, b) / (bs * (bs + 1))
    emu_mu[np.diag_indices(m)] = b * (b + 1) / (bs * (bs + 1))
    ett = np.outer(et, et)
    ett[np.diag_indices(m)] = et2
    mean = (b / bs * et).sum()
    second = (emu_mu * ett).sum()
    return mean, second - mean**2


def test_exact_mean_of_micro_f1_figure3():
    """DESIGN.md's 0.80274 is under the paper's prior alpha = beta = 1: pin it."""
    mean, var = micro_moments(figure3())
    assert mean == pytest.approx(0.80274, abs=5e-6)  # DESIGN.md's figure
    n = 200_000
    draws = sample_posterior(figure3(), draws=n, alpha=1.0, beta=1.0, rng=7)
    micro = f1(draws, average="micro")
    se = np.sqrt(var / n)
    assert abs(micro.mean() - mean) < 4 * se
    # the sample variance's standard error ~ var * sqrt(2 / n) for a near-normal quantity
    assert abs(micro.var() - var) < 4 * var * np.sqrt(2 / n)


@pytest.mark.parametrize("seed", range(4))
def test_exact_micro_moments_random_tables_and_priors(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 5))
    counts = rng.integers(0, 8, size=(m, m))
    counts[0, 0] += 1
    alpha = rng.uniform(0.2, 3, size=(m, m))
    beta = rng.uniform(0.2, 3, size=m)
    mean, var = micro_moments(counts, alpha, beta)
    n = 100_000
    micro = f1(sample_posterior(counts, draws=n, alpha=alpha, beta=beta, rng=seed), average="micro")
    assert abs(micro.mean() - mean) < 4 * np.sqrt(var / n)
    # var of the sample variance <= E[(x-mu)^4] / n <= var / n, as |x - mu| <= 1
    assert abs(micro.var() - var) < 4 * np.sqrt(var / n)


@pytest.mark.parametrize("counts", [figure3(), SMALL, np.array([[9, 0], [0, 1]])])
def test_exact_micro_moments_under_the_adaptive_prior(counts):
    """The "adaptive" prior against the exact moments of its resolved arrays."""
    m = counts.shape[-1]
    alpha, beta = adaptive_alpha(counts), np.full(m, 1.0 / m)  # priors.py: beta = 1/M
    ra, rb = resolve_prior("adaptive", "adaptive", counts)
    np.testing.assert_array_equal(ra, alpha)
    np.testing.assert_array_equal(rb, beta)
    mean, var = micro_moments(counts, alpha, beta)
    n = 200_000
    draws = sample_posterior(counts, draws=n, rng=7, alpha="adaptive", beta="adaptive")
    np.testing.assert_array_equal(
        draws[:5], sample_posterior(counts, draws=n, alpha=alpha, beta=beta, rng=7)[:5]
    )
    micro = f1(draws, average="micro")
    assert abs(micro.mean() - mean) < 4 * np.sqrt(var / n)
    # var of the sample variance <= E[(x-mu)^4] / n <= var / n, as |x - mu| <= 1
    assert abs(micro.var() - var) < 4 * np.sqrt(var / n)


def test_mean_of_cells_is_exact():
    alpha, beta = 0.5, 2.0
    counts = np.array([[4, 1], [0, 3]])
    n = 100_000
    p = sample_posterior(counts, draws=n, alpha=alpha, beta=beta, rng=2)
    a = counts + alpha
    b = counts.sum(1) + beta
    expected = (b / b.sum())[:, None] * a / a.sum(1, keepdims=True)
    se = p.std(axis=0) / np.sqrt(n)
    assert np.all(np.abs(p.mean(axis=0) - expected) < 4 * se)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tiny_priors_with_empty_classes_give_finite_in_range_metrics(dtype):
    counts = np.array([[10, 0, 0, 0], [0, 0, 0, 0], [3, 0, 5, 0], [0, 0, 0, 0]])
    p = sample_posterior(counts, draws=20_000, alpha=1e-3, beta=1e-3, rng=0, dtype=dtype)
    assert p.dtype == dtype
    assert np.all(np.isfinite(p)) and np.all(p > 0)
    np.testing.assert_allclose(p.sum(axis=(-2, -1)), 1.0, rtol=1e-5)
    for average in ("micro", "macro", "weighted", None):
        for fn in (f1, precision, recall):
            v = fn(p, average=average)
            assert np.all(np.isfinite(v)) and np.all((v >= 0) & (v <= 1))


def test_log_space_path_matches_distribution():
    """Small concentrations use log space: the marginal Beta law must hold."""
    counts = np.array([[1, 0], [0, 0]])
    alpha = np.array([[0.05, 0.3], [0.08, 0.02]])
    p = sample_posterior(counts, draws=20_000, alpha=alpha, beta=0.04, rng=4)
    theta00 = p[:, 0, 0] / p[:, 0].sum(-1)
    a = alpha + counts
    assert ss.kstest(theta00, ss.beta(a[0, 0], a[0, 1]).cdf).pvalue > KS_PASS
    # the rare class's prevalence (values near 1 are not representable near 1 - 1e-16)
    mu1 = p[:, 1].sum(-1)
    assert ss.kstest(mu1, ss.beta(0.04, 0.04 + 1).cdf).pvalue > KS_PASS
    theta11 = p[:, 1, 1] / p[:, 1].sum(-1)
    assert ss.kstest(theta11, ss.beta(0.02, 0.08).cdf).pvalue > KS_PASS


def test_only_a_row_of_small_concentrations_is_drawn_in_log_space():
    """A small cell beside a large one is numpy's Gamma, drawn directly; a row whose every
    cell is small is drawn in log space (direct draws would normalise it 0/0)."""
    from f1posterior._core.blocks import fill_block

    conc = np.array([[5.0, 1e-3], [1e-3, 1e-3], [3.0, 2.0]])  # (M + 1, M), M = 2
    routed, direct = np.empty((3, 2, 400)), np.empty((3, 2, 400))
    fill_block(np.random.default_rng(1), conc.tolist(), conc, conc < LOG_SPACE_BELOW, routed)
    fill_block(np.random.default_rng(1), conc.tolist(), conc, None, direct)
    np.testing.assert_array_equal(routed[0], direct[0])  # the mixed row: the same bits
    assert (direct[1].max(axis=0) == 0).any()  # negative control: 0/0 without the route
    assert (routed[1].max(axis=0) == 1).all()  # rescaled by its maximum: never 0/0
    # the law of a small cell beside large ones (a row of small cells:
    # test_log_space_path_matches_distribution)
    counts = np.array([[4, 0, 0], [0, 0, 0], [1, 1, 3]])
    alpha = np.array([[1.0, 0.05, 0.05], [0.05, 0.05, 0.02], [1.0, 1.0, 1.0]])
    p = sample_posterior(counts, draws=20_000, alpha=alpha, beta=1.0, rng=3)
    theta01 = p[:, 0, 1] / p[:, 0].sum(-1)
    assert ss.kstest(theta01, ss.beta(0.05, 5.05).cdf).pvalue > KS_PASS
    assert ss.kstest(theta01, ss.beta(0.07, 5.05).cdf).pvalue < KS_REJECT  # a wrong law


def test_prior_broadcasting_and_presets():
    counts = np.stack([SMALL, SMALL])
    per_matrix = np.ones((2, 3, 3))
    a = sample_posterior(counts, draws=5, alpha=per_matrix, beta=np.ones(3), rng=0)
    b = sample_posterior(counts, draws=5, alpha="uniform", beta="uniform", rng=0)
    np.testing.assert_array_equal(a, b)
    c = sample_posterior(counts, draws=5, alpha="jeffreys", beta="jeffreys", rng=0)
    d = sample_posterior(counts, draws=5, alpha=0.5, beta=0.5, rng=0)
    np.testing.assert_array_equal(c, d)


def test_perks_preset_is_one_over_m():
    counts = np.stack([SMALL, SMALL.T])
    a = sample_posterior(counts, draws=5, alpha="perks", beta="perks", rng=0)
    b = sample_posterior(counts, draws=5, alpha=1 / 3, beta=1 / 3, rng=0)
    np.testing.assert_array_equal(a, b)


def test_ragged_gammas_rows_are_dirichlet_and_chunking_never_changes_them():
    # rows of lengths 2, 3 and 1; the second in log space (a < LOG_SPACE_BELOW)
    conc = np.array([2.0, 5.0, 0.05, 0.3, 0.02, 4.0])
    segments = [(0, 2), (2, 5), (5, 6)]
    n = 3 * RaggedGammas.MIN_BLOCK_DRAWS + 100
    gammas = RaggedGammas(conc, segments, np.random.SeedSequence(11))
    whole = np.empty((6, n))
    gammas.fill(0, n, whole)
    # any split at block boundaries gives the same numbers, bit for bit
    parts = np.empty((6, n))
    for d0 in range(0, n, 2 * gammas.block):
        d1 = min(n, d0 + 2 * gammas.block)
        gammas.fill(d0, d1, parts[:, d0:d1])
    np.testing.assert_array_equal(parts, whole)
    # another index is another stream
    other = np.empty((6, n))
    RaggedGammas(conc, segments, np.random.SeedSequence(11), index=1).fill(0, n, other)
    assert not np.array_equal(other, whole)
    # each row normalised is Dirichlet(conc[s0:s1]): mean a_i / A, variance
    # a_i (A - a_i) / (A^2 (A + 1)); 5 standard errors of the mean of n draws
    for s0, s1 in segments[:2]:
        a = conc[s0:s1]
        total = a.sum()
        theta = whole[s0:s1] / whole[s0:s1].sum(axis=0)
        se = np.sqrt(a * (total - a) / (total**2 * (total + 1)) / n)
        np.testing.assert_array_less(np.abs(theta.mean(axis=1) - a / total), 5 * se)
        # negative control: the reversed concentrations are rejected
        assert (np.abs(theta.mean(axis=1) - a[::-1] / total) > 5 * se).any()
