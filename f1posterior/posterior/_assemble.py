"""Assembling :func:`f1posterior.evaluate`'s summaries: its measure, closed forms, prior check."""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._core.priors import ResolvedPrior
from .._core.results import plain
from .._core.validation import SamplingArgs
from ..metrics import shared_class_sums
from ._batch import Chunk, GroupResult, MetricFn, Scratch
from ._chance import chance_floor_inplace, chance_table, with_chance
from ._summary import MetricSummary

__all__ = ["TableMetrics", "check_prior_dominance", "exact_summaries", "scipy_or_warn"]

#: Key prefix of the chance-level draws of a metric (``chance=True``).
_CH = "\0chance "


class TableMetrics:
    """:func:`f1posterior.evaluate`'s measure: metric functions of each table (one unit).

    ``values(fn, table, name)`` gives float64 metric values with shape checks;
    ``scores[name]``, shape ``(B,)`` or ``(B, K)``, the observed scores, whose
    trailing shape is the metric's; with ``chance_scores`` (the metrics of the observed
    tables' chance tables, as ``scores``), also the metrics of each draw's chance table
    (:mod:`f1posterior.posterior._chance`). For one table (``batch == ()``: ``one``)
    the summaries have that table's own fields (``Engine(..., whole=True)`` joins nothing).
    """

    span = 1
    #: Its held arrays are a dict of arrays with the draws on axis 1: ranges of a group's
    #: draws may be drawn on forked workers and sent back (``Engine.range_of``); and its
    #: kept draws have the shapes of :meth:`kept_shape` (forked workers write them).
    draw_ranges = True

    def __init__(
        self,
        metrics: Sequence[tuple[str, MetricFn]],
        scores: dict[str, np.ndarray],
        values: Callable[[MetricFn, np.ndarray, str], np.ndarray],
        sampling: SamplingArgs,
        batch: tuple[int, ...],
        chance_scores: dict[str, np.ndarray] | None = None,
    ) -> None:
        self.metrics, self.scores, self.values, self.a = list(metrics), scores, values, sampling
        self.names = [name for name, _ in metrics]
        self.extra = {name: scores[name].shape[1:] for name in self.names}
        self.shapes = {name: batch for name in self.names}
        self.one = batch == ()
        self.chance, self.chance_scores = bool(chance_scores), chance_scores or {}
        self.widths = [float(math.prod(self.extra[n])) for n in self.names] * (1 + self.chance)
        self.keys = self.names + [_CH + n for n in self.names if self.chance]

    def kept_shape(self, name: str) -> tuple[int, ...]:
        """The shape of one table's kept draws of ``name`` (any class axis, then the draws)."""
        return (*self.extra[name], self.a.draws)

    def open(self, g0: int, g1: int, fresh: bool, scratch: Scratch) -> dict[str, np.ndarray]:
        n, draws = g1 - g0, self.a.draws
        return {
            k: scratch.array("md_" + k, (n, draws, *self.extra[k.removeprefix(_CH)]), fresh)
            for k in self.keys
        }

    def add(self, held: dict[str, np.ndarray], cells: np.ndarray, g0: int, c: Chunk) -> None:
        i0, i1, d0, d1 = c
        with shared_class_sums(cells):  # the metrics share one diagonal, row and column sums
            for name, fn in self.metrics:
                held[name][i0:i1, d0:d1] = self.values(fn, cells, name)
        if self.chance:
            table = chance_floor_inplace(chance_table(cells))
            with shared_class_sums(table):
                for name, fn in self.metrics:
                    held[_CH + name][i0:i1, d0:d1] = self.values(fn, table, name)

    def close(self, held: dict[str, np.ndarray], g0: int, g1: int, scratch: Scratch) -> GroupResult:
        summaries, kept = [], []
        size = (g1 - g0) * self.a.draws * int(max(self.widths))
        at = 0 if self.one else slice(None)  # one table: its own fields, nothing to join
        tables = 0 if self.one else slice(g0, g1)
        for name in self.names:
            x = held[name]  # (tables, draws), or (tables, draws, K): the draws put last
            x = x if x.ndim == 2 else np.ascontiguousarray(np.moveaxis(x, 1, -1))
            s = scratch.summarize(name, x[at], self.scores[name][tables], self.a, size)
            if self.chance:
                s = with_chance(s, x[at], np.moveaxis(held[_CH + name], 1, -1)[at], name)
                s = dataclasses.replace(s, chance_score=plain(self.chance_scores[name][tables]))
            summaries.append(s)
            kept.append(x)
        return summaries, kept


_TINY = float(np.finfo(float).tiny)


def _dominated(shift: Any, noise: Any) -> Any:
    """The prior-dominance rule: a shift above 0.5 sd beyond 3 MC errors (NaN: dominated)."""
    return np.logical_not(shift - 3 * noise <= 0.5)


#: Per-class metrics and the count margins that inform them (rows = true class).
_INFORMED_BY = {"recall": ("row",), "precision": ("col",), "f1": ("row", "col")}


def check_prior_dominance(
    summaries: dict[str, MetricSummary],
    fns: dict[str, Callable[[np.ndarray], Any]],
    counts: np.ndarray,
) -> dict[str, MetricSummary]:
    """Fill ``prior_shift`` and ``prior_dominated`` (see :class:`MetricSummary`).

    Under a vanishing prior the posterior mean of a recall is ``c_jj / n_j`` and
    that of accuracy (micro-F1) is ``trace / N`` exactly: the observed score (mu
    and theta are independent, and a Dirichlet's mean is its normalised
    concentration). For the other metrics, ratios of sums of cells, the
    observed score is the vanishing prior's posterior mean to first order; the
    difference is of the order of the posterior variance, a small fraction of
    the standard deviation once a few documents inform the metric. So the shift
    is measured from the observed score, at no cost, and a metric that no
    document informs (zero denominators) is flagged outright.
    """
    from ..metrics import METRICS

    out = {}
    for name, s in summaries.items():
        margins = _INFORMED_BY.get(name) if fns[name] is METRICS.get(name) else None
        if margins is None and isinstance(s.mean, float):  # one number: the same, in floats
            sd = max(float(s.std), _TINY)
            shift = abs(float(s.mean) - float(s.score)) / sd
            dominated = bool(_dominated(shift, float(s.mc_error) / sd))
            out[name] = dataclasses.replace(s, prior_shift=shift, prior_dominated=dominated)
            continue
        sd = np.maximum(np.asarray(s.std, dtype=float), _TINY)
        with np.errstate(invalid="ignore"):  # an infinite mean and std (inf / inf) is NaN
            shift = np.abs(np.asarray(s.mean) - np.asarray(s.score)) / sd
            noise = np.asarray(s.mc_error) / sd
            flag = _dominated(shift, noise)  # a NaN score (undefined) is flagged too
        if margins is not None:
            rows, cols = counts.sum(axis=-1), counts.sum(axis=-2)
            uninformed = np.ones(np.broadcast_shapes(rows.shape, flag.shape), dtype=bool)
            for margin in margins:
                uninformed &= (rows if margin == "row" else cols) == 0
            flag = flag | uninformed
        out[name] = dataclasses.replace(
            s,
            prior_shift=float(shift) if shift.ndim == 0 else shift,
            prior_dominated=bool(flag) if flag.ndim == 0 else flag,
        )
    return out


def _scipy_available() -> bool:
    """:func:`f1posterior.posterior._exact.scipy_available`, its module loaded only here."""
    from ._exact import scipy_available  # looked up at each call (tests replace it)

    return scipy_available()


def scipy_or_warn(what: str) -> bool:
    """Whether scipy gives ``what`` (metrics with closed forms under the aligned prior)
    their exact posteriors; without it, a warning (at the caller's caller's caller)."""
    from ._exact import scipy_available

    if scipy_available():
        return True
    warnings.warn(
        f"{what} have exact posteriors under this aligned prior, but they need scipy "
        "(pip install 'f1posterior[exact]'); sampling them instead",
        stacklevel=4,
    )
    return False


def exact_summaries(
    resolved: list[tuple[str, Callable[[np.ndarray], Any]]],
    counts: np.ndarray,
    prior: ResolvedPrior,
    scores: dict[str, np.ndarray],
    batch: tuple[int, ...],
    prob: float,
    ref: float | None,
    target: Any = None,
) -> dict[str, MetricSummary]:
    """Exact summaries of the named metrics with a closed form under this prior.

    Every one of :data:`f1posterior.posterior._exact.EXACT_METRICS` when the prior is aligned;
    per-class recall (``theta_jj ~ Beta``, independent of ``mu``) under any Dirichlet
    prior. None under the hierarchical prior's mixture (recall is a mixture of Betas
    there, sampled like every other metric).
    Needs scipy (the ``exact`` extra). Without it these metrics are sampled: with a
    warning under an aligned prior (chosen for its closed forms), silently for recall
    otherwise (numpy is the only runtime dependency, and recall is then drawn with the
    whole table, whose theta_jj has that Beta marginal); each summary's ``exact`` says which.
    """
    from ..metrics import METRICS
    from . import _closed_forms as closed

    if prior.mixture is not None:
        return {}
    alpha, beta = prior.alpha, prior.beta
    m = counts.shape[-1]
    names = [n for n, fn in resolved if closed.has_exact(n, m) and fn is METRICS.get(n)]
    if names and (target is not None or not closed.is_aligned(alpha, beta)):
        # at a target prevalence only recall (theta_jj, which no prevalence changes) keeps
        # its closed form; the others assume the test set's prevalence
        names = [n for n in names if n in closed.ANY_PRIOR_METRICS]
        if not names or not _scipy_available():
            return {}
    if not names or not scipy_or_warn(f"metrics {names}"):
        return {}
    from . import _exact as exact  # here: a sampled run never loads the closed forms

    conc = alpha + counts
    return {
        n: exact.posterior_from_concentration(conc, n).summary(
            score=scores[n].reshape(batch + scores[n].shape[1:]), ci_prob=prob, ref=ref
        )
        for n in names
    }
