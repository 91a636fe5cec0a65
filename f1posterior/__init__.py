"""f1posterior: how far to trust an F1 score.

Exact Bayesian posteriors of F-scores and related metrics from confusion
matrices, under the Dirichlet-multinomial model of Zhang, Wang & Zhao (2015),
drawn directly from the conjugate posterior (no MCMC).

Shapes: tables are ``(*batch, M, M)`` (rows = true class); metric draws are
``(*batch, draws)`` with the draws axis last.
"""

# ruff: noqa: E402
from typing import TYPE_CHECKING

from ._core.signals import guard_startup as _guard_startup

_guard_startup()  # first: in the f1posterior command only, Ctrl-C while it starts exits quietly

from ._core.lazy import attach as _attach

if TYPE_CHECKING:  # the names, for type checkers and IDEs
    from ._core.confusion import ConfusionMatrix
    from ._core.priors import PRIOR_PRESETS, prior_preset
    from ._core.sampling import sample_posterior
    from ._core.validation import SeedLike
    from ._core.version import __version__
    from .analysis import (
        Aggregate,
        Comparison,
        DegenerateIntervalWarning,
        FoldComparison,
        FrequentistInterval,
        PriorSensitivity,
        Ranking,
        aggregate,
        bootstrap_interval,
        compare,
        compare_folds,
        compare_predictions,
        delta_interval,
        prior_sensitivity,
        rank_classifiers,
        rank_folds,
        rank_predictions,
        thresholds,
    )
    from .gating import (
        Check,
        Floor,
        GateConfigError,
        GateResult,
        JointFloor,
        NonInferiority,
        PlanResult,
        SliceFloor,
        assert_gate,
        gate,
        gate_folds,
        gate_multilabel,
        plan,
    )
    from .io import MatrixInput, read_input
    from .metrics import (
        UndefinedMetricWarning,
        accuracy,
        confusion_matrix,
        f1,
        fbeta,
        macro_f1_star,
        multilabel_confusion_matrix,
        precision,
        recall,
    )
    from .posterior import (
        BetaPosterior,
        ClusterEvaluation,
        Evaluation,
        MetricSummary,
        SliceEvaluation,
        document_scores,
        eti,
        evaluate,
        evaluate_clusters,
        evaluate_documents,
        evaluate_multilabel,
        evaluate_slices,
        exact_posterior,
        exact_summary,
        hdi,
        multilabel_scores,
        summarize_draws,
    )
else:  # each name's module is imported at its first use
    # fmt: off
    __getattr__, __dir__ = _attach(__name__, {
        "._core.confusion": ("ConfusionMatrix",),
        "._core.priors": ("PRIOR_PRESETS", "prior_preset"),
        "._core.sampling": ("sample_posterior",),
        "._core.validation": ("SeedLike",),
        "._core.version": ("__version__",),
        ".analysis": (
            "Aggregate", "Comparison", "DegenerateIntervalWarning", "FrequentistInterval",
            "PriorSensitivity", "Ranking", "aggregate", "bootstrap_interval", "compare",
            "compare_predictions", "delta_interval", "prior_sensitivity", "rank_classifiers",
            "rank_predictions", "thresholds",
            "FoldComparison", "compare_folds", "rank_folds",
        ),
        ".gating": (
            "Check", "Floor", "GateConfigError", "GateResult", "JointFloor", "NonInferiority",
            "PlanResult", "assert_gate", "gate", "gate_multilabel", "plan", "SliceFloor",
            "gate_folds",
        ),
        ".io": ("MatrixInput", "read_input"),
        ".metrics": (
            "UndefinedMetricWarning", "accuracy", "confusion_matrix", "f1", "fbeta",
            "macro_f1_star", "multilabel_confusion_matrix", "precision", "recall"
        ),
        ".posterior": (
            "BetaPosterior", "ClusterEvaluation", "Evaluation", "MetricSummary", "SliceEvaluation",
            "document_scores", "eti", "evaluate", "evaluate_clusters", "evaluate_documents",
            "evaluate_multilabel", "evaluate_slices", "exact_posterior", "exact_summary", "hdi",
            "multilabel_scores", "summarize_draws"
        ),
    })
    # fmt: on

__all__ = [
    "thresholds",
    "sample_posterior",
    "evaluate",
    "Evaluation",
    "MetricSummary",
    "summarize_draws",
    "hdi",
    "eti",
    "f1",
    "fbeta",
    "precision",
    "recall",
    "accuracy",
    "macro_f1_star",
    "delta_interval",
    "bootstrap_interval",
    "FrequentistInterval",
    "compare",
    "compare_predictions",
    "rank_classifiers",
    "rank_predictions",
    "Comparison",
    "Ranking",
    "prior_sensitivity",
    "PriorSensitivity",
    "PRIOR_PRESETS",
    "prior_preset",
    "SeedLike",
    "exact_posterior",
    "exact_summary",
    "BetaPosterior",
    "gate",
    "gate_multilabel",
    "assert_gate",
    "Floor",
    "JointFloor",
    "NonInferiority",
    "GateResult",
    "Check",
    "plan",
    "PlanResult",
    "read_input",
    "MatrixInput",
    "confusion_matrix",
    "multilabel_confusion_matrix",
    "ConfusionMatrix",
    "evaluate_multilabel",
    "multilabel_scores",
    "evaluate_documents",
    "evaluate_clusters",
    "ClusterEvaluation",
    "document_scores",
    "__version__",
    "aggregate",
    "Aggregate",
    "UndefinedMetricWarning",
    "DegenerateIntervalWarning",
    "GateConfigError",
    "evaluate_slices",
    "SliceEvaluation",
    "SliceFloor",
    "compare_folds",
    "rank_folds",
    "FoldComparison",
    "gate_folds",
]
