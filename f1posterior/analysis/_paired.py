"""Paired comparison of classifiers on the same documents: the joint (true, A, B, ...) model
and `compare_predictions` (the model is described in :mod:`f1posterior.analysis._comparison`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.describe import describe
from .._core.sampling import RaggedGammas, prevalence_floor
from .._core.streams import DEFAULT_DRAWS, run_seed
from .._core.validation import (
    SeedLike,
    check_nonnegative,
    check_prob,
    check_rng,
    check_summary_draws,
)
from ..metrics import label_array as _predictions_label_array
from ..metrics import label_codes
from ..metrics import label_kind as _label_kind
from ._comparison import Comparison, MetricSpec, check_decision_prob, check_metric, comparison
from ._tuples import (
    PAIRED_PRIOR,
    count_tuples,
    dense_tuples,
    joint_prior,
    marginal_counts,
    posterior_tuples,
)

__all__ = ["compare_predictions", "paired_fit", "paired_metric_draws", "tuple_metric_draws"]

#: Gamma variates held at once when sampling the paired model.
CHUNK_VARIATES = 1 << 21


def label_array(y: Any, name: str) -> np.ndarray:
    arr = _predictions_label_array(y, name)
    if arr.size == 0:
        raise ValueError(f"{name} must hold at least one label; got an empty sequence")
    return arr


def _encode(
    y_true: Any, preds: Sequence[tuple[str, Any]], labels: Any
) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """Integer codes of ``y_true`` (N,) and of the predictions (k, N), and the classes.

    Label arrays are validated as by :func:`f1posterior.metrics.confusion_matrix`
    (any hashable labels of one kind). Stricter than it: with ``labels=None`` a
    prediction outside the labels of ``y_true`` is an error, and with ``labels``
    given, a document whose label is not among them is an error (not dropped).
    """
    t = label_array(y_true, "y_true")
    arrays = [(name, label_array(p, name)) for name, p in preds]
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
        classes = sorted_labels(t.tolist())
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
        c = label_codes(arr, index, name)
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


def sorted_labels(found: Iterable[Any]) -> list[Any]:
    """The distinct labels of y_true ``found``, sorted, or an error asking for ``labels=``."""
    values = list(dict.fromkeys(found))
    try:
        return sorted(values)
    except TypeError:
        raise TypeError(
            "y_true's labels cannot be sorted (they do not support <); pass labels= to give "
            f"their order; found {describe(values)}"
        ) from None


def tuple_metric_draws(
    tuples: np.ndarray,
    conc: np.ndarray,
    prevalence: np.ndarray,
    m: int,
    fn: Callable[[np.ndarray], Any],
    draws: int,
    root: np.random.SeedSequence,
) -> np.ndarray:
    """Posterior draws (k, draws) of each classifier's metric under the sparse paired model.

    Parameters
    ----------
    tuples : ndarray of int, shape (L, k + 1)
        Cells of the joint model (true class, each classifier's prediction), sorted so
        that each true class's cells are contiguous (as :func:`numpy.unique` sorts).
    conc : ndarray, shape (L,)
        Posterior concentrations of the cells (count + prior), > 0.
    prevalence : ndarray, shape (M,)
        Posterior concentrations of the class prevalences (``beta + n``).
    m : int
        Number of classes.
    fn : callable
        Metric of a (..., M, M) table returning (...).
    draws : int
        Number of draws.
    root : SeedSequence
        Root of the random streams: block ``i`` of draws uses the stream keyed
        ``(0, i)`` below ``root`` (:func:`f1posterior._core.streams.child_seed`),
        so results do not depend on chunking.

    Notes
    -----
    Per draw: one Gamma variate per cell and per class, from the core's Gamma
    routine (log space below ``LOG_SPACE_BELOW``, rows rescaled per class), then
    ``theta_t`` = class ``t``'s Gammas over their sum, ``p = mu_t theta_t``, and each
    classifier's table is the sum of ``p`` over the cells with its (true, predicted)
    pair. Cost: ``L + M`` variates and ``k L`` additions a draw.
    """
    k = tuples.shape[1] - 1
    t = tuples[:, 0]
    bounds = np.searchsorted(t, np.arange(m + 1))
    present = np.flatnonzero(np.diff(bounds))
    segments = [(int(bounds[u]), int(bounds[u + 1])) for u in present]
    n_cells = len(conc)
    # one Dirichlet row per present true class, then the prevalences
    gammas = RaggedGammas(
        np.concatenate([conc, prevalence]), [*segments, (n_cells, n_cells + m)], root
    )
    step = gammas.block * max(1, CHUNK_VARIATES // (gammas.block * gammas.per_draw))
    sums = _MarginalSums(tuples, m)
    out = np.empty((k, draws))
    tiny = np.finfo(np.float64).tiny
    floor = prevalence_floor(np.float64)
    # buffers reused by every chunk (fresh ones cost a page fault per 4 KiB each time)
    work = np.empty((2, gammas.per_draw * min(step, draws)))
    for d0 in range(0, draws, step):
        d1 = min(draws, d0 + step)
        buf = work[0, : gammas.per_draw * (d1 - d0)].reshape(gammas.per_draw, d1 - d0)
        gammas.fill(d0, d1, buf)  # draws last
        g, g_prev = buf[:n_cells], buf[n_cells:]
        mu = g_prev / g_prev.sum(axis=0)  # (M, n)
        # the core's prevalence floor: an empty class's rows keep their ratios exactly
        # (f1posterior._core.sampling, "Small concentrations")
        np.fmax(mu, floor, out=mu)
        for (s0, s1), u in zip(segments, present, strict=True):
            mu[u] /= np.add.reduce(g[s0:s1], axis=0)  # mu_t / (sum of class t's Gammas)
            g[s0:s1] *= mu[u]  # p of the class's cells
        for j in range(k):
            table = sums.table(g, j, work[1])  # (M, M, n)
            np.maximum(table, tiny, out=table)
            out[j, d0:d1] = _metric_values(fn, table.transpose(2, 0, 1))
    return out


class _MarginalSums:
    """Sums of cell draws (L, n) into one classifier's (M, M, n) table.

    Cells are gathered in the order of the classifier's (true, predicted) pair and each
    pair's contiguous run is summed (``np.add.reduceat`` along axis 0 is ~10x slower).
    """

    def __init__(self, tuples: np.ndarray, m: int) -> None:
        self.m = m
        self.plans = []
        for j in range(tuples.shape[1] - 1):
            key = tuples[:, 0] * m + tuples[:, 1 + j]
            order = np.argsort(key, kind="stable")
            sk = key[order]
            edges = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1], True])
            runs = list(
                zip(sk[edges[:-1]].tolist(), edges[:-1].tolist(), edges[1:].tolist(), strict=True)
            )
            same = bool(np.array_equal(order, np.arange(len(order))))
            self.plans.append((None if same else order, runs))

    def table(self, p: np.ndarray, j: int, work: np.ndarray) -> np.ndarray:
        """Classifier ``j``'s table; ``work`` is a flat buffer with room for ``p``."""
        order, runs = self.plans[j]
        src = p
        if order is not None:
            src = np.take(p, order, axis=0, out=work[: p.size].reshape(p.shape))
        out = np.zeros((self.m * self.m, p.shape[1]))
        for cell, s0, s1 in runs:
            np.add.reduce(src[s0:s1], axis=0, out=out[cell])
        return out.reshape(self.m, self.m, -1)


# The trailing parameters repeat tuple_metric_draws' (it calls it): a plain signature reads best.
def paired_metric_draws(
    joint: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    k: int,
    fn: Callable[[np.ndarray], Any],
    draws: int,
    root: np.random.SeedSequence,
) -> np.ndarray:
    """Posterior draws (k, draws) of each classifier's metric from dense joint arrays.

    Parameters
    ----------
    joint, alpha : ndarray, shape (M, M^k)
        Counts and prior concentrations of the (true class, prediction tuple) cells
        (the last classifier varying fastest); cells where both are 0 carry no mass.
    beta : ndarray, shape (M,)
        Prior concentrations of the prevalences.
    k, fn, draws, root :
        As in :func:`tuple_metric_draws`, which this calls on the cells > 0.
    """
    tuples, conc = dense_tuples(np.asarray(alpha, dtype=np.float64) + joint, k)
    prev = np.asarray(beta, dtype=np.float64) + joint.sum(axis=-1)
    return tuple_metric_draws(tuples, conc, prev, joint.shape[0], fn, draws, root)


def _metric_values(fn: Callable[[np.ndarray], Any], table: np.ndarray) -> np.ndarray:
    out = np.asarray(fn(table), dtype=np.float64)
    if out.shape != table.shape[:-2]:
        raise ValueError(
            f"metric must map a (..., M, M) table to one number per table (...); got shape "
            f"{out.shape} for a table of shape {table.shape}"
        )
    return out


# Same keywords as compare() and rank_predictions(): spelled out for users.
def compare_predictions(
    y_true: ArrayLike,
    pred_a: ArrayLike,
    pred_b: ArrayLike,
    *,
    metric: MetricSpec = "macro_f1",
    rope: float = 0.0,
    prob: float = 0.95,
    draws: int = DEFAULT_DRAWS,
    alpha: Any = PAIRED_PRIOR,
    beta: Any = "hierarchical",
    labels: Sequence[Any] | None = None,
    ci_prob: float = 0.95,
    rng: SeedLike = None,
    cluster: ArrayLike | None = None,
) -> Comparison:
    """Compare two classifiers on the same documents (the paired model).

    Parameters
    ----------
    y_true, pred_a, pred_b : array_like, shape (N,)
        True classes and the two classifiers' predictions, one per document;
        labels of any hashable type (all numbers or all strings).
    metric : str or callable, default "macro_f1"
        As in :func:`compare`.
    rope, prob, draws : float, float, int
        As in :func:`compare`.
    alpha : prior, default "paired"
        Each classifier's *marginal* prior (M, M). The default ``"paired"``
        (also ``None`` and the library's default preset name) is three
        pseudo-documents spread evenly over the true classes, half on the
        diagonal and half over the errors; another preset, a number or an (M, M) array is
        resolved as :func:`f1posterior.evaluate` resolves it on the mean of
        the two confusion matrices. Either is spread over the (true, A, B)
        tuples by the shared-error joint prior (stated in
        :mod:`f1posterior.analysis._comparison`), which gives each classifier
        exactly this marginal and puts symmetric mass on disagreements. An
        (M, M^2) array is a prior per joint cell, taken as given.
    beta : prior, default "hierarchical" (its prevalence prior, 1/M)
        Dirichlet prior on class prevalences, as in :func:`f1posterior.evaluate`;
        "aligned" sets ``beta_t`` to the total prior of class ``t``'s cells
        (one Dirichlet over all cells).
    labels : sequence, optional
        Every class, in order. By default the sorted labels of ``y_true``;
        a prediction outside them is an error (it usually means the
        classifiers use different label sets).
    ci_prob : float, default 0.95
        Probability of the intervals.
    rng : None, int, SeedSequence or Generator
        Source of randomness.
    cluster : array_like, shape (N,), optional
        The cluster (user, conversation, source, ...) of each document: the
        documents of a cluster are not independent, and the comparison is a
        Bayesian bootstrap over clusters, both classifiers' tables weighted by
        the same cluster weights (:func:`f1posterior.evaluate_clusters`);
        ``alpha`` and ``beta`` are then unused. ``prior`` names the unit, the
        clusters and the design effect of the difference.

    Returns
    -------
    Comparison
        With ``paired=True`` and ``labels`` the classes used.

    See Also
    --------
    f1posterior.compare : Independent test sets.
    f1posterior.rank_predictions : More than two classifiers, paired.

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
        y_true, pred_a, pred_b, metric, rope, prob, draws, alpha, beta, labels, ci_prob, rng,
        cluster,
    )  # fmt: skip


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
    ci_prob: Any,
    rng: SeedLike,
    cluster: Any = None,
) -> Comparison:
    name, fn = check_metric(metric)
    rp = check_nonnegative(rope, "rope")
    pr = check_decision_prob(prob)
    n = check_summary_draws(draws)
    hp = check_prob(ci_prob, "ci_prob")
    fit = paired_fit(y_true, [("pred_a", pred_a), ("pred_b", pred_b)], fn, alpha, beta, labels,
                     n, rng, cluster, hp)  # fmt: skip
    return comparison(
        fit.draws[0],
        fit.draws[1],
        fit.scores[0],
        fit.scores[1],
        metric=name,
        rope=rp,
        prob=pr,
        ci_prob=hp,
        paired=True,
        prior=fit.prior,
        seed=fit.seed,
        labels=fit.labels,
    )


@dataclass(frozen=True, eq=False)
class PairedFit:
    """Metric draws (k, draws) and observed scores (k,) of k classifiers, paired model."""

    draws: np.ndarray
    scores: np.ndarray
    labels: list[Any]
    prior: str
    seed: Any


def paired_fit(
    y_true: Any,
    preds: Sequence[tuple[str, Any]],
    fn: Callable[[np.ndarray], Any],
    alpha: Any,
    beta: Any,
    labels: Any,
    draws: int,
    rng: SeedLike,
    cluster: Any = None,
    ci_prob: float = 0.95,
) -> PairedFit:
    """Encode, count the tuples, resolve the prior and draw (shared by compare and rank).

    With ``cluster``, a paired Bayesian bootstrap over the clusters of documents.
    """
    codes_t, codes, classes = _encode(y_true, preds, labels)
    m = len(classes)
    root = check_rng(rng)
    tuples, counts = count_tuples(codes_t, codes)
    if cluster is not None:
        from ..posterior import paired_cluster_draws

        cd = paired_cluster_draws(codes_t, codes, m, cluster, fn, draws, root, ci_prob)
        scores = np.array([_metric_values(fn, t) for t in marginal_counts(tuples, counts, m)])
        return PairedFit(cd.draws, scores, classes, cd.prior, run_seed(root))
    p_tuples, p_conc, b, prior = joint_prior(alpha, beta, tuples, counts, m)
    cells, conc = posterior_tuples(tuples, counts, p_tuples, p_conc)
    prev = b + np.bincount(codes_t, minlength=m)
    v = tuple_metric_draws(cells, conc, prev, m, fn, draws, root)
    scores = np.array([_metric_values(fn, t) for t in marginal_counts(tuples, counts, m)])
    return PairedFit(v, scores, classes, prior, run_seed(root))
