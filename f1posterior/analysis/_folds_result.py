"""The result of :func:`f1posterior.compare_folds`: :class:`FoldComparison` and its text forms.

Design notes: docs/design.md#analysis-folds
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._core.results import plain_fields, value_equality
from .._core.text import escape_text
from ..posterior import MetricSummary

__all__ = ["FoldComparison"]


@value_equality
@dataclass(frozen=True, eq=False)
class FoldComparison:
    """Result of :func:`compare_folds`: two classifiers across K folds, seeds or test sets.

    Three questions, three summaries of ``metric(A) - metric(B)``:

    * ``difference``: the mean, over these K folds, of each fold's true
      difference (the average of the folds' exact posteriors). The decision,
      ``p_a_better`` and the gate use it by default (``target="folds"``).
    * ``population``: ``mu``, the mean difference over a population of folds
      like these (the random-effects model).
    * ``predictive``: the difference on one new fold.

    Attributes
    ----------
    metric : str
        Name of the compared metric.
    names : list of str
        Names of the K folds.
    folds : MetricSummary
        Each fold's difference, fields of shape ``(K,)`` (``score`` the
        observed difference).
    difference : MetricSummary
        The mean difference over these folds (``score``: the mean of the
        observed differences; ``ref`` 0).
    population : MetricSummary
        The random-effects mean difference over a population of folds.
    predictive : MetricSummary
        The difference on a new fold (``p_above``: P(A better on it)).
    tau_mean : float
        Posterior mean of ``tau``, the between-fold standard deviation of
        the difference on the working scale.
    tau_interval : ndarray, shape (2,)
        Equal-tailed ``ci_prob`` interval of ``tau``.
    p_a_better, p_b_better, p_equivalent : float
        P(d > rope), P(d < -rope), P(|d| <= rope) of the ``target``'s
        difference ``d`` (``difference`` or ``population``).
    decision : str
        "A better", "B better" or "equivalent" when its probability is at
        least ``prob``, else "undecided".
    rope, prob, ci_prob : float
        Region of practical equivalence, the probability a decision needs,
        the probability of the intervals.
    paired : bool
        True when each fold's difference comes from the paired model (same
        documents); False for independent confusion tables (pairing not
        available: wider intervals).
    scale : str
        Working scale of the random-effects model ("identity" or "fisher_z").
    target : str
        What the probabilities and the decision are about: "folds" (the mean
        over these folds) or "population".
    prior : str
        Statement of the priors used.
    seed : Any
        The root seed of the run: pass it back as ``rng=`` to repeat the run.
    labels : list or None
        Class labels (predictions).
    draws : ndarray, shape (draws,)
        Posterior draws of the target's difference (for plots and gates).

    See Also
    --------
    f1posterior.compare_folds : Computes it.
    f1posterior.Comparison : One test set.

    Examples
    --------
    >>> from f1posterior import compare_folds
    >>> a = [[[45, 5], [5, 45]], [[44, 6], [4, 46]], [[46, 4], [6, 44]]]
    >>> b = [[[40, 10], [10, 40]], [[41, 9], [9, 41]], [[39, 11], [10, 40]]]
    >>> res = compare_folds(counts_a=a, counts_b=b, metric="accuracy", draws=4000, rng=0)
    >>> res.paired, res.decision, res.folds.mean.shape
    (False, 'A better', (3,))
    """

    metric: str
    names: list[str]
    folds: MetricSummary
    difference: MetricSummary
    population: MetricSummary
    predictive: MetricSummary
    tau_mean: float
    tau_interval: np.ndarray
    p_a_better: float
    p_b_better: float
    p_equivalent: float
    decision: str
    rope: float
    prob: float
    ci_prob: float
    paired: bool
    scale: str
    target: str
    prior: str
    seed: Any = None
    labels: list[Any] | None = None
    draws: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary of everything but the draws."""
        return plain_fields(self, ("draws",))

    def rows(self) -> list[tuple[str, MetricSummary]]:
        """``(name, summary)`` of each fold, then the three cross-fold summaries."""
        out = [(n, self.folds[i]) for i, n in enumerate(self.names)]
        return out + [
            ("mean of these folds", self.difference),
            ("population mean", self.population),
            ("new fold", self.predictive),
        ]

    def header(self) -> str:
        """One line: the metric, the design, the folds and the priors."""
        design = "paired: same documents" if self.paired else "independent tables, not paired"
        return (
            f"{self.metric}: A - B across {len(self.names)} folds ({design}); "
            f"{self.difference.draws:,} posterior draws; prior {self.prior}"
        )

    def verdict_lines(self) -> list[str]:
        """P(A better), P(B better), P(equivalent), tau and the decision."""
        pct = f"{100 * self.ci_prob:g}%"
        lo, hi = self.tau_interval
        return [
            f"P(A better) = {self.p_a_better:.4f}   P(B better) = {self.p_b_better:.4f}   "
            f"P(|A - B| <= {self.rope:g}) = {self.p_equivalent:.4f}   ("
            + ("mean of these folds" if self.target == "folds" else "population mean")
            + ")",
            f"P(A better on a new fold) = {float(self.predictive.p_above):.4f}",
            f"tau (between-fold sd, {self.scale} scale) = {self.tau_mean:.4f}, "
            f"{pct} interval [{lo:.4f}, {hi:.4f}]",
            f"decision at probability {self.prob:g}: {self.decision}",
        ]

    def __str__(self) -> str:
        pct = f"{100 * self.ci_prob:g}%"
        shown = [(escape_text(n), s) for n, s in self.rows()]
        width = max(20, *(len(n) for n, _ in shown))
        lines = [self.header(), f"  {'A - B':<{width}} {'score':>8} {'mean':>8}  {pct} HDI"]
        for name, s in shown:
            score = "" if s.score is None or np.isnan(s.score) else f"{float(s.score):.4f}"
            lines.append(
                f"  {name:<{width}} {score:>8} {float(s.mean):>8.4f}  "
                f"[{float(s.hdi[0]):.4f}, {float(s.hdi[1]):.4f}]"
            )
        lines += [f"  {x}" for x in self.verdict_lines()]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A Markdown report: the header, a table of folds and summaries, the verdict.

        Examples
        --------
        >>> from f1posterior import compare_folds
        >>> a = [[[45, 5], [5, 45]], [[44, 6], [4, 46]]]
        >>> b = [[[40, 10], [10, 40]], [[41, 9], [9, 41]]]
        >>> md = compare_folds(counts_a=a, counts_b=b, metric="accuracy", draws=2000,
        ...                    rng=0).to_markdown()
        >>> md.splitlines()[2]
        '| A - B | score | mean | 95% HDI |'
        """
        from .._core.text import escape_markdown

        pct = f"{100 * self.ci_prob:g}%"
        lines = [
            f"**{escape_markdown(self.header())}**",
            "",
            f"| A - B | score | mean | {pct} HDI |",
            "|---|---:|---:|---|",
        ]
        for name, s in self.rows():
            score = "" if s.score is None or np.isnan(s.score) else f"{float(s.score):.4f}"
            lines.append(
                f"| {escape_markdown(name)} | {score} | {float(s.mean):.4f} | "
                f"[{float(s.hdi[0]):.4f}, {float(s.hdi[1]):.4f}] |"
            )
        lines.append("")
        lines += [f"- {escape_markdown(x)}" for x in self.verdict_lines()]
        return "\n".join(lines) + "\n"
