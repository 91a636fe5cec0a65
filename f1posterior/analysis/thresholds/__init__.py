"""Decision thresholds that maximise F-beta, and honest scores for them.

Labels come first and scores second (scikit-learn's ``(y_true, y_score)``); a prediction is
positive when ``y_score >= threshold``.

Design notes: docs/design.md#analysis-thresholds
"""

from __future__ import annotations

from ._best import ThresholdResult, best_threshold
from ._cutoffs import (
    RankCutoff,
    break_even_cutoff,
    calibrated_cutoff,
    proportional_cutoff,
    top_k_cutoff,
)
from ._evaluation import ThresholdEvaluation, evaluate_threshold
from ._expected import ExpectedFbetaDecision, expected_fbeta, expected_fbeta_decisions

__all__ = [
    "ThresholdResult",
    "best_threshold",
    "ExpectedFbetaDecision",
    "expected_fbeta_decisions",
    "expected_fbeta",
    "RankCutoff",
    "top_k_cutoff",
    "proportional_cutoff",
    "calibrated_cutoff",
    "break_even_cutoff",
    "ThresholdEvaluation",
    "evaluate_threshold",
]
