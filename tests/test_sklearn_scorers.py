"""Model selection by a posterior criterion (f1posterior.integrations.sklearn): GridSearchCV with
posterior_scorer picks the candidate whose criterion, computed by hand from the posterior of each
fold's confusion matrix, is largest; fold_tables gives cross_validate's per-fold tables."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_digits, load_iris
from sklearn.metrics import confusion_matrix
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate
from sklearn.tree import DecisionTreeClassifier

from f1posterior import evaluate
from f1posterior.integrations.sklearn import (
    confusion_scorer,
    cv_tables,
    fold_tables,
    posterior_scorer,
)

DRAWS = 3000
GRID = {"max_depth": [2, 4, 6, 8]}


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[::2], y[::2]  # 899 documents, ten classes


def _by_hand(X, y, params, cv, metric, criterion, ref=None, seed=0):
    """The criterion of each fold's posterior, averaged over folds, from scratch: fit a clone
    on each training fold, count the test fold with scikit-learn, evaluate the counts."""
    out = []
    for train, test in cv.split(X, y):
        est = clone(DecisionTreeClassifier(random_state=0)).set_params(**params)
        est.fit(X[train], y[train])
        counts = confusion_matrix(y[test], est.predict(X[test]), labels=np.unique(y))
        s = evaluate(counts, metrics=metric, draws=DRAWS, ref=ref, rng=seed,
                     prior_check=False)[metric]  # fmt: skip
        value = {"mean": s.mean, "hdi_low": s.hdi[0], "p_above": s.p_above}[criterion]
        out.append(float(value))
    return float(np.mean(out))


@pytest.mark.parametrize(
    ("metric", "criterion", "ref"),
    [("macro_f1", "hdi_low", None), ("accuracy", "mean", None), ("mcc", "p_above", 0.6)],
)
def test_grid_search_selects_by_the_stated_criterion(digits, metric, criterion, ref):
    X, y = digits
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    scorer = posterior_scorer(metric, criterion=criterion, ref=ref, draws=DRAWS, rng=0)
    search = GridSearchCV(DecisionTreeClassifier(random_state=0), GRID, cv=cv, scoring=scorer)
    search.fit(X, y)
    hand = [_by_hand(X, y, p, cv, metric, criterion, ref) for p in search.cv_results_["params"]]
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], hand, rtol=1e-12)
    assert search.best_params_ == search.cv_results_["params"][int(np.argmax(hand))]
    assert len(set(np.round(hand, 6))) == len(hand)  # the candidates differ: a real choice


class Flipper(ClassifierMixin, BaseEstimator):
    """Predicts the true label in column 0 of X, wrong for the documents of class ``c`` whose
    position in column 1 is below ``flip[c]``: a classifier of known, exact error rates."""

    def __init__(self, flip=(0.0, 0.0)):
        self.flip = flip

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        truth = X[:, 0].astype(int)
        return np.where(X[:, 1] < np.asarray(self.flip)[truth], 1 - truth, truth)


def test_the_criteria_can_disagree_and_each_selects_its_own():
    """A: 1% errors on 600 common documents, 60% on 12 rare ones; B: 5% and 10%. A has the
    higher posterior mean of macro-F1, B the higher lower HDI end (A's rare class is
    uncertain): the mean picks A, hdi_low picks B."""
    sizes = (600, 12)
    y = np.repeat([0, 1], sizes)
    position = np.concatenate([(np.arange(n) + 0.5) / n for n in sizes])
    X = np.column_stack([y, position])
    a, b = (0.01, 0.6), (0.05, 0.1)
    whole = [(np.arange(y.size), np.arange(y.size))]  # one split: the whole set is the test set
    picks, by_hand = {}, {}
    for criterion in ("mean", "hdi_low"):
        scorer = posterior_scorer("macro_f1", criterion=criterion, draws=20_000, rng=0)
        search = GridSearchCV(Flipper(), {"flip": [a, b]}, cv=whole, scoring=scorer).fit(X, y)
        picks[criterion] = search.best_params_["flip"]
        for flip in (a, b):
            counts = confusion_matrix(y, Flipper(flip).fit(X, y).predict(X))
            s = evaluate(counts, metrics="macro_f1", draws=20_000, rng=0, prior_check=False)
            by_hand[criterion, flip] = (
                s["macro_f1"].mean if criterion == "mean" else s["macro_f1"].hdi[0]
            )
    assert picks == {"mean": a, "hdi_low": b}
    assert by_hand["mean", a] > by_hand["mean", b] + 0.01  # margins of many Monte Carlo errors
    assert by_hand["hdi_low", b] > by_hand["hdi_low", a] + 0.01


def test_hdi_low_is_below_the_mean_it_ranks_by_width(digits):
    """The lower HDI end of each candidate is below its posterior mean by about two posterior
    standard deviations: the criteria measure different things."""
    X, y = digits
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    scores = {}
    for criterion in ("mean", "hdi_low"):
        scorer = posterior_scorer("macro_f1", criterion=criterion, draws=DRAWS, rng=0)
        search = GridSearchCV(DecisionTreeClassifier(random_state=0), GRID, cv=cv, scoring=scorer)
        scores[criterion] = search.fit(X, y).cv_results_["mean_test_score"]
    gap = scores["mean"] - scores["hdi_low"]
    assert np.all(gap > 0.02) and np.all(gap < 0.2)


def test_a_scorer_is_deterministic_for_a_fixed_seed():
    X, y = load_iris(return_X_y=True)
    est = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X[::2], y[::2])
    a = posterior_scorer("macro_f1", draws=DRAWS, rng=7)
    b = posterior_scorer("macro_f1", draws=DRAWS, rng=np.random.SeedSequence(7))
    first = a(est, X[1::2], y[1::2])
    assert a(est, X[1::2], y[1::2]) == first == b(est, X[1::2], y[1::2])
    assert posterior_scorer("macro_f1", draws=DRAWS, rng=8)(est, X[1::2], y[1::2]) != first
    fresh = posterior_scorer("macro_f1", draws=DRAWS)  # None: fresh entropy, then fixed
    assert fresh(est, X[1::2], y[1::2]) == fresh(est, X[1::2], y[1::2])


def test_scorer_value_is_the_posterior_of_the_fold():
    X, y = load_iris(return_X_y=True)
    est = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X[::2], y[::2])
    counts = confusion_matrix(y[1::2], est.predict(X[1::2]))
    res = evaluate(counts, metrics="weighted_f1", draws=DRAWS, ref=0.5, rng=3, alpha=0.5,
                   beta=0.5, prior_check=False)["weighted_f1"]  # fmt: skip
    kw = {"draws": DRAWS, "rng": 3, "prior": "jeffreys"}
    assert (
        posterior_scorer("weighted_f1", criterion="mean", **kw)(est, X[1::2], y[1::2]) == res.mean
    )
    assert posterior_scorer("weighted_f1", **kw)(est, X[1::2], y[1::2]) == res.hdi[0]
    got = posterior_scorer("weighted_f1", criterion="p_above", ref=0.5, **kw)(est, X[1::2], y[1::2])
    assert got == res.p_above


def test_labels_fix_the_classes_of_every_fold():
    X, y = load_iris(return_X_y=True)
    est = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    keep = y < 2  # a test fold without class 2: macro-F1 over the classes named
    two = posterior_scorer("macro_f1", criterion="mean", draws=DRAWS, rng=0)
    three = posterior_scorer("macro_f1", criterion="mean", draws=DRAWS, rng=0, labels=[0, 1, 2])
    counts = confusion_matrix(y[keep], est.predict(X[keep]), labels=[0, 1, 2])
    want = evaluate(counts, metrics="macro_f1", draws=DRAWS, rng=0, prior_check=False)
    assert three(est, X[keep], y[keep]) == want["macro_f1"].mean
    assert two(est, X[keep], y[keep]) == three(est, X[keep], y[keep])  # classes_ has all three
    with pytest.raises(
        ValueError,
        match=r"labels must name every class of y_true; got labels \[0, 1\] and y_true holding \[2\]",
    ):
        posterior_scorer(labels=[0, 1], draws=DRAWS, rng=0)(est, X, y)


def test_fold_tables_are_the_folds_confusion_matrices():
    X, y = load_iris(return_X_y=True)
    cv = StratifiedKFold(4, shuffle=True, random_state=2)
    est = DecisionTreeClassifier(max_depth=2, random_state=0)
    tables = fold_tables(est, X, y, cv=cv)
    assert tables.shape == (4, 3, 3) and tables.dtype == np.int64
    for table, (train, test) in zip(tables, cv.split(X, y), strict=True):
        fitted = clone(est).fit(X[train], y[train])
        np.testing.assert_array_equal(table, confusion_matrix(y[test], fitted.predict(X[test])))
    reordered = fold_tables(est, X, y, cv=cv, labels=[2, 0, 1])
    np.testing.assert_array_equal(reordered, tables[:, [2, 0, 1]][:, :, [2, 0, 1]])


def test_cross_validate_with_the_confusion_scorer():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    res = cross_validate(DecisionTreeClassifier(random_state=0), X, names, cv=3,
                         scoring=confusion_scorer(["virginica", "setosa", "versicolor"]))  # fmt: skip
    tables = cv_tables(res)
    assert tables.shape == (3, 3, 3) and int(tables.sum()) == 150
    assert tables[:, 1].sum() == 50  # the setosa row, second as listed


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: posterior_scorer("macro_fpr"),
            r"larger is better; got 'macro_fpr'.*use 'macro_specificity'",
        ),
        (lambda: posterior_scorer("f1"), r"one value per table; got 'f1'"),
        (
            lambda: posterior_scorer("macro_f2"),
            r"metric must be one of .*got 'macro_f2' \(did you mean 'macro_f1'",
        ),
        (
            lambda: posterior_scorer(criterion="median"),
            r"criterion must be one of 'mean', 'hdi_low', 'p_above'; got 'median'",
        ),
        (
            lambda: posterior_scorer(criterion="p_above"),
            r'ref must be given with criterion="p_above", and only there',
        ),
        (lambda: posterior_scorer(ref=0.8), r"criterion='hdi_low', ref=0.8"),
        (lambda: posterior_scorer(prior=[0.5, 0.5]), r"prior must be a preset name"),
        (lambda: posterior_scorer(labels=[0, 0]), r"labels must be distinct"),
        (lambda: posterior_scorer(rng="a"), r"rng must be None, an int"),
        (
            lambda: confusion_scorer([]),
            r"labels must be distinct class labels, at least one; got \[\]",
        ),
        (lambda: cv_tables({"test_score": [1.0]}), r"test_cell_i_j keys of confusion_scorer"),
        (lambda: cv_tables([1, 2]), r"cv_results must be cross_validate's dict; got \[1, 2\]"),
    ],
)
def test_bad_arguments_are_refused_by_name(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
