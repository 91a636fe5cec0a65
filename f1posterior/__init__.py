"""f1posterior: how far to trust an F1 score.

Exact Bayesian posteriors of F-scores and related metrics from confusion
matrices, under the Dirichlet-multinomial model of Zhang, Wang & Zhao (2015),
drawn directly from the conjugate posterior (no MCMC).

Shapes: tables are ``(*batch, M, M)`` (rows = true class); metric draws are
``(*batch, draws)`` with the draws axis last.
"""

from . import thresholds
from .comparison import (
    Comparison,
    Ranking,
    compare,
    compare_predictions,
    rank_classifiers,
    rank_predictions,
)
from .documents import document_scores, evaluate_documents
from .evaluation import Evaluation, evaluate
from .exact import BetaPosterior, exact_posterior, exact_summary
from .frequentist import FrequentistInterval, bootstrap_interval, delta_interval
from .gate import Check, GateResult, assert_gate, gate
from .inputs import MatrixInput, read_input
from .metrics import (
    accuracy_score,
    f1_score,
    fbeta_score,
    macro_f1_star_score,
    precision_score,
    recall_score,
)
from .multilabel import evaluate_multilabel, multilabel_scores
from .planning import PlanResult, plan
from .predictions import ConfusionMatrix, confusion_matrix, multilabel_confusion_matrix
from .priors import PRIOR_PRESETS, prior_preset
from .sampling import sample_posterior
from .sensitivity import PriorSensitivity, prior_sensitivity
from .summary import MetricSummary, eti, hdi, summarize_draws

__version__ = "0.1.0"

__all__ = [
    "thresholds",
    "sample_posterior",
    "evaluate",
    "Evaluation",
    "MetricSummary",
    "summarize_draws",
    "hdi",
    "eti",
    "f1_score",
    "fbeta_score",
    "precision_score",
    "recall_score",
    "accuracy_score",
    "macro_f1_star_score",
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
    "exact_posterior",
    "exact_summary",
    "BetaPosterior",
    "gate",
    "assert_gate",
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
    "document_scores",
    "__version__",
]
