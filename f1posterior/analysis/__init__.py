"""Level 4: questions asked of posteriors: comparison and ranking of classifiers, prior
sensitivity, frequentist intervals, thresholds."""

from typing import TYPE_CHECKING

from .._core.lazy import attach as _attach

if TYPE_CHECKING:  # the names, for type checkers and IDEs
    from ._aggregate import MAX_TAU_SCALE as MAX_TAU_SCALE
    from ._aggregate import METHODS as METHODS
    from ._aggregate import aggregate
    from ._aggregate_result import Aggregate
    from ._comparison import Comparison, compare
    from ._delta import delta_interval
    from ._folds import compare_folds, rank_folds
    from ._folds_result import FoldComparison
    from ._frequentist import DegenerateIntervalWarning, FrequentistInterval, bootstrap_interval
    from ._paired import compare_predictions
    from ._random_effects import SCALES as SCALES
    from ._random_effects import TAU_PRIORS as TAU_PRIORS
    from ._ranking import Ranking, rank_classifiers, rank_predictions
    from ._sensitivity import DEFAULT_PRIORS as DEFAULT_PRIORS
    from ._sensitivity import DEFAULT_THRESHOLD as DEFAULT_THRESHOLD
    from ._sensitivity import PriorSensitivity, prior_sensitivity
else:  # each name's module is imported at its first use
    # fmt: off
    __getattr__, __dir__ = _attach(__name__, {
        "._aggregate": ("MAX_TAU_SCALE", "METHODS", "aggregate"),
        "._aggregate_result": ("Aggregate",),
        "._comparison": ("Comparison", "compare"),
        "._delta": ("delta_interval",),
        "._folds": ("compare_folds", "rank_folds"),
        "._folds_result": ("FoldComparison",),
        "._frequentist": ("DegenerateIntervalWarning", "FrequentistInterval", "bootstrap_interval"),
        "._paired": ("compare_predictions",),
        "._random_effects": ("SCALES", "TAU_PRIORS"),
        "._ranking": ("Ranking", "rank_classifiers", "rank_predictions"),
        "._sensitivity": (
            "DEFAULT_PRIORS", "DEFAULT_THRESHOLD", "PriorSensitivity", "prior_sensitivity"
        ),
    })
    # fmt: on

# The names imported but not in __all__ are for the package's other layers, not public API.
# fmt: off
__all__ = [
    "Aggregate",
    "Comparison",
    "DegenerateIntervalWarning",
    "FoldComparison",
    "FrequentistInterval",
    "PriorSensitivity",
    "Ranking",
    "aggregate",
    "bootstrap_interval",
    "compare",
    "compare_folds",
    "compare_predictions",
    "delta_interval",
    "prior_sensitivity",
    "rank_classifiers",
    "rank_folds",
    "rank_predictions",
]
# fmt: on
