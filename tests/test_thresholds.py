"""Tests of f1posterior.analysis.thresholds against brute force, enumeration and closed forms."""

from __future__ import annotations

import inspect
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import integrate, stats
from sklearn.metrics import fbeta_score as sk_fbeta
from sklearn.metrics import multilabel_confusion_matrix

from f1posterior import evaluate
from f1posterior.analysis.thresholds import (
    best_threshold,
    break_even_cutoff,
    calibrated_cutoff,
    evaluate_threshold,
    expected_fbeta,
    expected_fbeta_decisions,
    proportional_cutoff,
    top_k_cutoff,
)
from f1posterior.metrics._multiclass import fbeta

# --- brute-force oracles ---------------------------------------------------------------


def _f(tp, k, pos, b2, zd=0.0):
    den = b2 * pos + k
    return zd if den == 0 else (1 + b2) * tp / den


def brute_best(s, y, b2, zd=0.0):
    """Every candidate threshold (each distinct score, and +inf) scored directly."""
    cands = sorted(set(s.tolist()) | {np.inf}, reverse=True)
    vals = []
    for t in cands:
        pred = s >= t
        vals.append((_f(int((pred & y).sum()), int(pred.sum()), int(y.sum()), b2, zd), t))
    best = max(v for v, _ in vals)
    tied = [t for v, t in vals if v >= best - 1e-12 * best]
    return best, max(tied)


def enum_expected(p, d, b2, zd=0.0):
    """E[F-beta] of decisions d by enumerating all 2**n outcomes."""
    n = len(p)
    total = 0.0
    for y in itertools.product([0, 1], repeat=n):
        y = np.array(y, dtype=bool)
        w = np.prod(np.where(y, p, 1 - p))
        total += w * _f(int((y & d).sum()), int(d.sum()), int(y.sum()), b2, zd)
    return total


def enum_all_decisions(p, b2):
    """Expected F-beta of every one of the 2**n decision sets, vectorised; returns (2**n,)."""
    n = len(p)
    outs = np.array(list(itertools.product([0, 1], repeat=n)), dtype=np.float64)  # (2^n, n)
    w = np.prod(np.where(outs == 1, p, 1 - p), axis=1)
    a = outs.sum(1)
    res = []
    for d0 in range(0, len(outs), 512):
        dec = outs[d0 : d0 + 512]
        tp = outs @ dec.T  # (outcomes, decisions)
        den = b2 * a[:, None] + dec.sum(1)[None, :]
        with np.errstate(invalid="ignore"):
            f = np.where(den > 0, (1 + b2) * tp / np.where(den > 0, den, 1), 0.0)
        res.append(w @ f)
    return outs.astype(bool), np.concatenate(res)


def _sk_table(y, pred):
    """scikit-learn's [[tn, fp], [fn, tp]] for one label."""
    return multilabel_confusion_matrix(y.astype(int), pred.astype(int), labels=[1])[0]


# --- best_threshold ---------------------------------------------------------------------

betas = st.sampled_from([0.5, 1.0, 2.0])


@st.composite
def scored(draw, max_labels=3):
    n = draw(st.integers(1, 25))
    n_lab = draw(st.integers(1, max_labels))
    levels = draw(st.integers(1, 6))  # few distinct values: many ties
    s = draw(st.lists(st.integers(0, levels), min_size=n * n_lab, max_size=n * n_lab))
    y = draw(st.lists(st.booleans(), min_size=n * n_lab, max_size=n * n_lab))
    return (np.array(s, float).reshape(n, n_lab) / levels, np.array(y).reshape(n, n_lab))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scored(), betas, st.sampled_from([0.0, 1.0]))
def test_sweep_matches_brute_force_per_label(data, beta, zd):
    s, y = data
    r = best_threshold(y, s, beta=beta, zero_division=zd)
    for j in range(s.shape[1]):
        best, thr = brute_best(s[:, j], y[:, j], beta * beta, zd)
        assert r.score[j] == pytest.approx(best, rel=1e-12, abs=1e-15)
        assert r.threshold[j] == thr
        pred = s[:, j] >= r.threshold[j]
        np.testing.assert_array_equal(r.table[j], _sk_table(y[:, j], pred))
    # the tables are the core's layout: binary F-beta of the table is the score
    np.testing.assert_allclose(
        fbeta(r.table, beta=beta, average="binary", zero_division=zd), r.score, atol=1e-12
    )


@settings(max_examples=60, deadline=None)
@given(scored(max_labels=4), betas)
def test_sweep_matches_brute_force_shared(data, beta):
    s, y = data
    r = best_threshold(y, s, beta=beta, strategy="shared")
    best, thr = brute_best(s.ravel(), y.ravel(), beta * beta)
    assert r.score == pytest.approx(best, rel=1e-12, abs=1e-15)
    assert r.threshold == thr
    pred = s >= r.threshold
    for j in range(s.shape[1]):
        np.testing.assert_array_equal(r.table[j], _sk_table(y[:, j], pred[:, j]))
    if y.any():
        assert r.score == pytest.approx(
            sk_fbeta(
                y.ravel(), pred.ravel(), beta=beta, zero_division=0
            )  # micro = pooled, abs=1e-12
        )


def test_one_dimensional_input_gives_scalars_and_tied_scores_go_together():
    r = best_threshold([1, 0, 0, 1], [0.5, 0.5, 0.5, 0.1])
    assert isinstance(r.threshold, float) and isinstance(r.score, float)
    assert r.table.shape == (2, 2)
    # the 3 tied scores can only be predicted together: F = 2*1/(2+3) < F(all) = 4/6
    assert r.threshold == 0.1 and r.score == pytest.approx(2 * 2 / (2 + 4))
    np.testing.assert_array_equal(r.predict([0.5, 0.05]), [True, False])


def test_all_negative_truth_predicts_nothing_with_documented_score():
    r = best_threshold([[0, 1], [0, 0]], [[0.9, 0.2], [0.1, 0.8]])
    assert r.threshold[0] == np.inf and r.score[0] == 0.0
    np.testing.assert_array_equal(r.table[0], [[2, 0], [0, 0]])
    r1 = best_threshold([0, 0], [0.9, 0.1], zero_division=1)
    assert r1.threshold == np.inf and r1.score == 1.0


def test_uninformative_constant_scores_predict_all_theorem_4_3():
    y = np.zeros(1000, dtype=bool)
    y[:37] = True
    r = best_threshold(y, np.full(1000, 0.037))
    assert r.table[1, 1] + r.table[0, 1] == 1000
    assert r.score == pytest.approx(2 * 0.037 / 1.037)


# --- exact expected F-beta --------------------------------------------------------------


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("zd", [0.0, 1.0])
def test_expected_fbeta_equals_enumeration_over_all_outcomes(beta, zd):
    gen = np.random.default_rng(11)
    for n in (1, 2, 5, 9):
        p = gen.random(n) ** gen.uniform(0.3, 3.0)
        p[0] = [0.0, 1.0, 0.5, 0.999][n % 4]  # boundary and symmetric values
        d = gen.random(n) < 0.5
        got = expected_fbeta(p, d, beta=beta, zero_division=zd)
        assert got == pytest.approx(enum_expected(p, d, beta * beta, zd), abs=1e-12)


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_expected_decisions_optimal_against_all_decision_sets(beta):
    gen = np.random.default_rng(5)
    for n, shape in ((4, 1.0), (8, 0.4), (12, 2.5), (12, 0.7)):
        p = gen.beta(shape, 2.0, size=n)
        r = expected_fbeta_decisions(p, beta=beta)
        sets, values = enum_all_decisions(p, beta * beta)
        assert r.expected == pytest.approx(values.max(), abs=1e-12)
        # our decisions' own expectation, by enumeration, is that maximum
        assert enum_expected(p, r.decisions, beta * beta) == pytest.approx(values.max(), abs=1e-12)
        np.testing.assert_allclose(
            r.curve, [values[sets.sum(1) == k].max() for k in range(n + 1)], atol=1e-12
        )


def test_expected_decisions_per_label_and_shared():
    gen = np.random.default_rng(2)
    p = gen.beta(0.5, 3.0, size=(9, 3))
    r = expected_fbeta_decisions(p)
    assert r.decisions.shape == (9, 3) and r.expected.shape == (3,)
    for j in range(3):
        rj = expected_fbeta_decisions(p[:, j])
        np.testing.assert_array_equal(r.decisions[:, j], rj.decisions)
        assert r.expected[j] == pytest.approx(rj.expected, abs=1e-14)
    shared = expected_fbeta_decisions(p, strategy="shared")
    flat = expected_fbeta_decisions(p.ravel())
    np.testing.assert_array_equal(shared.decisions.ravel(), flat.decisions)
    assert shared.expected == pytest.approx(flat.expected)


@pytest.mark.parametrize("b", [0.5, 0.1, 0.01])
def test_uninformative_calibrated_predicts_all_with_exact_binomial_expectation(b):
    n = 200
    r = expected_fbeta_decisions(np.full(n, b))
    assert r.n_positive == n
    a = np.arange(n + 1)
    exact = np.sum(stats.binom.pmf(a, n, b) * 2 * a / (a + n))  # c = n predicted
    assert r.expected == pytest.approx(exact, abs=1e-12)
    # Jensen gap to 2b/(1+b) is O(1/n): E[2A/(A+n)] ~ 2b/(1+b) - 2 b (1-b) / (n (1+b)^3)
    assert abs(r.expected - 2 * b / (1 + b)) < 4 * b * (1 - b) / (n * (1 + b) ** 3) + 1e-9


def test_half_f_star_relation_on_large_calibrated_batch():
    """Theorem 4.2 / Corollary 1: the optimal cut is at F*/(1+beta^2) up to O(1/n).

    The marginal gain of predicting one more item with probability s is
    proportional to s - E[TP/(b^2 A + k)]; replacing the expectation of the
    ratio by the ratio of expectations (where the cut is exactly F*/(1+b^2))
    errs by the delta-method term Var(A)/(E[A] + k/b^2)^2 relative, so the cut
    lies within tol = 4 * F*/(1+b^2) * Var(A)/(E[A] + k/b^2)^2 of the relation,
    plus the spacing of neighbouring probabilities.
    """
    gen = np.random.default_rng(3)
    n = 3000
    for beta, (a_, b_) in ((1.0, (2.0, 5.0)), (2.0, (0.5, 4.0)), (0.5, (1.0, 1.0))):
        p = gen.beta(a_, b_, size=n)
        r = expected_fbeta_decisions(p, beta=beta)
        b2 = beta * beta
        var_a, mean_a = np.sum(p * (1 - p)), p.sum()
        tol = 4 * r.theory_threshold * var_a / (mean_a + r.n_positive / b2) ** 2
        assert r.next_probability - tol <= r.theory_threshold <= r.threshold + tol
        assert r.threshold - r.next_probability < 0.01  # the bracket is tight
        # negative control: a wrong relation (F*/3 for F1) falls outside the bracket
        wrong = r.expected / (2.0 + b2)
        assert not (r.next_probability - tol <= wrong <= r.threshold + tol)


def test_population_optimal_threshold_is_half_optimal_f1():
    """Corollary 1 in the population: p ~ Beta(a, b), truth ~ Bernoulli(p)."""
    a, b = 2.0, 5.0
    mean = a / (a + b)

    def f1(t):
        tp = mean * stats.beta.sf(t, a + 1, b)  # E[p 1{p >= t}]
        return 2 * tp / (mean + stats.beta.sf(t, a, b))

    grid = np.linspace(0.0, 0.99, 99_001)
    vals = f1(grid)
    t_star = grid[np.argmax(vals)]
    assert t_star == pytest.approx(vals.max() / 2, abs=2e-5)
    # check the closed form of E[p 1{p >= t}] by quadrature
    num = integrate.quad(lambda x: x * stats.beta.pdf(x, a, b), 0.3, 1)[0]
    assert num == pytest.approx(mean * stats.beta.sf(0.3, a + 1, b), rel=1e-9)


# --- rank cut-offs ----------------------------------------------------------------------


def test_rank_cutoffs_against_loops():
    gen = np.random.default_rng(8)
    s = np.round(gen.random((12, 7)), 1)  # ties
    y = gen.random((12, 7)) < 0.3
    y_train = gen.random((40, 7)) < gen.random(7)
    k = gen.integers(0, 8, size=12)
    r = top_k_cutoff(s, k)
    for i in range(12):
        order = sorted(range(7), key=lambda j: (-s[i, j], j))
        np.testing.assert_array_equal(np.flatnonzero(r.decisions[i]), sorted(order[: k[i]]))
    lab = top_k_cutoff(s, 3, pivot="label")
    assert (lab.decisions.sum(0) == 3).all()
    prop = proportional_cutoff(y_train, s)
    np.testing.assert_array_equal(prop.k, np.ceil(12 / 40 * y_train.sum(0) - 1e-9))
    assert (prop.decisions.sum(0) == prop.k).all()
    doc = proportional_cutoff(y_train, s, pivot="document")
    assert (doc.k == np.ceil(np.median(y_train.sum(1)))).all()
    cal = calibrated_cutoff(y, s)
    tp = (cal.decisions & y).sum(1)
    np.testing.assert_array_equal(cal.decisions.sum(1), y.sum(1))  # precision == recall
    assert (tp <= y.sum(1)).all()
    for beta in (1.0, 2.0):
        bep = break_even_cutoff(y, s, beta=beta)
        for i in range(12):
            order = sorted(range(7), key=lambda j: (-s[i, j], j))
            fs = [_f(int(y[i, order[:kk]].sum()), kk, int(y[i].sum()), beta**2) for kk in range(8)]
            assert bep.k[i] == int(np.argmax(np.array(fs) >= max(fs) - 1e-12))


# --- evaluate_threshold -----------------------------------------------------------------


def test_evaluate_threshold_cross_fitting_reconstructed_independently():
    gen = np.random.default_rng(4)
    y = gen.random((300, 3)) < np.array([0.4, 0.1, 0.02])
    s = np.round(np.where(y, gen.normal(1.0, 1.0, y.shape), gen.normal(0, 1, y.shape)), 2)
    r = evaluate_threshold(y, s, folds=4, draws=3000, rng=9)
    assert r.metric == "macro_fbeta" and r.table.shape == (3, 2, 2)
    assert (r.table.sum(axis=(1, 2)) == 300).all()
    pred = np.zeros_like(y)
    for f in range(4):
        tr, te = r.fold_index != f, r.fold_index == f
        for j in range(3):
            _, thr = brute_best(s[tr, j], y[tr, j], 1.0)
            assert r.thresholds[f, j] == thr
            pred[te, j] = s[te, j] >= thr
    np.testing.assert_array_equal(r.table, multilabel_confusion_matrix(y, pred))
    f1s = sk_fbeta(y, pred, beta=1.0, average=None, zero_division=0)
    np.testing.assert_allclose(r.summaries["fbeta"].score, f1s, atol=1e-12)
    assert r.held_out.score == pytest.approx(f1s.mean())
    assert r.summaries["micro_fbeta"].score == pytest.approx(
        sk_fbeta(y, pred, beta=1.0, average="micro")
    )
    # the per-label posterior is the core's, draw for draw
    core = evaluate(
        r.table,
        metrics=[lambda t: fbeta(t, beta=1.0, average="binary", zero_division=0)],
        draws=3000,
        rng=np.random.SeedSequence(r.seed.entropy, spawn_key=(1,)),
    )
    np.testing.assert_allclose(next(iter(core.values())).mean, r.summaries["fbeta"].mean)
    again = evaluate_threshold(y, s, folds=4, draws=3000, rng=9)
    assert again.held_out.mean == r.held_out.mean


def test_evaluate_threshold_posterior_matches_exact_beta_oracle():
    """Aligned prior: F1 = 2B/(1+B), B ~ Beta(A11, n + 4 - 2 A11 - A00) (DESIGN.md)."""
    gen = np.random.default_rng(6)
    y = gen.random(500) < 0.3
    s = np.where(y, gen.normal(0.8, 1, 500), gen.normal(0, 1, 500))
    draws = 40_000
    r = evaluate_threshold(y, s, folds=5, draws=draws, prior="aligned", rng=2)
    a = r.table + 1.0
    beta_dist = stats.beta(a[1, 1], a[1, 0] + a[0, 1])
    mean = integrate.quad(lambda x: 2 * x / (1 + x) * beta_dist.pdf(x), 0, 1)[0]
    assert abs(r.held_out.mean - mean) < 5 * r.held_out.mc_error
    assert r.metric == "fbeta" and isinstance(r.in_sample, float)


def test_winners_curse_uninformative_scores_are_optimistic():
    gen = np.random.default_rng(1)
    y = gen.random(2000) < 0.05
    s = gen.normal(size=2000)  # independent of y
    r = evaluate_threshold(y, s, folds=5, draws=4000, rng=3)
    # in-sample F1 of an uninformative score beats the all-positive 2b/(1+b) by luck
    assert r.in_sample > 2 * y.mean() / (1 + y.mean())
    assert r.optimism > 0 and r.held_out.score < r.in_sample
    # any rule's true F1 is at most ~2b/(1+b) here; the held-out posterior does not
    # claim more, while the in-sample figure does
    b = y.mean()
    assert r.held_out.hdi[0] < 2 * b / (1 + b) < r.in_sample


# --- bad inputs -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"y_score": [0.1, np.nan]}, ValueError, r"y_score must be finite .*nan at index \(1,\)"),
        ({"y_score": [0.1, np.inf]}, ValueError, r"y_score must be finite"),
        ({"y_score": "abc"}, TypeError, r"y_score must be an array of real numbers; got 'abc'"),
        (
            {"y_score": [True, False]},
            TypeError,
            r"y_score must hold integers or floats; got dtype bool",
        ),
        (
            {"y_score": np.zeros((2, 2, 2))},
            ValueError,
            r"shape \(n,\) or \(D documents.*\(2, 2, 2\)",
        ),
        ({"y_score": []}, ValueError, r"non-empty.*got shape \(0,\)"),
        ({"y_true": [0, 2]}, ValueError, r"y_true must hold only 0 and 1; got 2 at index \(1,\)"),
        (
            {"y_true": [0, 0.5]},
            ValueError,
            r"y_true must hold only 0 and 1; got 0.5 at index \(1,\)",
        ),
        (
            {"y_true": ["a", "b"]},
            TypeError,
            r"y_true must hold 0/1 indicators as bools, integers or floats; got dtype <U1",
        ),
        ({"y_true": [0, 1, 1]}, ValueError, r"same shape as y_score, \(2,\); got shape \(3,\)"),
        ({"beta": 0}, ValueError, r"beta must be a finite number > 0; got 0"),
        ({"strategy": "macro"}, ValueError, r"strategy must be one of 'per_label', 'shared'"),
        ({"zero_division": "warn"}, ValueError, r"zero_division must be 0 or 1; got 'warn'"),
    ],
)
def test_best_threshold_bad_inputs(kwargs, exc, match):
    args = {"y_score": [0.1, 0.2], "y_true": [0, 1], **kwargs}
    s, y = args.pop("y_score"), args.pop("y_true")
    with pytest.raises(exc, match=match):
        best_threshold(y, s, **args)


def test_expected_and_cutoff_bad_inputs():
    with pytest.raises(ValueError, match=r"probabilities must lie in \[0, 1\]; got 1.5"):
        expected_fbeta_decisions([0.2, 1.5])
    with pytest.raises(ValueError, match=r"probabilities must be finite"):
        expected_fbeta_decisions([0.2, np.nan])
    with pytest.raises(ValueError, match=r"probabilities must have shape \(n,\); got shape"):
        expected_fbeta([[0.2]], [[1]])
    with pytest.raises(ValueError, match=r"decisions must have the same shape as probabilities"):
        expected_fbeta([0.2, 0.3], [1])
    with pytest.raises(ValueError, match=r"y_score must be a \(D documents, L labels\) matrix"):
        top_k_cutoff([0.1, 0.2], 1)
    with pytest.raises(ValueError, match=r"k must lie in \[0, 2\]; got 3"):
        top_k_cutoff([[0.1, 0.2]], 3)
    with pytest.raises(
        ValueError, match=r"k must be an integer or 1 integers \(one per document\)"
    ):
        top_k_cutoff([[0.1, 0.2]], 1.5)
    with pytest.raises(ValueError, match=r"pivot must be one of 'document', 'label'"):
        top_k_cutoff([[0.1, 0.2]], 1, pivot="row")
    with pytest.raises(ValueError, match=r"y_train must have shape \(D_train, 2\).*\(3, 3\)"):
        proportional_cutoff(np.zeros((3, 3)), [[0.1, 0.2]])
    with pytest.raises(ValueError, match=r"y_train must hold only 0 and 1"):
        proportional_cutoff([[0, 3]], [[0.1, 0.2]])


def test_evaluate_threshold_bad_inputs():
    s, y = [0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1]
    with pytest.raises(ValueError, match=r"folds must be an integer in \[2, 4\].*got 5"):
        evaluate_threshold(y, s, folds=5)
    with pytest.raises(TypeError, match=r"folds must be an integer >= 2; got 2.0"):
        evaluate_threshold(y, s, folds=2.0)
    with pytest.raises(ValueError, match=r"prior must be a preset name .*got 3"):
        evaluate_threshold(y, s, folds=2, prior=3)
    with pytest.raises(ValueError, match=r"draws must be an integer >= 1; got 0"):
        evaluate_threshold(y, s, folds=2, draws=0)


def test_docs_examples_run():
    """Every ```python block of docs/thresholds.md runs (and its asserts hold)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "thresholds.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/thresholds.md", "exec"), {})


@pytest.mark.parametrize(
    ("func", "first"),
    [
        (best_threshold, "y_true"),
        (calibrated_cutoff, "y_true"),
        (break_even_cutoff, "y_true"),
        (evaluate_threshold, "y_true"),
        (proportional_cutoff, "y_train"),
    ],
)
def test_labels_come_first_then_scores_as_in_scikit_learn(func, first):
    """scikit-learn's (y_true, y_score) order; scores given first are refused, naming y_true."""
    assert list(inspect.signature(func).parameters)[:2] == [first, "y_score"]
    scores, labels = [[0.9, 0.2], [0.4, 0.7], [0.3, 0.6]], [[1, 0], [0, 1], [1, 1]]
    with pytest.raises(ValueError, match=rf"{first} must hold only 0 and 1; got 0.9"):
        func(scores, labels)
