"""The named metrics of :func:`f1posterior.evaluate`, the gate and the command line.

:data:`METRICS` maps each name to a function of a float table ``(..., M, M)``.

Design notes: docs/design.md#metrics-registry
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.describe import describe
from .._core.validation import did_you_mean
from ._agreement import kappa, mcc_values
from ._multiclass import accuracy_values, f1_star, fbeta_values, precision_values, recall_values
from ._rates import balanced_accuracy_values, composite, dor, rate, ratios

__all__ = ["METRICS", "PER_CLASS_METRICS", "METRIC_RANGES", "resolve_metric"]

_Z = 0.0  # zero_division of named metrics on counts: scikit-learn's default value, silently
_NAN = float("nan")


def _rate_metric(name: str, average: str | None) -> Callable[[np.ndarray], np.ndarray]:
    return lambda t: rate(t, name, average, None, _Z)


def _composite_metric(name: str) -> Callable[[np.ndarray], np.ndarray]:
    return lambda t: composite(t, name, "macro", None, _Z)


METRICS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "micro_f1": lambda t: fbeta_values(t, 1.0, "micro", None, _Z),
    "macro_f1": lambda t: fbeta_values(t, 1.0, "macro", None, _Z),
    "weighted_f1": lambda t: fbeta_values(t, 1.0, "weighted", None, _Z),
    "macro_f1_star": lambda t: f1_star(t, None, _Z),
    "accuracy": accuracy_values,
    "macro_precision": lambda t: precision_values(t, "macro", None, _Z),
    "macro_recall": lambda t: recall_values(t, "macro", None, _Z),
    "weighted_precision": lambda t: precision_values(t, "weighted", None, _Z),
    "weighted_recall": lambda t: recall_values(t, "weighted", None, _Z),
    "f1": lambda t: fbeta_values(t, 1.0, None, None, _Z),
    "precision": lambda t: precision_values(t, None, None, _Z),
    "recall": lambda t: recall_values(t, None, None, _Z),
    # chance-corrected and balanced scores of the whole table
    "mcc": lambda t: mcc_values(t, _Z),
    "cohen_kappa": lambda t: kappa(t, _NAN),
    "balanced_accuracy": balanced_accuracy_values,
    "informedness": _composite_metric("informedness"),
    "markedness": _composite_metric("markedness"),
    "p4": _composite_metric("p4"),
    # one class against the rest: per class, and their averages
    "specificity": _rate_metric("specificity", None),
    "npv": _rate_metric("npv", None),
    "fpr": _rate_metric("fpr", None),
    "fnr": _rate_metric("fnr", None),
    "fdr": _rate_metric("fdr", None),
    "jaccard": _rate_metric("jaccard", None),
    "macro_specificity": _rate_metric("specificity", "macro"),
    "macro_npv": _rate_metric("npv", "macro"),
    "macro_fpr": _rate_metric("fpr", "macro"),
    "macro_fnr": _rate_metric("fnr", "macro"),
    "macro_fdr": _rate_metric("fdr", "macro"),
    "macro_jaccard": _rate_metric("jaccard", "macro"),
    "micro_jaccard": _rate_metric("jaccard", "micro"),
    "weighted_jaccard": _rate_metric("jaccard", "weighted"),
    # ratios, each class positive (class 1 of a 2 x 2 table is scikit-learn's)
    "positive_likelihood_ratio": lambda t: ratios(t, None, _NAN)[0],
    "negative_likelihood_ratio": lambda t: ratios(t, None, _NAN)[1],
    "diagnostic_odds_ratio": lambda t: dor(t, None, _NAN),
    "log_diagnostic_odds_ratio": lambda t: dor(t, None, _NAN, log=True),
}
#: Named metrics with one value per class (trailing class axis).
PER_CLASS_METRICS = frozenset(
    {
        "f1",
        "precision",
        "recall",
        "specificity",
        "npv",
        "fpr",
        "fnr",
        "fdr",
        "jaccard",
        "positive_likelihood_ratio",
        "negative_likelihood_ratio",
        "diagnostic_odds_ratio",
        "log_diagnostic_odds_ratio",
    }
)
_INF = float("inf")
#: The range of each named metric's values; every other metric is in [0, 1].
METRIC_RANGES: dict[str, tuple[float, float]] = {
    **{name: (0.0, 1.0) for name in METRICS},
    "mcc": (-1.0, 1.0),
    "cohen_kappa": (-1.0, 1.0),
    "informedness": (-1.0, 1.0),
    "markedness": (-1.0, 1.0),
    "positive_likelihood_ratio": (0.0, _INF),
    "negative_likelihood_ratio": (0.0, _INF),
    "diagnostic_odds_ratio": (0.0, _INF),
    "log_diagnostic_odds_ratio": (-_INF, _INF),
}


def resolve_metric(metric: Any, name: str = "metrics") -> tuple[str, Callable[[np.ndarray], Any]]:
    """Return ``(display name, function of a table)`` for a metric name or callable.

    Examples
    --------
    >>> resolve_metric("macro_f1")[0]
    'macro_f1'
    """
    if callable(metric):
        return getattr(metric, "__name__", "custom"), metric
    if isinstance(metric, str) and metric in METRICS:
        return metric, METRICS[metric]
    raise ValueError(
        f"{name} must name known metrics ({', '.join(METRICS)}) or be callables of a "
        f"(..., M, M) table; got {describe(metric)}" + did_you_mean(metric, list(METRICS))
    )
