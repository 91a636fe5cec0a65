"""Honest scores for a chosen threshold: cross-fitted `evaluate_threshold`."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..._core.describe import describe
from ..._core.priors import DEFAULT_PRIOR, PRIOR_PRESETS, prior_preset, resolve
from ..._core.results import plain_fields, value_equality
from ..._core.sampling import concentrations, iter_cell_chunks
from ..._core.streams import child_seed, run_seed
from ..._core.validation import (
    SeedLike,
    check_choice,
    check_positive,
    check_prob,
    check_rng,
    check_scores,
    check_summary_draws,
)
from ...metrics import fbeta_values
from ...posterior import MetricSummary, summarize_draws
from ._best import best_threshold
from ._common import (
    STRATEGIES,
    Strategy,
    as_2d,
    check_truth,
    tables,
)


@value_equality
@dataclass(frozen=True, eq=False)
class ThresholdEvaluation:
    """Result of :func:`evaluate_threshold`.

    Attributes
    ----------
    metric : str
        The headline metric: ``"fbeta"`` for ``(n,)`` input, ``"macro_fbeta"``
        (strategy ``"per_label"``) or ``"micro_fbeta"`` (``"shared"``).
    held_out : MetricSummary
        Posterior of the headline metric given the held-out table(s), summed
        over folds; ``held_out.score`` is its plug-in value.
    summaries : dict of str to MetricSummary
        ``"fbeta"`` (per label, shape (L,) for matrices), and for matrices
        ``"macro_fbeta"`` and ``"micro_fbeta"``.
    in_sample : float
        The headline metric when thresholds are chosen and scored on all data.
    optimism : float
        ``in_sample - held_out.mean``.
    p_below_in_sample : float
        Posterior probability that the headline metric is below ``in_sample``.
    table : ndarray of int, shape (2, 2) or (L, 2, 2)
        Held-out confusion table(s), ``[[tn, fp], [fn, tp]]``, summed over folds
        (every document is held out exactly once).
    thresholds : ndarray, shape (folds,) or (folds, L)
        Thresholds chosen on the training part of each fold.
    in_sample_threshold : float or ndarray, shape (L,)
        Thresholds chosen on all data.
    fold_index : ndarray of int, shape (n,)
        The fold of each document (row).
    folds : int
    f_beta : float
        F-beta weight.
    strategy : str
    prior : tuple
        ``(alpha, beta)`` Dirichlet prior of the posterior.
    seed : int
        The root seed of the run (a SeedSequence): pass it back as ``rng=`` to repeat the run.

    See Also
    --------
    f1posterior.thresholds.evaluate_threshold : The function that returns it.

    Examples
    --------
    >>> gen = np.random.default_rng(0)
    >>> y = gen.random(200) < 0.3
    >>> s = np.where(y, gen.normal(1, 1, 200), gen.normal(0, 1, 200))
    >>> r = evaluate_threshold(y, s, folds=4, draws=2000, rng=1)
    >>> r.metric, r.thresholds.shape, int(r.table.sum())
    ('fbeta', (4,), 200)
    """

    metric: str
    held_out: MetricSummary
    summaries: dict[str, MetricSummary]
    in_sample: float
    optimism: float
    p_below_in_sample: float
    table: np.ndarray
    thresholds: np.ndarray
    in_sample_threshold: Any
    fold_index: np.ndarray
    folds: int
    f_beta: float
    strategy: str
    prior: tuple[Any, Any]
    seed: Any = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary of the fields."""
        return plain_fields(self)


def _check_folds(folds: Any, n: int) -> int:
    if isinstance(folds, bool) or not isinstance(folds, numbers.Integral):
        raise TypeError(f"folds must be an integer >= 2; got {describe(folds)}")
    if not 2 <= int(folds) <= n:
        raise ValueError(
            f"folds must be an integer in [2, {n}] (the number of documents); got {folds}"
        )
    return int(folds)


def _check_prior(prior: Any) -> tuple[Any, Any]:
    if isinstance(prior, str):
        return prior_preset(prior)
    if isinstance(prior, tuple) and len(prior) == 2:
        return prior
    raise ValueError(
        f"prior must be a preset name ({', '.join(map(repr, PRIOR_PRESETS))}) or an "
        f"(alpha, beta) tuple; got {describe(prior)}"
    )


def evaluate_threshold(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    folds: int = 5,
    f_beta: float = 1.0,
    strategy: Strategy = "per_label",
    draws: int = 20_000,
    prior: Any = DEFAULT_PRIOR,
    ci_prob: float = 0.95,
    rng: SeedLike = None,
) -> ThresholdEvaluation:
    """Choose F-beta thresholds on part of the data and score them on the rest.

    Documents (rows) are split at random into ``folds`` folds. For each fold
    the threshold(s) are chosen by :func:`best_threshold` on the other folds
    and applied to it; the held-out confusion tables of all folds are summed
    (cross-fitting: every document is scored once, by thresholds that never
    saw it). The posterior of F-beta given that table follows the core model
    (one independent binary model per label, prior ``prior``), and the
    in-sample F-beta (thresholds chosen and scored on all data) is reported
    with its optimism against the held-out posterior.

    Parameters
    ----------
    y_true : array_like of 0/1, shape (n,) or (D, L)
    y_score : array_like, same shape
    folds : int, default 5
        Number of folds, ``2 <= folds <= n``.
    f_beta : float, default 1.0
        F-beta weight (not the Dirichlet prior: see ``prior``).
    strategy : {"per_label", "shared"}, default "per_label"
        As in :func:`best_threshold`; the headline metric is macro-F-beta for
        ``"per_label"`` and micro-F-beta for ``"shared"``.
    draws : int, default 20_000
        Posterior draws. Memory holds ``L * draws`` per-label values.
    prior : str or (alpha, beta), default "hierarchical"
        Prior of the core model (:func:`f1posterior.prior_preset`).
    ci_prob : float, default 0.95
    rng : None, int, SeedSequence or Generator
        Randomness of the fold split and of the posterior draws.

    Returns
    -------
    ThresholdEvaluation

    See Also
    --------
    f1posterior.thresholds.best_threshold : The in-sample threshold.
    f1posterior.evaluate : The posterior of a fixed table.

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> y = gen.random(400) < 0.3
    >>> s = np.where(y, gen.normal(1, 1, 400), gen.normal(0, 1, 400))
    >>> r = evaluate_threshold(y, s, folds=5, draws=4000, rng=1)
    >>> r.metric, r.table.sum()
    ('fbeta', np.int64(400))
    >>> bool(r.optimism > 0), bool(r.held_out.hdi[0] < r.held_out.score < r.held_out.hdi[1])
    (True, True)
    """
    s = check_scores(y_score, "y_score")
    y = check_truth(y_true, s.shape)
    b = check_positive(f_beta, "f_beta")
    check_choice(strategy, "strategy", STRATEGIES)
    n = s.shape[0]
    k = _check_folds(folds, n)
    n_draws = check_summary_draws(draws)
    prob = check_prob(ci_prob, "ci_prob")
    alpha_p, beta_p = _check_prior(prior)
    root = check_rng(rng)
    one_d = s.ndim == 1
    s2, y2 = as_2d(s), as_2d(y)
    n_lab = s2.shape[1]

    split = np.random.default_rng(child_seed(root, 0))
    fold_of = np.empty(n, dtype=np.int64)
    fold_of[split.permutation(n)] = np.arange(n) % k
    table = np.zeros((n_lab, 2, 2), dtype=np.int64)
    thresholds = []
    for f in range(k):
        train, test = fold_of != f, fold_of == f
        res = best_threshold(y2[train], s2[train], beta=b, strategy=strategy)
        thr = np.broadcast_to(np.asarray(res.threshold, dtype=np.float64), (n_lab,))
        pred = s2[test] >= thr
        yt = y2[test]
        table += tables((pred & yt).sum(0), pred.sum(0), yt.sum(0), int(test.sum()))
        thresholds.append(res.threshold if strategy == "shared" else thr.copy())
    full = best_threshold(y, s, beta=b, strategy=strategy)

    # posterior: one binary model per label; per-label F-beta draws, pooled micro counts
    b2 = b * b
    post_root = child_seed(root, 1)
    res_prior = resolve(alpha_p, beta_p, table.astype(np.float64))
    conc = concentrations(table.astype(np.float64), res_prior.alpha, res_prior.beta)
    conc = conc.reshape(n_lab, 3, 2)
    mix = res_prior.mixture
    per_label = np.empty((n_lab, n_draws))
    pooled = np.zeros((n_draws, 2, 2))
    chunks = iter_cell_chunks(conc, n_draws, post_root, np.dtype(np.float64), mixture=mix)
    for mats, rows, cells in chunks:
        per_label[mats, rows] = fbeta_values(cells, b2, "binary", np.array([1]), 0.0)
        pooled[rows] += cells.sum(axis=0)
    tab_f = table.astype(np.float64)
    point = fbeta_values(tab_f, b2, "binary", np.array([1]), 0.0)
    summaries = {"fbeta": summarize_draws(per_label, score=point, ci_prob=prob)}
    if one_d:
        metric, in_sample = "fbeta", float(full.score)
        summaries = {"fbeta": summarize_draws(per_label[0], score=point[0], ci_prob=prob)}
        head_draws = per_label[0]
    else:
        micro_draws = fbeta_values(pooled, b2, "binary", np.array([1]), 0.0)
        summaries["macro_fbeta"] = summarize_draws(
            per_label.mean(0), score=float(point.mean()), ci_prob=prob
        )
        micro_point = fbeta_values(tab_f.sum(0), b2, "binary", np.array([1]), 0.0)
        summaries["micro_fbeta"] = summarize_draws(
            micro_draws, score=float(micro_point), ci_prob=prob
        )
        if strategy == "per_label":
            metric, in_sample, head_draws = (
                "macro_fbeta",
                float(np.mean(full.score)),
                per_label.mean(0),
            )
        else:
            metric, in_sample, head_draws = "micro_fbeta", float(full.score), micro_draws
    held = summaries[metric]
    return ThresholdEvaluation(
        metric=metric,
        held_out=held,
        summaries=summaries,
        in_sample=in_sample,
        optimism=in_sample - float(held.mean),
        p_below_in_sample=float(np.mean(head_draws < in_sample)),
        table=table[0] if one_d else table,
        thresholds=np.asarray(thresholds, dtype=np.float64).reshape(
            (k,) if one_d or strategy == "shared" else (k, n_lab)
        ),
        in_sample_threshold=full.threshold,
        fold_index=fold_of,
        folds=k,
        f_beta=b,
        strategy=strategy,
        prior=(alpha_p, beta_p),
        seed=run_seed(root),
    )
