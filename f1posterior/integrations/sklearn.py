"""scikit-learn: the posterior of a fitted classifier's scores on a test set."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.describe import describe

if TYPE_CHECKING:  # pragma: no cover
    from ..posterior import Evaluation

__all__ = ["evaluate_estimator"]


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
