"""The results of :func:`f1posterior.aggregate`: :class:`Aggregate` and :class:`Heterogeneity`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._core.results import plain, plain_fields, value_equality
from .._core.text import escape_text
from ..posterior import MetricSummary

__all__ = ["Aggregate", "Heterogeneity"]


@value_equality
@dataclass(frozen=True, eq=False)
class Heterogeneity:
    """How much the tables' metrics differ beyond their own uncertainty.

    Attributes
    ----------
    tau_median, tau_mean : float
        Posterior median and mean of ``tau``, the between-table standard
        deviation of the metric on the working scale.
    tau_interval : ndarray, shape (2,)
        Equal-tailed interval of ``tau`` of probability ``ci_prob``.
    i2_median : float
        Posterior median of ``I^2 = tau^2 / (tau^2 + s^2)``, the share of the
        spread between tables that is not within-table noise.
    i2_interval : ndarray, shape (2,)
        Equal-tailed interval of ``I^2`` (its quantiles are ``tau``'s, mapped).
    typical_variance : float
        ``s^2``, Higgins & Thompson's (2002) typical within-table variance.
    q : float
        Cochran's Q (fixed-effect weights), with ``K - 1`` degrees of freedom.
    i2_q : float
        The moment form ``max(0, (Q - (K - 1)) / Q)`` of classical software.
    scale : str
        The working scale.
    tau_prior : str
        The prior of ``tau``.
    ci_prob : float
        Probability of the intervals.
    """

    tau_median: float
    tau_mean: float
    tau_interval: np.ndarray
    i2_median: float
    i2_interval: np.ndarray
    typical_variance: float
    q: float
    i2_q: float
    scale: str
    tau_prior: str
    ci_prob: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary."""
        return plain_fields(self)

    def __str__(self) -> str:
        pct = f"{100 * self.ci_prob:g}%"
        t0, t1 = self.tau_interval
        i0, i1 = self.i2_interval
        df = "" if not np.isfinite(self.q) else f"; Q = {self.q:.2f}, I^2 from Q = {self.i2_q:.2f}"
        return (
            f"heterogeneity ({self.scale} scale): tau = {self.tau_median:.4f} "
            f"[{t0:.4f}, {t1:.4f}], I^2 = {self.i2_median:.2f} [{i0:.2f}, {i1:.2f}] "
            f"(median, {pct} ETI){df}"
        )


@value_equality
@dataclass(frozen=True, eq=False)
class Aggregate:
    """Result of :func:`aggregate`.

    Draw it with :func:`f1posterior.report.plots.plot_aggregate` (a forest plot:
    each table's HDI, the aggregate as a diamond, the predictive of a new table).

    Attributes
    ----------
    metric : str
        The aggregated metric.
    method : str
        ``"pooled"`` or ``"random_effects"``.
    summary : MetricSummary
        Posterior summary of the aggregate: the pooled table's metric, or the
        mean metric over the population of tables (random effects). Its
        ``score`` is the pooled table's metric, or the mean of the tables'
        observed scores.
    tables : MetricSummary
        Each table's own posterior summary, fields of shape ``(K,)``.
    names : list of str
        The tables' names.
    heterogeneity : Heterogeneity or None
        ``tau`` and ``I^2`` (None for a single table).
    predictive : MetricSummary or None
        The metric of a new table from the same population (random effects).
    scale : str
        Working scale of the random-effects model (and of ``heterogeneity``).
    prior : str
        Statement of the priors.
    draws : int
        Posterior draws.
    ci_prob : float
        Probability of the intervals.
    seed : Any
        The root seed of the run (a SeedSequence): pass it back as ``rng=`` to repeat the run.
    labels : list of str or None
        Class labels, when the tables carry them.
    metric_draws : ndarray, shape (draws,)
        Draws of the aggregate (for plots).

    See Also
    --------
    f1posterior.aggregate : The function that returns it.

    Examples
    --------
    >>> from f1posterior import aggregate
    >>> res = aggregate([[[40, 10], [5, 45]], [[38, 12], [6, 44]]], metric="accuracy",
    ...                 method="pooled", draws=2000, rng=0)
    >>> res.method, res.metric, round(res.summary.score, 2)
    ('pooled', 'accuracy', 0.83)
    """

    metric: str
    method: str
    summary: MetricSummary
    tables: MetricSummary
    names: list[str]
    heterogeneity: Heterogeneity | None
    predictive: MetricSummary | None
    scale: str
    prior: str
    draws: int
    ci_prob: float
    seed: Any = None
    labels: list[str] | None = None
    metric_draws: np.ndarray | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary of everything but the draws."""
        tables = [{"name": n, **_row(self.tables[i])} for i, n in enumerate(self.names)]
        return plain({
            "metric": self.metric, "method": self.method, "summary": self.summary,
            "predictive": self.predictive, "tables": tables, "heterogeneity": self.heterogeneity,
            "scale": self.scale, "prior": self.prior, "draws": self.draws,
            "ci_prob": self.ci_prob, "seed": self.seed, "labels": self.labels,
        }, lists=True)  # fmt: skip

    def rows(self) -> list[dict[str, Any]]:
        """One record per table, then the aggregate (and the predictive): ``name``, ``kind``,
        ``score``, ``mean``, ``median``, ``std``, ``mc_error``, ``hdi_low``, ``hdi_high``,
        ``eti_low``, ``eti_high``."""
        out = [
            {"name": n, "kind": "table", **_row(self.tables[i])} for i, n in enumerate(self.names)
        ]
        out.append({"name": "aggregate", "kind": self.method, **_row(self.summary)})
        if self.predictive is not None:
            out.append({"name": "new table", "kind": "predictive", **_row(self.predictive)})
        return out

    def to_dataframe(self) -> Any:
        """pandas DataFrame of :meth:`rows` (pandas is imported here)."""
        import pandas as pd

        return pd.DataFrame(self.rows())

    def __str__(self) -> str:
        pct = f"{100 * self.ci_prob:g}%"
        how = (
            "pooled (summed tables)"
            if self.method == "pooled"
            else (f"random effects ({self.scale} scale)")
        )
        lines = [
            f"{self.metric} over {len(self.names)} tables: {how}; {self.draws:,} draws; "
            f"prior {self.prior}",
        ]
        width = max(12, *(len(escape_text(r["name"])) for r in self.rows()))
        lines.append(f"  {'':<{width}} {'score':>8} {'mean':>8} {'std':>8}  {pct} HDI")
        for r in self.rows():
            score = "" if not np.isfinite(r["score"]) else f"{r['score']:.4f}"
            lines.append(
                f"  {escape_text(r['name']):<{width}} {score:>8} {r['mean']:>8.4f} "
                f"{r['std']:>8.4f}  [{r['hdi_low']:.4f}, {r['hdi_high']:.4f}]"
            )
        s = self.summary
        if s.ref is not None:
            line = f"P(aggregate > {s.ref:g}) = {s.p_above:.4f}"
            if self.predictive is not None:
                line += f"; P(new table > {s.ref:g}) = {self.predictive.p_above:.4f}"
            lines.append(line)
        if self.heterogeneity is not None:
            lines.append(str(self.heterogeneity))
        return "\n".join(lines)


def _row(s: MetricSummary) -> dict[str, Any]:
    """A summary of one table as a flat record: the numbers, then the interval bounds."""
    out = {k: float(getattr(s, k)) for k in ("score", "mean", "median", "std", "mc_error")}
    for key in ("hdi", "eti"):
        out[f"{key}_low"], out[f"{key}_high"] = map(float, getattr(s, key))
    return out
