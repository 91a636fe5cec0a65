"""Comparing classifiers: the posterior of a difference, paired or not, and rankings.

Two designs, two models.

**Independent test sets** (:func:`compare`, :func:`rank_classifiers`).
Each classifier's confusion matrix has its own posterior under the core model
(Zhang, Wang & Zhao, ICTIR 2015); the posteriors are independent, so draws of ``metric(A) -
metric(B)`` are differences of independent draws. A and B use distinct random
streams, children ``(0,)`` and ``(1,)`` of the root seed (each exactly the
streams :func:`f1posterior.evaluate` would use with that child as ``rng``).

**Paired predictions on the same documents** (:func:`compare_predictions`,
:func:`rank_predictions`). The joint outcome of a document is the cell
``(true class t, A's prediction a, B's prediction b)``, M x M x M cells
(M^(k+1) for k classifiers), with the core model's conjugate structure::

    mu      ~ Dir(beta)                  class prevalences (M)
    theta_t ~ Dir(alpha_t)               rates of the M^k prediction tuples of class t
    posterior: mu | T ~ Dir(beta + n),  theta_t | T ~ Dir(alpha_t + T_t)

Each draw of ``p[t, a, b] = mu_t theta_tab`` is marginalised into both
confusion matrices (``sum_b`` for A, ``sum_a`` for B) and the metric applied
to each, so the difference keeps the correlation between the two classifiers
that share every document. That correlation is what makes the paired
comparison far more decisive than pretending the test sets were independent
(``docs/compare.md`` has a worked example).

Default prior of the paired model: ``alpha = 1 / M^(k-1)`` on every cell, so
that by the aggregation property each classifier's *marginal* confusion
matrix has exactly the core model's uniform prior (``alpha = 1`` per cell of
each row, ``beta = 1``): the paired posterior of one classifier's metric is
the same distribution :func:`f1posterior.evaluate` gives for it alone, and
the only thing pairing adds is the dependence between classifiers. (A flat
``alpha = 1`` on each of the M^2 pair cells would instead put ``M``
pseudo-counts on each cell of every marginal row, a stronger prior than the
core's.) With ``beta="aligned"`` (``beta_t = sum of alpha_t``) the model is
one Dirichlet over all cells and, by aggregation, the sign of the paired
accuracy difference has an exact Beta answer (tested).

Probabilities and decisions. With ``rope >= 0`` (region of practical
equivalence), ``p_a_better = P(diff > rope)``, ``p_b_better = P(diff < -rope)``
and ``p_equivalent = P(|diff| <= rope)``; they sum to 1. The decision at
probability ``prob`` (> 0.5) is the one of "A better", "B better" and
"equivalent" whose probability reaches ``prob``, else "undecided".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.priors import PriorArg, describe_prior, resolve_prior
from .._core.results import value_equality
from .._core.sampling import (
    LOG_SPACE_BELOW,
    STREAM_BLOCK_VARIATES,
    _fill_block,
    _stream,
    prevalence_floor,
)
from .._core.validation import (
    as_counts,
    check_counts,
    check_draws,
    check_nonnegative,
    check_prob,
    check_rng,
    child_seed,
    describe,
)
from ..metrics.confusion import _codes
from ..metrics.confusion import _kind as _label_kind
from ..metrics.confusion import _label_array as _predictions_label_array
from ..metrics.multiclass import PER_CLASS_METRICS, resolve_metric
from ..posterior.evaluation import evaluate
from ..posterior.summary import MetricSummary, summarize_draws

__all__ = [
    "Comparison",
    "Ranking",
    "compare",
    "compare_predictions",
    "rank_classifiers",
    "rank_predictions",
    "DECISIONS",
]

#: The possible values of :attr:`Comparison.decision`.
DECISIONS = ("A better", "B better", "equivalent", "undecided")

#: Gamma variates held at once when sampling the paired model.
_CHUNK_VARIATES = 1 << 21
#: Largest number of joint cells M^(k+1) the paired model accepts.
MAX_PAIRED_CELLS = 1 << 18

MetricSpec = str | Callable[[np.ndarray], Any]


def _plain(v: Any) -> Any:
    return np.asarray(v).tolist() if isinstance(v, np.ndarray | np.generic) else v


def _scalar(v: Any) -> Any:
    a = np.asarray(v)
    return a.item() if a.ndim == 0 else a


# --------------------------------------------------------------------------- results


@value_equality
@dataclass(frozen=True)
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
        Entropy of the root seed.
    batch_shape : tuple of int
        Batch shape of the comparison (``()`` for one).
    labels : list or None
        Class labels of the paired model (sorted when sortable).
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
        return {
            "metric": self.metric,
            "p_a_better": _plain(self.p_a_better),
            "p_b_better": _plain(self.p_b_better),
            "p_equivalent": _plain(self.p_equivalent),
            "decision": _plain(self.decision),
            "difference": self.difference.to_dict(),
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "rope": self.rope,
            "prob": self.prob,
            "paired": self.paired,
            "prior": self.prior,
            "seed": self.seed,
            "batch_shape": list(self.batch_shape),
            "labels": None if self.labels is None else [_plain(x) for x in self.labels],
        }

    def __str__(self) -> str:
        design = "paired: same documents" if self.paired else "independent test sets"
        pct = f"{100 * self.difference.hdi_prob:g}%"
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
                g = {k: np.asarray(getattr(s, k))[idx] for k in ("score", "mean", "std")}
                lo, hi = np.asarray(s.hdi)[idx]
                lines.append(
                    f"  {name:<6} {g['score']:>8.4f} {g['mean']:>8.4f} {g['std']:>8.4f}  "
                    f"[{lo:.4f}, {hi:.4f}]"
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


@value_equality
@dataclass(frozen=True)
class Ranking:
    """Result of :func:`rank_classifiers` or :func:`rank_predictions`.

    ``k`` classifiers; arrays carry the batch shape first (``()`` for one
    ranking), then the classifier axis.

    Attributes
    ----------
    names : list of str
        Names of the classifiers, in input order.
    metric : str
        Name of the ranked metric (higher is better).
    p_best : ndarray, shape (*batch, k)
        Posterior probability that each classifier has the highest metric.
    expected_rank : ndarray, shape (*batch, k)
        Posterior mean rank (1 = best).
    rank_probs : ndarray, shape (*batch, k, k)
        ``rank_probs[..., i, r]`` = P(classifier i has rank r + 1); rows and
        columns sum to 1.
    summary : MetricSummary
        Posterior summary of each classifier's metric, fields of shape
        ``(*batch, k)``.
    draws : ndarray, shape (*batch, k, draws)
        Posterior draws of each classifier's metric.
    paired : bool
        True for the paired model (same documents).
    prior : str
        Statement of the prior used.
    seed : Any
        Entropy of the root seed.
    batch_shape : tuple of int
        Leading batch shape.
    """

    names: list[str]
    metric: str
    p_best: np.ndarray
    expected_rank: np.ndarray
    rank_probs: np.ndarray
    summary: MetricSummary
    draws: np.ndarray = field(repr=False)
    paired: bool = False
    prior: str = ""
    seed: Any = None
    batch_shape: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary of everything but the draws."""
        return {
            "names": list(self.names),
            "metric": self.metric,
            "p_best": _plain(self.p_best),
            "expected_rank": _plain(self.expected_rank),
            "rank_probs": _plain(self.rank_probs),
            "summary": self.summary.to_dict(),
            "paired": self.paired,
            "prior": self.prior,
            "seed": self.seed,
            "batch_shape": list(self.batch_shape),
        }

    def __str__(self) -> str:
        design = "paired: same documents" if self.paired else "independent test sets"
        k = len(self.names)
        width = max(8, *(len(n) for n in self.names))
        lines = [
            f"Ranking by {self.metric} ({design}); {self.summary.draws:,} posterior draws; "
            f"prior {self.prior}"
        ]
        for idx in np.ndindex(*self.batch_shape):
            if self.batch_shape:
                lines.append(f"[{', '.join(map(str, idx))}]")
            ranks = " ".join(f"{'P(' + str(r + 1) + ')':>6}" for r in range(k))
            lines.append(
                f"  {'model':<{width}} {'score':>7} {'mean':>7} {'P(best)':>8} "
                f"{'E[rank]':>8} {ranks}"
            )
            er = self.expected_rank[idx]
            for i in np.argsort(er, kind="stable"):
                rp = " ".join(f"{v:>6.3f}" for v in self.rank_probs[idx][i])
                lines.append(
                    f"  {self.names[i]:<{width}} {np.asarray(self.summary.score)[idx][i]:>7.4f} "
                    f"{np.asarray(self.summary.mean)[idx][i]:>7.4f} "
                    f"{self.p_best[idx][i]:>8.4f} {er[i]:>8.3f} {rp}"
                )
        return "\n".join(lines)


# ------------------------------------------------------------------------ validation


def _check_metric(metric: Any) -> tuple[str, Callable[[np.ndarray], Any]]:
    if isinstance(metric, str) and metric in PER_CLASS_METRICS:
        raise ValueError(
            f"metric must be a single-number metric (per-class metrics {sorted(PER_CLASS_METRICS)} "
            f"cannot be compared as one number); got {metric!r}"
        )
    return resolve_metric(metric, "metric")


def _check_decision_prob(prob: Any) -> float:
    p = check_prob(prob, "prob")
    if p <= 0.5:
        raise ValueError(
            f"prob must be in (0.5, 1) so that at most one decision reaches it; got {prob!r}"
        )
    return p


def _child(root: np.random.SeedSequence, i: int) -> np.random.SeedSequence:
    return child_seed(root, i)


def _label_array(y: Any, name: str) -> np.ndarray:
    arr = _predictions_label_array(y, name)
    if arr.size == 0:
        raise ValueError(f"{name} must hold at least one label; got an empty sequence")
    return arr


def _encode(
    y_true: Any, preds: Sequence[tuple[str, Any]], labels: Any
) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """Integer codes of ``y_true`` (N,) and of the predictions (k, N), and the classes.

    Label arrays are validated as by :func:`f1posterior.metrics.confusion.confusion_matrix`
    (any hashable labels of one kind). Stricter than it: with ``labels=None`` a
    prediction outside the labels of ``y_true`` is an error, and with ``labels``
    given, a document whose label is not among them is an error (not dropped).
    """
    t = _label_array(y_true, "y_true")
    arrays = [(name, _label_array(p, name)) for name, p in preds]
    for name, arr in arrays:
        if arr.shape[0] != t.shape[0]:
            raise ValueError(
                f"{name} must hold one prediction per document of y_true ({t.shape[0]}); "
                f"got {arr.shape[0]}"
            )
    kinds = {"y_true": _label_kind(t), **{name: _label_kind(arr) for name, arr in arrays}}
    if len(set(kinds.values())) != 1:
        shown = ", ".join(f"{v} labels in {k}" for k, v in kinds.items())
        raise TypeError(
            f"y_true and the predictions must hold labels of the same type; got {shown}"
        )
    if labels is None:
        classes = _sorted_labels(t)
    else:
        if isinstance(labels, (str, bytes)):
            raise TypeError(f"labels must be a sequence of labels or None; got {labels!r}")
        classes = [v.item() if isinstance(v, np.generic) else v for v in labels]
        if not classes or len(set(classes)) != len(classes):
            raise ValueError(
                f"labels must be distinct labels, at least one; got {describe(labels)}"
            )
    index = {c: i for i, c in enumerate(classes)}
    coded = []
    for name, arr in [("y_true", t), *arrays]:
        c = _codes(arr, index, name)
        if (c < 0).any():
            extra = list(dict.fromkeys(arr[c < 0].tolist()))[:5]
            if labels is None:
                raise ValueError(
                    f"{name} predicts labels that never occur in y_true: {extra} (do the "
                    f"classifiers use different label sets?); pass labels=[...] listing every "
                    f"class if a model may predict classes absent from the test set"
                )
            raise ValueError(f"{name} holds labels not in labels={classes}: {extra}")
        coded.append(c)
    return coded[0], np.stack(coded[1:]), classes


def _sorted_labels(arr: np.ndarray) -> list[Any]:
    values = list(dict.fromkeys(arr.tolist()))
    try:
        return sorted(values)
    except TypeError:
        raise TypeError(
            "y_true's labels cannot be sorted (they do not support <); pass labels= to give "
            f"their order; found {describe(values)}"
        ) from None


def _paired_prior(
    alpha: Any, beta: Any, joint: np.ndarray, m: int, k: int
) -> tuple[np.ndarray, np.ndarray, str]:
    """Concentrations (M, M^k) and (M,) of the paired model, and their description.

    A preset (or a marginal array of shape (M, M)) is resolved by
    :func:`f1posterior._core.priors.resolve_prior` on the average of the k models'
    marginal tables (they share their row sums, so the ``"adaptive"`` prior
    is centred on the models' mean accuracy), giving one marginal prior
    ``A`` (M, M) with row totals ``T``. The joint prior is the product form
    ``T_u * prod_i A[u, v_i] / T_u``: summed over the other models' cells it
    gives every model exactly the marginal prior ``A``. Numbers and (M, M)
    arrays are marginal priors too; only an (M, M^k) array is taken per joint
    cell, as given.
    """
    cells = (m,) * (k + 1)
    if alpha is None:
        alpha = "adaptive"
    margins = _marginal_tables(joint.reshape(m, m**k, 1), m, k)
    mean_table = np.mean([t[0] for t in margins], axis=0)
    joint_numeric = not isinstance(alpha, str) and np.shape(alpha) == (m, m**k)
    if joint_numeric:
        a, _ = resolve_prior(alpha, 1.0, np.empty(cells).reshape(m, m**k))
        marg = a.sum(axis=-1)
    else:
        am, _ = resolve_prior(alpha, 1.0, mean_table)
        totals = am.sum(axis=-1, keepdims=True)  # (M, 1)
        shape = am / totals
        a = totals.copy()
        for _ in range(k):  # one more model's prediction axis, the last varying fastest
            a = (a[:, :, None] * shape[:, None, :]).reshape(m, -1)
        marg = totals[:, 0]
    if isinstance(beta, str) and beta == "aligned":
        b = marg
    else:
        _, b = resolve_prior(1.0, beta, mean_table)
    if joint_numeric:
        beta_text = beta if isinstance(beta, str) else "as given"
        text = f"paired model; alpha given per joint cell, beta {beta_text}"
    else:
        text = f"paired model; each model's marginal prior: {describe_prior(alpha, beta)}"
    return a.reshape(m, m**k), b, text


# ------------------------------------------------------------------------- sampling


def _joint_counts(codes_t: np.ndarray, codes: np.ndarray, m: int) -> np.ndarray:
    """Counts of the joint cells, shape (M, M^k) (true class, prediction tuple)."""
    k = codes.shape[0]
    flat = codes_t.copy()
    for j in range(k):
        flat = flat * m + codes[j]
    return np.bincount(flat, minlength=m ** (k + 1)).reshape(m, m**k).astype(np.float64)


def _marginal_tables(p: np.ndarray, m: int, k: int) -> list[np.ndarray]:
    """Each classifier's confusion tables, (n, M, M) views, from joint draws (M, M^k, n)."""
    full = p.reshape((m,) * (k + 1) + (p.shape[-1],))
    out = []
    for j in range(k):
        axes = tuple(1 + i for i in range(k) if i != j)
        out.append(np.moveaxis(full.sum(axis=axes) if axes else full, -1, 0))
    return out


def paired_metric_draws(
    joint: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    k: int,
    fn: Callable[[np.ndarray], Any],
    draws: int,
    root: np.random.SeedSequence,
) -> np.ndarray:
    """Posterior draws (k, draws) of each classifier's metric under the paired model.

    Parameters
    ----------
    joint : ndarray, shape (M, M^k)
        Counts of (true class, prediction tuple) cells.
    alpha : ndarray, shape (M, M^k)
        Prior concentrations of each true class's prediction tuples.
    beta : ndarray, shape (M,)
        Prior concentrations of the prevalences.
    k : int
        Number of classifiers.
    fn : callable
        Metric of a (..., M, M) table returning (...).
    draws : int
        Number of draws.
    root : SeedSequence
        Root of the random streams: block ``i`` of draws uses the stream keyed
        ``(0, i)`` below ``root``, so results do not depend on chunking.
    """
    m = joint.shape[0]
    rows = alpha + joint  # (M, L)
    prev = (beta + joint.sum(axis=-1))[None, :]  # (1, M)
    per_draw = rows.size + m
    bd = max(1, STREAM_BLOCK_VARIATES // per_draw)
    step = bd * max(1, _CHUNK_VARIATES // (bd * per_draw))
    out = np.empty((k, draws))
    tiny = np.finfo(np.float64).tiny
    floor = prevalence_floor(np.float64)
    parts = []
    for conc in (rows, prev):
        small = conc < LOG_SPACE_BELOW
        parts.append((conc.tolist(), conc, small if small.any() else None))
    for d0 in range(0, draws, step):
        d1 = min(draws, d0 + step)
        g_rows = np.empty((*rows.shape, d1 - d0))  # draws last, as the batch engine
        g_prev = np.empty((1, m, d1 - d0))
        for s0 in range(d0, d1, bd):
            s1 = min(d1, s0 + bd)
            gen = _stream(root, 0, s0 // bd)
            for (lists, conc, small), g in zip(parts, (g_rows, g_prev), strict=True):
                _fill_block(gen, lists, conc, small, g[..., s0 - d0 : s1 - d0])
        mu = g_prev[0] / g_prev[0].sum(axis=0)  # (M, n)
        # the core's prevalence floor: an empty class's rows keep their ratios exactly
        # (f1posterior._core.sampling, "Small concentrations")
        np.fmax(mu, floor, out=mu)
        p = g_rows * (mu / g_rows.sum(axis=1))[:, None, :]  # (M, L, n)
        np.maximum(p, tiny, out=p)
        for j, table in enumerate(_marginal_tables(p, m, k)):
            out[j, d0:d1] = _metric_values(fn, table)
    return out


def _metric_values(fn: Callable[[np.ndarray], Any], table: np.ndarray) -> np.ndarray:
    out = np.asarray(fn(table), dtype=np.float64)
    if out.shape != table.shape[:-2]:
        raise ValueError(
            f"metric must map a (..., M, M) table to one number per table (...); got shape "
            f"{out.shape} for a table of shape {table.shape}"
        )
    return out


# ------------------------------------------------------------------------ decisions


def _comparison(
    da: np.ndarray,
    db: np.ndarray,
    score_a: Any,
    score_b: Any,
    *,
    metric: str,
    rope: float,
    prob: float,
    hdi_prob: float,
    paired: bool,
    prior: str,
    seed: Any,
    labels: list[Any] | None = None,
) -> Comparison:
    diff = da - db
    if not np.isfinite(diff).all():
        raise ValueError(f"metric {metric!r} returned non-finite values on posterior draws")
    pa = (diff > rope).mean(axis=-1)
    pb = (diff < -rope).mean(axis=-1)
    pe = (np.abs(diff) <= rope).mean(axis=-1)
    decision = np.select(
        [pa >= prob, pb >= prob, pe >= prob],
        ["A better", "B better", "equivalent"],
        default="undecided",
    )
    sa = np.asarray(score_a, dtype=np.float64)
    sb = np.asarray(score_b, dtype=np.float64)
    return Comparison(
        metric=metric,
        p_a_better=_scalar(pa),
        p_b_better=_scalar(pb),
        p_equivalent=_scalar(pe),
        decision=_scalar(decision),
        difference=summarize_draws(diff, score=sa - sb, hdi_prob=hdi_prob, ref=0.0),
        a=summarize_draws(da, score=np.broadcast_to(sa, da.shape[:-1]), hdi_prob=hdi_prob),
        b=summarize_draws(db, score=np.broadcast_to(sb, db.shape[:-1]), hdi_prob=hdi_prob),
        draws=diff,
        rope=rope,
        prob=prob,
        paired=paired,
        prior=prior,
        seed=seed,
        batch_shape=tuple(diff.shape[:-1]),
        labels=labels,
    )


def _ranking(
    v: np.ndarray,
    scores: np.ndarray,
    names: list[str],
    *,
    metric: str,
    hdi_prob: float,
    paired: bool,
    prior: str,
    seed: Any,
) -> Ranking:
    """Ranking from metric draws ``v`` of shape (*batch, k, draws)."""
    if not np.isfinite(v).all():
        raise ValueError(f"metric {metric!r} returned non-finite values on posterior draws")
    k = v.shape[-2]
    order = np.argsort(-v, axis=-2, kind="stable")  # model at each rank, per draw
    ranks = np.argsort(order, axis=-2, kind="stable")  # 0-based rank of each model
    rank_probs = np.stack([(ranks == r).mean(axis=-1) for r in range(k)], axis=-1)
    return Ranking(
        names=names,
        metric=metric,
        p_best=rank_probs[..., 0].copy(),
        expected_rank=1.0 + (ranks.mean(axis=-1)),
        rank_probs=rank_probs,
        summary=summarize_draws(v, score=scores, hdi_prob=hdi_prob),
        draws=v,
        paired=paired,
        prior=prior,
        seed=seed,
        batch_shape=tuple(v.shape[:-2]),
    )


# ----------------------------------------------------------------------- public API


def _check_compare(
    counts_a: Any, counts_b: Any, metric: Any, rope: Any, prob: Any, draws: Any, hdi_prob: Any
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
    name, _ = _check_metric(metric)
    return (
        ca,
        cb,
        name,
        metric,
        check_nonnegative(rope, "rope"),
        _check_decision_prob(prob),
        check_draws(draws),
        check_prob(hdi_prob, "hdi_prob"),
    )


def compare(
    counts_a: ArrayLike,
    counts_b: ArrayLike,
    *,
    metric: MetricSpec = "macro_f1",
    rope: float = 0.0,
    prob: float = 0.95,
    draws: int = 50_000,
    alpha: PriorArg = "adaptive",
    beta: PriorArg = "adaptive",
    hdi_prob: float = 0.95,
    rng: Any = None,
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
        A single-number metric of :data:`f1posterior.metrics.multiclass.METRICS` (not a
        per-class one) or a callable mapping (..., M, M) to (...).
    rope : float, default 0.0
        Half-width of the region of practical equivalence, >= 0.
    prob : float, default 0.95
        Probability a decision needs, in (0.5, 1).
    draws : int, default 50_000
        Posterior draws.
    alpha, beta : prior
        Dirichlet priors, as in :func:`f1posterior.evaluate`.
    hdi_prob : float, default 0.95
        Probability of the intervals of the summaries.
    rng : None, int, SeedSequence or Generator
        Root of randomness; A uses its child ``(0,)``, B its child ``(1,)``.

    Returns
    -------
    Comparison
        Fields of the broadcast batch shape; ``draws`` has shape
        ``(*batch, draws)``.

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
        counts_a, counts_b, metric, rope, prob, draws, hdi_prob
    )
    root = check_rng(rng)
    batch = np.broadcast_shapes(ca.shape[:-2], cb.shape[:-2])
    kw: dict[str, Any] = dict(metrics=[spec], draws=n, alpha=alpha, beta=beta, keep_draws=True)
    ea = evaluate(ca, rng=_child(root, 0), **kw)
    eb = evaluate(cb, rng=_child(root, 1), **kw)
    key = next(iter(ea))
    assert ea.metric_draws is not None and eb.metric_draws is not None
    da = np.broadcast_to(ea.metric_draws[key], (*batch, n))
    db = np.broadcast_to(eb.metric_draws[key], (*batch, n))
    return _comparison(
        da,
        db,
        np.broadcast_to(ea[key].score, batch),
        np.broadcast_to(eb[key].score, batch),
        metric=name,
        rope=rp,
        prob=pr,
        hdi_prob=hp,
        paired=False,
        prior=ea.prior,
        seed=root.entropy,
    )


def compare_predictions(
    y_true: ArrayLike,
    pred_a: ArrayLike,
    pred_b: ArrayLike,
    *,
    metric: MetricSpec = "macro_f1",
    rope: float = 0.0,
    prob: float = 0.95,
    draws: int = 50_000,
    alpha: Any = "adaptive",
    beta: Any = "adaptive",
    labels: Sequence[Any] | None = None,
    hdi_prob: float = 0.95,
    rng: Any = None,
) -> Comparison:
    """Compare two classifiers on the same documents (the paired model).

    Parameters
    ----------
    y_true, pred_a, pred_b : array_like, shape (N,)
        True classes and the two classifiers' predictions, one per document;
        labels of any hashable type (all numbers or all strings).
    metric : str or callable, default "macro_f1"
        As in :func:`compare`.
    rope, prob, draws, hdi_prob :
        As in :func:`compare`.
    alpha : None, "uniform", "jeffreys", float or array_like broadcasting to (M, M, M)
        Dirichlet prior on each true class's M x M prediction pairs. None or
        "uniform" (default): ``1/M`` per pair cell, so each classifier's
        marginal confusion matrix has the core model's uniform prior
        (alpha = 1); "jeffreys": ``0.5/M`` (marginal alpha = 0.5). A number
        or array is the per-pair-cell concentration itself.
    beta : float, array_like of shape (M,), "uniform", "jeffreys" or "aligned", default 1.0
        Dirichlet prior on class prevalences; "aligned" sets ``beta_t`` to
        the sum of class ``t``'s pair-cell alphas (one Dirichlet over all
        M^3 cells).
    labels : sequence, optional
        Every class, in order. By default the sorted labels of ``y_true``;
        a prediction outside them is an error (it usually means the
        classifiers use different label sets).
    rng : None, int, SeedSequence or Generator
        Source of randomness.

    Returns
    -------
    Comparison
        With ``paired=True`` and ``labels`` the classes used.

    Examples
    --------
    >>> y = [0] * 50 + [1] * 50
    >>> a = [0] * 45 + [1] * 5 + [1] * 45 + [0] * 5
    >>> b = [0] * 40 + [1] * 10 + [1] * 40 + [0] * 10
    >>> res = compare_predictions(y, a, b, metric="accuracy", draws=20_000, rng=0)
    >>> round(res.difference.score, 3), res.decision
    (0.1, 'A better')
    """
    return _compare_predictions(
        y_true, pred_a, pred_b, metric, rope, prob, draws, alpha, beta, labels, hdi_prob, rng
    )


def _compare_predictions(
    y_true: Any,
    pred_a: Any,
    pred_b: Any,
    metric: Any,
    rope: Any,
    prob: Any,
    draws: Any,
    alpha: Any,
    beta: Any,
    labels: Any,
    hdi_prob: Any,
    rng: Any,
) -> Comparison:
    name, fn = _check_metric(metric)
    rp = check_nonnegative(rope, "rope")
    pr = _check_decision_prob(prob)
    n = check_draws(draws)
    hp = check_prob(hdi_prob, "hdi_prob")
    codes_t, codes, classes = _encode(y_true, [("pred_a", pred_a), ("pred_b", pred_b)], labels)
    m = len(classes)
    root = check_rng(rng)
    joint = _joint_counts(codes_t, codes, m)
    a, b, prior = _paired_prior(alpha, beta, joint, m, 2)
    v = paired_metric_draws(joint, a, b, 2, fn, n, root)
    tables = _marginal_tables(joint.reshape(m, m * m, 1), m, 2)
    return _comparison(
        v[0],
        v[1],
        _metric_values(fn, tables[0][0]),
        _metric_values(fn, tables[1][0]),
        metric=name,
        rope=rp,
        prob=pr,
        hdi_prob=hp,
        paired=True,
        prior=prior,
        seed=root.entropy,
        labels=classes,
    )


def _check_names(names: Any, k: int) -> list[str]:
    if names is None:
        return [f"model {i}" for i in range(k)]
    if isinstance(names, str):
        raise TypeError(f"names must be a sequence of {k} strings; got {names!r}")
    out = [str(x) for x in names]
    if len(out) != k or len(set(out)) != k:
        raise ValueError(f"names must be {k} distinct names, one per classifier; got {out}")
    return out


def rank_classifiers(
    counts: ArrayLike,
    *,
    metric: MetricSpec = "macro_f1",
    names: Sequence[str] | None = None,
    draws: int = 50_000,
    alpha: PriorArg = "adaptive",
    beta: PriorArg = "adaptive",
    hdi_prob: float = 0.95,
    rng: Any = None,
) -> Ranking:
    """Rank k classifiers evaluated on independent test sets.

    Parameters
    ----------
    counts : array_like, shape (*batch, k, M, M)
        One confusion matrix per classifier along axis -3 (k >= 2).
    metric : str or callable, default "macro_f1"
        Single-number metric (higher is better).
    names : sequence of str, optional
        Names of the k classifiers (default "model 0", "model 1", ...).
    draws, alpha, beta, hdi_prob, rng :
        As in :func:`f1posterior.evaluate`; classifier ``i`` uses the random
        streams of flat batch index ``i`` (independent posteriors).

    Returns
    -------
    Ranking

    Examples
    --------
    >>> r = rank_classifiers([[[45, 5], [5, 45]], [[30, 20], [20, 30]]],
    ...                      metric="accuracy", names=["good", "poor"], draws=10_000, rng=0)
    >>> r.p_best.round(3).tolist(), r.expected_rank.round(3).tolist()
    ([1.0, 0.0], [1.0, 2.0])
    """
    c = check_counts(counts)
    if c.ndim < 3 or c.shape[-3] < 2:
        raise ValueError(
            f"counts must stack k >= 2 confusion matrices along axis -3, shape (*batch, k, M, M); "
            f"got shape {c.shape}"
        )
    name, _ = _check_metric(metric)
    nm = _check_names(names, c.shape[-3])
    hp = check_prob(hdi_prob, "hdi_prob")
    root = check_rng(rng)
    ev = evaluate(
        c, metrics=[metric], draws=draws, alpha=alpha, beta=beta, rng=root, keep_draws=True
    )
    key = next(iter(ev))
    assert ev.metric_draws is not None
    return _ranking(
        ev.metric_draws[key],
        np.asarray(ev[key].score),
        nm,
        metric=name,
        hdi_prob=hp,
        paired=False,
        prior=ev.prior,
        seed=root.entropy,
    )


def rank_predictions(
    y_true: ArrayLike,
    predictions: Mapping[str, ArrayLike] | Sequence[ArrayLike],
    *,
    metric: MetricSpec = "macro_f1",
    draws: int = 50_000,
    alpha: Any = "adaptive",
    beta: Any = "adaptive",
    labels: Sequence[Any] | None = None,
    hdi_prob: float = 0.95,
    rng: Any = None,
) -> Ranking:
    """Rank k classifiers that predicted the same documents (the paired model).

    The joint model has M^(k+1) cells (true class and every classifier's
    prediction), at most :data:`MAX_PAIRED_CELLS`; the default prior puts
    ``1/M^(k-1)`` on each, so every classifier's marginal has the core
    model's uniform prior.

    Parameters
    ----------
    y_true : array_like, shape (N,)
        True classes.
    predictions : mapping of name to array_like (N,), or sequence of them
        The k >= 2 classifiers' predictions.
    metric, draws, hdi_prob, rng :
        As in :func:`compare_predictions`.
    alpha : None, "uniform", "jeffreys", float or array_like broadcasting to (M,) * (k + 1)
        Prior on each true class's prediction tuples (None or "uniform":
        ``1/M^(k-1)`` per cell; "jeffreys": half that).
    beta : float, array_like (M,), "uniform", "jeffreys" or "aligned", default 1.0
        Prior on prevalences.
    labels : sequence, optional
        Every class, in order (default: the labels of ``y_true``).

    Returns
    -------
    Ranking

    Examples
    --------
    >>> y = [0] * 30 + [1] * 30
    >>> preds = {"a": y, "b": [0] * 25 + [1] * 5 + [1] * 25 + [0] * 5, "c": [0] * 60}
    >>> r = rank_predictions(y, preds, metric="accuracy", draws=10_000, rng=0)
    >>> [r.names[i] for i in r.expected_rank.argsort()]
    ['a', 'b', 'c']
    """
    name, fn = _check_metric(metric)
    if isinstance(predictions, Mapping):
        items = [(str(k), v) for k, v in predictions.items()]
    elif isinstance(predictions, (str, bytes)) or not hasattr(predictions, "__iter__"):
        raise TypeError(
            f"predictions must be a mapping of name to predictions or a sequence of prediction "
            f"arrays; got {describe(predictions)}"
        )
    else:
        items = [(f"model {i}", v) for i, v in enumerate(predictions)]
    if len(items) < 2:
        raise ValueError(f"predictions must hold k >= 2 classifiers; got {len(items)}")
    n = check_draws(draws)
    hp = check_prob(hdi_prob, "hdi_prob")
    codes_t, codes, classes = _encode(y_true, items, labels)
    m, k = len(classes), len(items)
    if m ** (k + 1) > MAX_PAIRED_CELLS:
        raise ValueError(
            f"predictions: the paired model of {k} classifiers over {m} classes has "
            f"{m}^{k + 1} = {m ** (k + 1):,} joint cells, more than {MAX_PAIRED_CELLS:,}; "
            f"rank fewer classifiers at once or use rank_classifiers on their confusion matrices"
        )
    root = check_rng(rng)
    joint = _joint_counts(codes_t, codes, m)
    a, b, prior = _paired_prior(alpha, beta, joint, m, k)
    v = paired_metric_draws(joint, a, b, k, fn, n, root)
    tables = _marginal_tables(joint.reshape(m, m**k, 1), m, k)
    scores = np.array([_metric_values(fn, t[0]) for t in tables])
    return _ranking(
        v,
        scores,
        [nm for nm, _ in items],
        metric=name,
        hdi_prob=hp,
        paired=True,
        prior=prior,
        seed=root.entropy,
    )
