"""What the scikit-learn and MLflow adapters share: the prior argument, the metrics a
selection or a threshold may rank by, and the statistic read from a summary."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.describe import describe
from .._core.priors import PriorArg, prior_preset
from .._core.validation import check_choice, did_you_mean

__all__ = [
    "LOWER_IS_BETTER",
    "STATISTICS",
    "prior_pair",
    "check_ranking_metric",
    "check_statistic_ref",
    "statistic_of",
    "counts_of",
]

#: Named metrics where a smaller value is better: a criterion or a threshold that ranks
#: by "larger is better" would pick the worst model, so they are refused (with their
#: complements named).
LOWER_IS_BETTER = {
    "macro_fpr": "macro_specificity",
    "macro_fnr": "macro_recall",
    "macro_fdr": "macro_precision",
}

#: The statistics of a summary that a scorer or an MLflow metric reports: each one is
#: larger for a better model of a "larger is better" metric.
STATISTICS = ("mean", "hdi_low", "hdi_high", "p_above")


def prior_pair(prior: Any) -> tuple[PriorArg, PriorArg]:
    """``(alpha, beta)`` of ``prior``: a preset name, or an ``(alpha, beta)`` pair.

    The adapters take one ``prior`` argument, as scikit-learn's ``fbeta_score`` already
    uses ``beta`` for the F-beta weight.

    Examples
    --------
    >>> prior_pair("jeffreys"), prior_pair((1.0, 0.5))
    ((0.5, 0.5), (1.0, 0.5))
    """
    if isinstance(prior, str):
        return prior_preset(prior)
    if isinstance(prior, tuple) and len(prior) == 2:
        return prior[0], prior[1]
    raise TypeError(
        "prior must be a preset name (f1posterior.PRIOR_PRESETS) or an (alpha, beta) pair; "
        f"got {describe(prior)}"
    )


def check_ranking_metric(metric: Any, name: str = "metric") -> str:
    """A named metric of one value per table where larger is better (a scorer's, a gate's)."""
    from ..metrics import METRICS, PER_CLASS_METRICS

    if metric in LOWER_IS_BETTER:
        raise ValueError(
            f"{name} must be a metric where larger is better; got {metric!r}, where smaller "
            f"is better (use {LOWER_IS_BETTER[metric]!r}, its complement)"
        )
    if metric in PER_CLASS_METRICS:
        raise ValueError(
            f"{name} must have one value per table; got {metric!r}, one value per class "
            "(use its macro or weighted average, e.g. 'macro_f1')"
        )
    allowed = sorted(set(METRICS) - PER_CLASS_METRICS - set(LOWER_IS_BETTER))
    if not isinstance(metric, str) or metric not in allowed:
        raise ValueError(
            f"{name} must be one of {', '.join(map(repr, allowed))}; got "
            f"{describe(metric)}{did_you_mean(metric, allowed)}"
        )
    return metric


def check_statistic_ref(value: Any, name: str, allowed: Any, ref: Any) -> str:
    """``value``, one of ``allowed`` (argument ``name``); ``ref`` goes with "p_above" alone."""
    stat: str = check_choice(value, name, allowed)
    if (stat == "p_above") != (ref is not None):
        raise ValueError(
            f'ref must be given with {name}="p_above", and only there; got '
            f"{name}={stat!r}, ref={ref!r}"
        )
    return stat


def statistic_of(summary: Any, statistic: str) -> Any:
    """The ``statistic`` (one of :data:`STATISTICS`, or another summary field) of ``summary``.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> s = evaluate([[40, 10], [5, 45]], metrics="macro_f1", draws=1000, rng=0)["macro_f1"]
    >>> bool(statistic_of(s, "hdi_low") == s.hdi[0])
    True
    """
    if statistic in ("hdi_low", "hdi_high", "eti_low", "eti_high"):
        interval = np.asarray(getattr(summary, statistic[:3]))
        return interval[..., 0 if statistic.endswith("low") else 1]
    return getattr(summary, statistic)


def counts_of(y_true: Any, y_pred: Any, labels: Any) -> tuple[np.ndarray, list[Any]]:
    """The confusion matrix of ``(y_true, y_pred)`` over ``labels`` (None: every label seen)
    and its labels; a document whose label is not in ``labels`` is refused, not dropped.

    Examples
    --------
    >>> counts_of(["a", "b", "b"], ["a", "b", "a"], ["b", "a"])[0]
    array([[1, 1],
           [0, 1]])
    """
    from ..metrics import confusion_matrix

    if labels is not None:
        known = list(labels)
        for name, values in (("y_true", y_true), ("predictions", y_pred)):
            seen = np.unique(np.asarray(values)).tolist()
            stray = [v for v in seen if v not in known]
            if stray:
                raise ValueError(
                    f"labels must name every class of {name}; got labels {known} and "
                    f"{name} holding {stray}"
                )
    cm = confusion_matrix(y_true, y_pred, labels=labels)
    return np.asarray(cm.counts), list(cm.labels)
