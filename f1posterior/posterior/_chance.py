"""The chance baseline: each metric against a classifier that guesses at the same rates.

For a table of cell probabilities ``p`` with row sums ``r`` (the class
prevalences) and column sums ``k`` (the rates at which each class is
predicted), the *chance table* ``c_uv = r_u k_v`` is the table of a classifier
that predicts each class at the same rate but independently of the truth. Its
metric is the chance level: for accuracy ``sum_u r_u k_u`` (caret's
"no-information rate" is the largest ``r_u``, the chance level of always
predicting the majority class), for precision of class ``j`` ``r_j``, and so on.

``evaluate(..., chance=True)`` computes, per posterior draw, the metric of
the drawn table and of its chance table, and reports the posterior mean of the
chance level (``chance``), the chance level of the observed table
(``chance_score``) and ``p_above_chance`` = P(metric > its chance level), the two
compared draw by draw (the analogue of caret's "accuracy > NIR" test and of
prob_conf_mat's random-classifier baseline, here as a posterior probability).
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
