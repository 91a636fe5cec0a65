"""Scores in scikit-learn's shape, ``f1_score(y_true, y_pred, average=...)``, each with its
posterior: the point value equals ``sklearn.metrics``'s, and the summary says how far to trust it.

Design notes: docs/design.md#integrations-sklearn-metrics
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.describe import describe
from .._core.results import value_equality
from .._core.streams import DEFAULT_DRAWS
from .._core.validation import SeedLike, check_choice, check_positive
from ..metrics import accuracy, confusion_matrix, f1, fbeta, precision, recall
from ..posterior import MetricSummary, evaluate
from ._common import prior_pair

__all__ = [
    "PosteriorScore",
    "f1_score",
    "fbeta_score",
    "precision_score",
    "recall_score",
    "accuracy_score",
]

_AVERAGES = ("binary", "micro", "macro", "weighted", None)
Value = float | np.ndarray


@value_equality
@dataclass(frozen=True, eq=False)
class PosteriorScore:
    """A score of predictions with its posterior, from :func:`f1_score` and its siblings.

    ``float(result)`` is the point value, so the result stands in for scikit-learn's
    number; the posterior says how far to trust it.

    Attributes
    ----------
    score : float or ndarray
        The observed value, equal to ``sklearn.metrics``'s for the same arguments (an
        array of one value per class for ``average=None``).
    mean : float or ndarray
        Posterior mean.
    hdi : ndarray, shape (2,) or (K, 2)
        Highest-density interval of probability ``ci_prob``.
    ci_prob : float
        Probability of the interval.
    metric : str
        The function that made it (``"f1_score"``, ...).
    summary : MetricSummary
        Every posterior statistic (median, equal-tailed interval, Monte Carlo error,
        prior dominance, ...).
    counts : ndarray, shape (M, M)
        The confusion matrix the posterior is of (rows = true class).
    labels : list
        The label of each row of ``counts``.

    See Also
    --------
    f1_score : Makes one.
    f1posterior.MetricSummary : The posterior summary.

    Examples
    --------
    >>> res = f1_score([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], draws=2000, rng=0)
    >>> float(res), res.hdi.shape
    (0.8, (2,))
    """

    score: Value
    mean: Value
    hdi: np.ndarray
    ci_prob: float
    metric: str
    summary: MetricSummary = field(repr=False)
    counts: np.ndarray = field(repr=False)
    labels: list[Any] = field(repr=False)

    def __float__(self) -> float:
        if np.ndim(self.score) != 0:
            raise TypeError(
                f"float() needs one score; this result holds {np.size(self.score)} "
                "(average=None): use result.score"
            )
        return float(self.score)


def _table(
    y_true: Any, y_pred: Any, average: Any, labels: Any, pos_label: Any
) -> tuple[np.ndarray, list[Any], Sequence[int] | None]:
    """The confusion table, its labels and the class indices to score, as scikit-learn
    selects them: a binary average scores ``pos_label`` against the rest (a 2 x 2 table,
    class 1 positive); any other scores ``labels`` (default: every label seen) on the
    table of every label seen or listed."""
    seen = confusion_matrix(y_true, y_pred).labels  # sorted union; checks lengths and kinds
    if average == "binary":
        if labels is not None:
            raise ValueError('labels must be None with average="binary"; use pos_label')
        if len(seen) > 2:
            raise ValueError(
                f'average="binary" needs at most two labels; got {len(seen)} ({seen}): '
                'choose average="micro", "macro", "weighted" or None'
            )
        if pos_label not in seen and len(seen) == 2:
            raise ValueError(f"pos_label must be one of the labels {seen}; got {pos_label!r}")
        truth = np.asarray(y_true) == pos_label
        pred = np.asarray(y_pred) == pos_label
        counts = np.bincount(2 * truth + pred, minlength=4).reshape(2, 2)
        rest = [x for x in seen if x != pos_label]
        return counts, [rest[0] if rest else None, pos_label], [1]
    listed = [] if labels is None else list(labels)
    order = listed + [x for x in seen if x not in listed]
    if len(order) < 2:
        raise ValueError(
            f"y_true, y_pred and labels must hold two classes or more for a posterior; got "
            f"only {order[0]!r} (name the others with labels=)"
        )
    counts, found = confusion_matrix(y_true, y_pred, labels=order)
    return np.asarray(counts), list(found), None if labels is None else list(range(len(listed)))


def _posterior_score(
    name: str,
    table_fn: Callable[..., np.ndarray],
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    average: Any = "macro",
    labels: Any = None,
    pos_label: Any = 1,
    zero_division: Any = "warn",
    draws: int,
    ci_prob: float,
    prior: Any,
    rng: SeedLike,
) -> PosteriorScore:
    """The observed value of ``table_fn`` (scikit-learn's) and its posterior."""
    average = check_choice(average, "average", _AVERAGES)
    alpha, beta = prior_pair(prior)
    counts, found, idx = _table(y_true, y_pred, average, labels, pos_label)
    if table_fn is accuracy:
        value = np.asarray(accuracy(counts))

        def metric(t: np.ndarray) -> np.ndarray:
            return accuracy(t)
    else:
        # "binary": pos_label against the rest, class 1 of the 2 x 2 table
        options = {"average": average, "pos_label": 1} if average == "binary" else {
            "average": average, "labels": idx}  # fmt: skip
        value = np.asarray(table_fn(counts, zero_division=zero_division, **options))

        def metric(t: np.ndarray) -> np.ndarray:
            # cell draws are positive: no 0/0 on draws, so never a warning or a NaN there
            return table_fn(t, zero_division=0.0, **options)

    metric.__name__ = name
    s = evaluate(counts, metrics=[metric], draws=draws, ci_prob=ci_prob, alpha=alpha,
                 beta=beta, rng=rng)[name]  # fmt: skip
    return PosteriorScore(
        score=float(value) if value.ndim == 0 else value,
        mean=s.mean,
        hdi=np.asarray(s.hdi),
        ci_prob=s.ci_prob,
        metric=name,
        summary=s,
        counts=counts,
        labels=found,
    )


_LABELS = """
    y_true, y_pred : array_like, shape (n_documents,)
        True and predicted labels (numbers or strings, the same kind in both)."""
_OPTIONS = """
    labels : sequence, optional
        The labels to score, and their order for ``average=None`` (default: every label
        seen). Labels listed but never seen count as classes with no documents: their
        score is ``zero_division``, their posterior is the prior's.
    pos_label : label, default 1
        The positive class of ``average="binary"``.
    average : {"binary", "micro", "macro", "weighted", None}, default "binary"
        As in scikit-learn; ``"binary"`` scores ``pos_label`` against the rest and needs
        at most two labels.
    zero_division : {"warn", 0, 1, numpy.nan}, default "warn"
        The observed value of a 0/0 (as in scikit-learn). The posterior draws never
        divide 0 by 0: every class selected is averaged, one that has no documents
        informed by the prior alone (see ``summary.prior_dominated``)."""
_SAMPLING = """
    draws : int, default 50_000
        Posterior draws.
    ci_prob : float, default 0.95
        Probability of the HDI.
    prior : str or (alpha, beta), default "hierarchical"
        A preset of :data:`f1posterior.PRIOR_PRESETS`, or the ``(alpha, beta)`` pair
        :func:`f1posterior.evaluate` takes.
    rng : None, int, SeedSequence or Generator
        Source of randomness.

    Returns
    -------
    PosteriorScore
        ``score`` (scikit-learn's value), ``mean``, ``hdi`` and the full ``summary``."""


def _doc(text: str) -> str:
    for key, part in (("{labels}", _LABELS), ("{options}", _OPTIONS), ("{sampling}", _SAMPLING)):
        text = text.replace(key, part)
    return text


def f1_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: Sequence[Any] | None = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    zero_division: Any = "warn",
    draws: int = DEFAULT_DRAWS,
    ci_prob: float = 0.95,
    prior: Any = "hierarchical",
    rng: SeedLike = None,
) -> PosteriorScore:
    return _posterior_score(
        "f1_score", f1, y_true, y_pred, average=average, labels=labels, pos_label=pos_label,
        zero_division=zero_division, draws=draws, ci_prob=ci_prob, prior=prior, rng=rng,
    )  # fmt: skip


f1_score.__doc__ = _doc(
    """Compute the F1 score of predictions as scikit-learn does, with its posterior.

    Parameters
    ----------{labels}{options}{sampling}

    See Also
    --------
    fbeta_score : Any weight of recall against precision.
    f1posterior.f1 : The F1 score of a confusion table.
    f1posterior.integrations.sklearn.posterior_scorer : A scorer for model selection.

    Examples
    --------
    >>> y_true = ["cat", "dog", "dog", "cat", "bird", "dog"]
    >>> y_pred = ["cat", "dog", "cat", "cat", "dog", "dog"]
    >>> res = f1_score(y_true, y_pred, average="macro", zero_division=0, draws=4000, rng=0)
    >>> round(res.score, 4), res.hdi.shape
    (0.4889, (2,))
    """
)


def fbeta_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    beta: float,
    labels: Sequence[Any] | None = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    zero_division: Any = "warn",
    draws: int = DEFAULT_DRAWS,
    ci_prob: float = 0.95,
    prior: Any = "hierarchical",
    rng: SeedLike = None,
) -> PosteriorScore:
    weight = check_positive(beta, "beta")

    def table_fn(t: ArrayLike, **kw: Any) -> np.ndarray:
        return fbeta(t, beta=weight, **kw)

    return _posterior_score(
        "fbeta_score", table_fn, y_true, y_pred, average=average, labels=labels,
        pos_label=pos_label, zero_division=zero_division, draws=draws, ci_prob=ci_prob,
        prior=prior, rng=rng,
    )  # fmt: skip


fbeta_score.__doc__ = _doc(
    """Compute the F-beta score of predictions as scikit-learn does, with its posterior.

    Parameters
    ----------{labels}
    beta : float
        Weight of recall against precision, > 0 (scikit-learn's name; the prior is
        ``prior=``).{options}{sampling}

    See Also
    --------
    f1_score : F-beta with beta = 1.
    f1posterior.fbeta : The F-beta score of a confusion table.

    Examples
    --------
    >>> res = fbeta_score([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], beta=2.0, draws=2000, rng=0)
    >>> round(res.score, 4)
    0.7143
    """
)


def precision_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: Sequence[Any] | None = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    zero_division: Any = "warn",
    draws: int = DEFAULT_DRAWS,
    ci_prob: float = 0.95,
    prior: Any = "hierarchical",
    rng: SeedLike = None,
) -> PosteriorScore:
    return _posterior_score(
        "precision_score", precision, y_true, y_pred, average=average, labels=labels,
        pos_label=pos_label, zero_division=zero_division, draws=draws, ci_prob=ci_prob,
        prior=prior, rng=rng,
    )  # fmt: skip


precision_score.__doc__ = _doc(
    """Compute the precision of predictions as scikit-learn does, with its posterior.

    Parameters
    ----------{labels}{options}{sampling}

    See Also
    --------
    recall_score : The other half of F1.
    f1posterior.precision : The precision of a confusion table.

    Examples
    --------
    >>> res = precision_score([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], draws=2000, rng=0)
    >>> res.score
    1.0
    """
)


def recall_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: Sequence[Any] | None = None,
    pos_label: Any = 1,
    average: str | None = "binary",
    zero_division: Any = "warn",
    draws: int = DEFAULT_DRAWS,
    ci_prob: float = 0.95,
    prior: Any = "hierarchical",
    rng: SeedLike = None,
) -> PosteriorScore:
    return _posterior_score(
        "recall_score", recall, y_true, y_pred, average=average, labels=labels,
        pos_label=pos_label, zero_division=zero_division, draws=draws, ci_prob=ci_prob,
        prior=prior, rng=rng,
    )  # fmt: skip


recall_score.__doc__ = _doc(
    """Compute the recall of predictions as scikit-learn does, with its posterior.

    Parameters
    ----------{labels}{options}{sampling}

    See Also
    --------
    precision_score : The other half of F1.
    f1posterior.recall : The recall of a confusion table.

    Examples
    --------
    >>> res = recall_score([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], draws=2000, rng=0)
    >>> round(res.score, 4)
    0.6667
    """
)


def accuracy_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    labels: Sequence[Any] | None = None,
    draws: int = DEFAULT_DRAWS,
    ci_prob: float = 0.95,
    prior: Any = "hierarchical",
    rng: SeedLike = None,
) -> PosteriorScore:
    if np.ndim(y_true) != 1 or np.ndim(y_pred) != 1:
        raise ValueError(
            "y_true and y_pred must be 1-D arrays of labels; got "
            f"{describe(y_true)} and {describe(y_pred)} (for multi-label indicators use "
            "f1posterior.evaluate_multilabel)"
        )
    return _posterior_score(
        "accuracy_score", accuracy, y_true, y_pred, average="macro", labels=labels, draws=draws,
        ci_prob=ci_prob, prior=prior, rng=rng,
    )  # fmt: skip


accuracy_score.__doc__ = _doc(
    """Compute the accuracy of predictions as scikit-learn does, with its posterior.

    Parameters
    ----------{labels}
    labels : sequence, optional
        The classes of the table (not in scikit-learn's function: the posterior
        depends on them; default every label seen). Labels listed but never seen are
        classes with no documents; documents of labels not listed still count.{sampling}

    See Also
    --------
    f1_score : ``average="micro"`` gives the same value for single-label predictions.
    f1posterior.accuracy : The accuracy of a confusion table.

    Examples
    --------
    >>> res = accuracy_score([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], draws=2000, rng=0)
    >>> res.score
    0.8
    """
)
