"""The hierarchical default prior: grid weights, exact mixture draws, reproducibility.

Every check is against an independent truth: grid weights by brute force (loops,
``scipy.special.betaln``), draws against a sampler written from the definition
(numpy's ``Generator.beta`` / ``dirichlet``) and against the exact Beta-mixture
posterior of each recall; a negative control each time.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from f1posterior import evaluate, sample_posterior
from f1posterior._core.hierarchical import (
    GRID_M,
    GRID_SIZE,
    POOLED_WEIGHT,
    gammaln_numpy,
    grid_weights,
    weights_from_rows,
)
from f1posterior._core.priors import DEFAULT_PRIOR, POOLED_FROM, resolve, resolve_prior

sp = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")

# rows = true class; the imbalanced example: prevalences 0.70/0.20/0.07/0.03,
# recalls 0.97/0.90/0.85/0.60 on 1,000 documents
IMBALANCED = np.array([[679, 12, 6, 3], [10, 180, 6, 4], [5, 4, 60, 1], [6, 4, 2, 18]], dtype=float)
WEAK = np.array(  # a weak classifier with uniform errors (centres below 1/2 matter)
    [[12, 9, 10, 9, 8], [10, 11, 9, 10, 8], [9, 10, 13, 8, 9], [8, 9, 10, 12, 9],
     [10, 9, 8, 9, 11]], dtype=float,
)  # fmt: skip
SPARSE8 = np.diag([40.0, 30, 25, 20, 15, 10, 5, 3])  # zero off-diagonals: small cells
SPARSE8[7, 0] = 2.0
WEAK8 = np.diag(np.full(8, 4.0))  # weak and sparse: centres below 1/2 and small cells
WEAK8[1:, 0] = 10.0
TABLES = {
    "imbalanced": IMBALANCED,
    "weak": WEAK,
    "sparse8": SPARSE8,
    "weak8": WEAK8,
    "binary": np.array([[45.0, 5.0], [12.0, 38.0]]),
    "three": np.array([[30.0, 3, 1], [4, 20, 2], [1, 2, 12]]),
}


# ------------------------------------------------------------------ an independent truth


def brute_weights(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Grid posterior and P(pooled | g) by loops over the definition (scipy's betaln)."""
    m_count = c.shape[0]
    logits = np.linspace(-7.0, 7.0, 81)
    logw = np.empty(81)
    pooled = np.empty((81, m_count))
    for g, lg in enumerate(logits):
        m = 1.0 / (1.0 + math.exp(-lg))
        s = 1.0 / (2.0 * min(m, 1.0 - m))
        a, b = s * m, s * (1.0 - m)
        total = math.log(m * (1.0 - m))
        for j in range(m_count):
            t, e = c[j, j], c[j].sum() - c[j, j]
            lp = math.log(0.9) + sp.betaln(a + t, b + e) - sp.betaln(a, b)
            lo = math.log(0.1) + sp.betaln(0.5 + t, 0.5 + e) - sp.betaln(0.5, 0.5)
            both = np.logaddexp(lp, lo)
            total += both
            pooled[g, j] = math.exp(lp - both)
        logw[g] = total
    w = np.exp(logw - logw.max())
    return w / w.sum(), pooled


def recall_mixture(c: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact posterior of recall ``j``: 162 Beta components (weights, a, b)."""
    w, q = brute_weights(c)
    m = 1.0 / (1.0 + np.exp(-np.linspace(-7.0, 7.0, 81)))
    s = 1.0 / (2.0 * np.minimum(m, 1.0 - m))
    t, e = c[j, j], c[j].sum() - c[j, j]
    weights = np.concatenate([w * q[:, j], w * (1.0 - q[:, j])])
    a = np.concatenate([s * m + t, np.full(81, 0.5 + t)])
    b = np.concatenate([s * (1.0 - m) + e, np.full(81, 0.5 + e)])
    return weights, a, b


def independent_draws(c: np.ndarray, draws: int, seed: int) -> np.ndarray:
    """Draws of ``p = mu_u theta_uv`` straight from the definition, (draws, M, M)."""
    gen = np.random.default_rng(seed)
    mm = c.shape[0]
    w, q = brute_weights(c)
    m = 1.0 / (1.0 + np.exp(-np.linspace(-7.0, 7.0, 81)))
    s = 1.0 / (2.0 * np.minimum(m, 1.0 - m))
    g = gen.choice(81, size=draws, p=w)
    theta = np.empty((draws, mm, mm))
    for j in range(mm):
        t, e = c[j, j], c[j].sum() - c[j, j]
        pooled = gen.random(draws) < q[g, j]
        a = np.where(pooled, s[g] * m[g], 0.5) + t
        b = np.where(pooled, s[g] * (1.0 - m[g]), 0.5) + e
        r = gen.beta(a, b)
        split = gen.dirichlet(0.5 / (mm - 1) + np.delete(c[j], j), size=draws)
        theta[:, j, j] = r
        theta[:, j, np.arange(mm) != j] = (1.0 - r)[:, None] * split
    mu = gen.dirichlet(1.0 / mm + c.sum(axis=1), size=draws)
    return mu[:, :, None] * theta


def recalls(p: np.ndarray) -> np.ndarray:
    return np.diagonal(p, axis1=-2, axis2=-1) / p.sum(axis=-1)


def macro_f1(p: np.ndarray) -> np.ndarray:
    tp = np.diagonal(p, axis1=-2, axis2=-1)
    return np.mean(2 * tp / (p.sum(axis=-1) + p.sum(axis=-2)), axis=-1)


# --------------------------------------------------------------------------- log-gamma


def test_numpy_log_gamma_matches_math_lgamma():
    x = np.concatenate(
        [np.geomspace(1e-3, 1e7, 4001), 0.5 + np.arange(200.0), np.arange(1.0, 60.0)]
    )
    got = gammaln_numpy(x)
    want = np.array([math.lgamma(v) for v in x])
    err = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    assert err.max() < 1e-13, (err.max(), x[np.argmax(err)])
    # a negative control: the plain Stirling formula without the recurrence shift is far off
    bad = (x - 0.5) * np.log(x) - x + 0.5 * math.log(2 * math.pi)
    assert np.max(np.abs(bad - want) / np.maximum(1.0, np.abs(want))) > 1e-3


def test_without_scipy_the_numpy_log_gamma_is_used(monkeypatch):
    import sys

    from f1posterior._core.hierarchical import gammaln

    x = np.array([0.5, 3.25, 75.5, 1234.0])
    monkeypatch.setitem(sys.modules, "scipy.special", None)  # import scipy.special fails
    np.testing.assert_array_equal(gammaln(x), gammaln_numpy(x))
    got = grid_weights(IMBALANCED).probs
    monkeypatch.undo()
    np.testing.assert_allclose(got, brute_weights(IMBALANCED)[0], rtol=1e-8, atol=1e-14)


# ------------------------------------------------------------------------ grid weights


@pytest.mark.parametrize("name", list(TABLES))
def test_grid_weights_match_brute_force(name):
    c = TABLES[name]
    w, q = brute_weights(c)
    got = grid_weights(c)
    np.testing.assert_allclose(got.probs, w, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(got.pooled, q, rtol=1e-9, atol=1e-14)
    # the numpy log-gamma gives the same weights (no scipy needed at run time)
    hits, rows = np.diag(c), c.sum(axis=1)
    np.testing.assert_allclose(
        weights_from_rows(hits, rows, gammaln_numpy).probs, w, rtol=1e-8, atol=1e-14
    )


def test_grid_weights_are_vectorised_over_tables():
    stack = np.stack([TABLES["three"], TABLES["three"] * 3, TABLES["three"].T])
    got = grid_weights(stack)
    assert got.cdf.shape == (3, GRID_SIZE) and got.pooled.shape == (3, GRID_SIZE, 3)
    for i in range(3):
        np.testing.assert_allclose(got.probs[i], brute_weights(stack[i])[0], rtol=1e-9, atol=1e-14)
    # negative control: different tables have different weights
    assert np.abs(got.probs[0] - got.probs[1]).max() > 1e-3


def test_grid_is_the_logit_grid_with_a_uniform_hyperprior():
    assert GRID_SIZE == 81 and POOLED_WEIGHT == 0.9
    np.testing.assert_allclose(np.log(GRID_M / (1 - GRID_M)), np.linspace(-7, 7, 81), atol=1e-12)
    # no data: the grid posterior is the prior, m (1 - m) normalised
    prior = grid_weights(np.zeros((4, 4))).probs
    np.testing.assert_allclose(prior, GRID_M * (1 - GRID_M) / np.sum(GRID_M * (1 - GRID_M)))


# ------------------------------------------------------------------ draws: exact mixture


def exact_recall_mean(c: np.ndarray, j: int) -> float:
    w, a, b = recall_mixture(c, j)
    return float(np.sum(w * a / (a + b)))


SAMPLED = [name for name, c in TABLES.items() if c.shape[0] >= POOLED_FROM]


@pytest.mark.parametrize("name", SAMPLED)
def test_recall_means_match_the_exact_mixture(name):
    c = TABLES[name]
    draws = 40_000
    r = recalls(sample_posterior(c, draws=draws, rng=11))
    want = np.array([exact_recall_mean(c, j) for j in range(c.shape[0])])
    se = r.std(axis=0) / math.sqrt(draws)
    assert np.all(np.abs(r.mean(axis=0) - want) < 4 * se), (r.mean(axis=0), want, se)


def mixture_cdf(c: np.ndarray, j: int):
    w, a, b = recall_mixture(c, j)
    return lambda x: np.sum(w[:, None] * stats.beta.cdf(np.asarray(x)[None, :], a[:, None],
                                                        b[:, None]), axis=0)  # fmt: skip


def test_weak_tables_put_their_centre_below_one_half():
    # so the extra Gamma of a centre below 1/2 is exercised by the tests below
    for name in ("weak", "weak8"):
        assert grid_weights(TABLES[name]).probs[GRID_M < 0.5].sum() > 0.5


@pytest.mark.parametrize("name", ["imbalanced", "weak", "sparse8", "weak8"])
def test_recall_draws_follow_the_exact_mixture_cdf(name):
    c = TABLES[name]
    j = c.shape[0] - 1  # the rarest class
    r = recalls(sample_posterior(c, draws=20_000, rng=5))[:, j]
    assert stats.kstest(r, mixture_cdf(c, j)).pvalue > 1e-3
    # negative control: the old adaptive prior's recall is another distribution here
    if name == "imbalanced":
        old = recalls(sample_posterior(c, draws=20_000, alpha="adaptive", beta="adaptive", rng=5))
        assert stats.kstest(old[:, j], mixture_cdf(c, j)).pvalue < 1e-6


@pytest.mark.parametrize("name", ["imbalanced", "weak", "sparse8", "weak8"])
def test_draws_match_an_independent_sampler(name):
    c = TABLES[name]
    mine = sample_posterior(c, draws=20_000, rng=3)
    theirs = independent_draws(c, 20_000, seed=4)
    for fn in (macro_f1, lambda p: recalls(p)[:, -1], lambda p: p.sum(axis=-1)[:, 0]):
        assert stats.ks_2samp(fn(mine), fn(theirs)).pvalue > 1e-3


def test_independent_sampler_rejects_a_shifted_table():
    # negative control of the KS comparison: a table with one error moved is detected
    c = IMBALANCED.copy()
    shifted = c.copy()
    shifted[3, 3] -= 4
    shifted[3, 0] += 4
    mine = sample_posterior(shifted, draws=20_000, rng=3)
    theirs = independent_draws(c, 20_000, seed=4)
    assert stats.ks_2samp(recalls(mine)[:, 3], recalls(theirs)[:, 3]).pvalue < 1e-6


@pytest.mark.parametrize("name", ["weak", "weak8"])  # weak8: small cells and extra Gammas
def test_float32_draws_follow_the_mixture(name):
    c = TABLES[name]
    r = recalls(sample_posterior(c, draws=20_000, rng=8, dtype=np.float32).astype(float))
    for j in (0, c.shape[0] - 1):
        assert stats.kstest(r[:, j], mixture_cdf(c, j)).pvalue > 1e-3


def test_blocks_of_few_draws_follow_the_mixture():
    # 50 classes: blocks of 102 draws, each drawn with one array of shapes and its
    # extra Gammas after it (the other tables' blocks: scalar shapes off the diagonal)
    m = 50
    c = np.diag(np.full(m, 6.0))
    for j in range(m):
        c[j, [(j + k) % m for k in range(1, 6)]] = 2.0  # recall 0.375: centre below 1/2
    assert grid_weights(c).probs[GRID_M < 0.5].sum() > 0.99
    mine = sample_posterior(c, draws=10_000, rng=21)
    r = recalls(mine)
    for j in (0, m - 1):
        assert stats.kstest(r[:, j], mixture_cdf(c, j)).pvalue > 1e-3
    theirs = independent_draws(c, 10_000, seed=22)
    split = lambda p: p[:, 0, 1] / (p[:, 0].sum(axis=-1) - p[:, 0, 0])  # noqa: E731
    for fn in (macro_f1, split):  # the split of row 0's errors: Dirichlet, kept
        assert stats.ks_2samp(fn(mine), fn(theirs)).pvalue > 1e-3
    # negative control: one error moved is detected
    shifted = c.copy()
    shifted[0, 0] -= 3
    shifted[0, 1] += 3
    assert stats.kstest(recalls(sample_posterior(shifted, draws=10_000, rng=21))[:, 0],
                        mixture_cdf(c, 0)).pvalue < 1e-6  # fmt: skip


# ----------------------------------------------------------------- the imbalanced example


def test_rare_class_recall_is_not_pulled_to_the_pooled_accuracy():
    c = IMBALANCED
    observed = c[3, 3] / c[3].sum()  # 0.60
    new = evaluate(c, metrics=("recall",), draws=40_000, rng=2)["recall"]
    old = evaluate(c, metrics=("recall",), alpha="adaptive", beta="adaptive", rng=2)["recall"]
    assert observed == pytest.approx(0.6)
    # the old prior pulls it to about 0.666 (the pooled accuracy with ~7 pseudo-documents)
    assert old.mean[3] - observed > 0.05
    assert abs(new.mean[3] - observed) < 0.5 * (old.mean[3] - observed)
    assert new.mean[3] == pytest.approx(exact_recall_mean(c, 3), abs=4 * new.mc_error[3] + 1e-4)


# ------------------------------------------------------------------------ reproducibility


def test_default_prior_is_hierarchical():
    assert DEFAULT_PRIOR == "hierarchical"
    a = sample_posterior(IMBALANCED, draws=500, rng=1)
    b = sample_posterior(IMBALANCED, draws=500, alpha="hierarchical", beta="hierarchical", rng=1)
    np.testing.assert_array_equal(a, b)
    r = resolve("hierarchical", "hierarchical", IMBALANCED)
    assert r.mixture is not None and np.allclose(r.beta, 0.25)
    np.testing.assert_allclose(np.diag(r.alpha), 0.5)
    np.testing.assert_allclose(r.alpha[0, 1:], 0.5 / 3)


@pytest.mark.parametrize("m", range(2, POOLED_FROM))
def test_below_pooled_from_it_is_jeffreys_rows(m):
    assert POOLED_FROM == 4  # the calibration study's choice (docs/calibration.md)
    c = np.arange(m * m, dtype=float).reshape(m, m) + 3.0
    r = resolve("hierarchical", "hierarchical", c)
    assert r.mixture is None
    rows = np.full((m, m), 0.5 / max(1, m - 1))
    np.fill_diagonal(rows, 0.5)
    np.testing.assert_allclose(r.alpha, rows)
    got = sample_posterior(c, draws=300, rng=2)
    np.testing.assert_array_equal(
        got, sample_posterior(c, draws=300, alpha=rows, beta=1 / m, rng=2)
    )


def test_resolve_prior_gives_the_plug_in_dirichlet_form():
    a, b = resolve_prior("hierarchical", "hierarchical", IMBALANCED)
    a2, b2 = resolve_prior("adaptive", "adaptive", IMBALANCED)
    np.testing.assert_array_equal(a, a2)
    np.testing.assert_array_equal(b, b2)
    with pytest.raises(ValueError, match="needs the counts"):
        resolve("hierarchical", 1.0, (4, 4))


def test_aligned_beta_uses_the_plug_in_form():
    # one Dirichlet over the cells needs a Dirichlet alpha: the centre plugged in (adaptive)
    r = resolve("hierarchical", "aligned", IMBALANCED)
    a, b = resolve_prior("adaptive", "aligned", IMBALANCED)
    assert r.mixture is None
    np.testing.assert_array_equal(r.alpha, a)
    np.testing.assert_array_equal(r.beta, b)
    # negative control: without "aligned" the hierarchical rows are the own component's
    assert not np.array_equal(resolve("hierarchical", "hierarchical", IMBALANCED).alpha, a)


METRICS = ("macro_f1", "micro_f1", "f1", "recall", "mcc")


def summaries(ev, i=None):
    out = {}
    for name in ev:
        s = ev[name]
        out[name] = (
            np.asarray(s.mean if i is None else s.mean[i]),
            np.asarray(s.hdi if i is None else s.hdi[i]),
        )
    return out


def assert_same(x, y):
    assert x.keys() == y.keys()
    for k in x:
        for u, v in zip(x[k], y[k], strict=True):
            np.testing.assert_array_equal(u, v, err_msg=k)


def test_a_matrix_draws_do_not_depend_on_the_batch_chunking_or_threads():
    batch = np.stack([IMBALANCED[:4, :4] / 10 * k for k in (1, 2, 3, 5)]).round()
    ref = evaluate(batch, metrics=METRICS, draws=3_000, rng=9)
    other = batch.copy()
    other[[0, 1, 3]] = IMBALANCED.T  # same matrix 2, different neighbours
    swapped = evaluate(other, metrics=METRICS, draws=3_000, rng=9)
    assert_same(summaries(ref, 2), summaries(swapped, 2))
    for kw in (dict(workers=2), dict(max_memory=3 << 20), dict(workers=2, max_memory=3 << 20)):
        assert_same(summaries(ref), summaries(evaluate(batch, metrics=METRICS, draws=3_000,
                                                       rng=9, **kw)))  # fmt: skip
    # negative control: another seed differs
    other_seed = evaluate(batch, metrics=METRICS, draws=3_000, rng=10)
    assert not np.array_equal(ref["macro_f1"].mean, other_seed["macro_f1"].mean)


def test_only_a_row_of_small_concentrations_takes_the_log_space_route():
    from f1posterior._core.blocks import LOG_SPACE_BELOW, log_space_tables
    from f1posterior._core.sampling import concentrations

    def route(c):
        r = resolve("hierarchical", "hierarchical", c)
        conc = concentrations(c, r.alpha, r.beta)[None]
        return log_space_tables(conc, [bool((conc < LOG_SPACE_BELOW).any())])[0]

    # small off-diagonal cells (1/14) beside a diagonal of shape >= 1/2: drawn directly
    assert not route(SPARSE8) and not route(WEAK8)
    # an empty 12-class table: the prevalences' row is all 1/12
    assert route(np.zeros((12, 12)))


def test_small_cells_and_draw_chunks_are_bit_identical():
    # small cells drawn directly; a small budget splits one matrix's draws
    big = evaluate(SPARSE8, metrics=("macro_f1",), draws=40_000, rng=4, keep_draws=True)
    small = evaluate(SPARSE8, metrics=("macro_f1",), draws=40_000, rng=4, keep_draws=True,
                     max_memory=8 << 20, workers=2)  # fmt: skip
    np.testing.assert_array_equal(big.metric_draws["macro_f1"], small.metric_draws["macro_f1"])


def test_the_log_space_route_of_the_mixture_is_chunk_invariant():
    # only an empty table reaches it (the public entry points refuse one): the engine's
    # own chunks, with and without the route's rescaled extra Gammas
    from f1posterior._core.hierarchical import RecallMixture
    from f1posterior._core.sampling import concentrations, iter_cell_chunks

    c = np.zeros((2, 12, 12))
    c[1] = np.diag(np.arange(1.0, 13.0)) + 1.0  # a weak table in the same chunk
    r = resolve("hierarchical", "hierarchical", c)
    conc = concentrations(c, r.alpha, r.beta)
    root = np.random.SeedSequence(5)

    def cells(budget):
        out = np.empty((2, 3_000, 12, 12))
        for mats, drs, p in iter_cell_chunks(conc, 3_000, root, np.dtype(np.float64),
                                             budget, mixture=RecallMixture.of(c)):  # fmt: skip
            out[mats, drs] = p
        return out

    whole, split = cells(1 << 22), cells(40_000)
    np.testing.assert_array_equal(whole, split)
    assert np.isfinite(whole).all() and (whole > 0).all()
    np.testing.assert_allclose(whole.sum(axis=(-2, -1)), 1.0, rtol=1e-12)


def test_a_metric_does_not_depend_on_the_other_metrics():
    c = IMBALANCED
    alone = {n: evaluate(c, metrics=(n,), draws=5_000, rng=6) for n in METRICS}
    together = evaluate(c, metrics=METRICS, draws=5_000, rng=6)
    for n in METRICS:
        np.testing.assert_array_equal(alone[n][n].mean, together[n].mean)
        np.testing.assert_array_equal(alone[n][n].hdi, together[n].hdi)


def test_sample_posterior_equals_evaluate_draws():
    p = sample_posterior(TABLES["weak"], draws=4_000, rng=12)
    ev = evaluate(TABLES["weak"], metrics=("macro_f1",), draws=4_000, rng=12, keep_draws=True)
    np.testing.assert_allclose(ev.metric_draws["macro_f1"], macro_f1(p), rtol=1e-12)


def test_forked_workers_give_the_same_numbers():
    # large enough (>= 2**25 Gamma variates) for the engine to fork worker processes
    rng = np.random.default_rng(0)
    batch = rng.integers(0, 30, size=(900, 4, 4)) + np.eye(4, dtype=int) * 60
    kw = dict(metrics=("macro_f1",), draws=2_000, rng=3)
    one = evaluate(batch, workers=1, **kw)
    two = evaluate(batch, workers=2, **kw)
    np.testing.assert_array_equal(one["macro_f1"].mean, two["macro_f1"].mean)
    np.testing.assert_array_equal(one["macro_f1"].hdi, two["macro_f1"].hdi)


def test_recall_is_sampled_and_exact_routes_refuse_the_mixture():
    from f1posterior.posterior._exact import exact_posterior

    s = evaluate(IMBALANCED, metrics=("recall",), draws=2_000, rng=1)["recall"]
    assert not s.exact and np.all(s.mc_error > 0)
    with pytest.raises(ValueError, match="hierarchical prior has no closed-form posterior"):
        exact_posterior(IMBALANCED, "recall", alpha="hierarchical", beta="hierarchical")
    # negative control: under a Dirichlet prior recall is the exact Beta
    s = evaluate(IMBALANCED, metrics=("recall",), alpha="adaptive", beta="adaptive")["recall"]
    assert s.exact


def test_micro_f1_mean_is_the_exact_mixture_mean():
    # micro-F1 = sum_j mu_j theta_jj, mu independent of theta: E = sum_j E[mu_j] E[theta_jj]
    c = IMBALANCED
    n = c.sum(axis=1)
    want = np.sum((0.25 + n) / (1 + n.sum()) * [exact_recall_mean(c, j) for j in range(4)])
    s = evaluate(c, metrics=("micro_f1",), draws=100_000, rng=3)["micro_f1"]
    assert abs(s.mean - want) < 4 * s.mc_error


def test_off_diagonal_sums_gathered_or_reduced_are_the_same_bits(monkeypatch):
    # shrink_diagonal sums a row's off-diagonal Gammas by a gather (few extra Gammas in
    # the chunk) or a reduction (many): which one runs depends on the chunk, so they
    # must agree bit for bit or a matrix's draws would depend on its neighbours
    import f1posterior._core.hierarchical as hier

    kw = dict(metrics=("macro_f1",), draws=600, rng=8, keep_draws=True)
    batch = np.stack([WEAK, WEAK.T, WEAK + np.eye(5) * 30])
    got = {}
    for limit in (0.0, 1.0):
        monkeypatch.setattr(hier, "GATHER_BELOW", limit)
        got[limit] = evaluate(batch, **kw).metric_draws["macro_f1"]
    np.testing.assert_array_equal(got[0.0], got[1.0])
    # negative control: another seed differs
    assert not np.array_equal(
        got[1.0], evaluate(batch, **{**kw, "rng": 9}).metric_draws["macro_f1"]
    )


@pytest.mark.parametrize("few", [0, 32, 10**9])  # bisection, mixed, one search each
@pytest.mark.parametrize("tables", [40, 3])  # 3 tables, FEW = 32: one search per table
def test_grid_points_are_numpys_searchsorted(few, tables, monkeypatch):
    import f1posterior._core.hierarchical as hier

    monkeypatch.setattr(hier, "FEW", few)
    rng = np.random.default_rng(0)
    c = rng.integers(0, 30, size=(tables, 6, 6)) + np.eye(6, dtype=int) * rng.integers(
        0, 90, (tables, 1, 1)
    )
    w = grid_weights(c)
    u = rng.random((tables, 3_000))
    u[:, :3] = [0.0, np.nextafter(1.0, 0.0), 0.5]  # the ends, and a power of two
    want = np.array([np.searchsorted(w.cdf[i], u[i], side="right") for i in range(tables)])
    np.testing.assert_array_equal(hier.grid_points(u, w.cdf, w.guide), want)


@pytest.mark.parametrize("lgamma", [None, gammaln_numpy])
def test_grid_weights_of_a_batch_are_each_tables_own_bits(lgamma):
    # in a batch whose rows repeat, each distinct row's terms are computed once (and
    # each distinct count's log-gamma values); a table alone takes every value itself:
    # a table's weights must not depend on its neighbours, bit for bit
    import f1posterior._core.hierarchical as hier

    rng = np.random.default_rng(4)
    c = rng.integers(0, 3, size=(60, 5, 5)) + np.eye(5, dtype=int) * rng.integers(3, 6, (60, 1, 1))
    hits, rows = np.diagonal(c, axis1=-2, axis2=-1).astype(float), c.sum(axis=-1).astype(float)
    assert hier._distinct_rows(hits, rows) is not None  # the batch: shared rows
    batch = weights_from_rows(hits, rows, lgamma)
    for i in range(len(c)):
        assert hier._distinct_rows(hits[i], rows[i]) is None  # alone: computed directly
        one = weights_from_rows(hits[i], rows[i], lgamma)
        np.testing.assert_array_equal(one.cdf, batch.cdf[i])
        np.testing.assert_array_equal(one.by_row, batch.by_row[i])
        np.testing.assert_array_equal(one.guide, batch.guide[i])
    # negative control: the tables' weights differ from one another
    assert not np.array_equal(batch.cdf[0], batch.cdf[1])


def test_grid_weights_of_repeated_rows_are_the_direct_routes_bits(monkeypatch):
    # one sparse table whose rows are all alike, and a 2-D batch: each distinct row's
    # terms computed once, then gathered, against every row computed directly
    import f1posterior._core.hierarchical as hier

    sparse = np.diag(np.full(10, 90))
    sparse[np.arange(10), (np.arange(10) + 1) % 10] = 10
    rng = np.random.default_rng(1)
    batch = rng.integers(0, 3, size=(3, 4, 6, 6)) + np.eye(6, dtype=int) * 4
    for c in (sparse, batch):
        hits = np.diagonal(c, axis1=-2, axis2=-1).astype(float)
        assert hier._distinct_rows(hits, c.sum(axis=-1).astype(float)) is not None
        shared = grid_weights(c)
        with monkeypatch.context() as mp:
            mp.setattr(hier, "_distinct_rows", lambda hits, rows: None)
            direct = grid_weights(c)
        for field in ("cdf", "by_row", "guide"):
            got, want = getattr(shared, field), getattr(direct, field)
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want)
