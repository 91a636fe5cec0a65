"""scikit-learn: the posterior of a fitted classifier's scores on a test set, scorers that
select models by a posterior criterion (``GridSearchCV(scoring=...)``), and the confusion
tables of every fold of a cross-validation. scikit-learn is imported only by ``fold_tables``.

Design notes: docs/design.md#integrations-sklearn
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.describe import describe
from .._core.streams import DEFAULT_DRAWS
from .._core.validation import SeedLike, check_rng, check_sampling_args
from ._common import check_ranking_metric, check_statistic_ref, counts_of, prior_pair, statistic_of

if TYPE_CHECKING:  # pragma: no cover
    from ..posterior import Evaluation

__all__ = [
    "evaluate_estimator",
    "posterior_scorer",
    "PosteriorScorer",
    "confusion_scorer",
    "cv_tables",
    "fold_tables",
]

#: What a scorer selects by: the posterior mean, the lower end of the HDI, or P(metric > ref).
CRITERIA = ("mean", "hdi_low", "p_above")


def evaluate_estimator(estimator: Any, X: Any, y_true: Any, **evaluate_kwargs: Any) -> Evaluation:
    """Posterior of a fitted scikit-learn classifier's scores on a test set.

    Predicts ``X``, builds the confusion matrix over ``estimator.classes_``
    (rows = true class, in that order) and calls
    :func:`~f1posterior.evaluate` with the class labels.

    Parameters
    ----------
    estimator : fitted classifier
        Anything with ``predict`` and ``classes_`` (scikit-learn's API).
    X : array_like, shape (n_documents, ...)
        Test inputs.
    y_true : array_like, shape (n_documents,)
        True classes; every one must be in ``estimator.classes_``.
    **evaluate_kwargs
        Passed to :func:`~f1posterior.evaluate` (``metrics``, ``draws``,
        ``ref``, ``rng``, ...).

    Returns
    -------
    Evaluation

    See Also
    --------
    f1posterior.evaluate : The posterior of a confusion matrix.
    f1posterior.confusion_matrix : The matrix of predictions.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = LogisticRegression(max_iter=500).fit(X[::2], y[::2])
    >>> res = evaluate_estimator(clf, X[1::2], y[1::2], draws=2000, rng=0)
    >>> res.labels
    ['0', '1', '2']
    """
    for attr in ("predict", "classes_"):
        if not hasattr(estimator, attr):
            raise TypeError(
                f"estimator must be a fitted classifier with predict() and classes_; got "
                f"{describe(estimator)} without {attr!r}"
            )
    classes = np.asarray(estimator.classes_)
    truth = np.asarray(y_true)
    if truth.ndim != 1:
        raise ValueError(
            f"y_true must be a 1-D array of class labels; got shape {truth.shape} "
            "(for multi-label indicators use scikit-learn's multilabel_confusion_matrix)"
        )
    pred = np.asarray(estimator.predict(X))
    if pred.shape != truth.shape:
        raise ValueError(
            f"y_true must have one label per row of X; got {truth.shape[0]} labels and "
            f"{pred.shape[0]} predictions"
        )
    unknown = ~np.isin(truth, classes)
    if unknown.any():
        raise ValueError(
            f"y_true must only hold classes the estimator knows ({classes.tolist()}); got "
            f"{truth[unknown].tolist()[0]!r}"
        )
    index = {c: i for i, c in enumerate(classes.tolist())}
    t = np.fromiter((index[c] for c in truth.tolist()), dtype=np.intp, count=truth.size)
    p = np.fromiter((index[c] for c in pred.tolist()), dtype=np.intp, count=pred.size)
    m = classes.size
    counts = np.bincount(t * m + p, minlength=m * m).reshape(m, m)
    from ..posterior import evaluate

    evaluate_kwargs.setdefault("labels", [str(c) for c in classes.tolist()])
    return evaluate(counts, **evaluate_kwargs)


def _fold_counts(estimator: Any, X: Any, y_true: Any, labels: Any) -> np.ndarray:
    """The confusion matrix of ``estimator``'s predictions of ``X`` (rows = true class), over
    ``labels``, else the sorted union of ``estimator.classes_`` and the labels met."""
    if not hasattr(estimator, "predict"):
        raise TypeError(f"estimator must have predict(); got {describe(estimator)}")
    pred = np.asarray(estimator.predict(X))
    if labels is None:
        known = np.asarray(getattr(estimator, "classes_", []))
        labels = np.unique(np.concatenate([known, np.asarray(y_true), pred])).tolist()
    return counts_of(y_true, pred, labels)[0]


@dataclass(frozen=True)
class PosteriorScorer:
    """A scorer for ``GridSearchCV``, ``cross_validate``, ... (``scoring=``): a posterior criterion.

    Made by :func:`posterior_scorer`; called as ``scorer(estimator, X, y)``, it predicts
    ``X``, counts the confusion matrix against ``y`` and returns the criterion of the
    metric's posterior. Every call draws from the same root seed, so a fixed seed gives
    the same score for the same predictions, whatever the order or the process of the
    calls (``n_jobs``), and candidates are compared on common random numbers.

    Attributes
    ----------
    metric : str
        A named metric of :func:`f1posterior.evaluate` with one value per table, larger
        being better.
    criterion : {"mean", "hdi_low", "p_above"}
        The posterior mean, the lower end of the ``ci_prob`` HDI, or
        P(metric > ``ref``).
    ref : float or None
        The reference of ``"p_above"``.
    draws : int
        Posterior draws per call.
    ci_prob : float
        Probability of the HDI.
    prior : str or tuple
        The prior (a preset name or an ``(alpha, beta)`` pair).
    labels : list or None
        The classes of the confusion matrix, in order; None: the sorted union of
        ``estimator.classes_`` and the labels of the fold.
    seed : numpy.random.SeedSequence
        The root seed of every call.

    See Also
    --------
    posterior_scorer : Makes one.
    f1posterior.evaluate : The posterior each call summarises.

    Examples
    --------
    >>> scorer = posterior_scorer("macro_f1", criterion="hdi_low", draws=2000, rng=0)
    >>> scorer.criterion, scorer.draws
    ('hdi_low', 2000)
    """

    metric: str
    criterion: str
    ref: float | None
    draws: int
    ci_prob: float
    prior: Any
    labels: list[Any] | None
    seed: np.random.SeedSequence

    def __call__(self, estimator: Any, X: Any, y_true: Any) -> float:
        """The criterion of the posterior of ``estimator``'s metric on ``(X, y_true)``."""
        from ..posterior import evaluate

        counts = _fold_counts(estimator, X, y_true, self.labels)
        alpha, beta = prior_pair(self.prior)
        res = evaluate(counts, metrics=self.metric, draws=self.draws, ci_prob=self.ci_prob,
                       ref=self.ref, alpha=alpha, beta=beta, rng=self.seed,
                       prior_check=False)  # fmt: skip
        return self.criterion_of(res)

    def criterion_of(self, evaluation: Evaluation) -> float:
        """The criterion of the scorer's metric in ``evaluation``."""
        return float(statistic_of(evaluation[self.metric], self.criterion))


def _distinct_labels(labels: Any) -> list[Any]:
    classes = list(labels)
    if not classes or len(set(classes)) != len(classes):
        raise ValueError(f"labels must be distinct class labels, at least one; got {classes}")
    return classes


def posterior_scorer(
    metric: str = "macro_f1",
    *,
    criterion: str = "hdi_low",
    ref: float | None = None,
    draws: int = DEFAULT_DRAWS,
    ci_prob: float = 0.95,
    prior: Any = "hierarchical",
    labels: Sequence[Any] | None = None,
    rng: SeedLike = None,
) -> PosteriorScorer:
    """Make a scorer that selects models by a posterior criterion of a metric.

    Pass it as ``scoring=`` to ``GridSearchCV``, ``RandomizedSearchCV``,
    ``cross_validate`` or ``cross_val_score``: each fold's score is the criterion of the
    posterior of the fold's confusion matrix, and the search keeps the candidate with
    the largest mean over the folds. ``criterion="hdi_low"`` prefers a model whose
    score is high *and* well measured; ``"p_above"`` the one most likely to clear a
    floor.

    Parameters
    ----------
    metric : str, default "macro_f1"
        A named metric of :func:`f1posterior.evaluate` with one value per table where
        larger is better (``micro_f1``, ``macro_f1``, ``weighted_f1``, ``accuracy``,
        ``mcc``, ``balanced_accuracy``, ``macro_recall``, ...).
    criterion : {"hdi_low", "mean", "p_above"}, default "hdi_low"
        The lower end of the ``ci_prob`` HDI, the posterior mean, or
        P(metric > ``ref``).
    ref : float, optional
        The floor of ``criterion="p_above"`` (required there, refused otherwise), as
        :func:`f1posterior.evaluate`'s ``ref``.
    draws : int, default 50_000
        Posterior draws per fold and candidate.
    ci_prob : float, default 0.95
        Probability of the HDI.
    prior : str or (alpha, beta), default "hierarchical"
        A preset of :data:`f1posterior.PRIOR_PRESETS` or an ``(alpha, beta)`` pair.
    labels : sequence, optional
        The classes of every fold's confusion matrix, in order (default: the sorted
        union of ``estimator.classes_`` and the fold's labels); a fold holding a label
        not listed is refused.
    rng : None, int, SeedSequence or Generator
        The root seed, fixed when the scorer is made (None: fresh entropy, then
        fixed); every call draws from it.

    Returns
    -------
    PosteriorScorer
        A callable ``scorer(estimator, X, y) -> float``.

    See Also
    --------
    fold_tables : The confusion tables of every fold.
    f1posterior.integrations.sklearn_metrics.f1_score : One score with its posterior.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = load_iris(return_X_y=True)
    >>> search = GridSearchCV(LogisticRegression(max_iter=500), {"C": [0.01, 1.0]}, cv=3,
    ...     scoring=posterior_scorer("macro_f1", criterion="hdi_low", draws=2000, rng=0))
    >>> search.fit(X, y).best_params_
    {'C': 1.0}
    """
    name = check_ranking_metric(metric)
    how = check_statistic_ref(criterion, "criterion", CRITERIA, ref)
    prior_pair(prior)  # refuse a bad prior now, not in the first fold
    sa = check_sampling_args(draws, ci_prob, ref, None)
    if labels is not None:
        labels = _distinct_labels(labels)
    return PosteriorScorer(name, how, sa.ref, sa.draws, sa.ci_prob, prior, labels, check_rng(rng))


def confusion_scorer(labels: Sequence[Any]) -> Any:
    """Make a scorer that returns the confusion matrix's cells, for ``cross_validate``.

    ``cross_validate(est, X, y, scoring=confusion_scorer(labels))`` records cell
    ``(i, j)`` of each fold as ``test_cell_i_j``; :func:`cv_tables` puts them back
    into tables.

    Parameters
    ----------
    labels : sequence
        The classes, in the order of the rows and columns (the same in every fold).

    Returns
    -------
    callable
        ``scorer(estimator, X, y) -> dict`` of ``"cell_i_j"`` to a count.

    See Also
    --------
    cv_tables : The tables of its cross-validation results.
    fold_tables : Both at once.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import cross_validate
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> res = cross_validate(DecisionTreeClassifier(random_state=0), X, y, cv=3,
    ...                      scoring=confusion_scorer([0, 1, 2]))
    >>> cv_tables(res).shape
    (3, 3, 3)
    """
    classes = _distinct_labels(labels)
    return _CellScorer(classes)


@dataclass(frozen=True)
class _CellScorer:
    labels: list[Any]

    def __call__(self, estimator: Any, X: Any, y_true: Any) -> dict[str, int]:
        counts = _fold_counts(estimator, X, y_true, self.labels)
        m = len(self.labels)
        return {f"cell_{i}_{j}": int(counts[i, j]) for i in range(m) for j in range(m)}


def cv_tables(cv_results: Any) -> np.ndarray:
    """Return the confusion tables of ``cross_validate`` results of :func:`confusion_scorer`.

    Parameters
    ----------
    cv_results : dict
        What ``cross_validate(..., scoring=confusion_scorer(labels))`` returned.

    Returns
    -------
    ndarray of int64, shape (folds, M, M)
        One confusion matrix per fold, rows = true class, in the scorer's label order.

    See Also
    --------
    confusion_scorer : The scorer that records the cells.
    f1posterior.aggregate : The posterior of a metric across the folds.

    Examples
    --------
    >>> cv_tables({"test_cell_0_0": [3, 4], "test_cell_0_1": [1, 0],
    ...            "test_cell_1_0": [0, 2], "test_cell_1_1": [5, 3]})[1]
    array([[4, 0],
           [2, 3]])
    """
    if not isinstance(cv_results, dict):
        raise TypeError(f"cv_results must be cross_validate's dict; got {describe(cv_results)}")
    cells = [k for k in cv_results if k.startswith("test_cell_")]
    m = int(round(len(cells) ** 0.5))
    if not cells or m * m != len(cells):
        raise ValueError(
            "cv_results must hold the test_cell_i_j keys of confusion_scorer; got keys "
            f"{sorted(cv_results)}"
        )
    cube = np.array(
        [[cv_results[f"test_cell_{i}_{j}"] for j in range(m)] for i in range(m)], dtype=float
    )  # (M, M, folds)
    if not np.array_equal(cube, np.rint(cube)) or (cube < 0).any():
        raise ValueError("cv_results' test_cell_i_j values must be whole-number counts")
    return cube.astype(np.int64).transpose(2, 0, 1)


def fold_tables(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    labels: Sequence[Any] | None = None,
    cv: Any = None,
    groups: Any = None,
    n_jobs: int | None = None,
) -> np.ndarray:
    """Cross-validate ``estimator`` and return the confusion matrix of every test fold.

    Runs ``sklearn.model_selection.cross_validate`` with :func:`confusion_scorer`, so
    ``cv``, ``groups`` and ``n_jobs`` mean what they mean there (a classifier's
    default ``cv`` is 5-fold stratified).

    Parameters
    ----------
    estimator : classifier
        An unfitted scikit-learn classifier (cloned and fitted on each training fold).
    X : array_like, shape (n_documents, ...)
        Inputs.
    y : array_like, shape (n_documents,)
        Labels.
    labels : sequence, optional
        The classes, in the order of the rows and columns (default: the sorted labels
        of ``y``).
    cv : int, cross-validation generator or iterable, optional
        As in ``cross_validate``.
    groups : array_like, optional
        As in ``cross_validate``.
    n_jobs : int, optional
        As in ``cross_validate``.

    Returns
    -------
    ndarray of int64, shape (folds, M, M)
        One confusion matrix per test fold, rows = true class.

    See Also
    --------
    f1posterior.aggregate : The posterior of a metric across the folds.
    posterior_scorer : Select models by a posterior criterion instead.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tables = fold_tables(DecisionTreeClassifier(random_state=0), X, y, cv=5)
    >>> tables.shape, int(tables.sum())
    ((5, 3, 3), 150)
    """
    from sklearn.model_selection import cross_validate

    classes = np.unique(np.asarray(y)).tolist() if labels is None else list(labels)
    results = cross_validate(estimator, X, y, cv=cv, groups=groups, n_jobs=n_jobs,
                             scoring=confusion_scorer(classes))  # fmt: skip
    return cv_tables(results)
