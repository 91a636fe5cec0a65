"""Decision thresholds that maximise F-beta, and honest scores for them.

Lipton, Elkan & Narayanaswamy (2014, "Optimal thresholding of classifiers to
maximize F1 measure", ECML PKDD) show that the F1-optimal
threshold of calibrated probabilities is half the optimal F1 (for F-beta:
``F* / (1 + beta**2)``), that an uninformative classifier is F1-optimal when it
predicts everything positive, and that thresholds chosen on the data they are
scored on are optimistic (a winner's curse). This module turns those results
into tools:

- :func:`best_threshold`: the empirical F-beta-optimal threshold of scores
  against true labels (one sort and one sweep, ``O(n log n)``; ties handled;
  one threshold per label or one shared by all labels);
- :func:`expected_fbeta_decisions`: for calibrated, independent probabilities,
  the decisions that maximise the *exact* expected F-beta of a batch (the
  plug-in algorithm of Lipton et al.'s section 4.1), with the threshold relation
  of Theorem 4.2 beside them;
- rank-based cut-offs for multi-label scores (Rubin, Chambers, Smyth &
  Steyvers 2012, "Statistical topic models for multi-label document
  classification", Machine Learning 88): :func:`top_k_cutoff`, :func:`proportional_cutoff`,
  :func:`calibrated_cutoff`, :func:`break_even_cutoff`;
- :func:`evaluate_threshold`: choose thresholds on some folds, score them on
  the held-out fold, sum the held-out confusion tables over folds and report
  the exact Bayesian posterior of F-beta of that table, with the optimism of
  the in-sample score.

Conventions
-----------
Scores and labels are ``(n,)`` for one binary problem or ``(D, L)`` for ``D``
documents and ``L`` labels. A prediction is positive when
``score >= threshold``, so tied scores are always predicted together.
Confusion tables use scikit-learn's ``multilabel_confusion_matrix`` layout
``[[tn, fp], [fn, tp]]``: rows are the truth (negative, positive), columns the
prediction. That is the core's ``(M, M)`` layout with ``M = 2`` and class 1
positive, so ``fbeta(table, beta=b, average="binary")`` gives the score
and :func:`f1posterior.evaluate` takes the tables as they are.

A label without any positive document has F-beta ``0/0`` when nothing is
predicted and ``0`` otherwise. The functions here then predict nothing
(threshold ``+inf``, cut-off 0) and report ``zero_division`` (default 0, as
scikit-learn) as its score.
"""

from __future__ import annotations

from .best import ThresholdResult, best_threshold
from .cutoffs import (
    RankCutoff,
    break_even_cutoff,
    calibrated_cutoff,
    proportional_cutoff,
    top_k_cutoff,
)
from .evaluation import ThresholdEvaluation, evaluate_threshold
from .expected import ExpectedFbetaDecision, expected_fbeta, expected_fbeta_decisions

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
