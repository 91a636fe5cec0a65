"""Level 1: metrics of confusion tables and of their draws (:mod:`.multiclass`, with the
``METRICS`` registry) and confusion matrices built from predictions (:mod:`.confusion`).

The table-taking functions are importable from here: ``from f1posterior.metrics import f1_score``.
"""

from .multiclass import (
    accuracy_score,
    f1_score,
    fbeta_score,
    macro_f1_star_score,
    precision_score,
    recall_score,
)

__all__ = [
    "accuracy_score",
    "f1_score",
    "fbeta_score",
    "macro_f1_star_score",
    "precision_score",
    "recall_score",
]
