"""Ranking classifiers: `rank_classifiers` (independent test sets) and `rank_predictions`
(paired, on the same documents)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.describe import describe
from .._core.priors import PriorArg
from .._core.results import value_equality
from .._core.validation import check_counts, check_draws, check_prob, check_rng
from ..posterior.evaluation import evaluate
from ..posterior.summary import MetricSummary, summarize_draws
from .comparison import MetricSpec, _check_metric, _plain
from .paired import (
    MAX_PAIRED_CELLS,
    _encode,
    _joint_counts,
    _marginal_tables,
    _metric_values,
    _paired_prior,
    paired_metric_draws,
)

__all__ = ["Ranking", "rank_classifiers", "rank_predictions"]


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


def _ranking(
    v: np.ndarray,
    scores: np.ndarray,
    names: list[str],
    *,
    metric: str,
    ci_prob: float,
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
        summary=summarize_draws(v, score=scores, ci_prob=ci_prob),
        draws=v,
        paired=paired,
        prior=prior,
        seed=seed,
        batch_shape=tuple(v.shape[:-2]),
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
    ci_prob: float = 0.95,
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
    draws, alpha, beta, ci_prob, rng :
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
    hp = check_prob(ci_prob, "ci_prob")
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
        ci_prob=hp,
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
    ci_prob: float = 0.95,
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
    metric, draws, ci_prob, rng :
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
    hp = check_prob(ci_prob, "ci_prob")
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
        ci_prob=hp,
        paired=True,
        prior=prior,
        seed=root.entropy,
    )
