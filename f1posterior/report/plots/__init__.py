"""Pictures of posteriors (matplotlib, the optional extra ``f1posterior[plot]``).

- :func:`plot_posterior`: the paper's Figure 4a for any metric: posterior
  density with the HDI band, the observed score, the posterior mean and a
  reference line with the percentage of the posterior below and above it.
- :func:`plot_forest`: one HDI bar, posterior mean and observed score per row
  (matrices of a batch, classes, labels, metrics), sorted, readable with
  hundreds of rows.
- :func:`plot_comparison`: the posterior of a difference between two
  classifiers (a result of :mod:`f1posterior.analysis._comparison`) with the region of
  practical equivalence shaded.
- :func:`plot_ranking`: rank probabilities of k classifiers (a
  :class:`~f1posterior.Ranking`) as a heat map.
- :func:`plot_summary`: every metric of an :class:`~f1posterior.Evaluation` in
  one figure (what ``f1posterior summarize --plot`` draws).
- :func:`plot_aggregate`: forest plot of :func:`~f1posterior.aggregate`: each
  table's HDI and the aggregate as a diamond.

Every function returns a :class:`matplotlib.figure.Figure`. Figures are built
with the object-oriented API (``matplotlib.figure.Figure``), never through
``pyplot``: nothing here selects a backend or touches pyplot's global state.
Save them with ``fig.savefig("out.png")`` (or ``.svg``, ``.pdf``); in Jupyter
a returned figure displays itself. To draw into a pyplot figure of your own,
pass ``ax=``.

matplotlib is imported inside the functions, so ``import f1posterior`` never
needs it.
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
