"""Level 1: metrics of confusion tables and of their draws, and confusion matrices built
from predictions (:mod:`._confusion`).

One metric path: per-class sums (:mod:`._sums`), one divide and one class average
(:mod:`._divide`); F-scores, precision, recall (:mod:`._multiclass`), one-vs-rest rates,
ratios and P4 (:mod:`._rates`), Matthews' correlation and kappa (:mod:`._agreement`); the
named metrics of ``evaluate`` and the gate are in :mod:`._registry` (``METRICS``).

The table-taking functions are importable from here: ``from f1posterior.metrics import f1``.
"""

from typing import TYPE_CHECKING

from .._core.lazy import attach as _attach

if TYPE_CHECKING:  # the names, for type checkers and IDEs
    from ._agreement import cohen_kappa, mcc

    # for the package's other layers, not public API
    from ._confusion import align_ids as align_ids
    from ._confusion import confusion_matrix, multilabel_confusion_matrix
    from ._confusion import grouped_counts as grouped_counts
    from ._confusion import label_array as label_array
    from ._confusion import label_codes as label_codes
    from ._confusion import label_kind as label_kind
    from ._divide import UndefinedMetricWarning, safe_divide
    from ._multiclass import accuracy, f1, fbeta, macro_f1_star, precision, recall
    from ._multiclass import fbeta_values as fbeta_values
    from ._multilabel import AGGREGATE_METRICS as AGGREGATE_METRICS
    from ._multilabel import MULTILABEL_METRICS as MULTILABEL_METRICS
    from ._multilabel import PER_LABEL_METRICS as PER_LABEL_METRICS
    from ._multilabel import LabelTerms as LabelTerms
    from ._multilabel import aggregate as aggregate
    from ._multilabel import term_names as term_names
    from ._rates import (
        balanced_accuracy,
        diagnostic_odds_ratio,
        fdr,
        fnr,
        fpr,
        informedness,
        jaccard,
        likelihood_ratios,
        markedness,
        npv,
        p4,
        specificity,
    )
    from ._registry import METRIC_RANGES as METRIC_RANGES
    from ._registry import METRICS
    from ._registry import PER_CLASS_METRICS as PER_CLASS_METRICS
    from ._registry import resolve_metric as resolve_metric
    from ._sums import shared_class_sums as shared_class_sums
else:  # each name's module is imported at its first use
    # fmt: off
    __getattr__, __dir__ = _attach(__name__, {
        "._agreement": ("cohen_kappa", "mcc"),
        "._confusion": (
            "align_ids", "confusion_matrix", "multilabel_confusion_matrix", "label_array",
            "label_codes", "label_kind", "grouped_counts"
        ),
        "._divide": ("UndefinedMetricWarning", "safe_divide"),
        "._multiclass": (
            "accuracy", "f1", "fbeta", "macro_f1_star", "precision", "recall", "fbeta_values"
        ),
        "._multilabel": (
            "AGGREGATE_METRICS", "MULTILABEL_METRICS", "PER_LABEL_METRICS", "LabelTerms",
            "aggregate", "term_names"
        ),
        "._rates": (
            "balanced_accuracy", "diagnostic_odds_ratio", "fdr", "fnr", "fpr", "informedness",
            "jaccard", "likelihood_ratios", "markedness", "npv", "p4", "specificity"
        ),
        "._registry": ("METRIC_RANGES", "METRICS", "PER_CLASS_METRICS", "resolve_metric"),
        "._sums": ("shared_class_sums",),
    })
    # fmt: on

# fmt: off
__all__ = [
    "accuracy", "balanced_accuracy", "likelihood_ratios", "cohen_kappa",
    "diagnostic_odds_ratio", "f1", "fbeta", "fdr", "fnr", "fpr", "informedness", "jaccard",
    "macro_f1_star", "markedness", "mcc", "npv", "p4", "precision", "recall", "safe_divide",
    "specificity", "METRICS", "UndefinedMetricWarning", "confusion_matrix",
    "multilabel_confusion_matrix",
]
# fmt: on
