"""The evidence of a :class:`JointFloor`: one item per matrix, every class at or above the floor.

Design notes: docs/design.md#gating-joint
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..posterior import hdi as sample_hdi
from ._checks import JointFloor, fail_bar

__all__ = ["failed_parts", "joint_rows"]


def joint_rows(
    c: JointFloor,
    md: np.ndarray,
    score: Any,
    flags: Any,
    support: Any,
    matrices: list[str],
    s: Any,
) -> dict[str, Any]:
    """Per matrix ``P(every judged class >= T)``, from the draws ``md`` ``(*batch, K, n)``.

    ``score``, ``flags`` and ``support`` are the observed values,
    prior-dominance flags and true (positive) documents per class;
    ``matrices`` names the matrices (C order); ``s`` the gate's settings. An
    item's ``hits`` are the draws with every judged class at or above the
    floor, then each class's draws at or above it (NaN: a class left out by
    ``min_support``); the gate pools both over its adaptive rounds. The item
    FAILs only when a class reaches the shared FAIL bar ``fail_at``
    (:func:`fail_bar` over the ``J`` judged classes; :func:`failed_parts`):
    the minimum's own ``P(some class < T)`` is biased high. Returns the
    fields of the check's evidence but the draws, model and class names.
    """
    batch, k = md.shape[:-2], md.shape[-2]
    scores = np.broadcast_to(np.asarray(score, dtype=float), md.shape[:-1])
    support = np.broadcast_to(support, md.shape[:-1])
    flags = np.broadcast_to(flags, md.shape[:-1])
    unit = "label" if s.multilabel else "class"
    docs = "positive documents" if s.multilabel else "true documents"
    items, hits, low_score, hdis, flag, skip, bars = [], [], [], [], [], [], []
    for name, bidx in zip(matrices, np.ndindex(*batch), strict=True):
        keep = np.ones(k, bool) if c.min_support is None else support[bidx] >= c.min_support
        judged = int(keep.sum())
        use = keep if judged else np.ones(k, bool)
        low = md[bidx][use].min(axis=0)  # the smallest class of each draw
        what = f"every {unit}"
        if judged and judged < k:
            what += f" with >= {c.min_support} {docs} ({judged} of {k})"
        items.append(" ".join(x for x in (name, what) if x))
        each = np.where(use, np.sum(md[bidx] >= c.threshold, axis=-1), np.nan)
        hits.append(np.append(np.sum(low >= c.threshold), each))
        low_score.append(float(scores[bidx][use].min()))
        hdis.append(sample_hdi(low, s.ci_prob))
        flag.append(bool(flags[bidx].any()))
        skip.append("" if judged else f"every {unit} has fewer than {c.min_support} {docs}")
        bars.append(fail_bar(s.prob, max(judged, 1)))
    return dict(
        items=items,
        hits=np.array(hits, dtype=float).reshape(len(items), 1 + k),
        score=np.array(low_score),
        hdi=np.array(hdis, dtype=float).reshape(-1, 2),
        flags=np.array(flag),
        skip=skip,
        fail_at=np.array(bars),
    )


def failed_parts(
    parts: list[str], p: np.ndarray, clear: np.ndarray, bar: float, t: float
) -> tuple[list[str], str]:
    """The parts FAILing a joint item, and the reason when none does.

    ``p`` holds each part's ``P(part >= T)`` (NaN: left out) and ``clear``
    whether it is clear of Monte Carlo noise at the bar; a part FAILs with
    ``P(part < T) >= bar``.
    """
    failed = [
        f"{x} (P(< {t:g}) = {1.0 - q:.4f})"
        for x, q, ok in zip(parts, p.tolist(), clear.tolist(), strict=True)
        if ok and 1.0 - q >= bar  # False for a part left out (NaN)
    ]
    unit = parts[0].split(" ")[0] if parts else "part"
    return failed, f"FAIL needs a {unit} with P(< {t:g}) >= {bar:.4g}; none has"
