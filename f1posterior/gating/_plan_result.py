"""Results of `plan`: one `CurvePoint` per simulated sample size and the `PlanResult`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .._core.results import value_equality
from .._core.streams import seed_json
from .._core.text import escape_text
from ..metrics import PER_CLASS_METRICS

#: The settings of a :class:`PlanResult`, as its JSON's ``settings``.
_SETTINGS = (
    "metric", "threshold", "baseline", "max_drop", "prob", "assurance", "require", "prior",
    "simulations", "draws", "max_draws", "max_documents",
)  # fmt: skip


@value_equality
@dataclass(frozen=True, eq=False)
class CurvePoint:
    """Assurance at one number of additional documents.

    Attributes
    ----------
    documents : int
        Additional documents.
    assurance : float
        Fraction of the simulated future test sets with a conclusive verdict.
    mc_error : float
        Binomial Monte Carlo standard error of ``assurance`` (0 at 0 documents:
        the observed table, no simulation).
    undecided : float
        Fraction of the simulations still within Monte Carlo noise at
        ``max_draws`` draws (their verdict is the rule on the pooled estimate).
    """

    documents: int
    assurance: float
    mc_error: float
    undecided: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary of the fields."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@value_equality
@dataclass(frozen=True, eq=False)
class PlanResult:
    """Result of :func:`plan`.

    Attributes
    ----------
    additional_documents : int or None
        Smallest number of additional documents on the grid whose assurance
        reaches ``assurance``; 0 when the verdict is conclusive now; None when
        not reached by ``max_documents``.
    reached : bool
        ``additional_documents is not None``.
    current_verdict : str
        The gate's overall verdict on the observed table(s).
    documents : int
        Documents in the observed table.
    curve : tuple of CurvePoint
        Every size tried, in increasing order.
    metric, threshold, max_drop, baseline, prob, assurance, require
        The settings (``baseline`` is True when a baseline was compared).
    prior : str
        Statement of the prior.
    simulations, draws, max_draws, max_documents : int
        Simulated future test sets per size, first-round and maximum posterior
        draws per simulated table, cap on the additional documents.
    seed : Any
        Root seed (entropy), so that a run can be repeated.
    assumptions : tuple of str
        What the simulation assumes.
    source : str or None
        Where the counts came from, when known.
    design_effect : float or None
        The design effect of clustered documents (``plan(..., design_effect=)``
        or ``1 + (cluster_size - 1) icc``), when given: documents are counted
        as actual documents, worth ``1 / design_effect`` independent ones.
    cluster_size : float or None
        Documents per cluster, when given: :attr:`additional_clusters` counts
        the clusters of documents.

    See Also
    --------
    f1posterior.plan : Computes it.
    CurvePoint : One size of the curve.

    Examples
    --------
    >>> from f1posterior import plan
    >>> res = plan([[90, 10], [5, 95]], metric="micro_f1", threshold=0.5)
    >>> res.reached, res.additional_documents, res.current_verdict
    (True, 0, 'pass')
    """

    additional_documents: int | None
    reached: bool
    current_verdict: str
    documents: int
    curve: tuple[CurvePoint, ...]
    metric: str
    threshold: float | None
    max_drop: float
    baseline: bool
    prob: float
    assurance: float
    require: str
    prior: str
    simulations: int
    draws: int
    max_draws: int
    max_documents: int
    seed: Any
    assumptions: tuple[str, ...]
    source: str | None = None
    design_effect: float | None = None
    cluster_size: float | None = None

    @property
    def additional_clusters(self) -> int | None:
        """The additional documents in clusters of ``cluster_size`` (None without it)."""
        if self.additional_documents is None or self.cluster_size is None:
            return None
        return math.ceil(self.additional_documents / self.cluster_size)

    @property
    def cluster_text(self) -> str:
        """The unit: clusters of documents, their size and the design effect ("" if none)."""
        if self.design_effect is None and self.cluster_size is None:
            return ""
        parts = [] if self.cluster_size is None else [f"{self.cluster_size:g} documents each"]
        if self.design_effect is not None:
            parts.append(f"design effect {self.design_effect:.3g}")
        more = self.additional_clusters
        lead = "" if more is None else f"about {more:,} more "
        return f"Unit: {lead}clusters of documents ({'; '.join(parts)})"

    @property
    def condition(self) -> str:
        """The checks planned for, e.g. ``recall >= 0.8 (every class)``."""
        parts = []
        every = " (every class)" if self.metric in PER_CLASS_METRICS else ""
        if self.threshold is not None:
            parts.append(f"{self.metric} >= {self.threshold:g}{every}")
        if self.baseline:
            parts.append(f"{self.metric}: new - baseline >= {-self.max_drop:g}{every}")
        return "; ".join(parts)

    @property
    def summary(self) -> str:
        """One sentence: the answer."""
        n0 = f"{self.documents:,}"
        if self.additional_documents == 0:
            return (
                f"The verdict is already conclusive ({self.current_verdict.upper()}) on the "
                f"{n0} documents you have: no more documents are needed."
            )
        if self.additional_documents is not None:
            pt = next(p for p in self.curve if p.documents == self.additional_documents)
            times = self.additional_documents / max(self.documents, 1)
            return (
                f"About {self.additional_documents:,} more documents ({times:.3g} times the {n0} "
                "you have, with the same class mix and error rates) make the gate's verdict "
                f"conclusive (PASS or FAIL) with probability {pt.assurance:.2f} +/- "
                f"{pt.mc_error:.2f} (target {self.assurance:g})."
            )
        last = self.curve[-1]
        return (
            f"Not reached by the cap: with {last.documents:,} more documents the verdict is "
            f"conclusive with probability only {last.assurance:.2f} +/- {last.mc_error:.2f} "
            f"(target {self.assurance:g}); the score is likely too close to the threshold for "
            "any test set of that size to settle it."
        )

    def __str__(self) -> str:
        req = "every check conclusive" if self.require == "every" else "overall verdict conclusive"
        noisy = any(p.undecided > 0 for p in self.curve)
        lines = []
        if self.source:
            lines.append(f"Input: {escape_text(self.source)}")
        lines += [
            f"Plan: {self.condition}; PASS or FAIL at P >= {self.prob:g} ({req}); target "
            f"assurance {self.assurance:g}",
            f"Now: {self.current_verdict.upper()} on {self.documents:,} documents (the gate)",
            f"Simulated: {self.simulations:,} future test sets per size; prior {self.prior}; "
            f"{self.draws:,} to {self.max_draws:,} draws per table; seed {self.seed}",
            "",
            f"{'more documents':>15}  {'P(conclusive)':>13}  {'MC error':>8}"
            + ("  noisy*" if noisy else ""),
        ]
        for p in self.curve:
            err = "-" if p.documents == 0 else f"{p.mc_error:.3f}"
            row = f"{p.documents:>15,}  {p.assurance:>13.3f}  {err:>8}"
            row += f"  {p.undecided:>6.3f}" if noisy else ""
            row += f"  {'#' * round(20 * p.assurance):<20}"
            lines.append(
                (row + ("  <-" if p.documents == self.additional_documents else "")).rstrip()
            )
        lines += [""]
        if noisy:
            lines.append(
                f"* fraction of simulated tables still within Monte Carlo noise at "
                f"{self.max_draws:,} draws, judged on their pooled estimate"
            )
        lines.append(self.summary)
        if self.cluster_text:
            lines.append(self.cluster_text)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary: ``additional_documents``, ``curve``, ``settings``, ``seed``."""
        return {
            "additional_documents": self.additional_documents,
            "reached": self.reached,
            "current_verdict": self.current_verdict,
            "documents": self.documents,
            "curve": [p.to_dict() for p in self.curve],
            "summary": self.summary,
            "settings": {k: getattr(self, k) for k in _SETTINGS},
            "assumptions": list(self.assumptions),
            "seed": seed_json(self.seed),
            "source": self.source,
            **({"clusters": self._clusters_dict()} if self.cluster_text else {}),
        }

    def _clusters_dict(self) -> dict[str, Any]:
        return {
            "unit": "clusters of documents",
            "design_effect": self.design_effect,
            "cluster_size": self.cluster_size,
            "additional_clusters": self.additional_clusters,
        }
