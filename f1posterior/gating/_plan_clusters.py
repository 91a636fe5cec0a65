"""Planning for clustered documents: the design effect turns documents into clusters.

Documents in clusters of ``m`` with intra-cluster correlation ``rho`` are worth
``n / D`` independent ones, ``D = 1 + (m - 1) rho`` (Kish's design effect), or ``D``
measured by :func:`f1posterior.evaluate_clusters`. The plan runs on the effective
documents (the observed counts divided by ``D``, rounded to whole documents; future
documents counted as ``n / D``) and reports actual documents (``D`` times the effective
ones) and clusters (their number over ``m``).

Design notes: docs/design.md#gating-plan-clusters
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.describe import describe

if TYPE_CHECKING:
    from ._plan_result import PlanResult

__all__ = ["check_clustering", "effective_counts", "in_clusters"]


def _positive(value: Any, name: str, low: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number; got {describe(value)}")
    v = float(value)
    if not (math.isfinite(v) and v >= low):
        raise ValueError(f"{name} must be a finite number >= {low:g}; got {value!r}")
    return v


def check_clustering(
    design_effect: Any, icc: Any, cluster_size: Any
) -> tuple[float | None, float | None]:
    """``(D, m)`` from ``design_effect`` or ``icc`` with ``cluster_size`` (None, None: none).

    Raises
    ------
    ValueError
        ``design_effect`` below 1, ``icc`` outside [0, 1], ``cluster_size`` below 1,
        ``design_effect`` and ``icc`` both given, ``icc`` without ``cluster_size``,
        ``cluster_size`` without either.
    """
    size = None if cluster_size is None else _positive(cluster_size, "cluster_size", 1.0)
    if icc is not None:
        if design_effect is not None:
            raise ValueError(
                "give design_effect or icc (with cluster_size), not both; got design_effect="
                f"{design_effect!r} and icc={icc!r}"
            )
        rho = _positive(icc, "icc", 0.0)
        if rho > 1:
            raise ValueError(f"icc must be in [0, 1]; got {icc!r}")
        if size is None:
            raise ValueError(
                "icc needs cluster_size (documents per cluster): the design effect is "
                "1 + (cluster_size - 1) * icc"
            )
        return 1.0 + (size - 1.0) * rho, size
    if design_effect is None:
        if size is not None:  # clusters of independent documents is a claim, not a default
            raise ValueError(
                "cluster_size needs design_effect or icc (the answer in clusters counts "
                "documents at that design effect; icc=0 if the documents of a cluster are "
                f"independent); got cluster_size={cluster_size!r} alone"
            )
        return None, size
    return _positive(design_effect, "design_effect", 1.0), size


def effective_counts(counts: np.ndarray, deff: float, name: str) -> np.ndarray:
    """``counts / D`` rounded to whole documents (the effective documents)."""
    out = np.rint(counts / deff)
    if out.sum() < 1:
        raise ValueError(
            f"{name} hold {int(counts.sum())} documents, worth less than one independent "
            f"document at design effect {deff:.3g}; nothing to plan from"
        )
    return out


def in_clusters(
    result: PlanResult, deff: float | None, size: float | None, documents: int
) -> PlanResult:
    """``result`` of the effective documents, in actual documents (and clusters)."""
    if deff is None and size is None:
        return result

    def scale(n: int) -> int:
        return n if deff is None else math.ceil(n * deff)

    curve = tuple(dataclasses.replace(p, documents=scale(p.documents)) for p in result.curve)
    more = None if result.additional_documents is None else scale(result.additional_documents)
    text = (
        f"documents come in clusters{'' if size is None else f' of {size:g}'}: design "
        f"effect {1.0 if deff is None else deff:.3g}, so n clustered documents are worth "
        f"n / {1.0 if deff is None else deff:.3g} independent ones, now and in the future"
    )
    return dataclasses.replace(
        result, curve=curve, additional_documents=more, documents=documents,
        assumptions=(*result.assumptions, text), design_effect=deff, cluster_size=size,
    )  # fmt: skip
