"""f1posterior: how far to trust an F1 score.

Exact Bayesian posteriors of F-scores and related metrics from confusion
matrices, under the Dirichlet-multinomial model of Zhang, Wang & Zhao (2015),
drawn directly from the conjugate posterior (no MCMC).

Shapes: tables are ``(*batch, M, M)`` (rows = true class); metric draws are
``(*batch, draws)`` with the draws axis last.
"""

# ruff: noqa: E402
from ._core.signals import guard_startup as _guard_startup

_guard_startup()  # first: in the f1posterior command only, Ctrl-C while it starts exits quietly

from ._core.confusion import ConfusionMatrix
from ._core.priors import PRIOR_PRESETS, prior_preset
from ._core.sampling import sample_posterior
from ._core.validation import SeedLike
from ._core.version import __version__
from .analysis import thresholds
from .analysis.aggregate import Aggregate, aggregate
from .analysis.comparison import Comparison, compare
from .analysis.delta import delta_interval
from .analysis.frequentist import DegenerateIntervalWarning, FrequentistInterval, bootstrap_interval
from .analysis.paired import compare_predictions
from .analysis.ranking import Ranking, rank_classifiers, rank_predictions
from .analysis.sensitivity import PriorSensitivity, prior_sensitivity
from .gating.checks import Floor, JointFloor, NonInferiority
from .gating.config_schema import GateConfigError
from .gating.gate import assert_gate, gate, gate_multilabel
from .gating.plan_result import PlanResult
from .gating.planning import plan
from .gating.verdicts import Check, GateResult
from .io.readers import read_input
from .io.sources import MatrixInput
from .metrics.confusion import confusion_matrix, multilabel_confusion_matrix
from .metrics.divide import UndefinedMetricWarning
from .metrics.multiclass import (
    accuracy,
    f1,
    fbeta,
    macro_f1_star,
    precision,
    recall,
)
from .posterior.documents import document_scores, evaluate_documents
from .posterior.evaluation import Evaluation, evaluate
from .posterior.exact import BetaPosterior, exact_posterior, exact_summary
from .posterior.multilabel import evaluate_multilabel, multilabel_scores
from .posterior.summary import MetricSummary, eti, hdi, summarize_draws

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
    "document_scores",
    "__version__",
    "aggregate",
    "Aggregate",
    "UndefinedMetricWarning",
    "DegenerateIntervalWarning",
    "GateConfigError",
]
