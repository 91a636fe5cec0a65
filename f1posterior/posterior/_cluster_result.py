"""The result of :func:`f1posterior.evaluate_clusters`: an ``Evaluation`` with its clusters.

Design notes: docs/design.md#posterior-clusters
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._core.results import plain, value_equality
from ._evaluation import Evaluation

__all__ = ["CLUSTER_UNIT", "ClusterEvaluation", "unit_text"]

#: The unit of resampling, named in every output.
CLUSTER_UNIT = "clusters of documents"


def unit_text(n_clusters: int, n_documents: int) -> str:
    """``"40 clusters of documents (1,203 documents)"``: the unit, with its counts."""
    return f"{n_clusters:,} {CLUSTER_UNIT} ({n_documents:,} documents)"


@value_equality
@dataclass(frozen=True, eq=False)
class ClusterEvaluation(Evaluation):
    """Result of :func:`evaluate_clusters`: an :class:`Evaluation` with its clusters.

    Attributes
    ----------
    n_clusters : int
        Clusters of documents resampled.
    n_documents : int
        Documents counted.
    design_effect : dict of str to float or ndarray
        Per metric (per class for per-class metrics): the posterior variance of
        the cluster-aware model over that of the document-level (i.i.d.)
        bootstrap of the same pooled table.
    effective_documents : dict of str to float or ndarray
        ``n_documents / design_effect``: the independent documents worth as
        much as these clustered ones.
    unit : str
        ``"clusters of documents"``.

    See Also
    --------
    evaluate_clusters : Makes it.
    Evaluation : The summaries, text, Markdown and DataFrame forms.

    Examples
    --------
    >>> from f1posterior import evaluate_clusters
    >>> y = [0, 1, 1, 0] * 50
    >>> res = evaluate_clusters(y, [0, 1, 0, 0] * 50, [i // 4 for i in range(200)],
    ...                         draws=2_000, rng=0)
    >>> res.n_clusters, res.n_documents, res.unit
    (50, 200, 'clusters of documents')
    """

    n_clusters: int = 0
    n_documents: int = 0
    design_effect: dict[str, Any] = field(default_factory=dict)
    effective_documents: dict[str, Any] = field(default_factory=dict)
    unit: str = CLUSTER_UNIT

    def model_text(self, metric: str) -> str:
        """The unit with its counts and ``metric``'s design effect, for a gate's check."""
        return (
            f"Bayesian bootstrap over {unit_text(self.n_clusters, self.n_documents)}; design "
            f"effect {_fmt(self.design_effect[metric], '.2f')}"
        )

    def design_text(self) -> str:
        """One line: the unit with its counts, and each metric's design effect."""
        parts = [
            f"{n} {_fmt(self.design_effect[n], '.2f')} (effective documents "
            f"{_fmt(self.effective_documents[n], ',.0f')})"
            for n in self.design_effect
        ]
        return f"Unit: {unit_text(self.n_clusters, self.n_documents)}; design effect " + "; ".join(
            parts
        )

    def __str__(self) -> str:
        return f"{super().__str__()}\n{self.design_text()}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary: :meth:`Evaluation.to_dict` plus ``"clusters"``."""
        out = super().to_dict()
        out["clusters"] = {
            "unit": self.unit,
            "n_clusters": self.n_clusters,
            "n_documents": self.n_documents,
            "design_effect": plain(self.design_effect, lists=True),
            "effective_documents": plain(self.effective_documents, lists=True),
        }
        return out


def _fmt(v: Any, spec: str) -> str:
    a = np.asarray(v, dtype=float)
    if a.ndim == 0:
        return format(float(a), spec)
    return "[" + ", ".join(format(float(x), spec) for x in a) + "]"
