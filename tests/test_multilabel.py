"""evaluate_multilabel / multilabel_scores: exact oracles, scikit-learn, properties, errors."""

from __future__ import annotations

import concurrent.futures as futures

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn import metrics as skm

import f1posterior.posterior._multilabel as ml
from f1posterior import evaluate
from f1posterior._core.priors import adaptive_alpha
from f1posterior.metrics._confusion import multilabel_confusion_matrix
from f1posterior.posterior._multilabel import (
    MULTILABEL_METRICS,
    PER_LABEL_METRICS,
    evaluate_multilabel,
    multilabel_scores,
)

TABLES = np.array(
    [[[50, 3], [7, 40]], [[80, 12], [2, 6]], [[95, 0], [5, 0]], [[60, 20], [10, 10]]],
    dtype=float,
)  # four labels over D = 100 documents; label 2 is never predicted


def _indicators(seed: int, d: int, n_labels: int, density: float):
    rng = np.random.default_rng(seed)
    yt = (rng.random((d, n_labels)) < density).astype(int)
    yp = np.where(rng.random((d, n_labels)) < 0.7, yt, 1 - yt)
    yp[:, 0] = 0  # a label never predicted
    return yt, yp


# --- plug-in scores against scikit-learn ----------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.integers(1, 40),
    n_labels=st.integers(2, 7),
    density=st.floats(0.05, 0.95),
)
def test_scores_equal_sklearn(seed, d, n_labels, density):
    yt, yp = _indicators(seed, d, n_labels, density)
    t = multilabel_confusion_matrix(yt, yp)
    s = multilabel_scores(t, metrics=MULTILABEL_METRICS, f_beta=2.0)
    kw = {"zero_division": 0}
    close = np.testing.assert_allclose
    for avg in ("micro", "macro", "weighted"):
        close(s[f"{avg}_f1"], skm.f1_score(yt, yp, average=avg, **kw), atol=1e-12)
        close(s[f"{avg}_fbeta"], skm.fbeta_score(yt, yp, beta=2.0, average=avg, **kw), atol=1e-12)
    for avg in ("micro", "macro"):
        close(s[f"{avg}_precision"], skm.precision_score(yt, yp, average=avg, **kw), atol=1e-12)
        close(s[f"{avg}_recall"], skm.recall_score(yt, yp, average=avg, **kw), atol=1e-12)
        close(s[f"{avg}_jaccard"], skm.jaccard_score(yt, yp, average=avg, **kw), atol=1e-12)
    close(s["f1"], skm.f1_score(yt, yp, average=None, **kw), atol=1e-12)
    close(s["fbeta"], skm.fbeta_score(yt, yp, beta=2.0, average=None, **kw), atol=1e-12)
    close(s["precision"], skm.precision_score(yt, yp, average=None, **kw), atol=1e-12)
    close(s["recall"], skm.recall_score(yt, yp, average=None, **kw), atol=1e-12)
    close(s["jaccard"], skm.jaccard_score(yt, yp, average=None, **kw), atol=1e-12)
    close(s["hamming_loss"], skm.hamming_loss(yt, yp), atol=1e-12)


# --- properties ---------------------------------------------------------------------

counts = st.integers(0, 30)


@st.composite
def table_stacks(draw, max_labels=6):
    n_labels = draw(st.integers(1, max_labels))
    cells = [[draw(counts) for _ in range(4)] for _ in range(n_labels)]
    for c in cells:
        if sum(c) == 0:
            c[0] = 1
    return np.array(cells, dtype=float).reshape(n_labels, 2, 2)


@settings(max_examples=60, deadline=None)
@given(t=table_stacks(), data=st.data())
def test_label_permutation_invariance_of_scores(t, data):
    perm = np.array(data.draw(st.permutations(range(t.shape[0]))))
    a = multilabel_scores(t, metrics=MULTILABEL_METRICS)
    b = multilabel_scores(t[perm], metrics=MULTILABEL_METRICS)
    for name in MULTILABEL_METRICS:
        want = a[name][perm] if name in PER_LABEL_METRICS else a[name]
        np.testing.assert_allclose(b[name], want, rtol=1e-12, atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(t=table_stacks())
def test_micro_pooling_equals_summing_tables(t):
    s = multilabel_scores(t, metrics=["micro_f1", "micro_fbeta", "micro_precision"], f_beta=0.5)
    pooled = multilabel_scores(
        t.sum(axis=0, keepdims=True), metrics=["f1", "fbeta", "precision"], f_beta=0.5
    )
    np.testing.assert_allclose(s["micro_f1"], pooled["f1"][0], rtol=1e-12)
    np.testing.assert_allclose(s["micro_fbeta"], pooled["fbeta"][0], rtol=1e-12)
    np.testing.assert_allclose(s["micro_precision"], pooled["precision"][0], rtol=1e-12)


def test_posterior_of_micro_f1_uses_pooled_expected_counts():
    """Draw by draw, micro-F1 equals F1 of the summed expected-count tables."""
    from f1posterior._core.sampling import sample_posterior

    res = evaluate_multilabel(TABLES, metrics=["micro_f1"], draws=500, rng=3, keep_draws=True)
    cells = (
        sample_posterior(TABLES, draws=500, rng=3) * TABLES.sum(axis=(-2, -1))[:, None, None, None]
    )
    pooled = cells.sum(axis=0)
    want = 2 * pooled[:, 1, 1] / (2 * pooled[:, 1, 1] + pooled[:, 0, 1] + pooled[:, 1, 0])
    np.testing.assert_allclose(res.metric_draws["micro_f1"], want, rtol=1e-12)


def test_label_permutation_invariance_of_posterior():
    perm = np.array([2, 0, 3, 1])
    names = ["micro_f1", "macro_f1", "hamming_loss", "f1"]
    a = evaluate_multilabel(TABLES, metrics=names, draws=20_000, rng=5)
    b = evaluate_multilabel(TABLES[perm], metrics=names, draws=20_000, rng=6)
    for name in names:
        ma, mb = np.asarray(a[name].mean), np.asarray(b[name].mean)
        se = np.hypot(np.asarray(a[name].mc_error), np.asarray(b[name].mc_error))
        if name == "f1":
            ma, se = ma[perm], se[perm]
        assert np.all(np.abs(ma - mb) < 5 * se), name


# --- exact oracles ---------------------------------------------------------------------


def test_per_label_metrics_equal_the_m2_core_model():
    """Per-label draws are evaluate()'s class-1 draws of each label's table (same streams)."""
    batch = np.stack([TABLES, TABLES[::-1] + 1])  # (2, L, 2, 2)
    names = ["f1", "precision", "recall"]
    res = evaluate_multilabel(batch, metrics=names, draws=3000, rng=11, keep_draws=True)
    core = evaluate(batch.reshape(-1, 2, 2), metrics=names, draws=3000, rng=11, keep_draws=True)
    for n in names:
        want = core.metric_draws[n][:, 1, :].reshape(2, 4, 3000)
        np.testing.assert_allclose(res.metric_draws[n], want, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(res[n].score, core[n].score[:, 1].reshape(2, 4))


def _f1_cdf(a: float, b: float):
    """CDF of F1 = 2B/(1+B), B ~ Beta(a, b): F1 <= x iff B <= x / (2 - x)."""
    return lambda x: stats.beta.cdf(np.asarray(x) / (2.0 - np.asarray(x)), a, b)


def _alpha(tables, alpha) -> np.ndarray:
    """The alpha array of each 2 x 2 table: a number, or the "adaptive" (default) alpha
    computed with adaptive_alpha, independently of the resolver."""
    t = np.asarray(tables, dtype=float)
    return adaptive_alpha(t) if alpha == "adaptive" else np.full(t.shape, float(alpha))


# The aligned-prior closed forms hold for any alpha: the paper's alpha = 1 and the default's
# "adaptive" alpha are both checked.
@pytest.mark.parametrize("alpha", [1.0, "adaptive"])
@pytest.mark.parametrize("table", [[[50, 3], [7, 40]], [[5, 1], [0, 2]], [[900, 40], [30, 30]]])
def test_binary_f1_aligned_prior_is_goutte_gaussier(table, alpha):
    """Aligned prior (beta = row sums of alpha): F1 = 2B/(1+B), B ~ Beta(A11, A01 + A10),
    A = alpha + C (alpha = 1: Goutte & Gaussier)."""
    a = np.asarray(table, float) + _alpha(table, alpha)
    cdf = _f1_cdf(a[1, 1], a[0, 1] + a[1, 0])
    ml_res = evaluate_multilabel(
        [table], metrics=["f1"], draws=20_000, alpha=alpha, beta="aligned", rng=2,
        keep_draws=True,
    )  # fmt: skip
    core = evaluate(table, metrics=["f1"], draws=20_000, alpha=alpha, beta="aligned", rng=3,
                    keep_draws=True)  # fmt: skip
    assert stats.kstest(ml_res.metric_draws["f1"][0], cdf).pvalue > 1e-3
    assert stats.kstest(core.metric_draws["f1"][1], cdf).pvalue > 1e-3
    # negative control: one more pseudo-count on tp is a different posterior
    wrong = _f1_cdf(a[1, 1] + 1.0, a[0, 1] + a[1, 0])
    if sum(map(sum, table)) < 100:
        assert stats.kstest(ml_res.metric_draws["f1"][0], wrong).pvalue < 1e-6


@pytest.mark.parametrize("prior", ["paper", "adaptive"])
def test_exact_means_of_recall_and_hamming_loss(prior):
    """Uniform prior: E[recall] = (1+tp)/(2+tp+fn); E[hamming] = mean_l E[1-pi]E[f] + E[pi]E[1-r].
    Any alpha and beta: E[recall] = (a11+tp)/(a10+a11+tp+fn), and likewise for f and pi."""
    kw = {} if prior == "adaptive" else {"alpha": prior, "beta": prior}  # default: adaptive
    res = evaluate_multilabel(
        TABLES, metrics=["recall", "macro_recall", "hamming_loss"], draws=40_000, rng=8, **kw
    )
    tn, fp, fn, tp = (TABLES[:, i, j] for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)))
    al = _alpha(TABLES, 1.0 if prior == "paper" else prior)
    be = np.full((len(TABLES), 2), 1.0 if prior == "paper" else 0.5)  # adaptive: beta = 1/M
    e_r = (al[:, 1, 1] + tp) / (al[:, 1].sum(-1) + tp + fn)
    e_f = (al[:, 0, 1] + fp) / (al[:, 0].sum(-1) + fp + tn)
    e_pi = (be[:, 1] + tp + fn) / (be.sum(-1) + TABLES.sum(axis=(-2, -1)))
    if prior == "paper":
        np.testing.assert_allclose(e_r, (1 + tp) / (2 + tp + fn))
    e_ham = np.mean((1 - e_pi) * e_f + e_pi * (1 - e_r))
    s = res["recall"]
    assert np.all(np.abs(s.mean - e_r) < 5 * s.mc_error)
    assert abs(res["macro_recall"].mean - e_r.mean()) < 5 * res["macro_recall"].mc_error
    assert abs(res["hamming_loss"].mean - e_ham) < 5 * res["hamming_loss"].mc_error
    # negative control: the plug-in value is many standard errors away
    assert abs(res["hamming_loss"].score - e_ham) > 5 * res["hamming_loss"].mc_error


# --- exact per-label summaries under the aligned prior -----------------------------------

EXACT_NAMES = ["f1", "precision", "recall", "jaccard"]


def _label_betas(tables: np.ndarray, alpha=1.0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Beta parameters (A_11, ...) of the per-label posteriors, A = alpha + C (aligned prior)."""
    a = tables + _alpha(tables, alpha)
    tp, fp, fn = a[..., 1, 1], a[..., 0, 1], a[..., 1, 0]
    return {"precision": (tp, fp), "recall": (tp, fn), "jaccard": (tp, fp + fn)}


def _f1_mean_by_quadrature(a: float, b: float) -> float:
    from scipy import integrate

    return integrate.quad(lambda x: 2 * x / (1 + x) * stats.beta.pdf(x, a, b), 0, 1)[0]


@pytest.mark.parametrize("alpha", [1.0, "adaptive"])
def test_exact_per_label_summaries_equal_scipy(alpha):
    """Aligned prior: precision/recall/jaccard are Betas, f1 = 2B/(1+B); oracles from scipy."""
    res = evaluate_multilabel(TABLES, metrics=EXACT_NAMES, alpha=alpha, beta="aligned", ref=0.7,
                              ci_prob=0.9)  # fmt: skip
    betas = _label_betas(TABLES, alpha)
    for n in EXACT_NAMES:
        s = res[n]
        assert s.exact and s.draws == 0 and np.all(s.mc_error == 0), n
        np.testing.assert_array_equal(s.score, multilabel_scores(TABLES, metrics=[n])[n])
    for n, (a, b) in betas.items():
        s = res[n]
        np.testing.assert_allclose(s.mean, stats.beta.mean(a, b), rtol=1e-12)
        np.testing.assert_allclose(s.std, stats.beta.std(a, b), rtol=1e-10)
        np.testing.assert_allclose(s.median, stats.beta.median(a, b), rtol=1e-9)
        np.testing.assert_allclose(s.eti, np.stack(stats.beta.interval(0.9, a, b), -1), rtol=1e-9)
        np.testing.assert_allclose(s.p_below, stats.beta.cdf(0.7, a, b), rtol=1e-10)
        # HDI: probability 0.9, equal density at both ends (the shortest interval), or
        # starting at 0 for a density decreasing from 0 (alpha = 1, label 2: tp = 0, a = 1),
        # or ending at 1 for a density increasing to 1 (adaptive has Jeffreys rows with two
        # classes: label 2, tp = 0, has a = 1/2)
        lo, hi = s.hdi[..., 0], s.hdi[..., 1]
        np.testing.assert_allclose(stats.beta.cdf(hi, a, b) - stats.beta.cdf(lo, a, b), 0.9)
        inner = (a > 1) & (b > 1)
        assert inner.tolist() == [True, True, False, True]
        np.testing.assert_allclose(
            stats.beta.pdf(lo, a, b)[inner], stats.beta.pdf(hi, a, b)[inner], rtol=1e-4
        )
        decreasing = (a <= 1) & (b > 1)  # precision of label 2 is Beta(1, 1): any 0.9 interval
        assert np.all(lo[decreasing] < 1e-9)
        increasing = (a > 1) & (b < 1)
        assert np.all(hi[increasing] > 1 - 1e-9)
    a, b = betas["jaccard"]
    f1 = res["f1"]
    want = [_f1_mean_by_quadrature(x, y) for x, y in zip(a, b, strict=True)]
    np.testing.assert_allclose(f1.mean, want, rtol=1e-9)
    # P(F1 < 0.7) = P(B < 0.7 / 1.3); the F1 interval ends are transforms of B's quantiles
    np.testing.assert_allclose(f1.p_below, stats.beta.cdf(0.7 / 1.3, a, b), rtol=1e-10)
    q = stats.beta.ppf([[0.05], [0.95]], a, b).T
    np.testing.assert_allclose(f1.eti, 2 * q / (1 + q), rtol=1e-9)


@pytest.mark.parametrize("alpha", [1.0, "adaptive"])
def test_exact_per_label_summaries_agree_with_sampled_ones(alpha):
    """keep_draws still samples: the draws' summaries agree with the exact ones."""
    t = np.stack([TABLES, TABLES[::-1] + 3])  # batch (2, L = 4)
    names = [*EXACT_NAMES, "fbeta"]
    res = evaluate_multilabel(t, metrics=names, alpha=alpha, beta="aligned", draws=20_000, rng=5,
                              keep_draws=True, ref=0.5)  # fmt: skip
    for n in names:
        s, x = res[n], res.metric_draws[n]
        assert s.exact and x.shape == (2, 4, 20_000), n
        se = x.std(axis=-1) / np.sqrt(x.shape[-1])
        assert np.all(np.abs(x.mean(axis=-1) - s.mean) < 5 * se), n
        assert np.all(np.abs(x.std(axis=-1) - s.std) < 5 * se * np.sqrt(2)), n
        frac = np.mean(x < 0.5, axis=-1)
        assert np.all(np.abs(frac - s.p_below) <= 5 * np.sqrt(s.p_below * (1 - s.p_below) / 2e4)
                      + 1e-4), n  # fmt: skip
        # KS test of each label's draws against the exact CDF
        post = ml.label_posterior(t + _alpha(t, alpha), n)  # adaptive: one alpha per table
        for idx in np.ndindex(2, 4):
            cdf = ml.BetaPosterior(post.a[idx], post.b[idx], post.transform).cdf
            assert stats.kstest(x[idx], cdf).pvalue > 1e-4, (n, idx)
    # negative control: the uniform prior's draws are a different posterior
    wrong = evaluate_multilabel(TABLES[:1] * 0 + [[[3, 1], [1, 2]]], metrics=["precision"],
                                draws=20_000, rng=5, keep_draws=True, alpha=1.0,
                                beta=1.0)  # fmt: skip
    exact = evaluate_multilabel([[[3, 1], [1, 2]]], metrics=["precision"], alpha=1.0,
                                beta="aligned")  # fmt: skip
    assert exact["precision"].exact and not wrong["precision"].exact
    post = ml.label_posterior(np.array([[[4.0, 2.0], [2.0, 3.0]]]), "precision")
    assert stats.kstest(wrong.metric_draws["precision"][0], post.cdf).pvalue < 1e-6


@pytest.mark.parametrize("batch", [(), (3,), (2, 2)])
def test_exact_summaries_shapes_and_aggregates_stay_sampled(batch):
    t = np.broadcast_to(TABLES, (*batch, *TABLES.shape))
    res = evaluate_multilabel(t, metrics=["micro_f1", "f1", "macro_f1"], beta="aligned",
                              draws=300, rng=0, ref=0.5)  # fmt: skip
    f1 = res["f1"]
    assert f1.exact and f1.mean.shape == (*batch, 4) and f1.hdi.shape == (*batch, 4, 2)
    assert np.shape(f1.p_below) == (*batch, 4) and f1.draws == 0
    one = evaluate_multilabel(TABLES, metrics=["f1"], beta="aligned")["f1"]
    np.testing.assert_allclose(f1.hdi, np.broadcast_to(one.hdi, f1.hdi.shape))
    for n in ("micro_f1", "macro_f1"):
        assert not res[n].exact and res[n].draws == 300 and np.all(res[n].mc_error > 0)


def test_exact_only_metrics_draw_nothing(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("sampled although every metric is exact")

    monkeypatch.setattr(ml, "Engine", fail)
    res = evaluate_multilabel(TABLES, metrics=["f1", "recall"], beta="aligned", draws=10**6)
    assert res["f1"].exact and res["recall"].exact
    with pytest.raises(AssertionError, match="sampled although"):
        evaluate_multilabel(TABLES, metrics=["f1"], beta="aligned", keep_draws=True, draws=10)


def test_exact_only_under_aligned_prior_and_fbeta_only_for_beta_1():
    assert not evaluate_multilabel(TABLES, metrics=["f1"], draws=200, rng=0)["f1"].exact
    assert not evaluate_multilabel(TABLES, metrics=["f1"], beta="jeffreys", draws=200)["f1"].exact
    res = evaluate_multilabel(TABLES, metrics=["fbeta", "f1"], f_beta=2.0, beta="aligned",
                              draws=200, rng=0)  # fmt: skip
    assert res["f1"].exact and not res["fbeta"].exact
    res1 = evaluate_multilabel(TABLES, metrics=["fbeta", "f1"], beta="aligned")
    assert res1["fbeta"].exact and np.array_equal(res1["fbeta"].hdi, res1["f1"].hdi)
    # an aligned prior given as arrays (alpha = 2, beta = row sums) is recognised too
    res2 = evaluate_multilabel(TABLES, metrics=["recall"], alpha=2.0, beta=4.0)
    a, b = TABLES[:, 1, 1] + 2, TABLES[:, 1, 0] + 2
    assert res2["recall"].exact
    np.testing.assert_allclose(res2["recall"].mean, a / (a + b), rtol=1e-12)


def test_exact_falls_back_to_sampling_without_scipy(monkeypatch):
    import f1posterior.posterior._exact as ex

    monkeypatch.setattr(ex, "scipy_available", lambda: False)
    with pytest.warns(UserWarning, match=r"per-label metrics \['f1'\] have exact posteriors.*"
                      r"need scipy"):  # fmt: skip
        res = evaluate_multilabel(TABLES, metrics=["f1", "micro_f1"], beta="aligned", draws=100)
    assert not res["f1"].exact and res["f1"].draws == 100


# --- chunking, shapes, reproducibility -------------------------------------------------


def _assert_same(a, b):
    """Every summary field and every kept draw equal, bit for bit."""
    assert list(a) == list(b)
    for n in a:
        for field, value in a[n].to_dict().items():
            np.testing.assert_array_equal(getattr(b[n], field), value, err_msg=f"{n}.{field}")
        if a.metric_draws is not None:
            np.testing.assert_array_equal(b.metric_draws[n], a.metric_draws[n], err_msg=n)


ML_NAMES = ["micro_f1", "weighted_f1", "macro_jaccard", "hamming_loss", "f1", "recall"]


@pytest.mark.parametrize("keep", [False, True])
def test_results_do_not_depend_on_workers_or_memory(keep):
    """Bit-identical whatever workers and max_memory, chunked or not, on the engine."""
    t = np.random.default_rng(4).integers(0, 20, size=(3, 7, 2, 2)).astype(float) + 1
    kw = dict(metrics=ML_NAMES, draws=5000, rng=9, ref=0.6, keep_draws=keep)
    full = evaluate_multilabel(t, workers=1, max_memory=1 << 31, **kw)
    for workers, budget in [(2, None), (1, 1 << 20), (2, 1 << 20), (3, 3 << 20)]:
        _assert_same(full, evaluate_multilabel(t, workers=workers, max_memory=budget, **kw))


def test_small_budgets_really_split_sets_and_draws(monkeypatch):
    """Guard for the test above: 1 MiB cuts each set of 7 labels into several groups
    (whose sums are carried in order), and 100,001 draws on two workers run as parallel
    ranges of draws."""
    plans = []

    class Spy(ml.Engine):
        def run(self):
            plans.append(self.plan)
            return super().run()

    monkeypatch.setattr(ml, "Engine", Spy)
    t = np.random.default_rng(4).integers(0, 20, size=(3, 7, 2, 2)).astype(float) + 1
    evaluate_multilabel(t, metrics=ML_NAMES, draws=5000, rng=9, workers=1, max_memory=1 << 20)
    groups = plans[-1].groups()
    assert plans[-1].group < 7 and plans[-1].parallel_draws and len(groups) > 3
    assert all((g1 - 1) // 7 == g0 // 7 for g0, g1 in groups)  # no group crosses a set
    kw = dict(metrics=["micro_f1", "f1"], draws=100_001, rng=2)
    one = evaluate_multilabel(TABLES + 1, workers=1, **kw)
    _assert_same(one, evaluate_multilabel(TABLES + 1, workers=2, **kw))
    assert plans[-1].parallel_draws  # one set: its ranges of draws run in parallel


def test_draws_are_those_of_sample_posterior_whatever_the_chunks():
    """The per-label metric draws are functions of sample_posterior's cell draws on the
    stack of tables (independent truth: the metric recomputed from those cells)."""
    from f1posterior import sample_posterior

    t = TABLES + 1
    p = sample_posterior(t, draws=3000, rng=5)  # (L, draws, 2, 2)
    tp, fn, fp = p[..., 1, 1], p[..., 1, 0], p[..., 0, 1]
    for budget in (None, 1 << 20):
        res = evaluate_multilabel(t, metrics=["recall", "micro_recall"], draws=3000, rng=5,
                                  keep_draws=True, max_memory=budget)  # fmt: skip
        np.testing.assert_allclose(res.metric_draws["recall"], tp / (tp + fn), rtol=1e-12)
        n = t.sum(axis=(-2, -1))[:, None]
        micro = (n * tp).sum(0) / (n * (tp + fn)).sum(0)
        np.testing.assert_allclose(res.metric_draws["micro_recall"], micro, rtol=1e-12)
        assert not np.allclose(micro, (n * tp).sum(0) / (n * (tp + fp)).sum(0))  # a control


def test_progress_counts_label_tables_in_order():
    t = np.broadcast_to(TABLES, (5, *TABLES.shape))
    seen: list[tuple[int, int]] = []
    evaluate_multilabel(t, draws=3000, rng=0, workers=2, max_memory=1 << 20,
                        progress=lambda d, n: seen.append((d, n)))  # fmt: skip
    assert len(seen) > 1 and seen[-1] == (20, 20)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.parametrize("batch", [(), (3,), (2, 2)])
def test_batch_shapes(batch):
    t = np.broadcast_to(TABLES, (*batch, *TABLES.shape))
    res = evaluate_multilabel(t, metrics=["micro_f1", "f1"], draws=300, rng=0, ref=0.5)
    assert np.shape(res["micro_f1"].mean) == batch
    assert res["micro_f1"].hdi.shape == (*batch, 2)
    assert res["f1"].mean.shape == (*batch, 4)
    assert res["f1"].hdi.shape == (*batch, 4, 2)
    assert np.shape(res["f1"].p_below) == (*batch, 4)
    assert res.batch_shape == batch
    if batch:  # identical tables in a batch get different streams but the same scores
        assert np.all(np.asarray(res["micro_f1"].score) == res["micro_f1"].score.flat[0])


def test_reproducible_and_float32():
    a = evaluate_multilabel(TABLES, draws=2000, rng=42)
    b = evaluate_multilabel(TABLES, draws=2000, rng=42)
    assert a.to_dict() == b.to_dict()
    c = evaluate_multilabel(TABLES, draws=2000, rng=43)
    assert c["micro_f1"].mean != a["micro_f1"].mean
    f = evaluate_multilabel(TABLES, draws=2000, rng=42, dtype=np.float32)
    assert abs(f["micro_f1"].mean - a["micro_f1"].mean) < 5 * a["micro_f1"].std / np.sqrt(1000)


def test_labels_and_text_report():
    res = evaluate_multilabel(TABLES, metrics=["f1"], draws=500, rng=0, labels=list("abcd"))
    assert res.labels == ["a", "b", "c", "d"]
    assert "f1 [class c]" in str(res)


def test_memory_is_bounded_for_30000_labels(monkeypatch):
    """L = 30,000 labels (the MeSH scale): no array ever holds all labels' cell draws.

    Every chunk of cell draws passed to the metric code is one of the engine's chunks
    (at most ``_CHUNK_BYTES`` of cells), far fewer than ``L * draws * 4``; peak memory
    is measured in ``benchmarks/bench_multilabel.py``.
    """
    from f1posterior.posterior import _batch as batch

    rng = np.random.default_rng(0)
    n_labels, draws = 30_000, 100
    tp, fp, fn = (rng.integers(0, 40, n_labels) for _ in range(3))
    t = np.stack([1000 - tp - fp - fn, fp, fn, tp], -1).reshape(n_labels, 2, 2)
    seen: list[int] = []
    real = ml.LabelTerms

    def spy(table, b2):
        seen.append(table.size)
        return real(table, b2)

    monkeypatch.setattr(ml, "LabelTerms", spy)
    res = evaluate_multilabel(t, metrics=["micro_f1", "macro_f1"], draws=draws, rng=1)
    chunks = seen[1:]  # seen[0] is the plug-in score on the counts
    assert len(chunks) > 1 and 8 * max(chunks) <= batch.CHUNK_BYTES < 8 * n_labels * draws * 4
    assert sum(chunks) == n_labels * draws * 4  # every draw of every label was used once
    scores = multilabel_scores(t)
    assert res["macro_f1"].score == pytest.approx(float(scores["macro_f1"]))
    assert np.isfinite(res["macro_f1"].mean) and res["macro_f1"].draws == draws


# --- bad input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        (
            {"tables": [[1, 2], [3, 4]]},
            ValueError,
            r"shape \(\*batch, L, 2, 2\).*got shape \(2, 2\)",
        ),
        (
            {"tables": np.ones((2, 3, 3))},
            ValueError,
            r"tables must be per-label 2 x 2.*\(2, 3, 3\)",
        ),
        ({"tables": "x"}, ValueError, r"tables must be per-label 2 x 2 tables.*'x'"),
        ({"tables": [[[1, 2], [3, 4.5]]]}, ValueError, r"tables must be whole-number"),
        ({"tables": [[[1, 2], [3, -4]]]}, ValueError, r"tables must be non-negative"),
        ({"tables": [[[0, 0], [0, 0]]]}, ValueError, r"tables must count at least one document"),
        ({"metrics": ["f2"]}, ValueError, r"metrics must be names from micro_f1.*got 'f2'"),
        ({"metrics": []}, ValueError, r"metrics must name at least one metric"),
        ({"metrics": ["f1", "f1"]}, ValueError, r"metrics must not repeat a name"),
        ({"metrics": 3}, TypeError, r"metrics must be a metric name or a sequence of names; got 3"),
        ({"f_beta": 0}, ValueError, r"f_beta must be a finite number > 0; got 0"),
        ({"labels": ["a"]}, ValueError, r"labels must name the 4 labels; got 1 names"),
        ({"labels": "abcd"}, TypeError, r"labels must be a sequence of 4 names; got 'abcd'"),
        ({"draws": 0}, ValueError, r"draws must be an integer >= 1; got 0"),
        ({"ci_prob": 1.5}, ValueError, r"ci_prob must be in the open interval"),
        ({"beta": "bogus"}, ValueError, r"beta must be a positive number, an array or one of"),
        ({"workers": 0}, ValueError, r"workers must be None or an integer >= 1; got 0"),
        ({"max_memory": 1000}, ValueError, r"max_memory must be None or a number of bytes >= "),
        ({"progress": "yes"}, TypeError, r"progress must be a callable\(done, total\) or None"),
        ({"keep_draws": "yes"}, TypeError, r"keep_draws must be True or False; got 'yes'"),
    ],
)
def test_bad_input(kwargs, exc, match):
    args = {"tables": TABLES, "draws": 10, **kwargs}
    with pytest.raises(exc, match=match):
        evaluate_multilabel(**args)


def test_bad_input_scores():
    with pytest.raises(ValueError, match=r"metrics must be names from"):
        multilabel_scores(TABLES, metrics=["accuracy"])
    with pytest.raises(TypeError, match=r"f_beta must be a finite number > 0"):
        multilabel_scores(TABLES, f_beta="2")


# --- command line -------------------------------------------------------------------


def test_cli_summarize_multilabel_npy_and_json(tmp_path, capsys):
    import json

    from f1posterior.cli import main

    np.save(tmp_path / "t.npy", TABLES.astype(int))
    rc = main(["summarize", str(tmp_path / "t.npy"), "--multilabel", "--metric", "micro_f1",
               "--metric", "f1", "--draws", "2000", "--seed", "4", "--format", "json"])  # fmt: skip
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    want = evaluate_multilabel(TABLES, metrics=["micro_f1", "f1"], draws=2000, rng=4)
    assert out["metrics"]["micro_f1"]["mean"] == pytest.approx(want["micro_f1"].mean, rel=1e-12)
    assert out["metrics"]["f1"]["score"] == pytest.approx(want["f1"].score.tolist())
    # --workers and --max-memory reach the engine: the same numbers
    argv = ["summarize", str(tmp_path / "t.npy"), "--multilabel", "--metric", "micro_f1",
            "--metric", "f1", "--draws", "2000", "--seed", "4", "--format", "json"]  # fmt: skip
    assert main([*argv, "--workers", "2", "--max-memory", "1M"]) == 0
    assert json.loads(capsys.readouterr().out) == out

    yt, yp = _indicators(1, 30, 3, 0.4)
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"y_true": yt.tolist(), "y_pred": yp.tolist(), "labels": "abc"}))
    with pytest.raises(TypeError, match="labels must be a sequence"):
        from f1posterior.io._multilabel import read_multilabel

        read_multilabel(path)
    path.write_text(
        json.dumps({"y_true": yt.tolist(), "y_pred": yp.tolist(), "labels": list("abc")})
    )
    assert main(["summarize", str(path), "--multilabel", "--metric", "f1", "--draws", "500"]) == 0
    text = capsys.readouterr().out
    assert "multi-label: 3 labels" in text and "f1 [class c]" in text
    score = skm.f1_score(yt, yp, average=None, zero_division=0)[2]
    assert f"{score:.3f}" in text.splitlines()[-2]  # then the receipt
    assert text.splitlines()[-1].startswith("Receipt: f1posterior")


@pytest.mark.parametrize(
    ("content", "argv", "match"),
    [
        (
            "[[1, 2], [3, 4]]",
            ["--multilabel"],
            r"shape \(L, 2, 2\) or \(B, L, 2, 2\); got shape \(2, 2\)",
        ),
        ('{"y_true": [[1, 0]]}', ["--multilabel"], r'predictions need both "y_true" and "y_pred"'),
        (
            '{"y_true": [[1, 2]], "y_pred": [[1, 0]]}',
            ["--multilabel"],
            r"y_true must hold only 0 and 1; got 2",
        ),
        ('{"matrix": []}', ["--multilabel"], r'must have "tables" or "y_true" and "y_pred"'),
        (
            "[[[1, 2], [3, 4]]]",
            ["--multilabel", "--labels", "a,b"],
            r"2 labels given for 1 per-label",
        ),
        (
            "[[[1, 2], [3, 4]]]",
            ["--multilabel", "--metric", "accuracy"],
            r"not a multi-label metric",
        ),
        ("[[1, 2], [3, 4]]", ["--metric", "hamming_loss"], r"hamming_loss is a multi-label metric"),
    ],
)
def test_cli_multilabel_errors(tmp_path, capsys, content, argv, match):
    from f1posterior.cli import main

    path = tmp_path / "in.json"
    path.write_text(content)
    assert main(["summarize", str(path), "--draws", "50", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    import re

    assert re.search(match, err), err


def test_docs_examples_run():
    """Every ```python block of docs/multilabel.md runs (they hold their own asserts)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "multilabel.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 5
    for block in blocks:
        exec(compile(block, "docs/multilabel.md", "exec"), {})


def test_forked_workers_give_the_same_numbers(monkeypatch):
    """Large multi-label batches may run on forked processes, as evaluate's: same numbers."""
    from f1posterior.posterior import _batch as batch

    t = np.random.default_rng(6).integers(0, 30, size=(9, 5, 2, 2)).astype(float) + 1
    kw = dict(metrics=["micro_f1", "macro_f1", "f1"], draws=2000, rng=3, ref=0.5)
    one = evaluate_multilabel(t, workers=1, **kw)
    opened = []

    class Recording(futures.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            opened.append(kwargs.get("max_workers"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(futures, "ProcessPoolExecutor", Recording)
    monkeypatch.setattr(batch, "PROCESS_MIN_VARIATES", 0)
    monkeypatch.setattr(batch, "can_fork", lambda: True)  # pytest may run helper threads
    _assert_same(one, evaluate_multilabel(t, workers=2, **kw))
    assert opened == [2]
