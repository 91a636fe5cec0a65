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
from .._core.results import plain_fields, value_equality
from .._core.streams import DEFAULT_DRAWS, run_seed
from .._core.text import escape_text
from .._core.validation import SeedLike, check_counts, check_prob, check_rng, check_summary_draws
from ..posterior import MetricSummary, evaluate, summarize_draws
from ._comparison import MetricSpec, check_finite_draws, check_metric
from ._paired import paired_fit
from ._tuples import PAIRED_PRIOR

__all__ = ["Ranking", "rank_classifiers", "rank_predictions"]


@value_equality
@dataclass(frozen=True, eq=False)
class Ranking:
    """Result of :func:`rank_classifiers` or :func:`rank_predictions`.

    ``k`` classifiers; arrays carry the batch shape first (``()`` for one
    ranking), then the classifier axes. All probabilities come from the same
    joint draws. Draws in which classifiers tie exactly (possible in the paired
    model, whose classifiers have equal tables in every draw when they never
    disagree) share the tied ranks equally.

    Attributes
    ----------
    names : list of str
        Names of the classifiers, in input order.
    metric : str
        Name of the ranked metric (higher is better).
    p_best : ndarray, shape (*batch, k)
        Posterior probability that each classifier has the highest metric
        (``rank_probabilities[..., 0]``).
    expected_rank : ndarray, shape (*batch, k)
        Posterior mean rank (1 = best): ``sum_r r P(rank = r)``.
    rank_probabilities : ndarray, shape (*batch, k, k)
        ``rank_probabilities[..., i, r]`` = P(classifier i has rank r + 1); rows
        and columns sum to 1.
    pairwise : ndarray, shape (*batch, k, k)
        ``pairwise[..., i, j]`` = P(metric of i > metric of j); 0 on the diagonal.
    ties : ndarray, shape (*batch, k, k)
        ``ties[..., i, j]`` = P(metric of i == metric of j) (1 on the diagonal):
        ``pairwise + pairwise.T + ties == 1``.
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
        The root seed of the run (a SeedSequence): pass it back as ``rng=`` to repeat the run.
    batch_shape : tuple of int
        Leading batch shape.

    See Also
    --------
    f1posterior.rank_classifiers : Independent test sets.
    f1posterior.rank_predictions : Paired predictions.

    Examples
    --------
    >>> from f1posterior import rank_classifiers
    >>> r = rank_classifiers([[[45, 5], [5, 45]], [[30, 20], [20, 30]]], metric="accuracy",
    ...                      names=["good", "poor"], draws=2000, rng=0)
    >>> r.names, r.p_best.round(2).tolist()
    (['good', 'poor'], [1.0, 0.0])
    """

    names: list[str]
    metric: str
    p_best: np.ndarray
    expected_rank: np.ndarray
    rank_probabilities: np.ndarray
    pairwise: np.ndarray
    ties: np.ndarray
    summary: MetricSummary
    draws: np.ndarray = field(repr=False)
    paired: bool = False
    prior: str = ""
    seed: Any = None
    batch_shape: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary of everything but the draws."""
        return plain_fields(self, ("draws",))

    def to_dataframe(self, kind: str = "models") -> Any:
        """A pandas DataFrame: one row per classifier, or per ordered pair.

        Parameters
        ----------
        kind : {"models", "pairwise"}
            ``"models"``: columns ``model``, ``score``, ``mean``, ``std``,
            ``hdi_low``, ``hdi_high``, ``p_best``, ``expected_rank`` and
            ``p_rank_1`` ... ``p_rank_k``. ``"pairwise"``: one row per ordered
            pair ``i != j`` with ``model``, ``other``, ``p_better`` (P(i > j))
            and ``p_tie``. A batch adds ``batch_0``, ``batch_1``, ... columns first.
        """
        return ranking_frame(self, kind)

    def __str__(self) -> str:
        design = "paired: same documents" if self.paired else "independent test sets"
        k = len(self.names)
        shown = [escape_text(n) for n in self.names]
        width = max(8, *(len(n) for n in shown))
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
                rp = " ".join(f"{v:>6.3f}" for v in self.rank_probabilities[idx][i])
                lines.append(
                    f"  {shown[i]:<{width}} {np.asarray(self.summary.score)[idx][i]:>7.4f} "
                    f"{np.asarray(self.summary.mean)[idx][i]:>7.4f} "
                    f"{self.p_best[idx][i]:>8.4f} {er[i]:>8.3f} {rp}"
                )
        return "\n".join(lines)


def rank_statistics(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rank probabilities, expected ranks, pairwise and tie probabilities of draws.

    Parameters
    ----------
    v : ndarray, shape (*batch, k, draws)
        Metric draws (higher is better).

    Returns
    -------
    rank_probabilities : ndarray, shape (*batch, k, k)
    expected_rank : ndarray, shape (*batch, k)
    pairwise, ties : ndarray, shape (*batch, k, k)

    Notes
    -----
    In a draw where classifier ``i`` is beaten by ``g`` others and tied with ``e``
    others it takes each of the ranks ``g + 1, ..., g + e + 1`` with probability
    ``1 / (e + 1)`` (ties broken uniformly at random, in expectation).

    Examples
    --------
    >>> import numpy as np
    >>> rp, er, pw, ti = rank_statistics(np.array([[3.0, 1.0], [2.0, 1.0]]))
    >>> rp.tolist(), er.tolist(), pw.tolist()
    ([[0.75, 0.25], [0.25, 0.75]], [1.25, 1.75], [[0.0, 0.5], [0.0, 0.0]])
    """
    k = v.shape[-2]
    greater = np.zeros(v.shape, dtype=np.int64)  # others strictly above, per draw
    equal = np.zeros(v.shape, dtype=np.int64)  # others tied
    pairwise = np.empty((*v.shape[:-1], k))
    ties = np.empty((*v.shape[:-1], k))
    for j in range(k):
        above = v[..., j : j + 1, :] > v
        same = v[..., j : j + 1, :] == v
        greater += above
        equal += same
        pairwise[..., j] = (v > v[..., j : j + 1, :]).mean(axis=-1)  # [i, j]: P(v_i > v_j)
        ties[..., j] = same.mean(axis=-1)
    equal -= 1  # a classifier ties with itself
    share = 1.0 / (equal + 1)
    probs = np.empty((*v.shape[:-1], k))
    for r in range(k):
        probs[..., r] = np.where((greater <= r) & (r <= greater + equal), share, 0.0).mean(-1)
    expected = 1.0 + (greater + equal / 2.0).mean(axis=-1)
    return probs, expected, pairwise, ties


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
    check_finite_draws(v, metric)
    probs, expected, pairwise, ties = rank_statistics(v)
    return Ranking(
        names=names,
        metric=metric,
        p_best=probs[..., 0].copy(),
        expected_rank=expected,
        rank_probabilities=probs,
        pairwise=pairwise,
        ties=ties,
        summary=summarize_draws(v, score=scores, ci_prob=ci_prob),
        draws=v,
        paired=paired,
        prior=prior,
        seed=seed,
        batch_shape=tuple(v.shape[:-2]),
    )


def distinct_names(names: Any, k: int, each: str) -> list[str]:
    """``k`` distinct names (as text), one per ``each`` (classifier, fold), else an error."""
    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise TypeError(f"names must be a sequence of {k} strings; got {describe(names)}")
    out = [str(x) for x in names]
    if len(out) != k or len(set(out)) != k or not all(x.strip() for x in out):
        raise ValueError(
            f"names must be {k} distinct names (visible text), one per {each}; got {out}"
        )
    return out


def named_predictions(predictions: Any) -> list[tuple[str, Any]]:
    """``(name, predictions)`` of k >= 2 classifiers: a mapping, or a sequence ("model i")."""
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
    return items


def _check_names(names: Any, k: int) -> list[str]:
    if names is None:
        return [f"model {i}" for i in range(k)]
    return distinct_names(names, k, "classifier")


# Same keywords as compare() and rank_predictions(): spelled out for users.
def rank_classifiers(
    counts: ArrayLike,
    *,
    metric: MetricSpec = "macro_f1",
    names: Sequence[str] | None = None,
    draws: int = DEFAULT_DRAWS,
    alpha: PriorArg = "hierarchical",
    beta: PriorArg = "hierarchical",
    ci_prob: float = 0.95,
    rng: SeedLike = None,
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

    See Also
    --------
    f1posterior.rank_predictions : Paired predictions on one test set.
    f1posterior.compare : Two classifiers.
    f1posterior.Ranking : The result.

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
    name, _ = check_metric(metric)
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
        seed=run_seed(root),
    )


# Same keywords as compare_predictions() and rank_classifiers(): spelled out for users.
def rank_predictions(
    y_true: ArrayLike,
    predictions: Mapping[str, ArrayLike] | Sequence[ArrayLike],
    *,
    metric: MetricSpec = "macro_f1",
    draws: int = DEFAULT_DRAWS,
    alpha: Any = PAIRED_PRIOR,
    beta: Any = "hierarchical",
    labels: Sequence[Any] | None = None,
    ci_prob: float = 0.95,
    rng: SeedLike = None,
) -> Ranking:
    """Rank k classifiers that predicted the same documents (the paired model).

    The paired model over the distinct (true, prediction_1, ..., prediction_k)
    tuples of the documents and the shared-error prior tuples (stated in
    :mod:`f1posterior.analysis._comparison`): at most N + M (1 + (M - 1)(2^k - 1))
    cells. Every classifier's marginal prior is exactly ``alpha``'s, and every
    pair of classifiers gets the prior :func:`compare_predictions` gives two.

    Parameters
    ----------
    y_true : array_like, shape (N,)
        True classes.
    predictions : mapping of name to array_like (N,), or sequence of them
        The k >= 2 classifiers' predictions.
    metric, draws
        As in :func:`compare_predictions`.
    alpha, beta : prior
        Each classifier's marginal prior, as in :func:`compare_predictions`
        (default ``"paired"``; an (M, M^k) array is a prior per joint cell).
    labels : sequence, optional
        Every class, in order (default: the labels of ``y_true``).
    ci_prob, rng
        As in :func:`compare_predictions`.

    Returns
    -------
    Ranking

    See Also
    --------
    f1posterior.rank_classifiers : Independent test sets.
    f1posterior.compare_predictions : Two classifiers, paired.
    f1posterior.Ranking : The result.

    Examples
    --------
    >>> y = [0] * 30 + [1] * 30
    >>> preds = {"a": y, "b": [0] * 25 + [1] * 5 + [1] * 25 + [0] * 5, "c": [0] * 60}
    >>> r = rank_predictions(y, preds, metric="accuracy", draws=10_000, rng=0)
    >>> [r.names[i] for i in r.expected_rank.argsort()]
    ['a', 'b', 'c']
    """
    name, fn = check_metric(metric)
    items = named_predictions(predictions)
    n = check_summary_draws(draws)
    hp = check_prob(ci_prob, "ci_prob")
    fit = paired_fit(y_true, items, fn, alpha, beta, labels, n, rng)
    return _ranking(
        fit.draws,
        fit.scores,
        [nm for nm, _ in items],
        metric=name,
        ci_prob=hp,
        paired=True,
        prior=fit.prior,
        seed=fit.seed,
    )


def ranking_frame(r: Ranking, kind: str = "models") -> Any:
    """:meth:`Ranking.to_dataframe` (pandas imported here, lazily)."""
    if kind not in ("models", "pairwise"):
        raise ValueError(f"kind must be 'models' or 'pairwise'; got {describe(kind)}")
    import pandas as pd

    k = len(r.names)
    s = r.summary
    rows = []
    for idx in np.ndindex(*r.batch_shape):
        head = {f"batch_{a}": i for a, i in enumerate(idx)}
        for i in range(k):
            at = (*idx, i)
            if kind == "pairwise":
                for j in range(k):
                    if j != i:
                        rows.append(
                            {
                                **head,
                                "model": r.names[i],
                                "other": r.names[j],
                                "p_better": float(r.pairwise[at + (j,)]),
                                "p_tie": float(r.ties[at + (j,)]),
                            }
                        )
                continue
            lo, hi = np.asarray(s.hdi)[at]
            row = {
                **head,
                "model": r.names[i],
                "score": float(np.asarray(s.score)[at]),
                "mean": float(np.asarray(s.mean)[at]),
                "std": float(np.asarray(s.std)[at]),
                "hdi_low": float(lo),
                "hdi_high": float(hi),
                "p_best": float(r.p_best[at]),
                "expected_rank": float(r.expected_rank[at]),
            }
            row.update({f"p_rank_{q + 1}": float(r.rank_probabilities[at][q]) for q in range(k)})
            rows.append(row)
    return pd.DataFrame(rows)
