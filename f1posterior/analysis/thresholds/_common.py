"""Argument checks and helpers shared by the threshold functions."""

from __future__ import annotations

import numbers
from typing import Any, Literal

import numpy as np

from ..._core.describe import describe
from ..._core.validation import check_indicator, check_scores

Strategy = Literal["per_label", "shared"]
Pivot = Literal["document", "label"]
STRATEGIES = ("per_label", "shared")
PIVOTS = ("document", "label")
#: Relative tolerance under which two F-beta values count as tied (rounding).
_TIE = 1e-12


def check_truth(
    y: Any, shape: tuple[int, ...], name: str = "y_true", other: str = "y_score"
) -> np.ndarray:
    """0/1 labels of the given shape, as bool."""
    return check_indicator(y, name, shape=shape, like=other)


def check_probabilities(p: Any, name: str = "probabilities") -> np.ndarray:
    arr = check_scores(p, name)
    if arr.min() < 0 or arr.max() > 1:
        bad = float(arr.min()) if arr.min() < 0 else float(arr.max())
        raise ValueError(f"{name} must lie in [0, 1]; got {bad!r}")
    return arr


def check_zero_division(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value not in (0, 1):
        raise ValueError(f"zero_division must be 0 or 1; got {describe(value)}")
    return float(value)


def as_2d(arr: np.ndarray) -> np.ndarray:
    return arr[:, None] if arr.ndim == 1 else arr


def out(x: np.ndarray, one_d: bool) -> Any:
    """Scalar for one label, array otherwise."""
    if one_d:
        v = x[0]
        return v.item() if isinstance(v, np.generic) else v
    return x


def first_max(f: np.ndarray) -> np.ndarray:
    """Index (axis 0) of the first value within rounding of the column maximum."""
    best = f.max(axis=0)
    return np.argmax(f >= best - _TIE * np.abs(best), axis=0)


def tables(tp: np.ndarray, pred: np.ndarray, pos: np.ndarray, n: int | np.ndarray) -> np.ndarray:
    """(..., 2, 2) tables [[tn, fp], [fn, tp]] from tp, predicted and actual positives."""
    fp, fn = pred - tp, pos - tp
    tn = n - pred - fn
    return np.stack([np.stack([tn, fp], -1), np.stack([fn, tp], -1)], -2).astype(np.int64)
