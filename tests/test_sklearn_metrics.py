"""One-line scores in scikit-learn's shape (f1posterior.integrations.sklearn_metrics): the point
value is scikit-learn's, the posterior is that of the confusion matrix (exact where a closed form
exists), and bad arguments are refused by name."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from f1posterior import evaluate, exact_posterior
from f1posterior.integrations import sklearn_metrics as fm
from f1posterior.metrics import UndefinedMetricWarning


def _noisy(m: int, n: int, acc: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` labels of ``m`` classes, each predicted right with probability ``acc``, else at random."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, m, n)
    return y, np.where(rng.random(n) < acc, y, rng.integers(0, m, n))


MULTI = _noisy(4, 80, 0.6, seed=1)
#: class 3 never predicted (precision 0/0), class 2 never true (recall 0/0)
HOLES = (np.array([0, 1, 1, 3, 3, 0, 1, 0]), np.array([0, 1, 2, 0, 1, 0, 2, 1]))
STRINGS = (
    np.array(["ham", "spam", "spam", "ham", "eggs", "spam", "ham"]),
    np.array(["ham", "spam", "ham", "ham", "spam", "spam", "eggs"]),
)
BINARY = _noisy(2, 60, 0.7, seed=2)
NONE_POSITIVE = (np.zeros(10, dtype=int), np.zeros(10, dtype=int))  # pos_label 1 never seen
NEVER_PREDICTED = (np.array([0, 1, 1, 0, 1]), np.zeros(5, dtype=int))
ALL_POSITIVE = (np.ones(6, dtype=int), np.array([1, 1, 1, 1, 1, 0]))  # one label is true

SCORES = {
    "f1_score": (fm.f1_score, skm.f1_score, {}),
    "precision_score": (fm.precision_score, skm.precision_score, {}),
    "recall_score": (fm.recall_score, skm.recall_score, {}),
    "fbeta_score_0.5": (fm.fbeta_score, skm.fbeta_score, {"beta": 0.5}),
    "fbeta_score_2": (fm.fbeta_score, skm.fbeta_score, {"beta": 2.0}),
}
CASES = [
    # (data, keyword arguments)
    *[(MULTI, {"average": a}) for a in ("micro", "macro", "weighted", None)],
    (MULTI, {"average": "macro", "labels": [2, 0]}),
    (MULTI, {"average": None, "labels": [3, 1, 7]}),  # 7: a class listed, never seen
    (MULTI, {"average": "micro", "labels": [1, 2]}),
    *[
        (HOLES, {"average": a, "zero_division": z})
        for a in ("macro", "weighted", None)
        for z in (0, 1, np.nan)
    ],  # fmt: skip
    (HOLES, {"average": "micro", "labels": [2, 3], "zero_division": 1}),
    *[(STRINGS, {"average": a}) for a in ("micro", "macro", "weighted")],
    (STRINGS, {"average": "macro", "labels": ["spam", "toast"], "zero_division": np.nan}),
    (BINARY, {}),
    (BINARY, {"pos_label": 0}),
    ((STRINGS[0][:4], STRINGS[1][:4]), {"pos_label": "spam"}),
    (NONE_POSITIVE, {"zero_division": 0}),
    (NONE_POSITIVE, {"zero_division": 1}),
    (NEVER_PREDICTED, {"zero_division": np.nan}),
    (NEVER_PREDICTED, {"pos_label": 0}),
    (ALL_POSITIVE, {}),
    (ALL_POSITIVE, {"pos_label": 0, "zero_division": 1}),
    ((ALL_POSITIVE[0], ALL_POSITIVE[0]), {}),
]


@pytest.mark.parametrize("name", SCORES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_point_value_is_scikit_learns(name, case):
    ours, theirs, extra = SCORES[name]
    (y_true, y_pred), kw = CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # both warn of a 0/0 with zero_division="warn"
        expected = theirs(y_true, y_pred, **extra, **kw)
        got = ours(y_true, y_pred, **extra, **kw, draws=200, rng=0)
    np.testing.assert_allclose(got.score, expected, rtol=1e-12, atol=0, equal_nan=True)
    assert np.shape(got.mean) == np.shape(expected) and got.hdi.shape == (*np.shape(expected), 2)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda m: st.tuples(
            st.lists(
                st.tuples(st.integers(0, m - 1), st.integers(0, m - 1)), min_size=1, max_size=30
            ),
            st.sampled_from(["micro", "macro", "weighted", None]),
            st.sampled_from([0, 1, np.nan]),
            st.one_of(
                st.none(), st.lists(st.integers(0, m), min_size=1, max_size=m + 1, unique=True)
            ),
            st.sampled_from(sorted(SCORES)),
        )
    )
)
def test_point_values_equal_scikit_learns_on_generated_predictions(case):
    """Any predictions, average, zero_division and labels (absent classes included)."""
    pairs, average, zero_division, labels, name = case
    y_true, y_pred = (np.array(v) for v in zip(*pairs, strict=True))
    ours, theirs, extra = SCORES[name]
    kw = {"average": average, "zero_division": zero_division, "labels": labels}
    if len(set(labels or []) | set(y_true) | set(y_pred)) < 2:  # a posterior needs two
        with pytest.raises(
            ValueError, match=r"must hold two classes or more for a posterior; got only \d"
        ):
            ours(y_true, y_pred, **extra, **kw, draws=100, rng=0)
        return
    expected = theirs(y_true, y_pred, **extra, **kw)
    got = ours(y_true, y_pred, **extra, **kw, draws=100, rng=0)
    np.testing.assert_allclose(got.score, expected, rtol=1e-12, atol=0, equal_nan=True)


@pytest.mark.parametrize("data", [MULTI, HOLES, STRINGS, BINARY, NONE_POSITIVE])
def test_accuracy_is_scikit_learns(data):
    labels = [0, 1] if data is NONE_POSITIVE else None  # a posterior needs two classes
    got = fm.accuracy_score(*data, labels=labels, draws=200, rng=0)
    assert got.score == pytest.approx(skm.accuracy_score(*data), rel=1e-12)
    assert float(got) == got.score


def test_zero_division_warn_warns_like_scikit_learn():
    with pytest.warns(UndefinedMetricWarning):
        res = fm.precision_score(*NEVER_PREDICTED, draws=200, rng=0)
    assert res.score == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the draws never divide 0 by 0
        fm.precision_score(*NEVER_PREDICTED, zero_division=0, draws=2000, rng=0)


@pytest.mark.parametrize(
    ("ours", "name", "kw"),
    [
        (fm.f1_score, "macro_f1", {"average": "macro"}),
        (fm.f1_score, "micro_f1", {"average": "micro"}),
        (fm.f1_score, "weighted_f1", {"average": "weighted"}),
        (fm.precision_score, "macro_precision", {"average": "macro"}),
        (fm.recall_score, "weighted_recall", {"average": "weighted"}),
        (fm.accuracy_score, "accuracy", {}),
    ],
)
def test_posterior_is_the_confusion_matrixs(ours, name, kw):
    """Same seed, same whole-table draws: the summary of evaluate's named metric, to the bit."""
    y_true, y_pred = MULTI
    got = ours(y_true, y_pred, **kw, draws=3000, rng=5, prior="jeffreys")
    counts = skm.confusion_matrix(y_true, y_pred)
    want = evaluate(counts, metrics=name, draws=3000, rng=5, alpha=0.5, beta=0.5)[name]
    assert got.mean == want.mean and np.array_equal(got.hdi, want.hdi)
    assert np.array_equal(got.counts, counts) and got.labels == [0, 1, 2, 3]


def test_binary_posterior_is_the_positive_class_of_the_table():
    y_true, y_pred = BINARY
    got = fm.f1_score(y_true, y_pred, pos_label=0, draws=3000, rng=3)
    want = evaluate(skm.confusion_matrix(y_true, y_pred), metrics="f1", draws=3000, rng=3)["f1"]
    # the one-vs-rest table of pos_label 0 is the 2 x 2 table reversed: the same posterior
    # in distribution, not draw for draw; within 4.5 combined Monte Carlo standard errors
    se = np.hypot(got.summary.mc_error, want.mc_error[0])
    assert abs(got.mean - want.mean[0]) < 4.5 * se


def test_accuracy_posterior_matches_the_exact_beta():
    """Under the aligned prior accuracy is exactly Beta (Zhang et al.): an independent truth.
    The tolerance is 4.5 Monte Carlo standard errors; the Jeffreys prior (another
    posterior) is the negative control and must be rejected."""
    y_true, y_pred = _noisy(3, 40, 0.75, seed=3)
    counts = skm.confusion_matrix(y_true, y_pred)
    exact = exact_posterior(counts, "accuracy", alpha=1.0, beta="aligned")
    aligned = fm.accuracy_score(y_true, y_pred, prior=(1.0, "aligned"), draws=40_000, rng=11)
    se = aligned.summary.std / np.sqrt(40_000)
    assert abs(aligned.mean - exact.mean()) < 4.5 * se
    assert np.allclose(aligned.hdi, exact.hdi(0.95), atol=0.01)
    other = fm.accuracy_score(y_true, y_pred, prior="jeffreys", draws=40_000, rng=11)
    assert abs(other.mean - exact.mean()) > 4.5 * se


def test_recall_posterior_matches_the_exact_beta():
    y_true, y_pred = BINARY
    counts = skm.confusion_matrix(y_true, y_pred)
    exact = exact_posterior(counts, "recall", alpha=0.5, beta=0.5)
    got = fm.recall_score(y_true, y_pred, prior="jeffreys", draws=40_000, rng=4)
    se = got.summary.std / np.sqrt(40_000)
    assert abs(got.mean - float(exact.mean()[1])) < 4.5 * se


def test_same_seed_same_result_and_the_result_is_frozen():
    a = fm.f1_score(*MULTI, average="macro", draws=1000, rng=9)
    b = fm.f1_score(*MULTI, average="macro", draws=1000, rng=9)
    c = fm.f1_score(*MULTI, average="macro", draws=1000, rng=10)
    assert a == b and a.mean != c.mean
    with pytest.raises(AttributeError):
        a.score = 0.0  # type: ignore[misc]


def test_per_class_result():
    res = fm.recall_score(*MULTI, average=None, labels=[3, 0], draws=1000, rng=0)
    assert res.score.shape == (2,) and res.hdi.shape == (2, 2)
    assert np.all(res.hdi[:, 0] <= res.mean) and np.all(res.mean <= res.hdi[:, 1])
    with pytest.raises(TypeError, match=r"float\(\) needs one score; this result holds 2"):
        float(res)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: fm.f1_score(*MULTI), r'average="binary" needs at most two labels; got 4'),
        (
            lambda: fm.f1_score(*BINARY, average="samples"),
            r"average must be one of .*got 'samples'",
        ),
        (lambda: fm.f1_score(*BINARY, labels=[0, 1]), r'labels must be None with average="binary"'),
        (
            lambda: fm.f1_score(*STRINGS[:1] * 2, pos_label=1, average="binary"),
            r"at most two labels",
        ),
        (
            lambda: fm.f1_score(["a", "b"], ["b", "a"]),
            r"pos_label must be one of the labels \['a', 'b'\]; got 1",
        ),
        (lambda: fm.f1_score(*BINARY, prior=3), r"prior must be a preset name .*pair; got 3"),
        (lambda: fm.f1_score(*BINARY, prior="flat"), r"prior must be one of"),
        (lambda: fm.fbeta_score(*BINARY, beta=0.0), r"beta must be"),
        (lambda: fm.f1_score(*BINARY, draws=0), r"draws must be"),
        (lambda: fm.accuracy_score(np.eye(3), np.eye(3)), r"1-D arrays of labels"),
        (lambda: fm.f1_score([0, 1, 1], [0, 1]), r"one label per document each; got 3 and 2"),
        (
            lambda: fm.accuracy_score([4, 4], [4, 4]),
            r"two classes or more .*got only 4 \(name the others with labels=\)",
        ),
    ],
)
def test_bad_arguments_are_refused_by_name(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def _coverage(joint, n, reps, score, truth, seed):
    """How often the 90% HDI of ``score(y_true, y_pred)`` covers ``truth``, over ``reps`` test
    sets of ``n`` documents drawn from the population's ``joint`` (true, predicted) law."""
    rng = np.random.default_rng(seed)
    m = joint.shape[0]
    hits = 0
    for _ in range(reps):
        cells = rng.multinomial(n, joint.ravel())
        y_true = np.repeat(np.repeat(np.arange(m), m), cells)
        y_pred = np.repeat(np.tile(np.arange(m), m), cells)
        lo, hi = score(y_true, y_pred).hdi
        hits += lo <= truth <= hi
    return hits / reps


def _f1_of(joint, j):
    return 2 * joint[j, j] / (joint[j].sum() + joint[:, j].sum())


def test_hdis_cover_the_population_score():
    """Test sets simulated from a known classifier: the 90% HDI of the positive class's F1
    (pos_label=0) and of the macro-F1 of two labels of three cover the population's value
    within 2.5 binomial standard errors of 90%; scored against the other class's F1 (what a
    swapped pos_label would report), the same intervals must miss."""
    reps, band = 200, 2.5 * np.sqrt(0.9 * 0.1 / 200)
    binary = np.array([[0.3 * 0.7, 0.3 * 0.3], [0.7 * 0.05, 0.7 * 0.95]])

    def pos0(t, p):
        return fm.f1_score(t, p, pos_label=0, ci_prob=0.9, draws=1000, rng=0)

    assert abs(_coverage(binary, 120, reps, pos0, _f1_of(binary, 0), 1) - 0.9) < band
    assert _coverage(binary, 120, reps, pos0, _f1_of(binary, 1), 1) < 0.5
    three = np.array([[0.5, 0.1, 0.0], [0.05, 0.1, 0.05], [0.02, 0.03, 0.15]])

    def macro(t, p):
        return fm.f1_score(t, p, average="macro", labels=[0, 2], ci_prob=0.9, draws=1000, rng=0)

    truth = (_f1_of(three, 0) + _f1_of(three, 2)) / 2
    assert abs(_coverage(three, 200, reps, macro, truth, 2) - 0.9) < band
