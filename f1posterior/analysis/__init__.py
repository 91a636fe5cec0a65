"""Level 4: questions asked of posteriors: comparison and ranking of classifiers, prior
sensitivity, frequentist intervals, thresholds."""

from ._aggregate import MAX_TAU_SCALE, METHODS, aggregate
from ._aggregate_result import Aggregate
from ._comparison import Comparison, compare
from ._delta import delta_interval
from ._frequentist import DegenerateIntervalWarning, FrequentistInterval, bootstrap_interval
from ._paired import compare_predictions
from ._random_effects import SCALES
from ._ranking import Ranking, rank_classifiers, rank_predictions
from ._sensitivity import DEFAULT_PRIORS, DEFAULT_THRESHOLD, PriorSensitivity, prior_sensitivity

# fmt: off
__all__ = [
    "Aggregate", "Comparison", "DEFAULT_PRIORS", "DEFAULT_THRESHOLD",
    "DegenerateIntervalWarning", "FrequentistInterval", "MAX_TAU_SCALE", "METHODS",
    "PriorSensitivity", "Ranking", "SCALES", "aggregate", "bootstrap_interval", "compare",
    "compare_predictions", "delta_interval", "prior_sensitivity", "rank_classifiers",
    "rank_predictions",
]
# fmt: on
