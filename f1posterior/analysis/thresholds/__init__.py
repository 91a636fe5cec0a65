"""Decision thresholds that maximise F-beta, and honest scores for them.

The tools of Lipton, Elkan & Narayanaswamy (2014, ECML PKDD) and of Rubin et al. (2012,
Machine Learning 88): the empirical F-beta-optimal threshold (:func:`best_threshold`),
the decisions maximising the exact expected F-beta of calibrated probabilities
(:func:`expected_fbeta_decisions`), rank cut-offs for multi-label scores (``*_cutoff``),
and a cross-fitted posterior for a threshold chosen from data (:func:`evaluate_threshold`).

Conventions: labels come first and scores second (scikit-learn's ``(y_true, y_score)``),
each ``(n,)`` for one binary problem or ``(D, L)`` for ``D`` documents and ``L`` labels.
A prediction is positive when ``y_score >= threshold``, so tied scores go together.
Tables are ``[[tn, fp], [fn, tp]]`` (rows = truth), the core's ``(M, M)`` layout with
class 1 positive. A label without positives has F-beta 0/0 when nothing is predicted:
the functions then predict nothing and score it ``zero_division`` (0 or 1; default 0).
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
