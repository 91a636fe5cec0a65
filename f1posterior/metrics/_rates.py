"""One-vs-rest rates of confusion tables: specificity, NPV, error rates, Jaccard, P4,
informedness, markedness, balanced accuracy and likelihood ratios.

Design notes: docs/design.md#metrics-rates
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.describe import describe
from .._core.validation import check_table
from ._divide import Average, ZeroDivision, finish_average, safe_divide
from ._multiclass import Score, check_common, make_score
from ._sums import class_sums, one_vs_rest

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "specificity",
    "npv",
    "fpr",
    "fnr",
    "fdr",
    "jaccard",
    "p4",
    "informedness",
    "markedness",
    "balanced_accuracy",
    "likelihood_ratios",
    "diagnostic_odds_ratio",
]

#: ``(numerator, denominator)`` of each one-vs-rest rate, from ``(tp, fp, fn, tn)``.
_Cells = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
_RATES: dict[str, tuple[_Cells, _Cells]] = {
    "specificity": (lambda tp, fp, fn, tn: tn, lambda tp, fp, fn, tn: tn + fp),
    "npv": (lambda tp, fp, fn, tn: tn, lambda tp, fp, fn, tn: tn + fn),
    "fpr": (lambda tp, fp, fn, tn: fp, lambda tp, fp, fn, tn: fp + tn),
    "fnr": (lambda tp, fp, fn, tn: fn, lambda tp, fp, fn, tn: fn + tp),
    "fdr": (lambda tp, fp, fn, tn: fp, lambda tp, fp, fn, tn: fp + tp),
    "jaccard": (lambda tp, fp, fn, tn: tp, lambda tp, fp, fn, tn: tp + fp + fn),
}
#: The name of each rate in warnings, and its formula per class ``j`` in docstrings.
_TITLES = {
    "specificity": ("Specificity", "tn_j / (tn_j + fp_j)"),
    "npv": ("NPV", "tn_j / (tn_j + fn_j)"),
    "fpr": ("False-positive rate", "fp_j / (fp_j + tn_j)"),
    "fnr": ("False-negative rate", "fn_j / (fn_j + tp_j)"),
    "fdr": ("False-discovery rate", "fp_j / (fp_j + tp_j)"),
    "jaccard": ("Jaccard", "tp_j / (tp_j + fp_j + fn_j)"),
}


def rate(
    t: np.ndarray,
    name: str,
    average: Any,
    labels: Any,
    zero_division: ZeroDivision,
) -> np.ndarray:
    """A one-vs-rest rate of a validated table: the metric path of every rate."""
    cells = one_vs_rest(t, labels)
    num_of, den_of = _RATES[name]
    num, den = num_of(*cells), den_of(*cells)
    if average == "micro":
        num, den = num.sum(-1), den.sum(-1)
    score = safe_divide(num, den, zero_division, _TITLES[name][0])
    support = cells[0] + cells[2] if average == "weighted" else None  # tp + fn: true totals
    return finish_average(score, support, average)


def composite(
    t: np.ndarray,
    name: str,
    average: Any,
    labels: Any,
    zero_division: ZeroDivision,
) -> np.ndarray:
    """P4, informedness or markedness (no micro form: they are not ratios of sums)."""
    tp, fp, fn, tn = cells = one_vs_rest(t, labels)
    if name == "p4":
        both = 4.0 * tp * tn
        score = safe_divide(both, both + (tp + tn) * (fp + fn), zero_division, "P4")
    elif name == "informedness":
        score = (
            safe_divide(tp, tp + fn, zero_division, "Recall")
            + safe_divide(tn, tn + fp, zero_division, "Specificity")
            - 1.0
        )
    else:
        score = (
            safe_divide(tp, tp + fp, zero_division, "Precision")
            + safe_divide(tn, tn + fn, zero_division, "NPV")
            - 1.0
        )
    return finish_average(score, cells[0] + cells[2] if average == "weighted" else None, average)


def _make_rate(name: str, what: str, example: str) -> Score:
    doc = f"""{what} of confusion tables, one class against the rest.

    ``{_TITLES[name][1]}`` per class ``j`` (``tn_j`` counts the documents of
    neither class ``j``'s row nor its column), averaged as scikit-learn averages
    precision: ``"micro"`` on the sums over classes, ``"weighted"`` by support.

    {{parameters}}
    See Also
    --------
    f1posterior.precision, f1posterior.recall : The rates of the predicted and true sides.
    f1posterior.evaluate : Posterior summaries of ``{name}`` and ``macro_{name}``.

    Examples
    --------
    >>> t = [[5, 1, 0], [2, 3, 1], [0, 0, 4]]
    >>> {name}(t, average=None).round(4)
    array({example})
    """
    return make_score(name, partial(rate, name=name), doc, module=__name__)


# Examples on [[5, 1, 0], [2, 3, 1], [0, 0, 4]]: tp = (5, 3, 4), fp = (2, 1, 1),
# fn = (1, 3, 0), tn = (8, 9, 11); e.g. specificity = (8/10, 9/10, 11/12).
specificity = _make_rate(
    "specificity", "Specificity (true-negative rate)", "[0.8   , 0.9   , 0.9167]"
)
npv = _make_rate("npv", "Negative predictive value", "[0.8889, 0.75  , 1.    ]")
fpr = _make_rate("fpr", "False-positive rate (1 - specificity)", "[0.2   , 0.1   , 0.0833]")
fnr = _make_rate("fnr", "False-negative rate (1 - recall)", "[0.1667, 0.5   , 0.    ]")
fdr = _make_rate("fdr", "False-discovery rate (1 - precision)", "[0.2857, 0.25  , 0.2   ]")
jaccard = _make_rate(
    "jaccard", "Jaccard index (intersection over union)", "[0.625 , 0.4286, 0.8   ]"
)


_COMPOSITE_AVERAGES = ("macro", "weighted", "binary", None)


def _make_composite(name: str, doc: str) -> Score:
    """P4, informedness or markedness: ``average`` without ``"micro"``."""
    return make_score(name, partial(composite, name=name), doc, _COMPOSITE_AVERAGES, __name__)


p4 = _make_composite(
    "p4",
    """P4 metric (Sitarz, 2022): the harmonic mean of precision, recall, specificity, NPV.

    ``P4_j = 4 tp_j tn_j / (4 tp_j tn_j + (tp_j + tn_j)(fp_j + fn_j))`` per class
    against the rest, equal to ``4 / (1/precision + 1/recall + 1/specificity + 1/npv)``
    where all four are positive, and 0 when ``tp`` or ``tn`` is 0 (the limit). For a
    2 x 2 table both classes have the same P4, so ``average="macro"`` (the default)
    is the binary P4; for ``M > 2`` it is the mean of the one-vs-rest values.

    No ``"micro"`` average: P4 is not a ratio of sums over classes. A 0/0 happens
    only without ``tp``, ``tn`` or without any error and a second class.

    {parameters}
    See Also
    --------
    f1posterior.metrics.informedness, f1posterior.metrics.markedness : The other
        one-vs-rest composites.
    f1posterior.metrics.specificity, f1posterior.metrics.npv : Two of its four rates.

    Examples
    --------
    >>> p4([[8, 2], [1, 9]])  # 4 * 9 * 8 / (4 * 72 + 17 * 3)
    array(0.84955752)
    """,
)
informedness = _make_composite(
    "informedness",
    """Informedness (Youden's J, bookmaker informedness): ``recall + specificity - 1``.

    Per class against the rest (Powers, 2011); for ``M > 2`` the default is the
    mean over classes of the one-vs-rest values. For a 2 x 2 table both classes
    have the same value, ``tpr - fpr``, equal to scikit-learn's
    ``balanced_accuracy_score(adjusted=True)`` when both classes occur. In [-1, 1].

    {parameters}
    See Also
    --------
    f1posterior.metrics.markedness : The predicted-side dual.
    f1posterior.metrics.balanced_accuracy : Its rescaled form for two classes.

    Examples
    --------
    >>> informedness([[8, 2], [1, 9]])  # 9/10 + 8/10 - 1
    array(0.7)
    """,
)
markedness = _make_composite(
    "markedness",
    """Markedness: ``precision + npv - 1`` per class against the rest (Powers, 2011).

    The predicted-side dual of :func:`informedness`; for ``M > 2`` the default
    is the mean over classes. In [-1, 1].

    {parameters}
    See Also
    --------
    f1posterior.metrics.informedness : The true-side dual.
    f1posterior.metrics.p4 : Another one-vs-rest composite.

    Examples
    --------
    >>> markedness([[8, 2], [1, 9]])  # 9/11 + 8/9 - 1
    array(0.70707071)
    """,
)


def balanced_accuracy(table: ArrayLike, *, adjusted: bool = False) -> np.ndarray:
    """Balanced accuracy: the mean recall over the classes that occur (scikit-learn's).

    Classes without true documents are left out, as scikit-learn does; on posterior
    draws every class occurs and this is macro recall. ``adjusted=True`` rescales
    chance (``1 / K`` for ``K`` occurring classes) to 0; with one occurring class it
    is undefined (NaN).

    Parameters
    ----------
    table : array_like, shape (..., M, M)
        Counts or cell probabilities; rows are true classes.
    adjusted : bool, default False
        Rescale so that chance is 0 and perfect is 1.

    Returns
    -------
    ndarray, shape (...)
        NaN for a table without documents.

    See Also
    --------
    f1posterior.recall : Per-class recall, which this averages.
    f1posterior.metrics.informedness : Equal to the adjusted form for two classes.

    Examples
    --------
    >>> balanced_accuracy([[8, 2, 0], [1, 9, 0], [0, 0, 0]])  # (8/10 + 9/10) / 2
    array(0.85)
    """
    t = check_table(table)
    if not isinstance(adjusted, bool):
        raise TypeError(f"adjusted must be True or False; got {describe(adjusted)}")
    return balanced_accuracy_values(t, adjusted)


def balanced_accuracy_values(t: np.ndarray, adjusted: bool = False) -> np.ndarray:
    tp, _, true = class_sums(t)
    score = finish_average(safe_divide(tp, true, np.nan), None, "macro")
    if not adjusted:
        return score
    chance = safe_divide(np.ones(()), (true > 0).sum(axis=-1).astype(float), np.nan)
    return safe_divide(score - chance, 1.0 - chance, np.nan)


def ratios(
    t: np.ndarray, labels: Any, zero_division: ZeroDivision
) -> tuple[np.ndarray, np.ndarray]:
    tp, fp, fn, tn = one_vs_rest(t, labels)
    tpr = safe_divide(tp, tp + fn, zero_division, "True-positive rate")
    fpr = safe_divide(fp, fp + tn, zero_division, "False-positive rate")
    fnr = safe_divide(fn, fn + tp, zero_division, "False-negative rate")
    tnr = safe_divide(tn, tn + fp, zero_division, "Specificity")
    lr_pos = safe_divide(tpr, fpr, zero_division, "LR+")
    lr_neg = safe_divide(fnr, tnr, zero_division, "LR-")
    return lr_pos, lr_neg


def _check_ratio_args(
    table: ArrayLike, average: Any, labels: Any, pos_label: Any, zero_division: Any
) -> tuple[np.ndarray, np.ndarray | None, ZeroDivision]:
    return check_common(table, average, labels, pos_label, zero_division, (None, "binary"))


# The ratios spell out their signature (not make_score): other defaults (average=None,
# zero_division=nan), a pair returned here and ``log`` in diagnostic_odds_ratio.
def likelihood_ratios(
    table: ArrayLike,
    *,
    average: Average = None,
    labels: Sequence[int] | None = None,
    pos_label: int = 1,
    zero_division: ZeroDivision = np.nan,
) -> tuple[np.ndarray, np.ndarray]:
    """Positive and negative likelihood ratios, each class positive against the rest.

    ``LR+_j = tpr_j / fpr_j`` and ``LR-_j = fnr_j / tnr_j``. For a 2 x 2 table,
    class 1's values (``average="binary"``) are scikit-learn's
    ``class_likelihood_ratios``; undefined ratios (a zero rate below the bar, or a
    class without documents) take ``zero_division``, NaN by default, as
    scikit-learn's ``replace_undefined_by``.

    On posterior draws every cell is positive and both ratios are finite (at most
    ``1 / tiny`` of the float type) but unbounded above and heavy-tailed when
    ``fp`` or ``tn`` is small: summarise them by quantiles (the equal-tailed
    interval commutes with ``log``), not by the mean, which the tail can dominate.

    Parameters
    ----------
    table : array_like, shape (..., M, M)
        Counts or cell probabilities; rows are true classes.
    average : {None, "binary"}, default None
        ``None``: one value per class on a trailing axis; ``"binary"``: ``pos_label``'s.
    labels : sequence of int, optional
        Class indices to include (and their order).
    pos_label : int, default 1
        Positive class for ``average="binary"`` (2 x 2 tables only).
    zero_division : {numpy.nan, "warn", 0, 1}, default numpy.nan
        Value of an undefined ratio on counts.

    Returns
    -------
    (ndarray, ndarray)
        ``LR+`` and ``LR-``, shape (..., K), or (...) for ``average="binary"``.

    See Also
    --------
    f1posterior.metrics.diagnostic_odds_ratio : Their ratio.
    f1posterior.recall, f1posterior.metrics.specificity : The rates they compare.

    Examples
    --------
    >>> likelihood_ratios([[8, 2], [1, 9]], average="binary")  # (9/10)/(2/10), (1/10)/(8/10)
    (array(4.5), array(0.125))
    """
    t, lab, zd = _check_ratio_args(table, average, labels, pos_label, zero_division)
    lr_pos, lr_neg = ratios(t, lab, zd)
    return finish_average(lr_pos, None, average), finish_average(lr_neg, None, average)


def diagnostic_odds_ratio(
    table: ArrayLike,
    *,
    average: Average = None,
    labels: Sequence[int] | None = None,
    pos_label: int = 1,
    zero_division: ZeroDivision = np.nan,
    log: bool = False,
) -> np.ndarray:
    """Diagnostic odds ratio ``(tp / fn) (tn / fp) = LR+ / LR-``, each class positive.

    Undefined (``zero_division``, NaN by default) where ``fn`` or ``fp`` is 0; 0
    where ``tp`` or ``tn`` is 0 (``-inf`` with ``log=True``). The same for both
    classes of a 2 x 2 table.

    On posterior draws every cell is positive and the odds ratio can exceed the
    largest float when both ``fn`` and ``fp`` draws are at the sampler's floor
    (priors of ``alpha`` about 1e-2 or less on empty cells): such values are
    returned as the largest float (``numpy.finfo(dtype).max``), so summaries stay
    defined and ordered. ``log=True`` gives ``log(tp) - log(fn) + log(tn) - log(fp)``,
    always finite on draws and near normal (Woolf's log odds ratio): summarise the
    log odds ratio when the ratio's tail matters; its equal-tailed interval is the
    log of the ratio's.

    Parameters
    ----------
    table : array_like, shape (..., M, M)
        Counts or cell probabilities; rows are true classes.
    average : {None, "binary"}, default None
        ``None``: one value per class on a trailing axis; ``"binary"``: ``pos_label``'s.
    labels : sequence of int, optional
        Class indices to include (and their order).
    pos_label : int, default 1
        Positive class for ``average="binary"`` (2 x 2 tables only).
    zero_division : {numpy.nan, "warn", 0, 1}, default numpy.nan
        Value where ``fn`` or ``fp`` is 0 on counts.
    log : bool, default False
        Return the natural log of the odds ratio.

    Returns
    -------
    ndarray, shape (..., K) or (...)
        The odds ratio (or its log).

    See Also
    --------
    f1posterior.metrics.likelihood_ratios : ``LR+`` and ``LR-``, whose ratio this is.

    Examples
    --------
    >>> diagnostic_odds_ratio([[8, 2], [1, 9]], average="binary")  # (9/1) (8/2)
    array(36.)
    """
    t, lab, zd = _check_ratio_args(table, average, labels, pos_label, zero_division)
    if not isinstance(log, bool):
        raise TypeError(f"log must be True or False; got {describe(log)}")
    return finish_average(dor(t, lab, zd, log), None, average)


def dor(t: np.ndarray, labels: Any, zero_division: ZeroDivision, log: bool = False) -> np.ndarray:
    tp, fp, fn, tn = one_vs_rest(t, labels)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if log:
            value = np.log(tp) - np.log(fn) + np.log(tn) - np.log(fp)
        else:  # two within-row odds: no product of two small cells, which could underflow
            value = np.minimum((tp / fn) * (tn / fp), np.finfo(np.result_type(t, 1.0)).max)
    undefined = (fn == 0) | (fp == 0)
    if np.any(undefined):  # the zero_division value there, with its warning if asked
        fill = safe_divide(
            np.ones(undefined.shape),
            np.where(undefined, 0.0, 1.0),
            zero_division,
            "Diagnostic odds ratio",
        )
        value = np.where(undefined, fill, value)
    return value
