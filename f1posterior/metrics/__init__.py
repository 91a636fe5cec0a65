"""Level 1: metrics of confusion tables and of their draws, and confusion matrices built
from predictions (:mod:`._confusion`).

One metric path: per-class sums (:mod:`._sums`), one divide and one class average
(:mod:`._divide`); F-scores, precision, recall (:mod:`._multiclass`), one-vs-rest rates,
ratios and P4 (:mod:`._rates`), Matthews' correlation and kappa (:mod:`._agreement`); the
named metrics of ``evaluate`` and the gate are in :mod:`._registry` (``METRICS``).

The table-taking functions are importable from here: ``from f1posterior.metrics import f1``.
"""

from ._agreement import cohen_kappa, mcc
from ._confusion import (
    align_ids,
    confusion_matrix,
    label_array,
    label_codes,
    label_kind,
    multilabel_confusion_matrix,
)
from ._divide import UndefinedMetricWarning, safe_divide
from ._multiclass import (  # the package root re-exports these names too: the list repeats
    accuracy,
    f1,
    fbeta,
    fbeta_values,
    macro_f1_star,
    precision,
    recall,
)
from ._multilabel import AGGREGATE_METRICS, PER_LABEL_METRICS, LabelTerms, aggregate, term_names
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
from ._registry import METRIC_RANGES, METRICS, PER_CLASS_METRICS, resolve_metric
from ._sums import shared_class_sums

# fmt: off
__all__ = [
    "accuracy", "balanced_accuracy", "likelihood_ratios", "cohen_kappa",
    "diagnostic_odds_ratio", "f1", "fbeta", "fdr", "fnr", "fpr", "informedness", "jaccard",
    "macro_f1_star", "markedness", "mcc", "npv", "p4", "precision", "recall", "safe_divide",
    "specificity", "AGGREGATE_METRICS", "LabelTerms", "METRICS", "METRIC_RANGES",
    "PER_CLASS_METRICS", "PER_LABEL_METRICS", "UndefinedMetricWarning", "aggregate",
    "align_ids", "confusion_matrix", "fbeta_values", "label_array", "label_codes", "label_kind",
    "multilabel_confusion_matrix", "resolve_metric", "shared_class_sums", "term_names",
]
# fmt: on
