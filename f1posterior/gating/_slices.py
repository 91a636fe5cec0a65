"""The evidence of a :class:`SliceFloor`: one row per slice and the joint row, from one draw.

Design notes: docs/design.md#gating-slices
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..posterior import hdi as sample_hdi
from ._checks import SliceFloor, fail_bar

__all__ = ["check_slice_batch", "slice_predictions", "slice_rows"]


def check_slice_batch(counts: np.ndarray) -> None:
    """A SliceFloor needs a 1-D batch of tables ``(S, M, M)``: one table per slice."""
    if counts.ndim != 3:
        raise ValueError(
            "SliceFloor checks a batch of one confusion matrix per slice, shape (S, M, M) "
            f"(names= names the slices); got counts of shape {counts.shape}"
        )


def slice_predictions(
    counts: Any, y_true: Any, y_pred: Any, groups: Any, labels: Any, **others: Any
) -> tuple[np.ndarray, list[str], list[Any]]:
    """``(counts, names, labels)`` of :func:`gate`'s ``groups=``: one table per slice.

    ``others`` are the gate's arguments that do not go with ``groups=`` (the
    slices name the tables; predictions of a baseline are not sliced).
    """
    from ..io import slice_tables

    if counts is not None or y_true is None or y_pred is None:
        one = "only one of y_true= and y_pred=" if y_true is not None or y_pred is not None else ""
        got = "counts" if counts is not None else one or "neither y_true= nor y_pred="
        raise TypeError(
            f"groups= slices predictions (y_true= and y_pred=): one slice per document; got {got}"
        )
    given = [k for k, v in others.items() if v is not None]
    if given:
        raise TypeError(
            f"groups= makes one table per slice, named by its value; {given[0]}= does not "
            f"go with it (slice the predictions with f1posterior.io.slice_tables instead)"
        )
    t = slice_tables(y_true, y_pred, groups, labels)
    return t.counts, t.names, t.labels


def slice_rows(
    c: SliceFloor,
    md: np.ndarray,
    score: Any,
    flags: Any,
    counts: np.ndarray,
    names: Sequence[Any] | None,
    ci_prob: float,
    prob: float,
) -> dict[str, Any]:
    """Per slice ``P(metric >= T)``, then ``P(every judged slice >= T)``, from the same draws.

    ``md`` holds the metric's draws ``(S, draws)`` of the tables ``counts``;
    ``score`` and ``flags`` are the observed values and prior-dominance flags
    per slice. A slice with fewer documents than ``c.min_support`` is skipped
    (its row says why) and left out of the joint row, which is skipped when
    every slice is. Returns the fields of the check's evidence but the draws.

    The FAIL bars (``fail_at``): the ``J`` judged slices share ``1 - prob``, so
    a slice FAILs when ``P(metric < T) >= 1 - (1 - prob) / J`` (Bonferroni);
    the joint row FAILs only when a slice does (NaN), never on its own
    probability, which is biased low (the minimum of ``J`` noisy posteriors).
    """
    k = md.shape[0]
    names = [str(n) for n in names] if names is not None else [str(i) for i in range(k)]
    support = counts.sum(axis=(-2, -1)).astype(np.int64)
    keep = np.ones(k, bool) if c.min_support is None else support >= c.min_support
    judged = int(keep.sum())
    score = np.broadcast_to(np.asarray(score, dtype=float), (k,))
    flags = np.broadcast_to(np.asarray(flags, dtype=bool), (k,)) & keep  # skipped: no warning
    use = keep if judged else np.ones(k, bool)
    low = md[use].min(axis=0)  # the smallest slice of each draw: every slice >= T iff low >= T
    joint = "every slice"
    if judged and judged < k:
        joint += f" with >= {c.min_support} documents ({judged} of {k})"
    skip = [
        "" if ok else f"{int(n):,} documents < min_support {c.min_support}"
        for ok, n in zip(keep.tolist(), support.tolist(), strict=True)
    ]
    skip.append("" if judged else f"every slice has fewer than {c.min_support} documents")
    hits = np.append(np.sum(md >= c.threshold, axis=-1), np.sum(low >= c.threshold))
    hdis = np.asarray(sample_hdi(md, ci_prob), dtype=float).reshape(-1, 2)
    return dict(
        items=[f"slice {n}" for n in names] + [joint],
        hits=hits.astype(float),
        score=np.append(score, score[use].min()),
        hdi=np.vstack([hdis, np.asarray(sample_hdi(low, ci_prob), dtype=float)[None]]),
        flags=np.append(flags, flags[use].any()),
        support=np.append(support, support[use].sum()),
        skip=skip,
        fail_at=np.append(np.full(k, fail_bar(prob, max(judged, 1))), np.nan),
    )
