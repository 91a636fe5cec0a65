"""Level 1: metrics of confusion tables and of their draws, and confusion matrices built
from predictions (:mod:`.confusion`).

One metric path: per-class sums (:mod:`.sums`), one divide and one class average
(:mod:`.divide`); F-scores, precision, recall (:mod:`.multiclass`), one-vs-rest rates,
ratios and P4 (:mod:`.rates`), Matthews' correlation and kappa (:mod:`.agreement`); the
named metrics of ``evaluate`` and the gate are in :mod:`.registry` (``METRICS``).

The table-taking functions are importable from here: ``from f1posterior.metrics import f1_score``.
"""

from .agreement import cohen_kappa_score, matthews_corrcoef
from .divide import safe_divide
from .multiclass import (  # the package root re-exports these names too: the list repeats
    accuracy_score,
    f1_score,
    fbeta_score,
    macro_f1_star_score,
    precision_score,
    recall_score,
)
from .rates import (
    balanced_accuracy_score,
    class_likelihood_ratios,
    diagnostic_odds_ratio,
    fdr_score,
    fnr_score,
    fpr_score,
    informedness_score,
    jaccard_score,
    markedness_score,
    npv_score,
    p4_score,
    specificity_score,
)

__all__ = [
    "accuracy_score",
    "balanced_accuracy_score",
    "class_likelihood_ratios",
    "cohen_kappa_score",
    "diagnostic_odds_ratio",
    "f1_score",
    "fbeta_score",
    "fdr_score",
    "fnr_score",
    "fpr_score",
    "informedness_score",
    "jaccard_score",
    "macro_f1_star_score",
    "markedness_score",
    "matthews_corrcoef",
    "npv_score",
    "p4_score",
    "precision_score",
    "recall_score",
    "safe_divide",
    "specificity_score",
]
