"""Two (or k) classifiers across folds, seeds or test sets: :func:`compare_folds` and
:func:`rank_folds`.

Per fold, the posterior of the difference on that fold's documents (the paired model of
:func:`compare_predictions`, or independent tables); across folds, the mean over these
folds (the average of the folds' posteriors, exact) and the normal-normal random-effects
model of :mod:`f1posterior.analysis._random_effects` (population mean, ``tau``, a new fold).

Design notes: docs/design.md#analysis-folds
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.describe import describe
from .._core.streams import DEFAULT_DRAWS, child_seed, run_seed
from .._core.validation import (
    SeedLike,
    check_choice,
    check_counts,
    check_nonnegative,
    check_prob,
    check_rng,
    check_summary_draws,
)
from ..posterior import summarize_draws
from . import _random_effects as re_model
from ._comparison import (
    MetricSpec,
    check_decision_prob,
    check_finite_draws,
    check_metric,
    compare,
    decide,
)
from ._folds_result import FoldComparison
from ._paired import label_array, paired_fit, sorted_labels
from ._ranking import Ranking, distinct_names, named_predictions, rank_statistics
from ._tuples import PAIRED_PRIOR

__all__ = ["compare_folds", "rank_folds", "FoldComparison", "FOLD_SCALES"]

#: Working scales of the difference in the random-effects model.
FOLD_SCALES = ("identity", "fisher_z")
#: What the decision is about: the mean over these folds, or over a population of folds.
TARGETS = ("folds", "population")
#: Largest fixed scale of the prior of ``tau`` (a difference lies in [-1, 1]).
_MAX_TAU_SCALE = 10.0
#: Random streams below the root: fold ``k`` uses ``(_FOLD_KEY, k)``, the model ``_MODEL_KEY``.
_FOLD_KEY, _MODEL_KEY = 0, 1
#: Smallest working-scale variance of a fold: a fold where the classifiers never
#: disagree has a difference of exactly 0 in every draw.
_MIN_VAR = 1e-12


# ------------------------------------------------------------------------ the folds


def _is_sequence(x: Any) -> bool:
    return not isinstance(x, (str, bytes)) and hasattr(x, "__len__") and hasattr(x, "__iter__")


def _fold_order(values: np.ndarray) -> list[Any]:
    """The distinct folds, sorted (whole numbers read from text by their value: "2" < "10")."""
    distinct = list(dict.fromkeys(values.tolist()))
    if all(isinstance(v, str) and v.strip().lstrip("-").isdigit() for v in distinct):
        return sorted(distinct, key=lambda v: int(v))
    try:
        return sorted(distinct)
    except TypeError:
        return distinct


def split_folds(
    y_true: Any, preds: Sequence[tuple[str, Any]], folds: Any
) -> tuple[list[str], list[tuple[Any, list[tuple[str, Any]]]]]:
    """Fold names and, per fold, ``(y_true, [(name, predictions), ...])``.

    With ``folds`` (one fold label per document) the arrays are split by it;
    without, every argument is a sequence of K per-fold arrays.
    """
    if folds is None:
        if not (_is_sequence(y_true) and len(y_true) and all(_is_sequence(v) for v in y_true)):
            raise ValueError(
                "y_true must be a list of K per-fold label arrays, or give folds= (one fold "
                f"label per document); got {describe(y_true)} and folds=None"
            )
        k = len(y_true)
        for name, p in preds:
            if not _is_sequence(p) or len(p) != k or not all(_is_sequence(v) for v in p):
                raise ValueError(
                    f"{name} must be a list of {k} per-fold prediction arrays, like y_true; "
                    f"got {describe(p)}"
                )
        names = [f"fold {i}" for i in range(k)]
        return names, [(y_true[i], [(n, p[i]) for n, p in preds]) for i in range(k)]
    f = label_array(folds, "folds")
    t = label_array(y_true, "y_true")
    arrays = [(n, label_array(p, n)) for n, p in preds]
    for name, arr in [("y_true", t), *arrays]:
        if arr.shape[0] != f.shape[0]:
            raise ValueError(
                f"{name} must hold one label per document of folds ({f.shape[0]}); got "
                f"{arr.shape[0]}"
            )
    order = _fold_order(f)
    blank = [v for v in order if not str(v).strip()]
    if blank:  # a report's row would have no name
        raise ValueError(
            f"folds must name each fold with visible text; got {blank[0]!r} for "
            f"{int(np.sum(f == blank[0]))} documents"
        )
    out = []
    for value in order:
        sel = f == value
        out.append((t[sel], [(n, arr[sel]) for n, arr in arrays]))
    return [str(v) for v in order], out


def _classes(per_fold: list[tuple[Any, Any]], labels: Any) -> Any:
    """Every fold's classes: ``labels``, or the sorted labels of every fold's ``y_true``."""
    if labels is not None:
        return labels
    seen = [dict.fromkeys(label_array(t, "y_true").tolist()) for t, _ in per_fold]
    values = list(dict.fromkeys(v for fold in seen for v in fold))
    for i, fold in enumerate(seen):
        missing = [v for v in values if v not in fold]
        if missing:  # its macro metrics would average over a class it never saw
            raise ValueError(
                f"folds must share their classes: fold {i} has no true document of "
                f"{describe(missing)} (another fold has); pass labels= to evaluate every fold "
                f"over every class, or regroup the folds so that each holds every class"
            )
    return sorted_labels(values)


def _check_fold_count(k: int) -> None:
    if k < 2:
        raise ValueError(
            f"folds must hold at least 2 folds (the spread between folds cannot be estimated "
            f"from one; use compare_predictions for one test set); got {k} fold"
        )


# ------------------------------------------------------------------- random effects


def _check_scale(scale: Any, tau_scale: Any) -> tuple[str, float | None]:
    sc = check_choice(scale, "scale", FOLD_SCALES)
    return sc, re_model.check_tau_scale(tau_scale, sc, _MAX_TAU_SCALE)


def across_folds(
    d: np.ndarray, scale: str, tau_scale: float | None, gen: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, re_model.TauPosterior]:
    """Population-mean and new-fold draws of the difference, and the ``tau`` posterior.

    ``d`` (K, n): each fold's difference draws. The folds' working-scale means and
    variances feed the normal-normal model; ``mu`` and ``tau`` are drawn exactly
    from its grid posterior.
    """
    z = re_model.to_scale(d, scale, "difference draws")
    y, s2 = z.mean(axis=-1), np.maximum(z.var(axis=-1, ddof=1), _MIN_VAR)
    post = re_model.tau_posterior_of(y, s2, scale, tau_scale, "auto")  # aggregate's prior
    population, new, _ = re_model.draw_population(post, d.shape[-1], gen, scale)
    return population, new, post


# ----------------------------------------------------------------------- public API


def compare_folds(
    y_true: Any = None,
    pred_a: Any = None,
    pred_b: Any = None,
    *,
    folds: ArrayLike | None = None,
    counts_a: ArrayLike | None = None,
    counts_b: ArrayLike | None = None,
    metric: MetricSpec = "macro_f1",
    rope: float = 0.0,
    prob: float = 0.95,
    draws: int = DEFAULT_DRAWS,
    alpha: Any = PAIRED_PRIOR,
    beta: Any = "hierarchical",
    labels: Sequence[Any] | None = None,
    ci_prob: float = 0.95,
    scale: str = "identity",
    tau_scale: float | str = "auto",
    target: str = "folds",
    names: Sequence[str] | None = None,
    rng: SeedLike = None,
) -> FoldComparison:
    """Compare two classifiers across K folds, seeds or test sets, in one call.

    Per fold, the posterior of ``metric(A) - metric(B)`` on that fold's
    documents: the paired model of :func:`compare_predictions` from
    predictions, or independent posteriors from each model's confusion
    table (pairing not available). Across folds: the mean difference over
    these folds (the decision), and the normal-normal random-effects model
    of the differences (the population mean, ``tau`` and a new fold).

    Parameters
    ----------
    y_true, pred_a, pred_b : array_like, optional
        Per-document true classes and the two classifiers' predictions: flat
        arrays with ``folds``, or lists of K per-fold arrays.
    folds : array_like, shape (N,), optional
        The fold (seed, test set) of each document; folds are taken in sorted
        order of their labels.
    counts_a, counts_b : array_like, shape (K, M, M), optional
        Instead of predictions: each model's confusion matrix on each fold
        (independent posteriors; the result says ``paired=False``).
    metric : str or callable, default "macro_f1"
        As in :func:`compare`.
    rope : float, default 0.0
        Half-width of the region of practical equivalence, >= 0.
    prob : float, default 0.95
        Probability a decision needs, in (0.5, 1).
    draws : int, default 50_000
        Posterior draws per fold and across folds.
    alpha, beta : prior
        As in :func:`compare_predictions` (predictions) or :func:`compare`
        (``counts_a``/``counts_b``; the default ``"paired"`` means the
        library's default there).
    labels : sequence, optional
        Every class, in order (default: the sorted labels of every fold's
        ``y_true``; then every fold must hold every class, else a fold's macro
        metric would average over a class it never saw: name them here to
        evaluate every fold over every class).
    ci_prob : float, default 0.95
        Probability of the intervals.
    scale : {"identity", "fisher_z"}, default "identity"
        Working scale of the random-effects model of the difference.
    tau_scale : float or "auto", default "auto"
        Scale of the half-Cauchy prior of ``tau`` (the between-fold standard
        deviation of the difference on the working scale), as in
        :func:`aggregate`: ``"auto"`` is 3 times the folds' typical posterior
        standard deviation; a number is at most 10.
    target : {"folds", "population"}, default "folds"
        What ``p_a_better`` and the decision are about: the mean difference
        over these folds (calibrated whether or not the folds differ), or
        the random-effects mean over a population of folds like these (for
        seeds or test sets from different sources: wider, conservative with
        few folds).
    names : sequence of str, optional
        Names of the K folds (default: the fold labels, or "fold 0", ...).
    rng : None, int, SeedSequence or Generator
        Root of randomness: fold ``k`` uses the stream ``(0, k)``, the
        random-effects model ``(1,)``.

    Returns
    -------
    FoldComparison
        Per-fold differences, the mean over these folds with P(A better) and
        the decision, the population mean, a new fold and ``tau``.

    See Also
    --------
    f1posterior.compare_predictions : One test set, paired.
    f1posterior.rank_folds : More than two classifiers across folds.
    f1posterior.aggregate : One classifier across folds.

    Notes
    -----
    The model assumes the folds' test documents are disjoint, independent
    samples, and the folds exchangeable. It does not model that folds of
    one cross-validation share training data (their differences are
    correlated through the training sets): the mean over these folds is
    about these K trained pairs of models, over test documents like these,
    not about other training sets.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 600)
    >>> a = np.where(rng.random(600) < 0.9, y, 1 - y)
    >>> b = np.where(rng.random(600) < 0.8, y, 1 - y)
    >>> fold = np.repeat([0, 1, 2], 200)
    >>> res = compare_folds(y, a, b, folds=fold, metric="accuracy", draws=4000, rng=0)
    >>> res.names, res.paired, res.decision
    (['0', '1', '2'], True, 'A better')
    """
    name, fn = check_metric(metric)
    rp = check_nonnegative(rope, "rope")
    pr = check_decision_prob(prob)
    n = check_summary_draws(draws)
    hp = check_prob(ci_prob, "ci_prob")
    sc, a_scale = _check_scale(scale, tau_scale)
    tg = check_choice(target, "target", TARGETS)
    root = check_rng(rng)
    if counts_a is not None or counts_b is not None:
        if any(v is not None for v in (y_true, pred_a, pred_b, folds)):
            raise ValueError(
                "give either predictions (y_true, pred_a, pred_b) or counts_a and counts_b, not "
                "both"
            )
        if labels is not None:
            raise ValueError(
                f"labels names the classes of predictions; counts_a and counts_b are tables in "
                f"their own class order; got labels={describe(labels)}"
            )
        d, scores, prior, fold_names, classes = _unpaired(counts_a, counts_b, metric, alpha,
                                                          beta, n, root)  # fmt: skip
        paired = False
    else:
        missing = [k for k, v in (("y_true", y_true), ("pred_a", pred_a), ("pred_b", pred_b))
                   if v is None]  # fmt: skip
        if missing:
            raise ValueError(
                "compare_folds needs y_true, pred_a and pred_b (with folds=, or as lists of "
                f"per-fold arrays), or counts_a and counts_b; got no {' and no '.join(missing)}"
            )
        fold_names, per_fold = split_folds(y_true, [("pred_a", pred_a), ("pred_b", pred_b)], folds)
        _check_fold_count(len(per_fold))
        draws_k, scores_k, prior, classes = _paired(per_fold, fn, alpha, beta, labels, n, root)
        d, scores = draws_k[:, 0] - draws_k[:, 1], scores_k[:, 0] - scores_k[:, 1]
        paired = True
    if names is not None:
        fold_names = distinct_names(names, len(fold_names), "fold")
    check_finite_draws(d, name)
    gen = np.random.Generator(np.random.PCG64(child_seed(root, _MODEL_KEY)))
    population, new, post = across_folds(d, sc, a_scale, gen)
    mean = d.mean(axis=0)
    judged = mean if tg == "folds" else population
    pa, pb, pe, decision = (x.item() for x in decide(judged, rp, pr))
    lo, hi = post.quantile([(1 - hp) / 2, (1 + hp) / 2])
    score = float(np.mean(scores))
    return FoldComparison(
        metric=name,
        names=fold_names,
        folds=summarize_draws(d, score=scores, ci_prob=hp, ref=0.0),
        difference=summarize_draws(mean, score=score, ci_prob=hp, ref=0.0),
        population=summarize_draws(population, score=score, ci_prob=hp, ref=0.0),
        predictive=summarize_draws(new, ci_prob=hp, ref=0.0),
        tau_mean=post.mean(),
        tau_interval=np.array([lo, hi]),
        p_a_better=pa,
        p_b_better=pb,
        p_equivalent=pe,
        decision=decision,
        rope=rp,
        prob=pr,
        ci_prob=hp,
        paired=paired,
        scale=sc,
        target=tg,
        prior=f"{prior}; tau ~ {re_model.tau_prior_text(post, a_scale is None, 'folds')} on "
        f"the {sc} scale, flat mu",
        seed=run_seed(root),
        labels=classes,
        draws=judged,
    )


def _paired(
    per_fold: list[tuple[Any, list[tuple[str, Any]]]],
    fn: Callable[[np.ndarray], Any],
    alpha: Any,
    beta: Any,
    labels: Any,
    n: int,
    root: np.random.SeedSequence,
) -> tuple[np.ndarray, np.ndarray, str, list[Any]]:
    """Draws (K, k, n) and scores (K, k) of k classifiers on each fold, paired model."""
    classes = _classes(per_fold, labels)
    fits = []
    for i, (t, preds) in enumerate(per_fold):
        try:
            fits.append(
                paired_fit(t, preds, fn, alpha, beta, classes, n, child_seed(root, _FOLD_KEY, i))
            )
        except (ValueError, TypeError) as e:
            raise type(e)(f"fold {i}: {e}") from None
    return (
        np.stack([f.draws for f in fits]),
        np.stack([f.scores for f in fits]),
        fits[0].prior,
        fits[0].labels,
    )


def _unpaired(
    counts_a: Any,
    counts_b: Any,
    metric: Any,
    alpha: Any,
    beta: Any,
    n: int,
    root: np.random.SeedSequence,
) -> tuple[np.ndarray, np.ndarray, str, list[str], None]:
    """Difference draws (K, n) and scores (K,) from each model's tables: :func:`compare`
    of the batch (independent posteriors), on the stream ``(0,)``."""
    if counts_a is None or counts_b is None:
        which = "counts_a" if counts_a is None else "counts_b"
        raise ValueError(f"counts_a and counts_b must both be given; got no {which}")
    ca, cb = check_counts(counts_a, "counts_a"), check_counts(counts_b, "counts_b")
    if ca.ndim != 3 or ca.shape != cb.shape:
        raise ValueError(
            "counts_a and counts_b must be K confusion matrices each, of one shape (K, M, M); "
            f"got shapes {ca.shape} and {cb.shape}"
        )
    _check_fold_count(ca.shape[0])
    if alpha is None or (isinstance(alpha, str) and alpha == PAIRED_PRIOR):
        alpha = "hierarchical"
    res = compare(ca, cb, metric=metric, draws=n, alpha=alpha, beta=beta,
                  rng=child_seed(root, _FOLD_KEY))  # fmt: skip
    names = [f"fold {i}" for i in range(ca.shape[0])]
    return res.draws, np.asarray(res.difference.score, dtype=float), res.prior, names, None


def rank_folds(
    y_true: Any,
    predictions: Mapping[str, Any] | Sequence[Any],
    *,
    folds: ArrayLike | None = None,
    metric: MetricSpec = "macro_f1",
    draws: int = DEFAULT_DRAWS,
    alpha: Any = PAIRED_PRIOR,
    beta: Any = "hierarchical",
    labels: Sequence[Any] | None = None,
    ci_prob: float = 0.95,
    rng: SeedLike = None,
) -> Ranking:
    """Rank k classifiers by their mean metric over K folds (the paired model per fold).

    Per fold, the paired model of :func:`rank_predictions` on that fold's
    documents; each classifier's mean over these folds is the average of
    its folds' draws (independent folds), and the ranking is of those means.

    Parameters
    ----------
    y_true : array_like
        True classes: a flat array with ``folds``, or a list of K per-fold
        arrays.
    predictions : mapping of name to array_like, or sequence of them
        The k >= 2 classifiers' predictions, each shaped like ``y_true``.
    folds : array_like, shape (N,), optional
        The fold of each document.
    metric, draws, alpha, beta, labels, ci_prob, rng
        As in :func:`compare_folds`.

    Returns
    -------
    Ranking
        Of the mean over these folds (``paired=True``).

    See Also
    --------
    f1posterior.compare_folds : Two classifiers, with the random-effects model.
    f1posterior.rank_predictions : One test set.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 400)
    >>> preds = {m: np.where(rng.random(400) < q, y, 1 - y)
    ...          for m, q in (("good", 0.95), ("fair", 0.85), ("poor", 0.7))}
    >>> r = rank_folds(y, preds, folds=np.tile([0, 1], 200), metric="accuracy",
    ...                draws=4000, rng=0)
    >>> [r.names[i] for i in r.expected_rank.argsort()]
    ['good', 'fair', 'poor']
    """
    name, fn = check_metric(metric)
    items = named_predictions(predictions)
    n = check_summary_draws(draws)
    hp = check_prob(ci_prob, "ci_prob")
    root = check_rng(rng)
    _, per_fold = split_folds(y_true, items, folds)
    _check_fold_count(len(per_fold))
    v, scores, prior, _ = _paired(per_fold, fn, alpha, beta, labels, n, root)
    mean = v.mean(axis=0)
    check_finite_draws(mean, name)
    probs, expected, pairwise, ties = rank_statistics(mean)
    return Ranking(
        names=[nm for nm, _ in items],
        metric=name,
        p_best=probs[..., 0].copy(),
        expected_rank=expected,
        rank_probabilities=probs,
        pairwise=pairwise,
        ties=ties,
        summary=summarize_draws(mean, score=scores.mean(axis=0), ci_prob=hp),
        draws=mean,
        paired=True,
        prior=f"{prior}; mean over {len(per_fold)} folds",
        seed=run_seed(root),
    )
