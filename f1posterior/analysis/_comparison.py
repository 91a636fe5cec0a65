"""Comparing classifiers: the posterior of a difference, paired or not, and rankings.

Design notes: docs/design.md#analysis-comparison
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.priors import PriorArg
from .._core.results import plain, plain_fields, value_equality
from .._core.streams import DEFAULT_DRAWS, child_seed, run_seed
from .._core.validation import (
    SeedLike,
    as_counts,
    check_draws,
    check_nonnegative,
    check_prob,
    check_rng,
)
from ..metrics import PER_CLASS_METRICS, resolve_metric
from ..posterior import MetricSummary, evaluate, summarize_draws

__all__ = ["Comparison", "compare", "DECISIONS"]

#: The possible values of :attr:`Comparison.decision`.
DECISIONS = ("A better", "B better", "equivalent", "undecided")


MetricSpec = str | Callable[[np.ndarray], Any]


# --------------------------------------------------------------------------- results


@value_equality
@dataclass(frozen=True, eq=False)
class Comparison:
    """Result of :func:`compare` or :func:`compare_predictions`.

    Probability fields are floats for one comparison, arrays of the batch
    shape for a batch.

    Attributes
    ----------
    metric : str
        Name of the compared metric.
    p_a_better : float or ndarray
        P(metric(A) - metric(B) > rope).
    p_b_better : float or ndarray
        P(metric(A) - metric(B) < -rope).
    p_equivalent : float or ndarray
        P(|metric(A) - metric(B)| <= rope); the three probabilities sum to 1.
    decision : str or ndarray of str
        "A better", "B better" or "equivalent" when its probability is at
        least ``prob``, else "undecided".
    difference : MetricSummary
        Posterior summary of ``metric(A) - metric(B)`` (same fields as
        :func:`f1posterior.evaluate`'s); ``score`` is the observed difference,
        ``ref`` is 0 so ``p_above``/``p_below`` are P(diff > 0)/P(diff < 0).
    a, b : MetricSummary
        Posterior summaries of the metric of A and of B.
    draws : ndarray, shape (*batch, draws)
        Posterior draws of the difference (for plots).
    rope : float
        Half-width of the region of practical equivalence.
    prob : float
        Probability a decision needs.
    paired : bool
        True for the paired model (same documents), False for independent
        test sets.
    prior : str
        Statement of the prior used.
    seed : Any
        The root seed of the run (a SeedSequence): pass it back as ``rng=`` to repeat the run.
    batch_shape : tuple of int
        Batch shape of the comparison (``()`` for one).
    labels : list or None
        Class labels of the paired model (sorted when sortable).

    See Also
    --------
    f1posterior.compare : Independent test sets.
    f1posterior.compare_predictions : Paired predictions.

    Examples
    --------
    >>> from f1posterior import compare
    >>> res = compare([[45, 5], [5, 45]], [[30, 20], [20, 30]], metric="accuracy",
    ...               draws=2000, rng=0)
    >>> res.decision, res.paired, round(res.difference.score, 2)
    ('A better', False, 0.3)
    """

    metric: str
    p_a_better: Any
    p_b_better: Any
    p_equivalent: Any
    decision: Any
    difference: MetricSummary
    a: MetricSummary
    b: MetricSummary
    draws: np.ndarray = field(repr=False)
    rope: float = 0.0
    prob: float = 0.95
    paired: bool = False
    prior: str = ""
    seed: Any = None
    batch_shape: tuple[int, ...] = ()
    labels: list[Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary of everything but the draws."""
        return plain_fields(self, ("draws",))

    def to_dataframe(self) -> Any:
        """A pandas DataFrame with one row per comparison of the batch.

        Columns: ``batch_0``, ``batch_1``, ... (a batch only), ``metric``, then
        ``{part}_{stat}`` for ``part`` in ``a``, ``b``, ``diff`` and ``stat`` in
        ``score``, ``mean``, ``std``, ``hdi_low``, ``hdi_high``, then
        ``p_a_better``, ``p_b_better``, ``p_equivalent``, ``decision``, ``rope``
        and ``paired``.

        Examples
        --------
        >>> res = compare([[45, 5], [5, 45]], [[40, 10], [10, 40]], metric="accuracy",
        ...               draws=2_000, rng=0)
        >>> df = res.to_dataframe()
        >>> df.shape, round(float(df["diff_score"][0]), 3)
        ((1, 22), 0.1)
        """
        import pandas as pd

        rows = []
        for idx in np.ndindex(*self.batch_shape):
            row: dict[str, Any] = {f"batch_{a}": i for a, i in enumerate(idx)}
            row["metric"] = self.metric
            for part, s in (("a", self.a), ("b", self.b), ("diff", self.difference)):
                t = s[idx] if idx else s
                row.update({f"{part}_{k}": float(getattr(t, k)) for k in ("score", "mean", "std")})
                row[f"{part}_hdi_low"], row[f"{part}_hdi_high"] = map(float, t.hdi)
            for name in ("p_a_better", "p_b_better", "p_equivalent"):
                row[name] = float(np.asarray(getattr(self, name))[idx])
            row["decision"] = str(np.asarray(self.decision)[idx])
            row["rope"], row["paired"] = self.rope, self.paired
            rows.append(row)
        return pd.DataFrame(rows)

    def __str__(self) -> str:
        design = "paired: same documents" if self.paired else "independent test sets"
        pct = f"{100 * self.difference.ci_prob:g}%"
        head = (
            f"{self.metric}: A vs B ({design}); {self.difference.draws:,} posterior draws; "
            f"prior {self.prior}"
        )
        lines = [head]
        for idx in np.ndindex(*self.batch_shape):
            if self.batch_shape:
                lines.append(f"[{', '.join(map(str, idx))}]")
            lines.append(f"  {'':<6} {'score':>8} {'mean':>8} {'std':>8}  {pct} HDI")
            for name, s in (("A", self.a), ("B", self.b), ("A - B", self.difference)):
                t = s[idx] if idx else s
                lines.append(
                    f"  {name:<6} {t.score:>8.4f} {t.mean:>8.4f} {t.std:>8.4f}  "
                    f"[{t.hdi[0]:.4f}, {t.hdi[1]:.4f}]"
                )
            pa, pb, pe = (
                float(np.asarray(v)[idx])
                for v in (self.p_a_better, self.p_b_better, self.p_equivalent)
            )
            lines.append(
                f"  P(A better) = {pa:.4f}   P(B better) = {pb:.4f}   "
                f"P(|A - B| <= {self.rope:g}) = {pe:.4f}"
            )
            lines.append(
                f"  decision at probability {self.prob:g}: {np.asarray(self.decision)[idx]}"
            )
        return "\n".join(lines)


# ------------------------------------------------------------------------ validation


def check_metric(metric: Any) -> tuple[str, Callable[[np.ndarray], Any]]:
    if isinstance(metric, str) and metric in PER_CLASS_METRICS:
        raise ValueError(
            f"metric must be a single-number metric (per-class metrics {sorted(PER_CLASS_METRICS)} "
            f"cannot be compared as one number); got {metric!r}"
        )
    return resolve_metric(metric, "metric")


def check_decision_prob(prob: Any) -> float:
    p = check_prob(prob, "prob")
    if p <= 0.5:
        raise ValueError(
            f"prob must be in (0.5, 1) so that at most one decision reaches it; got {prob!r}"
        )
    return p


# ------------------------------------------------------------------------ decisions


def check_finite_draws(draws: np.ndarray, metric: str) -> None:
    """A ValueError naming ``metric`` when any of its posterior ``draws`` is not finite."""
    if not np.isfinite(draws).all():
        raise ValueError(f"metric {metric!r} returned non-finite values on posterior draws")


def decide(diff: np.ndarray, rope: float, prob: float) -> tuple[np.ndarray, ...]:
    """P(A better), P(B better), P(equivalent) over the last axis of ``diff``, the decision."""
    pa = (diff > rope).mean(axis=-1)
    pb = (diff < -rope).mean(axis=-1)
    pe = (np.abs(diff) <= rope).mean(axis=-1)
    decision = np.select(
        [pa >= prob, pb >= prob, pe >= prob],
        ["A better", "B better", "equivalent"],
        default="undecided",
    )
    return pa, pb, pe, decision


def comparison(
    da: np.ndarray,
    db: np.ndarray,
    score_a: Any,
    score_b: Any,
    *,
    metric: str,
    rope: float,
    prob: float,
    ci_prob: float,
    paired: bool,
    prior: str,
    seed: Any,
    labels: list[Any] | None = None,
) -> Comparison:
    diff = da - db
    check_finite_draws(diff, metric)
    pa, pb, pe, decision = decide(diff, rope, prob)
    sa = np.asarray(score_a, dtype=np.float64)
    sb = np.asarray(score_b, dtype=np.float64)
    return Comparison(
        metric=metric,
        p_a_better=plain(pa),
        p_b_better=plain(pb),
        p_equivalent=plain(pe),
        decision=plain(decision),
        difference=summarize_draws(diff, score=sa - sb, ci_prob=ci_prob, ref=0.0),
        a=summarize_draws(da, score=np.broadcast_to(sa, da.shape[:-1]), ci_prob=ci_prob),
        b=summarize_draws(db, score=np.broadcast_to(sb, db.shape[:-1]), ci_prob=ci_prob),
        draws=diff,
        rope=rope,
        prob=prob,
        paired=paired,
        prior=prior,
        seed=seed,
        batch_shape=tuple(diff.shape[:-1]),
        labels=labels,
    )


# ----------------------------------------------------------------------- public API


def _check_compare(
    counts_a: Any, counts_b: Any, metric: Any, rope: Any, prob: Any, draws: Any, ci_prob: Any
) -> tuple[np.ndarray, np.ndarray, str, Any, float, float, int, float]:
    ca, classes = as_counts(counts_a, None, "counts_a")
    cb = as_counts(counts_b, classes, "counts_b")[0]  # labelled: matched to counts_a's classes
    if ca.shape[-1] != cb.shape[-1]:
        raise ValueError(
            f"counts_a and counts_b must have the same classes (the same M x M); got "
            f"{ca.shape[-1]} x {ca.shape[-1]} and {cb.shape[-1]} x {cb.shape[-1]}"
        )
    try:
        np.broadcast_shapes(ca.shape[:-2], cb.shape[:-2])
    except ValueError:
        raise ValueError(
            f"counts_a and counts_b must have broadcastable batch shapes; got "
            f"{ca.shape[:-2]} and {cb.shape[:-2]}"
        ) from None
    name, _ = check_metric(metric)
    return (
        ca,
        cb,
        name,
        metric,
        check_nonnegative(rope, "rope"),
        check_decision_prob(prob),
        check_draws(draws),
        check_prob(ci_prob, "ci_prob"),
    )


def compare(
    counts_a: ArrayLike,
    counts_b: ArrayLike,
    *,
    metric: MetricSpec = "macro_f1",
    rope: float = 0.0,
    prob: float = 0.95,
    draws: int = DEFAULT_DRAWS,
    alpha: PriorArg = "hierarchical",
    beta: PriorArg = "hierarchical",
    ci_prob: float = 0.95,
    rng: SeedLike = None,
) -> Comparison:
    """Compare two classifiers evaluated on independent test sets.

    The posteriors of the two confusion matrices are independent (core
    model, same prior for both); the difference ``metric(A) - metric(B)`` is
    drawn from independent draws of each.

    Parameters
    ----------
    counts_a, counts_b : array_like, shape (*batch_a, M, M) and (*batch_b, M, M)
        Confusion matrices (rows = true class) of A and B; batch shapes
        broadcast against each other, M must agree.
    metric : str or callable, default "macro_f1"
        A single-number metric of :data:`f1posterior.metrics.METRICS` (not a
        per-class one) or a callable mapping (..., M, M) to (...).
    rope : float, default 0.0
        Half-width of the region of practical equivalence, >= 0.
    prob : float, default 0.95
        Probability a decision needs, in (0.5, 1).
    draws : int, default 50_000
        Posterior draws.
    alpha, beta : prior
        Dirichlet priors, as in :func:`f1posterior.evaluate`.
    ci_prob : float, default 0.95
        Probability of the intervals of the summaries.
    rng : None, int, SeedSequence or Generator
        Root of randomness; A uses its child ``(0,)``, B its child ``(1,)``.

    Returns
    -------
    Comparison
        Fields of the broadcast batch shape; ``draws`` has shape
        ``(*batch, draws)``.

    See Also
    --------
    f1posterior.compare_predictions : Two classifiers on one test set (paired).
    f1posterior.rank_classifiers : More than two classifiers.
    f1posterior.Comparison : The result.

    Examples
    --------
    >>> res = compare([[45, 5], [5, 45]], [[40, 10], [10, 40]], metric="accuracy",
    ...               draws=20_000, rng=0)
    >>> round(res.difference.score, 3), res.draws.shape
    (0.1, (20000,))
    >>> res.p_a_better > 0.9, res.decision in ("A better", "undecided")
    (True, True)
    """
    ca, cb, name, spec, rp, pr, n, hp = _check_compare(
        counts_a, counts_b, metric, rope, prob, draws, ci_prob
    )
    root = check_rng(rng)
    batch = np.broadcast_shapes(ca.shape[:-2], cb.shape[:-2])
    kw: dict[str, Any] = dict(metrics=[spec], draws=n, alpha=alpha, beta=beta, keep_draws=True)
    ea = evaluate(ca, rng=child_seed(root, 0), **kw)
    eb = evaluate(cb, rng=child_seed(root, 1), **kw)
    key = next(iter(ea))
    assert ea.metric_draws is not None and eb.metric_draws is not None
    da = np.broadcast_to(ea.metric_draws[key], (*batch, n))
    db = np.broadcast_to(eb.metric_draws[key], (*batch, n))
    return comparison(
        da,
        db,
        np.broadcast_to(ea[key].score, batch),
        np.broadcast_to(eb[key].score, batch),
        metric=name,
        rope=rp,
        prob=pr,
        ci_prob=hp,
        paired=False,
        prior=ea.prior,
        seed=run_seed(root),
    )
