"""aggregate(): pooled and random-effects aggregation over folds, seeds and test sets.

Truths used:

- pooled: ``evaluate`` on the summed table, same seed (bit-identical);
- the tables' own summaries: ``evaluate`` on the batch with the documented child seed;
- the normal-normal model: a brute-force 2-D grid over (mu, tau) of the joint posterior
  (no marginalisation formula), and the closed form of mu | tau (the inverse-variance
  weighted mean);
- the population mean over tables: scipy's adaptive quadrature;
- I^2's typical variance and Cochran's Q: their closed forms for equal variances;
- coverage: folds simulated from a known logit-normal truth.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import integrate, stats

from f1posterior import ConfusionMatrix, aggregate, evaluate
from f1posterior._core.results import values_equal
from f1posterior._core.streams import child_seed
from f1posterior.analysis import _random_effects as rem
from f1posterior.analysis._aggregate import Aggregate, default_scale

FOLDS = np.array(
    [
        [[40, 6, 4], [5, 38, 7], [3, 4, 43]],
        [[36, 9, 5], [7, 35, 8], [4, 6, 40]],
        [[44, 3, 3], [4, 41, 5], [2, 3, 45]],
        [[38, 7, 5], [6, 37, 7], [5, 5, 40]],
        [[41, 5, 4], [5, 39, 6], [3, 4, 43]],
    ]
)


def _binary_folds(acc: np.ndarray, n_per_class: int, rng: np.random.Generator) -> np.ndarray:
    """(K, 2, 2) tables: each class's documents are right with the fold's accuracy."""
    t = np.zeros((acc.size, 2, 2))
    for j in range(2):
        right = rng.binomial(n_per_class, acc)
        t[:, j, j] = right
        t[:, j, 1 - j] = n_per_class - right
    return t


# ----------------------------------------------------------------------------- pooled


@pytest.mark.parametrize("metric", ["macro_f1", "accuracy", "micro_f1"])
def test_pooled_is_evaluate_of_the_summed_table(metric):
    res = aggregate(FOLDS, metric=metric, method="pooled", draws=3000, rng=7, ref=0.8)
    ev = evaluate(FOLDS.sum(0), metrics=metric, draws=3000, rng=7, keep_draws=True, ref=0.8)
    assert values_equal(res.summary, ev[metric])  # same seed, same streams: identical
    np.testing.assert_array_equal(res.metric_draws, ev.metric_draws[metric])
    assert res.summary.score == ev[metric].score


def test_the_tables_summaries_are_evaluate_on_the_batch_with_the_documented_child_seed():
    res = aggregate(FOLDS, metric="macro_f1", draws=2000, rng=11)
    root = np.random.SeedSequence(11)
    ev = evaluate(FOLDS, metrics="macro_f1", draws=2000, rng=child_seed(root, 1))
    assert values_equal(res.tables, ev["macro_f1"])
    assert res.seed == root.entropy


def test_same_seed_same_result_and_the_callers_seed_sequence_is_not_consumed():
    seq = np.random.SeedSequence(5)
    a = aggregate(FOLDS, draws=1000, rng=seq)
    b = aggregate(FOLDS, draws=1000, rng=seq)
    assert a == b and hash(a) == hash(b)
    assert seq.n_children_spawned == 0
    c = aggregate(FOLDS, draws=1000, rng=6)
    assert a != c


def test_labelled_tables_are_aligned_by_class():
    pd = pytest.importorskip("pandas")
    labels = ["a", "b", "c"]
    frames = [pd.DataFrame(t, index=labels, columns=labels) for t in FOLDS]
    perm = [2, 0, 1]
    frames[1] = frames[1].iloc[perm, perm]  # same table, other class order
    res = aggregate(frames, draws=1000, rng=3)
    ref = aggregate(FOLDS, draws=1000, rng=3)
    assert res.labels == labels
    assert values_equal(res.summary, ref.summary)
    cms = [ConfusionMatrix(t, labels) for t in FOLDS]
    assert values_equal(aggregate(cms, draws=1000, rng=3).summary, ref.summary)


# ------------------------------------------------------------------- the normal-normal model

Y = np.array([0.5, 1.2, 0.8, 1.6, 0.3])
S2 = np.array([0.04, 0.09, 0.05, 0.2, 0.1])
A = 0.5


def _brute_force():
    """Joint posterior of (mu, tau) on a 2-D grid: flat mu, half-normal(A) tau."""
    mu = np.linspace(-3.0, 5.0, 1601)
    tau = np.linspace(0.0, 4.0, 2001)
    var = S2[None, None, :] + tau[None, :, None] ** 2
    ll = -0.5 * (np.log(var) + (Y[None, None, :] - mu[:, None, None]) ** 2 / var).sum(-1)
    logp = ll - 0.5 * (tau[None, :] / A) ** 2
    p = np.exp(logp - logp.max())
    p /= p.sum()
    return mu, tau, p


def test_draws_match_a_brute_force_two_dimensional_grid():
    mu_g, tau_g, p = _brute_force()
    p_mu, p_tau = p.sum(1), p.sum(0)
    mean = float(np.sum(p_mu * mu_g))
    sd = float(np.sqrt(np.sum(p_mu * (mu_g - mean) ** 2)))
    tau_cdf = np.cumsum(p_tau)
    post = rem.tau_posterior(Y, S2, A)
    # deterministic: the grid median against the brute-force grid's (spacing 0.002)
    assert post.quantile(0.5) == pytest.approx(np.interp(0.5, tau_cdf, tau_g), abs=0.004)
    assert post.quantile(0.9) == pytest.approx(np.interp(0.9, tau_cdf, tau_g), abs=0.004)
    assert post.mean() == pytest.approx(float(np.sum(p_tau * tau_g)), abs=0.002)
    n = 400_000
    mu, tau = rem.draw_mu_tau(post, n, np.random.default_rng(0))
    # Monte Carlo: 4 standard errors (sd / sqrt(n) for the mean, sd / sqrt(2n) for the sd)
    assert abs(mu.mean() - mean) < 4 * sd / math.sqrt(n) + 1e-3
    assert abs(mu.std() - sd) < 4 * sd / math.sqrt(2 * n) + 1e-3
    assert abs(np.median(tau) - post.quantile(0.5)) < 0.01
    p_above = float(np.sum(p_mu[mu_g > 1.0]))
    assert abs(np.mean(mu > 1.0) - p_above) < 4 * math.sqrt(p_above * (1 - p_above) / n) + 1e-3


def test_mu_given_tau_is_the_inverse_variance_weighted_mean():
    post = rem.tau_posterior(Y, S2, A)
    for t in (0.0, 0.3, 2.0):
        w = 1 / (S2 + t**2)
        m, v = post.conditional(np.array([t]))
        assert m[0] == pytest.approx(np.sum(w * Y) / np.sum(w), rel=1e-12)
        assert v[0] == pytest.approx(1 / np.sum(w), rel=1e-12)


def test_typical_variance_and_q_closed_forms_for_equal_variances():
    s2 = np.full(6, 0.07)
    y = np.array([0.1, 0.4, -0.2, 0.3, 0.0, 0.2])
    assert rem.typical_variance(s2) == pytest.approx(0.07, rel=1e-12)  # H&T: s^2 = sigma^2
    assert rem.cochran_q(y, s2) == pytest.approx(np.sum((y - y.mean()) ** 2) / 0.07, rel=1e-12)


@pytest.mark.parametrize("scale", ["logit", "fisher_z", "log", "identity"])
@pytest.mark.parametrize(
    ("mu", "tau", "tol"),
    # Gauss-Hermite (32 nodes logit, 64 Fisher z): error < 1e-9 up to tau = 1 (far beyond
    # the half-normal(0.5) prior's bulk); at tau = 2.5 (a metric spread over its whole
    # range) the poles leave 7e-7 (logit) and 9e-5 (tanh's at +-i pi / 2), below the
    # Monte Carlo error of such a posterior's mean
    [(1.3, 0.0, 1e-12), (0.4, 0.5, 1e-9), (0.4, 1.0, 1e-9), (-0.7, 2.5, 2e-4)],
)
def test_population_mean_against_quadrature(scale, mu, tau, tol):
    got = float(rem.population_mean(np.array([mu]), np.array([tau]), scale)[0])
    if tau == 0:
        want = float(rem.from_scale(np.array(mu), scale))
    else:

        def f(z):
            return float(rem.from_scale(np.array(mu + tau * z), scale)) * stats.norm.pdf(z)

        want = integrate.quad(f, -40, 40, epsabs=1e-14, limit=200)[0]
    assert got == pytest.approx(want, rel=tol, abs=tol)


@pytest.mark.parametrize(
    ("scale", "x"),
    [("logit", [0.01, 0.5, 0.99]), ("fisher_z", [-0.9, 0.0, 0.7]), ("log", [0.1, 1.0, 40.0])],
)
def test_scales_round_trip(scale, x):
    x = np.array(x)
    np.testing.assert_allclose(rem.from_scale(rem.to_scale(x, scale), scale), x, rtol=1e-12)


def test_default_scales():
    assert default_scale("macro_f1") == "logit"
    assert default_scale("mcc") == "fisher_z"
    assert default_scale("positive_likelihood_ratio") == "log"


# --------------------------------------------------------------------- heterogeneity


def test_identical_tables_have_no_heterogeneity_and_agree_with_pooled():
    tables = np.repeat(np.array([[[170, 30], [20, 180]]]), 10, axis=0)
    re = aggregate(tables, metric="accuracy", draws=20_000, rng=1)
    pooled = aggregate(tables, metric="accuracy", method="pooled", draws=20_000, rng=1)
    h = re.heterogeneity
    # the tables' working-scale means differ only by Monte Carlo noise: Q ~ K / draws
    assert h.q < 0.05 and h.i2_q == 0.0
    assert h.tau_median < 0.5 * math.sqrt(h.typical_variance)
    assert h.i2_median < 0.2 and h.i2_interval[0] < 1e-3
    # model difference: random effects estimates a population mean (mu, tau unknown)
    # from 10 tables, pooling the mean of 10 copies of one table; both centre on the
    # same value up to the logit-scale averaging (O(variance)), far below one posterior sd
    assert abs(re.summary.mean - pooled.summary.mean) < 0.25 * pooled.summary.std
    assert re.summary.std >= pooled.summary.std  # never narrower than pooling


def test_heterogeneous_tables_show_heterogeneity():
    acc = np.array([0.6, 0.7, 0.8, 0.9, 0.95])
    tables = _binary_folds(acc, 500, np.random.default_rng(0))
    h = aggregate(tables, metric="accuracy", draws=5000, rng=2).heterogeneity
    assert h.i2_interval[0] > 0.5 and h.i2_median > 0.9
    assert h.i2_q > 0.9
    # negative control of the identical-tables test: tau far above the within-table sd
    assert h.tau_interval[0] > 2 * math.sqrt(h.typical_variance)


def test_many_tables_recover_a_known_tau_and_agree_with_dersimonian_laird():
    # 80 binary tables of 1,000 documents, true accuracies logit-normal(logit(0.8), 0.3)
    rng = np.random.default_rng(4)
    tau_true = 0.3
    acc = 1 / (1 + np.exp(-(math.log(4) + tau_true * rng.standard_normal(80))))
    res = aggregate(_binary_folds(acc, 500, rng), metric="accuracy", draws=3000, rng=0)
    h = res.heterogeneity
    lo, hi = h.tau_interval
    assert lo < tau_true < hi and hi - lo < 0.2
    # the DerSimonian-Laird moment estimate of tau, from the same y_k and s_k^2 (through
    # Q and the typical variance): with 80 tables the posterior and the moments agree
    s2 = h.typical_variance
    k = 80
    w_sum_ratio = (k - 1) / s2  # sum w - sum w^2 / sum w = (K - 1) / s^2 (H&T eq. 9)
    tau_dl = math.sqrt(max(0.0, (h.q - (k - 1)) / w_sum_ratio))
    assert lo < tau_dl < hi
    assert h.i2_median == pytest.approx(h.i2_q, abs=0.05)


# -------------------------------------------------------------------------- coverage


def _coverage(method: str, n_sim: int, tau: float, seed: int) -> float:
    """Share of 95% intervals that cover the true population-mean accuracy of K = 5 folds
    whose true accuracies are logit-normal(logit(0.8), tau), 200 documents each."""
    m = math.log(0.8 / 0.2)
    truth = float(rem.population_mean(np.array([m]), np.array([tau]), "logit")[0])
    rng = np.random.default_rng(seed)
    hits = 0
    for s in range(n_sim):
        acc = 1 / (1 + np.exp(-(m + tau * rng.standard_normal(5))))
        res = aggregate(
            _binary_folds(acc, 100, rng), metric="accuracy", method=method, draws=1500, rng=s
        )
        lo, hi = res.summary.eti
        hits += lo <= truth <= hi
    return hits / n_sim


def test_random_effects_interval_covers_the_true_mean_at_its_nominal_rate():
    n = 200
    cov = _coverage("random_effects", n, tau=0.4, seed=1)
    se = math.sqrt(0.95 * 0.05 / n)  # binomial standard error at the nominal rate
    # 3 SE below nominal; above, a Bayesian interval with a weak prior on tau may
    # over-cover a little with 5 folds (0.96 on this seed; BDA3 section 5.7)
    assert 0.95 - 3 * se <= cov <= 0.995


def test_negative_control_pooled_under_covers_heterogeneous_folds():
    n = 100
    cov = _coverage("pooled", n, tau=0.4, seed=1)
    # pooled targets the 5 sampled folds, not their population: about 0.55 here; 0.75 is
    # more than 4 binomial SE (sqrt(0.75 * 0.25 / 100) = 0.043) above that
    assert cov < 0.75


# ---------------------------------------------------------------------------- output


def test_result_outputs():
    pd = pytest.importorskip("pandas")
    names = [f"fold {i}" for i in range(4)] + ["evil\nname\x1b[31m"]
    res = aggregate(FOLDS, draws=1000, rng=0, names=names)
    assert isinstance(res, Aggregate)
    d = json.loads(json.dumps(res.to_dict()))
    assert d["method"] == "random_effects" and len(d["tables"]) == 5
    assert d["heterogeneity"]["scale"] == "logit"
    assert d["summary"]["mean"] == pytest.approx(res.summary.mean)
    df = res.to_dataframe()
    assert isinstance(df, pd.DataFrame)
    assert list(df["kind"]) == ["table"] * 5 + ["random_effects", "predictive"]
    assert df["mean"].iloc[5] == pytest.approx(res.summary.mean)
    np.testing.assert_allclose(df["hdi_low"].iloc[:5], res.tables.hdi[:, 0])
    text = str(res)
    assert "\x1b" not in text and "evil\\nname\\x1b[31m" in text
    assert "I^2" in text and "aggregate" in text
    assert res.predictive.std > res.summary.std  # a new table varies more than the mean


def test_predictive_is_the_mean_plus_the_between_table_spread():
    # identity scale: the aggregate is mu itself and the predictive mu + tau Z, so
    # Var(predictive) = Var(mu) + E[tau^2], with E[tau^2] exact from the grid
    def acc(t):
        return np.trace(t, axis1=-2, axis2=-1) / t.sum(axis=(-2, -1))

    tables = _binary_folds(np.array([0.7, 0.75, 0.8, 0.85, 0.9]), 150, np.random.default_rng(1))
    n = 100_000
    res = aggregate(tables, metric=acc, scale="identity", draws=n, rng=2, ref=0.8)
    per = evaluate(tables, metrics=acc, draws=n, rng=child_seed(np.random.SeedSequence(2), 1),
                   keep_draws=True).metric_draws["acc"]  # fmt: skip
    y, s2 = per.mean(-1), per.var(-1, ddof=1)
    a, family = rem.default_tau_prior(s2, "identity")  # the default prior of tau
    post = rem.tau_posterior(y, s2, a, prior=family)
    mid = 0.5 * (post.edges[1:] + post.edges[:-1])
    # midpoint rule: fine cells are 1e-4 wide, the geometric tail's 0.7%
    e_tau2 = float(np.sum(post.mass * mid**2))
    want = res.summary.std**2 + e_tau2
    # the variance of n draws has relative sd about sqrt(2 / n) (normal) to a few times
    # that (heavier tails): 5% is > 10 such sds
    assert res.predictive.std**2 == pytest.approx(want, rel=0.05)
    assert res.predictive.mean == pytest.approx(res.summary.mean, abs=4 * res.predictive.mc_error)
    assert res.summary.p_below + res.summary.p_above == pytest.approx(1.0)
    assert 0 < res.predictive.p_above < 1


def test_pooled_single_table_has_no_heterogeneity():
    res = aggregate(FOLDS[:1], method="pooled", draws=1000, rng=0)
    assert res.heterogeneity is None and res.predictive is None
    assert "heterogeneity" not in str(res)


def test_callable_metric_with_a_scale():
    def acc(t):
        return np.trace(t, axis1=-2, axis2=-1) / t.sum(axis=(-2, -1))

    a = aggregate(FOLDS, metric=acc, scale="logit", draws=2000, rng=4)
    b = aggregate(FOLDS, metric="accuracy", draws=2000, rng=4)
    # same metric, other code path (accuracy takes the 3M-variate route): same posterior
    # within Monte Carlo error of the tables' means (sd / sqrt(2000) each)
    assert a.summary.mean == pytest.approx(b.summary.mean, abs=4 * b.summary.std / 40)


# ------------------------------------------------------------------------ validation


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"method": "fixed"}, ValueError, r"method must be one of 'pooled', 'random_effects'; got 'fixed'"),
        ({"metric": "f1"}, ValueError, r"metric must be a single-number metric.*got 'f1'"),
        ({"metric": "nope"}, ValueError, r"metric must name known metrics.*got 'nope'"),
        ({"metric": lambda t: t[..., 0, 0]}, ValueError, r"scale must be given for a callable metric"),
        ({"scale": "probit"}, ValueError, r"scale must be one of .*got 'probit'"),
        ({"tau_scale": 0}, ValueError, r"tau_scale"),
        ({"tau_scale": "1"}, ValueError, r"tau_scale must be 'auto' or a number > 0 .*got '1'"),
        ({"ci_prob": 1.5}, ValueError, r"ci_prob"),
        ({"draws": 0}, ValueError, r"draws"),
        ({"names": ["a"] * 5}, ValueError, r"names must be unique; got 'a' twice"),
        ({"names": ["a", "b"]}, ValueError, r"names must give one name per matrix \(5\); got 2"),
        ({"rng": -1}, ValueError, r"rng must be a non-negative integer seed; got -1"),
        ({"ref": "high"}, TypeError, r"ref"),
    ],
)  # fmt: skip
def test_bad_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        aggregate(FOLDS, **{"draws": 100, **kwargs})


def test_random_effects_needs_two_tables():
    with pytest.raises(ValueError, match=r"at least 2 tables for method='random_effects'.*got 1"):
        aggregate(FOLDS[:1], draws=100)


def test_tables_of_different_shapes():
    with pytest.raises(ValueError, match=r"tables must all be \(M, M\) tables of one shape; got "
                       r"tables\[0\] of shape \(3, 3\) and tables\[1\] of shape \(2, 2\)"):  # fmt: skip
        aggregate([FOLDS[0], [[1, 2], [3, 4]]], draws=100)


def test_a_single_matrix_is_not_a_list_of_tables():
    with pytest.raises(
        ValueError, match=r"tables must be K confusion matrices.*got shape \(3, 3\)"
    ):
        aggregate(FOLDS[0], draws=100)


def test_bad_counts_are_named():
    bad = FOLDS.astype(float)
    bad[2, 0, 0] = -1
    with pytest.raises(ValueError, match=r"tables must be non-negative counts; got -1"):
        aggregate(bad, draws=100)


def test_a_metric_outside_its_scale_is_refused():
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\] for the 'logit' scale"):
        aggregate(FOLDS, metric=lambda t: 1 + t[..., 0, 0], scale="logit", draws=100)


def test_a_metric_without_posterior_spread_is_refused():
    with pytest.raises(ValueError, match=r"positive, finite variance on the working scale"):
        aggregate(FOLDS, metric=lambda t: 0.5 + 0 * t[..., 0, 0], scale="logit", draws=100)


def test_a_non_finite_metric_is_refused():
    with pytest.raises(ValueError, match=r"must be finite for the 'fisher_z' scale"):
        rem.to_scale(np.array([0.5, np.inf]), "fisher_z")
    with pytest.raises(ValueError, match=r"must be finite for the 'log' scale"):
        rem.to_scale(np.array([0.5, np.inf]), "log")


def test_a_callable_with_one_value_per_class_is_refused():
    def per_class(t):
        return np.diagonal(t, axis1=-2, axis2=-1) / t.sum(axis=-1)

    with pytest.raises(ValueError, match=r"metric must give one number per table; got "
                       r"'per_class' of shape \(3,\) per table"):  # fmt: skip
        aggregate(FOLDS, metric=per_class, scale="logit", draws=100)


def test_tables_must_be_numbers():
    with pytest.raises(TypeError, match=r"tables must be an array of numbers; got 'abc'"):
        aggregate("abc", draws=100)


def test_aggregate_needs_enough_draws_for_each_tables_variance():
    tables = np.array([[[40, 10], [5, 45]], [[30, 12], [8, 50]]])
    for method in ("random_effects", "pooled"):
        with pytest.raises(ValueError, match=r"draws must be at least 100 \(each table's"):
            aggregate(tables, metric="accuracy", method=method, draws=99, rng=0)
    assert aggregate(tables, metric="accuracy", draws=100, rng=0).method == "random_effects"
