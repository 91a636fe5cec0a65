"""Slices: one posterior per slice of a test set, from one call, and the joint
probability that every slice clears a floor.

Design notes: docs/design.md#posterior-slices
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.describe import describe
from .._core.priors import DEFAULT_PRIOR, PriorArg
from .._core.streams import DEFAULT_DRAWS
from .._core.validation import SeedLike, check_counts, check_min_support, check_ref
from ..metrics import METRICS, PER_CLASS_METRICS
from ._evaluation import evaluate
from ._slice_result import SliceEvaluation

__all__ = ["evaluate_slices"]


def _metrics(metrics: Any) -> list[str]:
    names = [metrics] if isinstance(metrics, str) else metrics
    if not isinstance(names, Sequence) or not names:
        raise TypeError(f"metrics must be a metric name or a list of them; got {describe(metrics)}")
    for m in names:
        if m in PER_CLASS_METRICS:
            raise ValueError(
                f"metrics: {m!r} is per class; slices take single-number metrics (micro_f1, "
                f"macro_f1, accuracy, ...); for per-class metrics of each slice use "
                f"evaluate(tables, names=...) on the slices' tables; got {m!r}"
            )
        if not isinstance(m, str) or m not in METRICS:
            raise ValueError(
                f"metrics must name single-number metrics of evaluate; got {describe(m)}"
            )
    return list(dict.fromkeys(names))


def _tables(
    y_true: Any, y_pred: Any, groups: Any, counts: Any, names: Any, labels: Any
) -> tuple[np.ndarray, list[str], Any]:
    """The slices' tables ``(S, M, M)``, their names and the class labels."""
    given = [y_true is not None, y_pred is not None, groups is not None]
    if counts is not None:
        if any(given):
            raise ValueError(
                "give either y_true, y_pred and groups, or counts (one table per slice); got both"
            )
        c = check_counts(counts, "counts")
        if c.ndim != 3:
            raise ValueError(
                f"counts must be one table per slice, shape (S, M, M); got shape {c.shape}"
            )
        if names is None:
            names = [str(i) for i in range(c.shape[0])]
        names = [str(n) for n in names]
        if (
            len(names) != c.shape[0]
            or len(set(names)) != len(names)
            or not all(n.strip() for n in names)
        ):
            raise ValueError(
                f"names must name each of the {c.shape[0]} slices once, with visible text; "
                f"got {describe(names)}"
            )
        return c, names, labels
    if not all(given):
        missing = [n for n, g in zip(("y_true", "y_pred", "groups"), given, strict=True) if not g]
        raise TypeError(
            f"evaluate_slices needs y_true, y_pred and groups (or counts=); missing {missing}"
        )
    if names is not None:
        raise ValueError("names= goes with counts=; with groups the slices are named by them")
    from ..io import slice_tables

    t = slice_tables(y_true, y_pred, groups, labels)
    return t.counts, t.names, [str(x) for x in t.labels]


def evaluate_slices(
    y_true: ArrayLike | None = None,
    y_pred: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    *,
    counts: ArrayLike | None = None,
    names: Sequence[Any] | None = None,
    metrics: str | Sequence[str] = ("micro_f1", "macro_f1"),
    floor: float | None = None,
    min_support: int | None = None,
    labels: Sequence[Any] | None = None,
    draws: int = DEFAULT_DRAWS,
    alpha: PriorArg = DEFAULT_PRIOR,
    beta: PriorArg = DEFAULT_PRIOR,
    ci_prob: float = 0.95,
    rng: SeedLike = None,
    keep_draws: bool = False,
    workers: int | None = None,
    max_memory: int | None = None,
) -> SliceEvaluation:
    """Evaluate each slice of a test set (region, language, source, ...) in one call.

    The documents of each slice make one confusion matrix; the slices are
    evaluated as one batch by :func:`f1posterior.evaluate` (each slice its
    own exact posterior, on its own random stream). With ``floor``, each
    slice gets ``P(metric >= floor)`` and the result ``P(every judged slice
    >= floor)``, computed draw by draw
    from the same draws: the probability a "no slice below the floor" claim
    needs, which checking the slices one at a time overstates.

    Parameters
    ----------
    y_true, y_pred : array_like, shape (D,), optional
        True and predicted label of each document.
    groups : array_like, shape (D,), optional
        The slice of each document (any hashable values of one kind).
    counts : array_like, shape (S, M, M), optional
        Instead of the predictions: one confusion matrix per slice.
    names : sequence, optional
        With ``counts``: the name of each slice (default ``"0"``, ``"1"``, ...).
    metrics : str or sequence of str, default ("micro_f1", "macro_f1")
        Single-number metrics of :func:`f1posterior.evaluate`.
    floor : float, optional
        The floor ``T`` of ``P(>= T)`` per slice and of the joint probability
        (the metric draws of every judged slice are then held while it is
        computed: slices x draws x 8 bytes per metric).
    min_support : int, optional
        Slices with fewer documents are skipped: listed, with the reason, and
        neither evaluated nor part of the joint probability.
    labels : sequence, optional
        Class labels and their order.
    draws : int, default 50_000
        Posterior draws per slice.
    alpha, beta : prior, default "hierarchical"
        As in :func:`f1posterior.evaluate` (each slice gets its own prior).
    ci_prob : float, default 0.95
        Probability of the HDIs.
    rng : None, int, SeedSequence or Generator
        Source of randomness.
    keep_draws : bool, default False
        Keep each metric's draws ``(S_judged, draws)`` in ``result.evaluation``.
    workers, max_memory : int, optional
        As in :func:`f1posterior.evaluate`.

    Returns
    -------
    SliceEvaluation
        One row per slice (:meth:`~SliceEvaluation.to_frame`), the joint
        probabilities, text (``str``), Markdown and ``to_dict``.

    Raises
    ------
    ValueError
        Both or neither of the predictions and ``counts``; a per-class metric;
        every slice below ``min_support``.

    See Also
    --------
    f1posterior.SliceFloor : The gate's check that every slice clears a floor.
    f1posterior.evaluate : The posterior of one table or a batch.

    Examples
    --------
    >>> from f1posterior import evaluate_slices
    >>> y_true = [0, 1] * 60 + [0, 1] * 3
    >>> y_pred = [0, 1] * 50 + [1, 0] * 10 + [0, 0] * 3
    >>> groups = ["eu"] * 60 + ["us"] * 60 + ["nz"] * 6
    >>> res = evaluate_slices(y_true, y_pred, groups, metrics="accuracy", floor=0.6,
    ...                       min_support=20, draws=4_000, rng=0)
    >>> print(res)  # doctest: +ELLIPSIS
    Slices: 3 (1 skipped: fewer than 20 documents); prior ...; 4,000 draws
    slice  documents  metric    score  mean   95% HDI         P(>= 0.6)  note
    eu     60         accuracy  1.000  0.984  [0.952, 1.000]  1.0000
    nz     6                                                             SKIPPED: 6 documents < min_support 20
    us     60         accuracy  0.667  0.661  [0.539, 0.771]  0.8415
    P(every judged slice >= 0.6) of accuracy: 0.8415
    """  # noqa: E501
    ms = _metrics(metrics)
    t = check_ref(floor, "floor")
    k = check_min_support(min_support)
    tables, all_names, labels = _tables(y_true, y_pred, groups, counts, names, labels)
    support = tables.sum(axis=(-2, -1)).astype(np.int64)
    skip = [
        "" if k is None or n >= k else f"{n:,} documents < min_support {k}"
        for n in support.tolist()
    ]
    judged = [i for i, why in enumerate(skip) if not why]
    if not judged:
        raise ValueError(
            f"every slice has fewer than min_support={k} documents (the largest has "
            f"{int(support.max()):,}); lower min_support"
        )
    ev = evaluate(
        tables[judged], metrics=ms, draws=draws, alpha=alpha, beta=beta, ref=t, ci_prob=ci_prob,
        rng=rng, labels=labels, names=[all_names[i] for i in judged],
        keep_draws=keep_draws or t is not None, workers=workers, max_memory=max_memory,
    )  # fmt: skip
    joint = None
    if t is not None:
        assert ev.metric_draws is not None
        joint = {m: float(np.mean(np.all(ev.metric_draws[m] >= t, axis=0))) for m in ms}
        if not keep_draws:
            ev = dataclasses.replace(ev, metric_draws=None)
    return SliceEvaluation(
        evaluation=ev,
        names=tuple(all_names),
        support=tuple(support.tolist()),
        skipped=tuple(skip),
        floor=t,
        joint=joint,
        min_support=k,
    )
