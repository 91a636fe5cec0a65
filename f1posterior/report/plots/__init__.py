"""Pictures of posteriors (matplotlib, the optional extra ``f1posterior[plot]``).

Every function returns a :class:`matplotlib.figure.Figure` built without ``pyplot``;
matplotlib is imported inside the functions.

Design notes: docs/design.md#report-plots
"""

from __future__ import annotations

from ._aggregate import plot_aggregate
from ._common import metric_label
from ._comparison import plot_comparison
from ._forest import plot_forest
from ._posterior import plot_posterior
from ._ranking import plot_ranking
from ._summary import plot_summary

__all__ = [
    "plot_posterior",
    "plot_forest",
    "plot_comparison",
    "plot_ranking",
    "plot_summary",
    "plot_aggregate",
    "metric_label",
]
