"""Level 1: metrics of confusion tables and of their draws, and confusion matrices built
from predictions (:mod:`.confusion`).

One metric path: per-class sums (:mod:`.sums`), one divide and one class average
(:mod:`.divide`); F-scores, precision, recall (:mod:`.multiclass`), one-vs-rest rates,
ratios and P4 (:mod:`.rates`), Matthews' correlation and kappa (:mod:`.agreement`); the
named metrics of ``evaluate`` and the gate are in :mod:`.registry` (``METRICS``).

The table-taking functions are importable from here: ``from f1posterior.metrics import f1``.
"""

from .agreement import cohen_kappa, mcc
from .divide import safe_divide
from .multiclass import (  # the package root re-exports these names too: the list repeats
    accuracy,
    f1,
    fbeta,
    macro_f1_star,
    precision,
    recall,
)
from .rates import (
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

__all__ = [
    "accuracy",
    "balanced_accuracy",
    "likelihood_ratios",
    "cohen_kappa",
    "diagnostic_odds_ratio",
    "f1",
    "fbeta",
    "fdr",
    "fnr",
    "fpr",
    "informedness",
    "jaccard",
    "macro_f1_star",
    "markedness",
    "mcc",
    "npv",
    "p4",
    "precision",
    "recall",
    "safe_divide",
    "specificity",
]
