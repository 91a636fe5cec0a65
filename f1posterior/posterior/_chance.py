"""The chance baseline: each metric against a classifier that guesses at the same rates.

Design notes: docs/design.md#posterior-chance
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ._summary import MetricSummary

__all__ = ["chance_table", "chance_floor_inplace", "with_chance"]


def chance_table(table: np.ndarray) -> np.ndarray:
    """``r_u k_v / N``: the table with ``table``'s row and column sums and independence.

    Its predictions are made at the same rates as ``table``'s but independently
    of the truth (a classifier that guesses).

    Examples
    --------
    >>> chance_table(np.array([[8.0, 2.0], [10.0, 30.0]])).tolist()
    [[3.6, 6.4], [14.4, 25.6]]
    """
    t = np.asarray(table)
    rows, cols = t.sum(axis=-1), t.sum(axis=-2)
    total = rows.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return rows[..., :, None] * (cols / total[..., None])[..., None, :]


def chance_floor_inplace(table: np.ndarray) -> np.ndarray:
    """Raise cells below the smallest normal number to it (a product of tiny sums can
    underflow to 0, and a metric would then divide 0 by 0); returns ``table``."""
    tiny = np.finfo(table.dtype).tiny
    if table.size and not table.min() >= tiny:
        np.fmax(table, tiny, out=table)
    return table


def _scalar(v: Any) -> Any:
    a = np.asarray(v)
    return float(a) if a.ndim == 0 else a


def with_chance(s: MetricSummary, x: np.ndarray, xc: np.ndarray, name: str) -> MetricSummary:
    """``s`` with ``chance`` (mean of ``xc``) and ``p_above_chance`` (share of ``x > xc``).

    ``x`` and ``xc`` are the draws ``(..., draws)`` of the metric and of its chance level.
    """
    if not np.isfinite(xc).all():
        raise ValueError(
            f"metric {name!r} returned non-finite values on the chance tables of posterior draws"
        )
    n = x.shape[-1]
    return dataclasses.replace(
        s,
        chance=_scalar(xc.mean(axis=-1)),
        p_above_chance=_scalar(np.count_nonzero(x > xc, axis=-1) / n),
    )
