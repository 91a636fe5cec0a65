"""Aggregating one metric over folds, seeds or test sets: :func:`aggregate`.

Two methods: ``"pooled"`` (the summed table) and ``"random_effects"``.

Design notes: docs/design.md#analysis-aggregate
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.labelled import labelled_counts
from .._core.priors import PriorArg, describe_prior
from .._core.streams import DEFAULT_DRAWS, child_seed, run_seed
from .._core.validation import (
    SeedLike,
    check_batch_names,
    check_choice,
    check_counts,
    check_draws,
    check_prob,
    check_ref,
    check_rng,
)
from ..metrics import METRIC_RANGES, PER_CLASS_METRICS, resolve_metric
from ..posterior import evaluate, summarize_draws
from . import _random_effects as re_model
from ._aggregate_result import Aggregate, Heterogeneity

__all__ = ["aggregate", "Aggregate", "Heterogeneity", "METHODS", "MAX_TAU_SCALE", "default_scale"]

#: The aggregation methods.
METHODS = ("pooled", "random_effects")

#: Named metrics in [-1, 1] (aggregated on Fisher's z scale) and positive ratios (log).
_SIGNED = frozenset({"mcc", "cohen_kappa", "informedness", "markedness"})
_RATIOS = frozenset(
    {"positive_likelihood_ratio", "negative_likelihood_ratio", "diagnostic_odds_ratio"}
)

#: Fewest draws a table: each table's posterior variance is estimated from them.
_MIN_DRAWS = 100
#: Largest ``tau_scale``: far beyond any spread on a working scale (logit 28 is a
#: probability of 1 - 1e-12), and small enough that ``tau**2`` and ``I^2`` stay finite.
MAX_TAU_SCALE = 1e6
#: Random streams, children of the root seed: the per-table posteriors and the
#: hierarchical draws. The pooled posterior uses the root itself, as evaluate does.
_TABLES_KEY, _MODEL_KEY = 1, 2


def default_scale(metric: str) -> str:
    """The working scale of a named metric: ``fisher_z`` for metrics in [-1, 1] (MCC,
    kappa, informedness, markedness), ``log`` for likelihood and odds ratios, else
    ``logit`` (F-scores, precision, recall, accuracy and other rates in [0, 1])."""
    if metric in _SIGNED:
        return "fisher_z"
    if metric in _RATIOS:
        return "log"
    return "logit"


# ------------------------------------------------------------------------ validation


def _check_tables(tables: Any) -> tuple[np.ndarray, list[Any] | None]:
    """``(K, M, M)`` validated counts and the class labels of labelled tables."""
    if isinstance(tables, (list, tuple)) and tables:
        items = list(tables)
        if not any(hasattr(x, "columns") or hasattr(x, "labels") for x in items):
            shapes = []
            for x in items:
                try:
                    shapes.append(np.shape(x))
                except ValueError:  # a ragged table: check_counts names it
                    shapes.append(None)
            bad = next((i for i, s in enumerate(shapes) if s != shapes[0]), None)
            if bad is not None and None not in shapes:
                raise ValueError(
                    f"tables must all be (M, M) tables of one shape; got tables[0] of shape "
                    f"{shapes[0]} and tables[{bad}] of shape {shapes[bad]}"
                )
    table, labels = labelled_counts(tables, None, "tables")
    c = check_counts(table, "tables")
    if c.ndim != 3:
        raise ValueError(
            f"tables must be K confusion matrices: an array of shape (K, M, M) or a list of "
            f"(M, M) tables; got shape {c.shape}"
        )
    return c, None if labels is None else [str(x) for x in labels]


def _check_metric(metric: Any, scale: Any) -> tuple[str, Callable[[np.ndarray], Any], str]:
    if isinstance(metric, str) and metric in PER_CLASS_METRICS:
        raise ValueError(
            f"metric must be a single-number metric; per-class metrics "
            f"({', '.join(sorted(PER_CLASS_METRICS))}) give one value per class: aggregate a "
            f"macro form, or one class with a callable, e.g. metric=lambda t: "
            f"f1(t, average=None)[..., 0] and scale='logit'; got {metric!r}"
        )
    name, fn = resolve_metric(metric, "metric")
    if scale == "auto":
        if not isinstance(metric, str):
            raise ValueError(
                f"scale must be given for a callable metric (one of "
                f"{', '.join(map(repr, re_model.SCALES))}: 'logit' for values in [0, 1], "
                f"'fisher_z' for [-1, 1], 'log' for positive values); got scale='auto'"
            )
        return name, fn, default_scale(name)
    sc = check_choice(scale, "scale", ("auto", *re_model.SCALES))
    if isinstance(metric, str):
        _check_scale_fits(name, sc)
    return name, fn, sc


def _check_scale_fits(metric: str, scale: str) -> None:
    """A transform scale must map the metric's range onto the whole line and back into it."""
    lo, hi = METRIC_RANGES[metric]
    s_lo, s_hi = re_model.SCALES[scale][0]
    if scale in ("auto", "identity") or (lo, hi) == (s_lo, s_hi):
        return
    fits = [s for s, ((a, b), _) in re_model.SCALES.items() if (a, b) == (lo, hi)]
    raise ValueError(
        f"scale must fit the metric's range: {metric} lies in [{lo:g}, {hi:g}] but the "
        f"{scale!r} scale is for values in ({s_lo:g}, {s_hi:g}) (its intervals would leave "
        f"the metric's range); use {' or '.join(map(repr, [*fits, 'identity']))}, or "
        f"'auto'; got scale={scale!r}"
    )


def _names(names: Any, k: int) -> list[str]:
    out = check_batch_names(names, (k,))
    return [f"table {i}" for i in range(k)] if out is None else out


# ------------------------------------------------------------------------- the method


def aggregate(
    tables: ArrayLike | Sequence[Any],
    *,
    metric: str | Callable[[np.ndarray], Any] = "macro_f1",
    method: str = "random_effects",
    draws: int = DEFAULT_DRAWS,
    alpha: PriorArg = "hierarchical",
    beta: PriorArg = "hierarchical",
    ci_prob: float = 0.95,
    ref: float | None = None,
    rng: SeedLike = None,
    names: Sequence[str] | None = None,
    scale: str = "auto",
    tau_scale: float | str = "auto",
    tau_prior: str = "auto",
) -> Aggregate:
    """Posterior of one metric aggregated over K folds, seeds or test sets.

    Parameters
    ----------
    tables : array_like, shape (K, M, M), or a list of K tables
        Confusion matrices (rows = true class) of one model on K folds, seeds
        or test sets: an array, or a list of arrays, DataFrames
        (``pd.crosstab``) or :class:`~f1posterior.ConfusionMatrix` (labelled
        tables are put in the class order of the first).
    metric : str or callable, default "macro_f1"
        A single-number metric of :func:`f1posterior.evaluate` (per-class
        metrics are refused: aggregate a macro form, or one class with a
        callable), or a callable of a ``(..., M, M)`` table (then give
        ``scale``).
    method : {"random_effects", "pooled"}, default "random_effects"
        ``"pooled"``: the exact posterior of the summed table (disjoint test
        sets of one model, no difference between them). ``"random_effects"``:
        the tables' true metrics differ around a common mean (module notes);
        needs K >= 2.
    draws : int, default 50_000
        Posterior draws of each table and of the aggregate (the K tables' draws
        are held at once: ``8 K draws`` bytes, and as much again on the working
        scale).
    alpha, beta : prior
        Dirichlet priors of each table, as in :func:`f1posterior.evaluate`.
    ci_prob : float, default 0.95
        Probability of the intervals.
    ref : float, optional
        Reference value: every summary (tables, aggregate, predictive) gets
        ``p_below`` and ``p_above``, e.g. P(mean metric over folds > ref).
    rng : None, int, SeedSequence or Generator
        Source of randomness. The pooled posterior uses the streams
        ``evaluate(tables.sum(0), rng=rng)`` uses; the tables' own posteriors
        are ``evaluate(tables, rng=child_seed(root, 1))``.
    names : sequence of str, optional
        Unique names of the K tables (default ``"table 0"``, ...).
    scale : {"auto", "logit", "fisher_z", "log", "identity"}, default "auto"
        Working scale of the random-effects model: by default logit for
        metrics in [0, 1], Fisher's z (atanh) for MCC, kappa, informedness
        and markedness, log for likelihood and odds ratios. A transform must
        fit a named metric's range (its intervals stay inside it): logit for
        metrics in [0, 1], Fisher's z for [-1, 1], log for positive ratios;
        ``"identity"`` (no transform) is always accepted.
    tau_scale : float or "auto", default "auto"
        Scale ``A`` of the prior of ``tau``, the between-table standard
        deviation on the working scale. ``"auto"``: 3 times ``s``, the
        tables' own typical posterior standard deviation on the working scale
        (Higgins & Thompson's typical within-table variance ``s^2``), and 0.5 on
        the log scale: the rule chosen by the coverage and width of the
        aggregate on simulated folds (docs/aggregation.md): it covers the
        population mean where the earlier default half-normal(0.5) fell short
        (3 to 5 tables that differ), at about the same width when they agree
        (a little wider for tables of few documents or a metric near 0 or 1,
        a little narrower for large ones); the half-Cauchy's tail lets the data
        show a tau far above ``A``. When the tables are known to measure one
        thing (one model, one test population), ``method="pooled"``. A number
        fixes ``A``: for example 0.5 to 1 on the logit scale for test sets from
        very different sources. At most :data:`MAX_TAU_SCALE` (1e6); an
        aggregate that overflows (the log scale, ``exp(mu + tau^2 / 2)``) is
        an error.
    tau_prior : {"auto", "half_cauchy", "half_normal"}, default "auto"
        Family of the prior of ``tau``. ``"auto"``: half-Cauchy (Gelman 2006
        recommends it for few groups), half-normal on the log scale (the
        population mean needs a light tail of tau there).
        ``tau_prior="half_normal", tau_scale=0.5`` is the prior of earlier
        versions.

    Returns
    -------
    Aggregate
        ``summary`` (the aggregate), ``tables`` (each table's summary),
        ``heterogeneity`` (``tau``, ``I^2``), ``predictive`` (random effects).

    See Also
    --------
    f1posterior.Aggregate : The result.
    f1posterior.evaluate : One table at a time.
    f1posterior.compare : Two classifiers.

    Notes
    -----
    Pooling assumes every table measures the same thing; when the tables
    differ (``I^2`` far from 0) its interval is too narrow for the mean over
    folds or test sets, and the random-effects interval is the one to
    report. The random-effects aggregate is the mean over the *population*
    of tables, not over these K only, so it is wider than pooling even when
    the tables agree, the more so the fewer the tables.

    Examples
    --------
    >>> folds = [[[40, 10], [5, 45]], [[38, 12], [6, 44]], [[42, 8], [4, 46]]]
    >>> res = aggregate(folds, metric="accuracy", draws=4000, rng=0)
    >>> res.method, res.tables.mean.shape
    ('random_effects', (3,))
    >>> round(res.summary.mean, 2)
    0.83
    >>> pooled = aggregate(folds, metric="accuracy", method="pooled", draws=4000, rng=0)
    >>> round(pooled.summary.score, 4)
    0.85
    """
    how = check_choice(method, "method", METHODS)
    c, labels = _check_tables(tables)
    k = c.shape[0]
    if how == "random_effects" and k < 2:
        raise ValueError(
            f"tables must hold at least 2 tables for method='random_effects' (the spread "
            f"between tables cannot be estimated from one); got {k} table"
        )
    name, fn, sc = _check_metric(metric, scale)
    n = check_draws(draws)
    if n < _MIN_DRAWS:
        raise ValueError(
            f"draws must be at least {_MIN_DRAWS} (each table's posterior variance is "
            f"estimated from its draws); got {n}"
        )
    prob = check_prob(ci_prob, "ci_prob")
    r = check_ref(ref)
    a_fixed = re_model.check_tau_scale(tau_scale, sc, MAX_TAU_SCALE)
    family = check_choice(tau_prior, "tau_prior", ("auto", *re_model.TAU_PRIORS))
    table_names = _names(names, k)
    root = check_rng(rng)
    common: dict[str, Any] = dict(metrics=[fn if not isinstance(metric, str) else name])
    common.update(draws=n, alpha=alpha, beta=beta, ci_prob=prob, ref=r)
    per = evaluate(c, rng=child_seed(root, _TABLES_KEY), keep_draws=k >= 2, **common)
    tables_summary = per[name]
    if np.shape(tables_summary.mean) != (k,):
        raise ValueError(
            f"metric must give one number per table; got {name!r} of shape "
            f"{np.shape(tables_summary.mean)[1:]} per table"
        )
    het: Heterogeneity | None = None
    post = None
    if k >= 2:
        assert per.metric_draws is not None
        z = re_model.to_scale(per.metric_draws[name], sc, f"{name} draws")
        y, s2 = z.mean(axis=-1), z.var(axis=-1, ddof=1)
        post = re_model.tau_posterior_of(y, s2, sc, a_fixed, family)
        tau_text = re_model.tau_prior_text(post, tied=a_fixed is None and sc != "log")
        het = _heterogeneity(post, sc, tau_text, prob)
    prior = describe_prior(alpha, beta)
    predictive = None
    if how == "pooled":
        pooled = evaluate(c.sum(axis=0), rng=root, keep_draws=True, **common)
        summary = pooled[name]
        assert pooled.metric_draws is not None
        agg_draws = pooled.metric_draws[name]
    else:
        assert post is not None
        gen = np.random.Generator(np.random.PCG64(child_seed(root, _MODEL_KEY)))
        with np.errstate(over="ignore"):  # an overflow is refused just below
            agg_draws, new, tau = re_model.draw_population(post, n, gen, sc)
        if not (np.isfinite(agg_draws).all() and np.isfinite(new).all()):
            raise ValueError(
                f"tau_scale={post.prior_scale:g} lets the between-table spread overflow on "
                f"the {sc} scale (tau ~ {tau_text}, draws up to {float(tau.max()):.3g}): the "
                "aggregate is not finite; give a smaller tau_scale, or tau_prior='half_normal'"
            )
        score = float(np.mean(np.asarray(tables_summary.score, dtype=float)))
        summary = summarize_draws(agg_draws, score=score, ci_prob=prob, ref=r)
        predictive = summarize_draws(new, ci_prob=prob, ref=r)
        prior = f"{prior}; tau ~ {tau_text} on the {sc} scale, flat mu"
    return Aggregate(
        metric=name,
        method=how,
        summary=summary,
        tables=tables_summary,
        names=table_names,
        heterogeneity=het,
        predictive=predictive,
        scale=sc,
        prior=prior,
        draws=n,
        ci_prob=prob,
        seed=run_seed(root),
        labels=labels,
        metric_draws=agg_draws,
    )


def _heterogeneity(
    post: re_model.TauPosterior, scale: str, tau_text: str, prob: float
) -> Heterogeneity:
    s2 = re_model.typical_variance(post.s2)
    q = re_model.cochran_q(post.y, post.s2)
    k = post.y.size
    lo, med, hi = post.quantile([(1 - prob) / 2, 0.5, (1 + prob) / 2])

    def i2(t: float) -> float:
        return float(t**2 / (t**2 + s2))

    return Heterogeneity(
        tau_median=float(med),
        tau_mean=post.mean(),
        tau_interval=np.array([lo, hi]),
        i2_median=i2(med),
        i2_interval=np.array([i2(lo), i2(hi)]),
        typical_variance=s2,
        q=q,
        i2_q=float(max(0.0, (q - (k - 1)) / q)) if q > 0 else 0.0,
        scale=scale,
        tau_prior=tau_text,
        ci_prob=prob,
    )
