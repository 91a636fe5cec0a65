"""Tests of f1posterior.analysis._comparison and the ``compare`` command line.

Statistical claims are checked against exact answers: the Beta law of the
paired accuracy comparison under an aligned prior (aggregation property),
integrals of independent Beta posteriors for the unpaired comparison and for
P(best), the exact posterior mean of accuracy under the default prior, and
the Binomial(n, 1/2) law of P(A better) for a classifier compared with
itself. Tolerances are 5 Monte Carlo standard errors.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import integrate, stats

import f1posterior
from f1posterior import NonInferiority, evaluate
from f1posterior._core.priors import adaptive_alpha
from f1posterior.analysis import _paired as paired
from f1posterior.analysis._comparison import Comparison, compare
from f1posterior.analysis._paired import compare_predictions
from f1posterior.analysis._ranking import Ranking, rank_classifiers, rank_predictions
from f1posterior.cli import main
from f1posterior.metrics._confusion import confusion_matrix

K = 5.0  # Monte Carlo standard errors allowed


def mc_prob_tol(p: float, n: int) -> float:
    return K * math.sqrt(max(p * (1 - p), 1e-4) / n)


def make_pairs(both_right, both_wrong, a_only, b_only, m=2, seed=0):
    """y, pred_a, pred_b with the given numbers of (A right?, B right?) documents."""
    rng = np.random.default_rng(seed)
    y, a, b = [], [], []
    for n, (ra, rb) in (
        (both_right, (1, 1)),
        (both_wrong, (0, 0)),
        (a_only, (1, 0)),
        (b_only, (0, 1)),
    ):
        for _ in range(n):
            t = int(rng.integers(m))
            wa = (t + 1 + int(rng.integers(m - 1))) % m
            wb = (t + 1 + int(rng.integers(m - 1))) % m
            y.append(t)
            a.append(t if ra else wa)
            b.append(t if rb else wb)
    return np.array(y), np.array(a), np.array(b)


def exact_accuracy_mean(counts, alpha=1.0, beta=1.0):
    """DESIGN.md: exact posterior mean of accuracy (micro-F1) under the core model (alpha a
    number or an (M, M) array, beta a number or an (M,) array; the defaults are the paper's)."""
    c = np.asarray(counts, float)
    m = c.shape[-1]
    n = c.sum(axis=1)
    a = np.broadcast_to(alpha, (m, m))
    b = np.broadcast_to(beta, (m,))
    return float(np.sum((b + n) / (b.sum() + n.sum()) * (np.diag(a) + np.diag(c)) / (a.sum(1) + n)))


def marginal_prior(y, preds, alpha, m):
    """Each model's marginal alpha (M, M) in the paired model: the paper's 1 per cell (also
    for alpha = 1.0, a number being a marginal prior), or for the default ("paired", or the
    library's default name "adaptive") 3 / M pseudo-documents a row, half on the diagonal
    and half spread over the row's M - 1 errors."""
    if alpha in ("paired", "adaptive"):
        out = np.full((m, m), 1.5 / m / (m - 1))
        np.fill_diagonal(out, 1.5 / m)
        return out
    assert alpha in ("paper", 1.0)
    return np.ones((m, m))


def joint_prior(marginal, k, agree=1.0):
    """The shared-error joint prior over (true, pred_1, ..., pred_k), dense, tuple by tuple:
    a tuple whose wrong predictions all name one class u has weight r^(#right) (1 - r)^(#wrong)
    e_u (r = A[t, t] / s_t, e_u = A[t, u] / (s_t - A[t, t])), times ``agree`` when all are
    right or all wrong; other tuples 0; each row rescaled to s_t = sum_u A[t, u]."""
    import itertools

    m = marginal.shape[0]
    out = np.zeros((m,) * (k + 1))
    for t in range(m):
        s_t = marginal[t].sum()
        r = marginal[t, t] / s_t
        for tup in itertools.product(range(m), repeat=k):
            wrong = {v for v in tup if v != t}
            if len(wrong) > 1:
                continue
            n_wrong = sum(v != t for v in tup)
            w = r ** (k - n_wrong) * (1 - r) ** n_wrong
            if wrong:
                (u,) = wrong
                w *= marginal[t, u] / (s_t - marginal[t, t])
            if n_wrong in (0, k):
                w *= agree
            out[(t, *tup)] = w
        out[t] *= s_t / out[t].sum()
    return out


# ---------------------------------------------------------------- paired: exact oracles


@pytest.mark.parametrize("alpha", ["paper", 1.0, "paired", "adaptive"])
def test_paired_accuracy_sign_matches_exact_beta(alpha):
    """Aligned prior: P(acc_A > acc_B) = P(Beta(A_a, A_b) > 1/2) by aggregation."""
    y, a, b = make_pairs(30, 6, 9, 5, m=3, seed=1)
    m, n = 3, 40_000
    res = compare_predictions(
        y, a, b, metric="accuracy", alpha=alpha, beta="aligned", draws=n, rng=11
    )
    default = alpha in ("paired", "adaptive")
    marginal = marginal_prior(y, (a, b), alpha, m)
    conc = joint_prior(marginal, 2, agree=0.5 if default else 1.0)
    np.testing.assert_allclose(conc.sum(axis=2), marginal)  # each marginal is A
    np.testing.assert_allclose(conc.sum(axis=1), marginal)
    np.add.at(conc, (y, a, b), 1.0)
    t, pa, pb = np.indices((m, m, m))
    mass_a = conc[(pa == t) & (pb != t)].sum()
    mass_b = conc[(pb == t) & (pa != t)].sum()
    exact = stats.beta.sf(0.5, mass_a, mass_b)
    assert 0.7 < exact < 0.98  # a case where the answer is not trivial
    assert abs(res.p_a_better - exact) < mc_prob_tol(exact, n)
    assert abs(res.p_b_better - (1 - exact)) < mc_prob_tol(exact, n)
    # exact mean of the difference: E[P_a - P_b] = (mass_a - mass_b) / total mass
    mean = (mass_a - mass_b) / conc.sum()
    assert abs(res.difference.mean - mean) < K * res.difference.mc_error


@pytest.mark.parametrize("prior", ["paper", "paired"])
def test_paired_marginal_is_the_core_posterior(prior):
    """Each model's marginal is the core model under the paired model's marginal prior:
    alpha = beta = 1 for "paper"; for the default the paired marginal (3 / M pseudo-documents
    a row, half on the diagonal, half on the errors) with beta = 1/M, i.e. evaluate(table,
    alpha=<that array>, beta=1/M)."""
    y, a, b = make_pairs(25, 5, 8, 2, m=3, seed=2)
    kw = {} if prior == "paired" else {"alpha": prior, "beta": prior}  # default: paired
    res = compare_predictions(y, a, b, metric="accuracy", draws=40_000, rng=5, **kw)
    alpha = marginal_prior(y, (a, b), prior, 3)
    beta = np.full(3, 1.0 if prior == "paper" else 1.0 / 3)
    for s, pred in ((res.a, a), (res.b, b)):
        counts = confusion_matrix(y, pred, labels=[0, 1, 2]).counts
        assert abs(s.mean - exact_accuracy_mean(counts, alpha, beta)) < K * s.mc_error
        core = evaluate(counts, metrics="accuracy", draws=40_000, alpha=alpha, beta=beta,
                        rng=6)["accuracy"]  # fmt: skip
        assert abs(s.mean - core.mean) < K * math.hypot(s.mc_error, core.mc_error)
        assert abs(s.std - core.std) < 0.03 * core.std
    assert res.a.score == pytest.approx(np.mean(y == a))


def test_paired_scores_are_observed_metrics():
    y, a, b = make_pairs(40, 4, 10, 6, m=3, seed=3)
    res = compare_predictions(y, a, b, metric="macro_f1", draws=2_000, rng=0)
    from sklearn.metrics import f1_score

    fa = f1_score(y, a, average="macro")
    fb = f1_score(y, b, average="macro")
    assert res.a.score == pytest.approx(fa)
    assert res.b.score == pytest.approx(fb)
    assert res.difference.score == pytest.approx(fa - fb)
    assert res.paired and res.labels == [0, 1, 2]


# ----------------------------------------------------------- independent: exact oracle


def _own_alpha(counts, alpha):
    """alpha of one table of independent posteriors: a number, or that table's own adaptive
    alpha (computed with adaptive_alpha, not the package's resolver)."""
    c = np.asarray(counts, float)
    return adaptive_alpha(c) if alpha == "adaptive" else np.full(c.shape, alpha)


# An aligned beta gives closed forms for any alpha: the paper's alpha = 1 and the default's
# "adaptive" one are both checked.
@pytest.mark.parametrize("alpha", [1.0, "adaptive"])
def test_independent_accuracy_matches_beta_integral(alpha):
    ca = np.array([[20, 4], [3, 13]])
    cb = np.array([[18, 6], [5, 11]])
    n = 40_000
    res = compare(ca, cb, metric="accuracy", alpha=alpha, beta="aligned", draws=n, rng=3)
    A, B = ca + _own_alpha(ca, alpha), cb + _own_alpha(cb, alpha)
    xa = stats.beta(np.trace(A), A.sum() - np.trace(A))
    xb = stats.beta(np.trace(B), B.sum() - np.trace(B))
    exact = integrate.quad(lambda x: xa.pdf(x) * xb.cdf(x), 0, 1)[0]
    assert 0.7 < exact < 0.95
    assert abs(res.p_a_better - exact) < mc_prob_tol(exact, n)
    assert abs(res.difference.mean - (xa.mean() - xb.mean())) < K * res.difference.mc_error


def test_independent_uses_evaluate_streams_of_child_seeds():
    ca, cb = np.array([[8, 2], [1, 9]]), np.array([[7, 3], [2, 8]])
    res = compare(ca, cb, metric="macro_f1", draws=3_000, rng=42)
    root = np.random.SeedSequence(42)
    for s, c, i in ((res.a, ca, 0), (res.b, cb, 1)):
        child = np.random.SeedSequence(root.entropy, spawn_key=(i,))
        ev = evaluate(c, metrics="macro_f1", draws=3_000, rng=child)["macro_f1"]
        assert s.mean == ev.mean and np.array_equal(s.hdi, ev.hdi)


# ------------------------------------------------------------------------- symmetry


def test_probabilities_sum_to_one_and_decision_rule():
    y, a, b = make_pairs(30, 5, 6, 4, m=2, seed=4)
    res = compare_predictions(y, a, b, rope=0.02, draws=5_000, rng=1)
    assert res.p_a_better + res.p_b_better + res.p_equivalent == pytest.approx(1.0)
    assert res.p_a_better == pytest.approx(np.mean(res.draws > 0.02))
    assert res.p_equivalent == pytest.approx(np.mean(np.abs(res.draws) <= 0.02))
    assert res.decision == "undecided"
    assert res.difference.p_above == pytest.approx(np.mean(res.draws > 0))


def test_swapping_a_and_b_swaps_probabilities_independent():
    ca = np.array([[20, 4, 1], [3, 13, 2], [1, 1, 9]])
    cb = np.array([[18, 6, 1], [5, 11, 2], [2, 1, 8]])
    n = 20_000
    ab = compare(ca, cb, rope=0.01, draws=n, rng=9)
    ba = compare(cb, ca, rope=0.01, draws=n, rng=9)
    p = ab.p_a_better
    tol = K * math.sqrt(2 * p * (1 - p) / n)
    assert abs(ab.p_a_better - ba.p_b_better) < tol
    assert abs(ab.p_b_better - ba.p_a_better) < tol
    assert abs(ab.difference.mean + ba.difference.mean) < K * math.sqrt(2) * ab.difference.mc_error
    assert ab.difference.score == -ba.difference.score
    # same seed, same answer
    again = compare(ca, cb, rope=0.01, draws=n, rng=9)
    assert again.p_a_better == ab.p_a_better and np.array_equal(again.draws, ab.draws)


def test_swapping_a_and_b_swaps_probabilities_paired():
    y, a, b = make_pairs(30, 6, 9, 5, m=3, seed=1)
    n = 20_000
    ab = compare_predictions(y, a, b, draws=n, rng=2)
    ba = compare_predictions(y, b, a, draws=n, rng=2)
    p = ab.p_a_better
    tol = K * math.sqrt(2 * p * (1 - p) / n)
    assert abs(ab.p_a_better - ba.p_b_better) < tol
    assert abs(ab.difference.mean + ba.difference.mean) < K * math.sqrt(2) * ab.difference.mc_error
    assert ab.difference.score == pytest.approx(-ba.difference.score)


def test_self_comparison_is_a_fair_coin_in_distribution():
    """P(diff > 0) = 1/2 exactly, so each estimate is Binomial(n, 1/2) / n."""
    c = np.array([[20, 4, 1], [3, 13, 2], [1, 1, 9]])
    reps, n = 40, 5_000
    batch = np.broadcast_to(c, (reps, 3, 3))
    res = compare(batch, batch, draws=n, rng=17)
    z = (np.asarray(res.p_a_better) - 0.5) / math.sqrt(0.25 / n)
    chi2 = float(np.sum(z**2))
    assert stats.chi2.ppf(1e-4, reps) < chi2 < stats.chi2.ppf(1 - 1e-4, reps)
    assert abs(z.mean()) < K / math.sqrt(reps)
    # paired model, a classifier against itself: the prior's disagreement mass is symmetric
    # in the two models, so the difference is symmetric about 0: P(diff > 0) = 1/2 exactly
    y, a, _ = make_pairs(30, 6, 9, 5, m=3, seed=1)
    res = compare_predictions(y, a, a, draws=n, rng=3)
    assert abs(res.p_a_better - 0.5) < K * math.sqrt(0.25 / n)
    assert res.difference.score == 0.0 and res.decision == "undecided"
    assert abs(res.difference.mean) < K * res.difference.mc_error


def test_equivalent_with_enough_data():
    # 50 disagreements, 25 each way, in 3,000 documents: |diff| has posterior sd ~ 0.003
    big = make_pairs(2800, 150, 25, 25, m=3, seed=5)
    small = make_pairs(28, 1, 1, 0, m=3, seed=5)
    for rope in (0.01, 0.03):
        res = compare_predictions(big[0], big[1], big[2], rope=rope, draws=20_000, rng=0)
        assert res.decision == "equivalent", (rope, res.p_equivalent)
    # negative control: one disagreement in 30 documents is not enough
    res = compare_predictions(small[0], small[1], small[2], rope=0.01, draws=20_000, rng=0)
    assert res.decision == "undecided"
    c = np.array([[900, 50, 50], [40, 920, 40], [30, 30, 940]])
    assert compare(c, c, rope=0.02, draws=20_000, rng=0).decision == "equivalent"
    assert compare(c // 50, c // 50, rope=0.02, draws=20_000, rng=0).decision == "undecided"


def test_paired_model_is_more_decisive_than_unpaired():
    y, a, b = make_pairs(170, 14, 12, 4, m=2, seed=0)
    ca = confusion_matrix(y, a).counts
    cb = confusion_matrix(y, b).counts
    paired = compare_predictions(y, a, b, metric="accuracy", draws=40_000, rng=0)
    unpaired = compare(ca, cb, metric="accuracy", draws=40_000, rng=0)
    assert paired.difference.score == pytest.approx(unpaired.difference.score)
    assert paired.decision == "A better" and unpaired.decision == "undecided"
    assert paired.p_a_better > unpaired.p_a_better + 0.05
    assert paired.difference.std < 0.75 * unpaired.difference.std
    # Under the defaults each marginal is the core posterior under the paired marginal prior
    # (paired) or the adaptive prior of the model's own table (unpaired): exact means.
    beta = 0.5
    paired_exact = exact_accuracy_mean(ca, marginal_prior(y, (a, b), "paired", 2), beta)
    unpaired_exact = exact_accuracy_mean(ca, adaptive_alpha(ca), beta)
    assert abs(paired.a.mean - paired_exact) < K * paired.a.mc_error
    assert abs(unpaired.a.mean - unpaired_exact) < K * unpaired.a.mc_error
    # Under a fixed prior the marginals agree: pairing changes the dependence, not each
    # model's posterior
    paired = compare_predictions(y, a, b, metric="accuracy", draws=40_000, rng=0,
                                 alpha="paper", beta="paper")  # fmt: skip
    unpaired = compare(ca, cb, metric="accuracy", draws=40_000, rng=0, alpha="paper",
                       beta="paper")  # fmt: skip
    assert abs(paired.a.mean - unpaired.a.mean) < K * math.hypot(
        paired.a.mc_error, unpaired.a.mc_error
    )


# ---------------------------------------------------------------- shapes and streams


def test_batches_broadcast_and_match_single_calls():
    ca = np.array([[8, 2], [1, 9]])
    cb = np.stack([[[7, 3], [2, 8]], [[9, 1], [1, 9]], [[5, 5], [5, 5]]])
    res = compare(ca, cb, draws=2_000, rng=1)
    assert res.batch_shape == (3,) and res.draws.shape == (3, 2_000)
    assert np.asarray(res.p_a_better).shape == (3,) and res.difference.hdi.shape == (3, 2)
    assert np.asarray(res.decision).shape == (3,)
    single = compare(ca, cb[0], draws=2_000, rng=1)
    assert np.array_equal(res.draws[0], single.draws)
    grid = compare(np.broadcast_to(ca, (2, 3, 2, 2)), cb, draws=500, rng=1)
    assert grid.draws.shape == (2, 3, 500) and np.asarray(grid.p_b_better).shape == (2, 3)
    assert "[1, 2]" in str(grid)


def test_paired_draws_do_not_depend_on_chunking(monkeypatch):
    y, a, b = make_pairs(30, 6, 9, 5, m=3, seed=1)
    full = compare_predictions(y, a, b, draws=9_000, rng=4)
    monkeypatch.setattr(paired, "CHUNK_VARIATES", 2_000)
    chunked = compare_predictions(y, a, b, draws=9_000, rng=4)
    assert np.array_equal(full.draws, chunked.draws)


def test_labels_of_any_type_give_the_same_answer():
    y, a, b = make_pairs(20, 3, 5, 2, m=3, seed=6)
    names = np.array(["ant", "bee", "cat"])
    num = compare_predictions(y, a, b, draws=3_000, rng=8)
    txt = compare_predictions(names[y], names[a].tolist(), list(names[b]), draws=3_000, rng=8)
    assert np.array_equal(num.draws, txt.draws)
    assert txt.labels == ["ant", "bee", "cat"]
    # a class no document has, given explicitly
    extra = compare_predictions(y, a, b, labels=[0, 1, 2, 3], draws=1_000, rng=8)
    assert extra.labels == [0, 1, 2, 3]


def test_result_to_dict_and_str():
    y, a, b = make_pairs(20, 3, 5, 2, m=2, seed=6)
    res = compare_predictions(y, a, b, draws=1_000, rng=8)
    d = res.to_dict()
    json.dumps(d)
    assert set(d) >= {"p_a_better", "p_b_better", "p_equivalent", "decision", "difference"}
    text = str(res)
    assert "P(A better)" in text and "paired" in text and "decision" in text
    assert isinstance(res, Comparison)


# -------------------------------------------------------------------------- rankings


@pytest.mark.parametrize("alpha", [1.0, "adaptive"])
def test_rank_independent_p_best_matches_beta_integrals(alpha):
    tables = np.array([[[20, 5], [4, 11]], [[18, 7], [5, 10]], [[21, 4], [6, 9]]], dtype=float)
    n = 40_000
    r = rank_classifiers(
        tables, metric="accuracy", alpha=alpha, beta="aligned", names=["x", "y", "z"], draws=n,
        rng=12,
    )  # fmt: skip
    dists = []
    for t in tables + _own_alpha(tables, alpha):  # adaptive: each classifier's own table
        dists.append(stats.beta(np.trace(t), t.sum() - np.trace(t)))
    for i, d in enumerate(dists):
        others = [e for j, e in enumerate(dists) if j != i]
        exact = integrate.quad(
            lambda x, d=d, others=others: d.pdf(x) * np.prod([e.cdf(x) for e in others]), 0, 1
        )[0]
        assert abs(r.p_best[i] - exact) < mc_prob_tol(exact, n)
    assert r.rank_probabilities.sum(axis=-1) == pytest.approx(np.ones(3))
    assert r.rank_probabilities.sum(axis=-2) == pytest.approx(np.ones(3))
    assert r.expected_rank == pytest.approx(r.rank_probabilities @ np.arange(1, 4))
    assert r.p_best == pytest.approx(r.rank_probabilities[:, 0])
    assert r.draws.shape == (3, n) and r.summary.mean.shape == (3,)
    assert "E[rank]" in str(r) and isinstance(r, Ranking)
    json.dumps(r.to_dict())


def test_rank_independent_batches():
    t = np.array([[[20, 5], [4, 11]], [[18, 7], [5, 10]]], dtype=float)
    r = rank_classifiers(np.stack([t, t[::-1]]), metric="accuracy", draws=2_000, rng=0)
    assert r.p_best.shape == (2, 2) and r.rank_probabilities.shape == (2, 2, 2)
    assert r.batch_shape == (2,)


def test_rank_paired_two_models_equals_compare():
    y, a, b = make_pairs(30, 6, 9, 5, m=3, seed=1)
    r = rank_predictions(y, {"a": a, "b": b}, draws=10_000, rng=21)
    c = compare_predictions(y, a, b, draws=10_000, rng=21)
    assert r.p_best[0] == pytest.approx(c.p_a_better)
    assert np.array_equal(r.draws[0] - r.draws[1], c.draws)


@pytest.mark.parametrize("prior", ["paper", "adaptive"])
def test_rank_paired_three_models_marginals_exact(prior):
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, 60)
    preds = {
        name: np.where(rng.random(60) < acc, y, rng.integers(0, 3, 60))
        for name, acc in (("p", 0.9), ("q", 0.7), ("r", 0.5))
    }
    kw = {} if prior == "adaptive" else {"alpha": prior, "beta": prior}  # the default
    r = rank_predictions(y, preds, metric="accuracy", draws=40_000, rng=3, **kw)
    # every model's marginal prior: the paper's, or the paired default's (beta = 1/M)
    alpha = marginal_prior(y, list(preds.values()), prior, 3)
    beta = 1.0 if prior == "paper" else 1.0 / 3
    for i, pred in enumerate(preds.values()):
        counts = confusion_matrix(y, pred, labels=[0, 1, 2]).counts
        exact = exact_accuracy_mean(counts, alpha, beta)
        assert abs(r.summary.mean[i] - exact) < K * r.summary.mc_error[i]
    assert r.names == ["p", "q", "r"]
    assert np.argmin(r.expected_rank) == 0
    seq = rank_predictions(y, list(preds.values()), metric="accuracy", draws=1_000, rng=3)
    assert seq.names == ["model 0", "model 1", "model 2"]


# ------------------------------------------------------------------------ bad inputs


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: compare_predictions([0, 1, 1], [0, 1], [0, 1, 1]), ValueError,
         r"pred_a must hold one prediction per document of y_true \(3\); got 2"),
        (lambda: compare_predictions([0, 1], [0, 1], [0, 1, 0]), ValueError,
         r"pred_b must hold one prediction per document of y_true \(2\); got 3"),
        (lambda: compare_predictions(["x", "y"], ["x", "y"], ["x", "z"]), ValueError,
         r"pred_b predicts labels that never occur in y_true: \['z'\].*different label sets"),
        (lambda: compare_predictions([0, 1], ["0", "1"], ["0", "1"]), TypeError,
         r"same type; got number labels in y_true, str labels in pred_a"),
        (lambda: compare_predictions([0, 1], [0, 1], [0, 2], labels=[0, 1]), ValueError,
         r"pred_b holds labels not in labels=\[0, 1\]: \[2\]"),
        (lambda: compare_predictions([0, 1], [0, 1], [0, 1], labels=[0, 0]), ValueError,
         r"labels must be distinct"),
        (lambda: compare_predictions([], [], []), ValueError, r"y_true must hold at least one"),
        (lambda: compare_predictions("01", [0, 1], [0, 1]), TypeError,
         r"y_true must be a 1-D sequence"),
        (lambda: compare([[1, 2], [3, 4]], [[1, 2, 3]] * 3), ValueError,
         r"counts_a and counts_b must have the same classes.*2 x 2 and 3 x 3"),
        (lambda: compare(np.ones((2, 2, 2)), np.ones((3, 2, 2))), ValueError,
         r"broadcastable batch shapes; got \(2,\) and \(3,\)"),
        (lambda: compare([[1, 2], [3, 4]], [[1, 2], [3, 4]], metric="f2"), ValueError,
         r"metric must name known metrics .*got 'f2'"),
        (lambda: compare([[1, 2], [3, 4]], [[1, 2], [3, 4]], metric="f1"), ValueError,
         r"metric must be a single-number metric .*got 'f1'"),
        (lambda: compare_predictions([0, 1], [0, 1], [0, 1], metric="nope"), ValueError,
         r"metric must name known metrics"),
        (lambda: compare([[1, 2], [3, 4]], [[1, 2], [3, 4]], rope=-0.1), ValueError,
         r"rope must be a finite number >= 0; got -0.1"),
        (lambda: compare([[1, 2], [3, 4]], [[1, 2], [3, 4]], rope="0.1"), TypeError,
         r"rope must be a finite number >= 0; got '0.1'"),
        (lambda: compare([[1, 2], [3, 4]], [[1, 2], [3, 4]], prob=0.4), ValueError,
         r"prob must be in \(0.5, 1\) so that at most one decision reaches it; got 0.4"),
        (lambda: compare([[1, 2], [3, 4]], [[-1, 2], [3, 4]]), ValueError,
         r"counts_b must be non-negative"),
        (lambda: compare_predictions([0, 1], [0, 1], [0, 1], alpha=-1.0), ValueError,
         r"alpha must be finite, > 0 and at most 1e300 everywhere; got minimum -1.0"),
        (lambda: compare_predictions([0, 1], [0, 1], [0, 1], alpha="flat"), ValueError,
         r"alpha must be a positive number, an array or one of 'hierarchical', 'adaptive', 'paper', 'uniform', "
         r"'jeffreys', 'perks'; got 'flat'"),
        (lambda: compare_predictions([0, 1], [0, 1], [0, 1], beta="flat"), ValueError,
         r"beta must be a positive number, an array or one of 'hierarchical', 'adaptive', 'paper', 'uniform', "
         r"'jeffreys', 'perks', 'aligned'; got 'flat'"),
        (lambda: compare_predictions([0, 1], [0, 1], [0, 1], alpha=np.ones(5)), ValueError,
         r"alpha must broadcast to shape \(2, 2\) \(it may not add batch axes\); got shape "
         r"\(5,\)"),
        (lambda: rank_classifiers([[1, 2], [3, 4]]), ValueError,
         r"counts must stack k >= 2 confusion matrices.*got shape \(2, 2\)"),
        (lambda: rank_classifiers(np.ones((2, 2, 2)), names=["a"]), ValueError,
         r"names must be 2 distinct names \(visible text\), one per classifier; got \[.a.\]"),
        (lambda: rank_predictions([0, 1], {"a": [0, 1]}), ValueError,
         r"predictions must hold k >= 2 classifiers; got 1"),
        (lambda: rank_predictions([0, 1], 5), TypeError,
         r"predictions must be a mapping of name to predictions"),
    ],
)  # fmt: skip
def test_bad_inputs(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_exported_from_package():
    for name in ("compare", "compare_predictions", "rank_classifiers", "rank_predictions"):
        assert name in f1posterior.__all__ and callable(getattr(f1posterior, name))
    assert "prior_sensitivity" in f1posterior.__all__


# ------------------------------------------------------------------------- command line


@pytest.fixture()
def files(tmp_path):
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    c = tmp_path / "c.json"
    a.write_text(json.dumps({"matrix": [[40, 5], [4, 51]], "labels": ["neg", "pos"]}))
    # same classes, other order: rows and columns are permuted back
    b.write_text(json.dumps({"matrix": [[45, 10], [6, 39]], "labels": ["pos", "neg"]}))
    c.write_text(json.dumps([[30, 15], [15, 40]]))
    y, pa, pb = make_pairs(170, 14, 12, 4, m=2, seed=0)
    rng = np.random.default_rng(1)
    pc = np.where(rng.random(y.size) < 0.6, y, 1 - y)
    lines = ["doc,y_true,alpha,beta,gamma"]
    names = np.array(["neg", "pos"])
    lines += [
        f"{i},{names[t]},{names[u]},{names[v]},{names[w]}"
        for i, (t, u, v, w) in enumerate(zip(y, pa, pb, pc, strict=True))
    ]
    p = tmp_path / "preds.csv"
    p.write_text("\n".join(lines) + "\n")
    return a, b, c, p


def test_cli_compare_files(files, capsys):
    a, b, c, _ = files
    assert main(["compare", str(a), str(b), "--draws", "4000", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    res = compare(
        [[40, 5], [4, 51]], [[39, 6], [10, 45]], draws=4000, rng=20150927, metric="macro_f1"
    )
    assert out["p_a_better"] == pytest.approx(res.p_a_better)
    assert out["models"] == {"A": str(a), "B": str(b)}
    assert main(["compare", str(a), str(b), "--draws", "2000", "--rope", "0.01"]) == 0
    text = capsys.readouterr().out
    assert "P(A better)" in text and "independent test sets" in text
    assert main(["compare", str(a), str(b), str(c), "--draws", "2000"]) == 0
    assert "P(best)" in capsys.readouterr().out


def test_cli_compare_paired_predictions(files, capsys):
    _, _, _, p = files
    args = ["compare", "--predictions", str(p), "--models", "alpha", "beta", "--draws", "4000"]
    assert main([*args, "--metric", "accuracy", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["paired"] is True and out["decision"] == "A better"
    assert out["labels"] == ["neg", "pos"]
    assert main([*args, "--prior", "jeffreys"]) == 0
    assert "alpha=0.5" in capsys.readouterr().out
    assert main(["compare", "--predictions", str(p), "--models", "alpha", "beta", "gamma",
                 "--draws", "2000"]) == 0  # fmt: skip
    assert "Ranking" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["{a}"], "needs two or more confusion-matrix FILEs"),
        (["{a}", "{c}", "--predictions", "{p}"], "not both"),
        (["--predictions", "{p}"], "column 'doc' holds labels that never occur in y_true"),
        (["--predictions", "{p}", "--models", "alpha", "nope"], "no column 'nope'"),
        (["--predictions", "{p}", "--models", "alpha"], "at least two model columns"),
        (["{a}", "{bad}"], "different class labels"),
        (["{a}", "{c}", "--prob", "0.3"], r"prob must be in \(0.5, 1\)"),
        (["{a}", "{c}", "--rope", "-1"], "expected a number >= 0"),
        (["{a}", "{missing}"], "no such file"),
    ],
)
def test_cli_compare_errors(files, tmp_path, capsys, argv, match):
    a, _, c, p = files
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"matrix": [[1, 2], [3, 4]], "labels": ["neg", "other"]}))
    paths = dict(a=a, c=c, p=p, bad=bad, missing=tmp_path / "missing.json")
    try:
        status = main(["compare", *(x.format(**paths) for x in argv)])
    except SystemExit as exc:  # argparse usage errors
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert __import__("re").search(match, err), err


def test_docs_examples_run_and_match_quoted_numbers(capsys):
    """Execute the Python blocks of docs/compare.md and check the numbers it quotes."""
    import pathlib
    import re

    doc = pathlib.Path(__file__).resolve().parent.parent / "docs" / "compare.md"
    blocks = re.findall(r"```python\n(.*?)```", doc.read_text(), flags=re.S)
    assert len(blocks) == 2
    ns: dict = {}
    for block in blocks:
        exec(block, ns)
    capsys.readouterr()
    paired, unpaired, res = ns["paired"], ns["unpaired"], ns["res"]
    n = 50_000
    assert paired.decision == "A better" and unpaired.decision == "undecided"
    assert abs(paired.p_a_better - 0.9778) < mc_prob_tol(0.9778, n)
    assert abs(unpaired.p_a_better - 0.8980) < mc_prob_tol(0.8980, n)
    assert paired.difference.std == pytest.approx(0.0207, abs=0.001)
    assert unpaired.difference.std == pytest.approx(0.0315, abs=0.001)
    assert paired.a.score == pytest.approx(0.91) and paired.b.score == pytest.approx(0.87)
    uni = res.summaries["paper"]  # alpha = beta = 1
    assert uni.score == pytest.approx(0.832, abs=5e-4)
    assert abs(uni.mean - 0.6599) < K * uni.mc_error
    default = res.summaries["adaptive"]
    assert abs(default.mean - 0.7747) < K * default.mc_error
    assert res.sensitive is True and abs(res.shift["paper"] - 0.35) < 0.05


def _doc_pairs():
    y = np.repeat([0, 1], 100)
    a_right = np.tile(np.repeat([1, 0, 1, 0], [85, 7, 6, 2]), 2).astype(bool)
    b_right = np.tile(np.repeat([1, 0, 0, 1], [85, 7, 6, 2]), 2).astype(bool)
    return y, np.where(a_right, y, 1 - y), np.where(b_right, y, 1 - y)


def test_gate_baseline_uses_paired_model():
    from f1posterior.gating._gate import gate

    y, pa, pb = _doc_pairs()
    ca, cb = confusion_matrix(y, pa).counts, confusion_matrix(y, pb).counts
    pair = dict(y_true=y, y_pred=pa, baseline_pred=pb)
    res = gate(checks=[NonInferiority("macro_f1")], draws=20_000, rng=7, **pair)
    ref = compare_predictions(
        y, pa, pb, draws=20_000, rng=np.random.SeedSequence(7, spawn_key=(2,))
    )
    (check,) = res.checks
    assert check.prob == pytest.approx(np.mean(ref.draws >= 0))
    assert res.passed and "paired" in str(res)
    indep = gate(ca, [NonInferiority("macro_f1")], baseline=cb, draws=20_000, rng=7)
    assert not indep.passed  # the independent model cannot tell them apart
    with pytest.raises(ValueError, match=r"paired baseline comparisons take single-number"):
        gate(checks=[NonInferiority("f1")], draws=100, **pair)


def test_gate_cli_pairs_prediction_files_with_the_same_documents(tmp_path, capsys):
    y, pa, pb = _doc_pairs()
    paths = []
    for name, pred in (("new", pa), ("base", pb)):
        p = tmp_path / f"{name}.csv"
        p.write_text(
            "y_true,y_pred\n" + "".join(f"{t},{q}\n" for t, q in zip(y, pred, strict=True))
        )
        paths.append(str(p))
    argv = ["gate", paths[0], "--baseline", paths[1], "--metric", "macro_f1", "--draws", "20000"]
    assert main(argv) == 0
    assert "paired model (same documents)" in capsys.readouterr().out
    # other documents (shuffled y_true): independent samples
    other = tmp_path / "other.csv"
    order = np.random.default_rng(0).permutation(y.size)
    other.write_text(
        "y_true,y_pred\n" + "".join(f"{t},{q}\n" for t, q in zip(y[order], pb, strict=True))
    )
    main(["gate", paths[0], "--baseline", str(other), "--metric", "macro_f1", "--draws", "2000"])
    assert "independent posteriors" in capsys.readouterr().out


# ------------------------------------------------- command line: markdown, plot, report

HOSTILE = "a|b<script>"


@pytest.fixture()
def hostile_preds(tmp_path):
    y, pa, pb = make_pairs(60, 5, 10, 2, m=2, seed=3)
    lines = [f'y_true,"{HOSTILE}",plain']  # a quoted CSV header cell
    lines += [f"{t},{u},{v}" for t, u, v in zip(y, pa, pb, strict=True)]
    p = tmp_path / "hostile.csv"
    p.write_text("\n".join(lines) + "\n")
    return p


def test_cli_compare_markdown_escapes_names(hostile_preds, capsys):
    argv = ["compare", "--predictions", str(hostile_preds), "--draws", "2000", "--seed", "1"]
    assert main([*argv, "--format", "markdown"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "a\\|b&lt;script&gt;" in out and HOSTILE not in out and "<script>" not in out
    rows = [line for line in out.splitlines() if line.startswith("| A |")]
    assert len(rows) == 1 and rows[0].count(" | ") == 5  # the escaped pipe splits no cell
    assert "P(A better) = " in out and "Decision at probability 0.95" in out
    # the same numbers as the JSON output
    assert main([*argv, "--format", "json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert f"P(A better) = {res['p_a_better']:.4f}" in out


def test_cli_compare_ranking_markdown_has_pairwise(hostile_preds, tmp_path, capsys):
    text = hostile_preds.read_text().splitlines()
    rng = np.random.default_rng(0)
    more = [text[0] + ",third"] + [f"{r},{rng.integers(0, 2)}" for r in text[1:]]
    f = tmp_path / "three.csv"
    f.write_text("\n".join(more) + "\n")
    assert main(["compare", "--predictions", str(f), "--draws", "2000", "--format",
                 "markdown"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "| P(row better than column) |" in out and "<script>" not in out
    assert out.count("a\\|b&lt;script&gt;") == 3  # ranking row, pairwise column and row


def test_cli_compare_plot_and_report(hostile_preds, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png, html_path, md = tmp_path / "c.png", tmp_path / "c.html", tmp_path / "c.md"
    argv = ["compare", "--predictions", str(hostile_preds), "--draws", "2000"]
    assert main([*argv, "--plot", str(png), "--report", str(html_path)]) == 0
    _, err = capsys.readouterr()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = html_path.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    assert "a|b&lt;script&gt;" in page and "<script>" not in page
    assert f"report written to {html_path}" in err
    assert main([*argv, "--report", str(md)]) == 0
    assert "data:image/png;base64," in md.read_text()


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--plot", "out.txt"], r"--plot: expected a file name ending in \.png, \.svg, \.pdf"),
        (["--report", "out.pdf"], r"--report: expected a file name ending in \.html"),
        (["--format", "csv"], r"--format: invalid choice: 'csv'"),
        (["--report", "{missing}/r.html"], r"No such file or directory"),
    ],
)
def test_cli_compare_output_errors(hostile_preds, tmp_path, capsys, extra, match):
    argv = ["compare", "--predictions", str(hostile_preds), "--draws", "500"]
    extra = [x.format(missing=tmp_path / "nope") for x in extra]
    try:
        status = main([*argv, *extra])
    except SystemExit as exc:  # argparse usage errors
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert __import__("re").search(match, err), err
