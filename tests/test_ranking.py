"""Rankings under the sparse paired model: marginals against ``evaluate``, pairwise and rank
probabilities against exact answers and a loop over the raw draws, exports and the figure.

Tolerances: K = 5 Monte Carlo standard errors. A probability estimated from n draws has
standard error sqrt(p (1 - p) / n); a difference of two independent estimates,
sqrt(p (1 - p) (1/n1 + 1/n2)). The mean of n draws has standard error std / sqrt(n).
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")  # tests only: the library never selects a backend

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

from f1posterior import PRIOR_PRESETS, evaluate  # noqa: E402
from f1posterior._core.priors import DEFAULT_PRIOR  # noqa: E402
from f1posterior.analysis import _paired as paired  # noqa: E402
from f1posterior.analysis._comparison import compare  # noqa: E402
from f1posterior.analysis._paired import compare_predictions, paired_metric_draws  # noqa: E402
from f1posterior.analysis._ranking import (  # noqa: E402
    rank_classifiers,
    rank_predictions,
    rank_statistics,
)
from f1posterior.analysis._tuples import (  # noqa: E402
    count_tuples,
    joint_prior,
    marginal_counts,
    paired_alpha,
    posterior_tuples,
    shared_error_tuples,
)
from f1posterior.metrics._confusion import confusion_matrix  # noqa: E402
from f1posterior.metrics._registry import METRICS  # noqa: E402
from f1posterior.report.plots import plot_ranking  # noqa: E402

K = 5.0


def noisy_models(n: int, m: int, accs: tuple[float, ...], seed: int):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, m, n)
    preds = {
        f"m{i}": np.where(rng.random(n) < acc, y, rng.integers(0, m, n))
        for i, acc in enumerate(accs)
    }
    return y, preds


# ------------------------------------------------------------- the sparse representation


def test_cells_are_the_observed_tuples_and_the_shared_error_prior():
    """5 classifiers, 8 classes: at most N + M (1 + (M - 1)(2^k - 1)) cells (8^6 dense)."""
    m, k = 8, 5
    y, preds = noisy_models(500, m, (0.7,) * k, seed=0)
    codes = np.array(list(preds.values()))
    tuples, counts = count_tuples(y, codes)
    assert counts.sum() == 500 and len(tuples) <= 500
    p_t, p_c, b, text = joint_prior("paper", "paper", tuples, counts, m)
    assert len(p_t) == m * (1 + (m - 1) * (2**k - 1))
    cells, conc = posterior_tuples(tuples, counts, p_t, p_c)
    assert len(cells) <= 500 + len(p_t) and conc.sum() == pytest.approx(500 + m * m)
    assert "shared-error" in text and b.tolist() == [1.0] * m
    # every prior tuple has at most one wrong class, shared by the wrong models
    for row in p_t:
        assert len(set(row[1:].tolist()) - {row[0]}) <= 1
    # each model's marginal of the prior is A, of the posterior its own table plus A
    np.testing.assert_allclose(marginal_counts(p_t, p_c, m), np.ones((k, m, m)))
    for i, pred in enumerate(codes):
        table = confusion_matrix(y, pred, labels=list(range(m))).counts
        np.testing.assert_allclose(marginal_counts(cells, conc, m)[i], table + 1.0)


@pytest.mark.parametrize("name", [n for n in PRIOR_PRESETS if n != DEFAULT_PRIOR])
@pytest.mark.parametrize("k", [2, 3])
def test_marginal_prior_is_the_resolved_prior(name, k):
    """Summed over the other models, the prior is the core's prior of the mean table."""
    from f1posterior._core.priors import prior_preset, resolve_prior

    y, preds = noisy_models(300, 4, (0.9, 0.5, 0.7), seed=3)
    tuples, counts = count_tuples(y, np.array(list(preds.values()))[:k])
    mean_table = marginal_counts(tuples, counts, 4).mean(axis=0)
    p_t, p_c, b, _ = joint_prior(*prior_preset(name), tuples, counts, 4)
    ref_a, ref_b = resolve_prior(*prior_preset(name), mean_table)
    for table in marginal_counts(p_t, p_c, 4):
        np.testing.assert_allclose(table, ref_a)
    if prior_preset(name)[1] != "aligned":
        np.testing.assert_allclose(b, ref_b)


@pytest.mark.parametrize("alpha", [None, "paired", DEFAULT_PRIOR])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_default_prior_marginal_and_pair_masses(alpha, k):
    """The default (also under the library's default preset name): each model's marginal is
    paired_alpha (3 pseudo-documents in all, half on the diagonal); for every ordered pair
    (i, j) the mass on "i right, j wrong" is the same, one pseudo-document for two models."""
    m = 4
    y, preds = noisy_models(200, m, (0.9, 0.5, 0.7, 0.6), seed=3)
    tuples, counts = count_tuples(y, np.array(list(preds.values()))[:k])
    p_t, p_c, b, text = joint_prior(alpha, "adaptive", tuples, counts, m)
    assert "3 pseudo-documents over the classes" in text
    assert marginal_counts(p_t, p_c, m)[0].sum() == pytest.approx(3.0)
    for table in marginal_counts(p_t, p_c, m):
        np.testing.assert_allclose(table, paired_alpha(m))
    right = p_t[:, 1:] == p_t[:, :1]
    masses = [p_c[right[:, i] & ~right[:, j]].sum() for i in range(k) for j in range(k) if i != j]
    np.testing.assert_allclose(masses, masses[0])
    if k == 2:
        assert masses[0] == pytest.approx(1.0)
    # negative control: another preset is not the default
    _, _, _, other = joint_prior("jeffreys", "adaptive", tuples, counts, m)
    assert "3 pseudo-documents over the classes" not in other


def test_shared_error_marginals_are_exact_for_any_row():
    """agree = 1: each model's marginal is exactly the given (M, M) prior, any k."""
    a = np.array([[3.0, 1.0, 0.5], [0.2, 2.0, 0.2], [1.0, 1.0, 1.0]])
    for k in (2, 3, 4):
        t, c = shared_error_tuples(a, k)
        np.testing.assert_allclose(marginal_counts(t, c, 3), np.stack([a] * k), atol=1e-12)
    # negative control: agree != 1 moves the marginal when r != 1/2
    t, c = shared_error_tuples(a, 2, agree=0.5)
    assert np.abs(marginal_counts(t, c, 3)[0] - a).max() > 0.05


def test_too_many_prior_cells_is_a_clear_error():
    y = np.arange(40) % 20
    preds = {f"m{i}": y for i in range(17)}
    with pytest.raises(ValueError, match=r"paired prior of 17 classifiers over 20 classes needs"):
        rank_predictions(y, preds, draws=10)


@pytest.mark.parametrize("prior", ["paper", "paired"])
def test_each_marginal_is_evaluates_posterior(prior):
    """Each model's paired draws follow evaluate's posterior of its own table under the same
    marginal prior: mean (K combined MC errors), three quantiles (the share of evaluate's
    draws below the paired quantile q is q within K binomial errors of both samples) and a
    two-sample KS test (p > 1e-3). Negative control: another model's posterior is rejected."""
    m, n = 3, 30_000
    y, preds = noisy_models(150, m, (0.85, 0.7, 0.55), seed=11)
    kw = {} if prior == "paired" else {"alpha": "paper", "beta": "paper"}
    r = rank_predictions(y, preds, metric="macro_f1", draws=n, rng=4, **kw)
    tables = [confusion_matrix(y, p, labels=list(range(m))).counts for p in preds.values()]
    if prior == "paired":  # the paired default's marginal; beta = 1/M
        alpha, beta = paired_alpha(m), np.full(m, 1.0 / m)
    else:
        alpha, beta = np.ones((m, m)), np.ones(m)
    core = evaluate(np.stack(tables), metrics="macro_f1", draws=n, alpha=alpha, beta=beta,
                    rng=5, keep_draws=True)  # fmt: skip
    ref = core.metric_draws["macro_f1"]
    for i in range(3):
        mine, theirs = r.draws[i], ref[i]
        se = math.hypot(mine.std(), theirs.std()) / math.sqrt(n)
        assert abs(mine.mean() - theirs.mean()) < K * se
        for q in (0.05, 0.5, 0.95):
            share = np.mean(theirs < np.quantile(mine, q))
            assert abs(share - q) < K * math.sqrt(q * (1 - q) * 2 / n)
        assert stats.ks_2samp(mine, theirs).pvalue > 1e-3
    assert stats.ks_2samp(r.draws[0], ref[1]).pvalue < 1e-6  # negative control


def test_pairwise_from_three_models_is_the_exact_beta_of_the_pair():
    """Aligned beta: one Dirichlet over all cells, so by aggregation P(acc_A > acc_B) =
    P(Beta(#A only right + prior, #B only right + prior) > 1/2) exactly, the prior being the
    mass of the prior tuples with A right and B wrong (and the reverse), summed over C."""
    y, preds = noisy_models(120, 3, (0.8, 0.72, 0.6), seed=3)
    a, b = preds["m0"], preds["m1"]
    tuples, counts = count_tuples(y, np.array(list(preds.values())))
    p_t, p_c, _, _ = joint_prior(None, "aligned", tuples, counts, 3)
    ra, rb = p_t[:, 1] == p_t[:, 0], p_t[:, 2] == p_t[:, 0]
    only_a = np.sum((a == y) & (b != y)) + p_c[ra & ~rb].sum()
    only_b = np.sum((b == y) & (a != y)) + p_c[rb & ~ra].sum()
    assert p_c[ra & ~rb].sum() == pytest.approx(p_c[rb & ~ra].sum())
    assert p_c[ra & ~rb].sum() == pytest.approx(3 * 2 / 7)  # 2 of 7 pattern weights a row
    exact = stats.beta.sf(0.5, only_a, only_b)
    assert 0.7 < exact < 0.99
    n = 40_000
    r = rank_predictions(y, preds, metric="accuracy", beta="aligned", draws=n, rng=9)
    assert abs(r.pairwise[0, 1] - exact) < K * math.sqrt(exact * (1 - exact) / n)
    assert r.ties[0, 1] == 0.0


# ------------------------------------------------------------------ rank statistics


def _loop_statistics(v):
    """Rank probabilities, expected ranks and pairwise probabilities, one draw at a time."""
    k, n = v.shape
    probs = np.zeros((k, k))
    pair = np.zeros((k, k))
    for d in range(n):
        for i in range(k):
            above = sum(v[j, d] > v[i, d] for j in range(k))
            tied = sum(v[j, d] == v[i, d] for j in range(k) if j != i)
            for r in range(above, above + tied + 1):
                probs[i, r] += 1.0 / (tied + 1) / n
            for j in range(k):
                pair[i, j] += (v[i, d] > v[j, d]) / n
    return probs, probs @ np.arange(1, k + 1), pair


def test_rank_statistics_equal_a_loop_over_raw_draws():
    y, preds = noisy_models(80, 3, (0.8, 0.75, 0.7, 0.7), seed=5)
    r = rank_predictions(y, preds, metric="macro_f1", draws=400, rng=1)
    probs, expected, pair = _loop_statistics(r.draws)
    np.testing.assert_allclose(r.rank_probabilities, probs, atol=1e-12)
    np.testing.assert_allclose(r.expected_rank, expected, atol=1e-12)
    np.testing.assert_allclose(r.pairwise, pair, atol=1e-12)
    # exact ties: a fifth row copying m0's draws (the paired prior's disagreement mass
    # makes two models that never disagree unequal in almost every draw)
    v = np.concatenate([r.draws, r.draws[:1]])
    rank_probabilities, expected_rank, pairwise, ties = rank_statistics(v)
    probs, expected, pair = _loop_statistics(v)
    np.testing.assert_allclose(rank_probabilities, probs, atol=1e-12)
    np.testing.assert_allclose(expected_rank, expected, atol=1e-12)
    np.testing.assert_allclose(pairwise, pair, atol=1e-12)
    assert ties[0, 4] == 1.0 and pairwise[0, 4] == pairwise[4, 0] == 0.0
    k = len(v)
    np.testing.assert_allclose(pairwise + pairwise.T + ties, np.ones((k, k)))
    np.testing.assert_allclose(rank_probabilities.sum(axis=1), 1.0)
    np.testing.assert_allclose(rank_probabilities.sum(axis=0), 1.0)
    np.testing.assert_allclose(expected_rank, rank_probabilities @ np.arange(1, k + 1))
    assert r.p_best == pytest.approx(r.rank_probabilities[:, 0])
    # the two identical models share their ranks equally
    np.testing.assert_allclose(rank_probabilities[0], rank_probabilities[4])


def test_rank_statistics_batches():
    v = np.random.default_rng(0).normal(size=(2, 3, 4, 50))
    probs, expected, pairwise, ties = rank_statistics(v)
    assert probs.shape == pairwise.shape == ties.shape == (2, 3, 4, 4)
    for idx in np.ndindex(2, 3):
        p, e, w = _loop_statistics(v[idx])
        np.testing.assert_allclose(probs[idx], p, atol=1e-12)
        np.testing.assert_allclose(expected[idx], e, atol=1e-12)
        np.testing.assert_allclose(pairwise[idx], w, atol=1e-12)


def test_clearly_best_model():
    y, preds = noisy_models(2_000, 5, (0.95, 0.6, 0.6, 0.55), seed=8)
    r = rank_predictions(y, preds, metric="macro_f1", draws=5_000, rng=2)
    assert r.p_best[0] == 1.0 and r.expected_rank[0] == 1.0
    assert np.all(r.pairwise[0, 1:] == 1.0)
    assert np.all(r.rank_probabilities[1:, 0] == 0.0)


def test_independent_ranking_has_pairwise_too():
    tables = np.array([[[20, 5], [4, 11]], [[18, 7], [5, 10]], [[21, 4], [6, 9]]])
    r = rank_classifiers(tables, metric="accuracy", draws=20_000, rng=3)
    np.testing.assert_allclose(r.pairwise + r.pairwise.T + r.ties, 1.0)
    # P(0 > 1) from the ranking's draws equals that of a comparison on the same draws
    assert r.pairwise[0, 1] == pytest.approx(np.mean(r.draws[0] > r.draws[1]))


# ------------------------------------------------------------------ sampler properties


def test_many_models_many_classes_now_work():
    """Refused before (10^6 dense cells): 5 models of 10 classes."""
    y, preds = noisy_models(300, 10, (0.9, 0.8, 0.7, 0.6, 0.5), seed=4)
    r = rank_predictions(y, preds, metric="accuracy", draws=2_000, rng=0)
    assert r.names == list(preds) and np.argmin(r.expected_rank) == 0


def test_draws_do_not_depend_on_chunking(monkeypatch):
    y, preds = noisy_models(200, 4, (0.8, 0.7, 0.6), seed=6)
    full = rank_predictions(y, preds, draws=3_000, rng=4)
    monkeypatch.setattr(paired, "CHUNK_VARIATES", 1_000)
    chunked = rank_predictions(y, preds, draws=3_000, rng=4)
    assert np.array_equal(full.draws, chunked.draws)


def test_seed_sequence_is_not_consumed():
    y, preds = noisy_models(100, 3, (0.8, 0.7), seed=6)
    seq = np.random.SeedSequence(5)
    one = compare_predictions(y, preds["m0"], preds["m1"], draws=1_000, rng=seq)
    two = compare_predictions(y, preds["m0"], preds["m1"], draws=1_000, rng=seq)
    assert np.array_equal(one.draws, two.draws)
    other = compare_predictions(y, preds["m0"], preds["m1"], draws=1_000, rng=6)
    assert not np.array_equal(one.draws, other.draws)


def test_dense_entry_point_gives_the_same_draws():
    """paired_metric_draws (dense (M, M^k) arrays) samples the same cells as the sparse path."""
    y, preds = noisy_models(90, 3, (0.8, 0.6), seed=7)
    codes = np.array(list(preds.values()))
    joint = np.zeros((3, 9))
    np.add.at(joint, (y, codes[0] * 3 + codes[1]), 1.0)
    alpha = np.zeros((3, 9))
    p_t, p_c = shared_error_tuples(np.ones((3, 3)), 2)  # the "paper" shared-error prior
    alpha[p_t[:, 0], p_t[:, 1] * 3 + p_t[:, 2]] = p_c
    fn = METRICS["accuracy"]
    dense = paired_metric_draws(joint, alpha, np.ones(3), 2, fn, 2_000, np.random.SeedSequence(3))
    res = compare_predictions(y, preds["m0"], preds["m1"], metric="accuracy", alpha="paper",
                              beta="paper", draws=2_000, rng=3)  # fmt: skip
    np.testing.assert_allclose(dense[0] - dense[1], res.draws, rtol=0, atol=1e-15)


# ---------------------------------------------------------------------------- exports


def test_ranking_to_dataframe():
    pytest.importorskip("pandas")
    y, preds = noisy_models(100, 3, (0.9, 0.7, 0.5), seed=9)
    r = rank_predictions(y, preds, metric="accuracy", draws=2_000, rng=0)
    df = r.to_dataframe()
    assert list(df.columns) == [
        "model", "score", "mean", "std", "hdi_low", "hdi_high", "p_best", "expected_rank",
        "p_rank_1", "p_rank_2", "p_rank_3",
    ]  # fmt: skip
    assert df["model"].tolist() == ["m0", "m1", "m2"]
    np.testing.assert_allclose(df[["p_rank_1", "p_rank_2", "p_rank_3"]], r.rank_probabilities)
    np.testing.assert_allclose(df["mean"], r.summary.mean)
    pw = r.to_dataframe("pairwise")
    assert len(pw) == 6 and list(pw.columns) == ["model", "other", "p_better", "p_tie"]
    row = pw[(pw["model"] == "m1") & (pw["other"] == "m2")].iloc[0]
    assert row["p_better"] == r.pairwise[1, 2]
    with pytest.raises(ValueError, match=r"^kind must be 'models' or 'pairwise'; got 'x'$"):
        r.to_dataframe("x")
    batch = rank_classifiers(np.ones((2, 3, 2, 2)) * 5, draws=200, rng=0)
    assert list(batch.to_dataframe().columns[:2]) == ["batch_0", "model"]
    assert len(batch.to_dataframe()) == 6


def test_comparison_to_dataframe():
    pytest.importorskip("pandas")
    ca = np.array([[8, 2], [1, 9]])
    cb = np.stack([[[7, 3], [2, 8]], [[9, 1], [1, 9]]])
    res = compare(ca, cb, draws=2_000, rng=1, rope=0.01)
    df = res.to_dataframe()
    assert len(df) == 2 and df["batch_0"].tolist() == [0, 1]
    np.testing.assert_allclose(df["p_a_better"], res.p_a_better)
    np.testing.assert_allclose(df["diff_mean"], res.difference.mean)
    np.testing.assert_allclose(df[["diff_hdi_low", "diff_hdi_high"]], res.difference.hdi)
    assert df["decision"].tolist() == list(res.decision) and df["rope"].tolist() == [0.01] * 2


# ----------------------------------------------------------------------------- figure


def test_plot_ranking_draws_every_cell_sorted_by_expected_rank():
    y, preds = noisy_models(200, 3, (0.5, 0.9, 0.7), seed=1)
    r = rank_predictions(y, preds, metric="accuracy", draws=2_000, rng=0)
    fig = plot_ranking(r)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert [s.split(" ")[0] for s in labels] == ["m1", "m2", "m0"]
    cells = [t for t in ax.texts if t.get_gid() == "cell"]
    assert len(cells) == 9
    image = ax.images[0].get_array()
    np.testing.assert_allclose(image, r.rank_probabilities[[1, 2, 0]])
    fig.savefig(__import__("io").BytesIO(), format="png")
    with pytest.raises(TypeError, match=r"^ranking must be a Ranking with a 'names' field"):
        plot_ranking(object())
    batch = rank_classifiers(np.ones((2, 3, 2, 2)) * 5, draws=200, rng=0)
    with pytest.raises(ValueError, match=r"index must pick one"):
        plot_ranking(batch)
    assert len(plot_ranking(batch, index=1).axes[0].texts) == 9


def test_joint_array_prior_is_taken_per_cell():
    """An (M, M^k) alpha is a prior per joint cell: the product form 1/M per cell (the former
    default) gives each model the marginal alpha = 1, so with beta = 1 each model's posterior
    mean accuracy is the core's exact sum_u (1 + n_u)/(M + N) (1 + c_uu)/(M + n_u)."""
    m, n = 3, 40_000
    y, preds = noisy_models(90, m, (0.8, 0.6), seed=12)
    res = compare_predictions(y, preds["m0"], preds["m1"], metric="accuracy",
                              alpha=np.full((m, m * m), 1.0 / m), beta=1.0, draws=n, rng=2)  # fmt: skip
    assert "alpha given per joint cell" in res.prior
    for s, pred in ((res.a, preds["m0"]), (res.b, preds["m1"])):
        c = confusion_matrix(y, pred, labels=list(range(m))).counts
        rows = c.sum(axis=1)
        exact = np.sum((1 + rows) / (m + rows.sum()) * (1 + np.diag(c)) / (m + rows))
        assert abs(s.mean - exact) < K * s.mc_error
    # it puts prior mass on disagreements: a model compared with itself is not exactly
    # equal in every draw
    same = compare_predictions(y, preds["m0"], preds["m0"], alpha=np.full((m, m * m), 1 / m),
                               draws=2_000, rng=2)  # fmt: skip
    assert np.any(same.draws != 0.0)


def test_names_are_escaped_in_text():
    y, preds = noisy_models(60, 2, (0.9, 0.6), seed=1)
    r = rank_predictions(y, {"evil\n### x\x1b[0m": preds["m0"], "b": preds["m1"]}, draws=500)
    text = str(r)
    assert "evil\\n### x\\x1b[0m" in text and "\x1b" not in text
    assert len(text.splitlines()) == 4


def test_empty_class_recall_is_its_prior_beta_under_tiny_beta():
    """Class 2 never occurs; beta = 1e-3 puts its prevalence below float range in most draws.
    The core's prevalence floor keeps its row's ratios: each model's recall of class 2 is
    Beta(A[2, 2], A[2, 0] + A[2, 1]) = Beta(1, 2) under alpha = 1 (KS test, p > 1e-3)."""
    y = np.array([0] * 12 + [1] * 10)
    a = np.array([0] * 10 + [1] * 2 + [1] * 9 + [0])
    b = np.array([0] * 11 + [2] + [1] * 8 + [2] * 2)

    def recall_2(t):
        with np.errstate(invalid="ignore"):  # the observed tables' empty row: 0 / 0 = nan
            return t[..., 2, 2] / t[..., 2, :].sum(axis=-1)

    res = compare_predictions(y, a, b, metric=recall_2, alpha=1.0, beta=1e-3, labels=[0, 1, 2],
                              draws=20_000, rng=1)  # fmt: skip
    for s in (res.a, res.b):
        assert np.isfinite(s.mean)
    d = res.draws  # difference draws; the models' own draws via a ranking on the same seed
    r = rank_predictions(y, {"a": a, "b": b}, metric=recall_2, alpha=1.0, beta=1e-3,
                         labels=[0, 1, 2], draws=20_000, rng=1)  # fmt: skip
    np.testing.assert_array_equal(r.draws[0] - r.draws[1], d)
    for v in r.draws:
        assert stats.kstest(v, stats.beta(1, 2).cdf).pvalue > 1e-3
    # the empty row holds prior cells only, where the models also disagree: unequal draws
    assert np.mean(r.draws[0] != r.draws[1]) > 0.5


def test_plot_ranking_names_are_not_mathtext():
    y = [0] * 30 + [1] * 30
    other = [0] * 25 + [1] * 5 + [1] * 25 + [0] * 5
    r = rank_predictions(y, {"$\\frac{": y, "b$x$": other}, draws=500, rng=0)
    fig = plot_ranking(r)
    fig.savefig(__import__("io").BytesIO(), format="png")  # an unbalanced $ would raise
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["$\\frac{ (E[rank] 1.00)", "b$x$ (E[rank] 2.00)"]
    assert not any(t.get_parse_math() for t in fig.axes[0].get_yticklabels())


def test_one_disagreement_in_a_ranking_is_not_certainty():
    """Three models on 1,200 documents: m0 always right, m1 wrong on one document, m2 = m0.
    With beta aligned, P(m0 > m1) is exact: the prior's mass on "m0 right, m1 wrong" is 2/7
    of each row's pseudo-documents (3 in all), as on the reverse, so P = P(Beta(1 + 6/7,
    6/7) > 1/2). Negative control: the concordant prior (no mass on disagreements) gives 1."""
    y = np.repeat([0, 1, 2], 400)
    b = y.copy()
    b[0] = 1
    preds = {"m0": y, "m1": b, "m2": y.copy()}
    n = 40_000
    r = rank_predictions(y, preds, metric="accuracy", beta="aligned", draws=n, rng=3)
    exact = stats.beta.sf(0.5, 1 + 6 / 7, 6 / 7)
    assert 0.7 < exact < 0.8
    assert abs(r.pairwise[0, 1] - exact) < K * math.sqrt(exact * (1 - exact) / n)
    assert r.p_best.max() < 0.95
    concordant = np.full((3, 27), 1e-12)
    for u in range(3):
        concordant[:, u * 9 + u * 3 + u] = 1.0
    old = rank_predictions(y, preds, metric="accuracy", alpha=concordant, draws=n, rng=3)
    assert old.pairwise[0, 1] > 0.99
