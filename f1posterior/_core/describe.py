"""How a value is named in error messages (`describe`), and numeric arrays from input."""

from __future__ import annotations

from typing import Any

import numpy as np


def describe(value: Any, limit: int = 60) -> str:
    """Short printable echo of a received value for error messages."""
    text = repr(value)
    if isinstance(value, np.ndarray):
        text = f"array of shape {value.shape} and dtype {value.dtype}"
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def as_numeric_array(x: Any, name: str) -> np.ndarray:
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be an array of numbers; got {describe(x)}")
    try:
        arr = np.asarray(x)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            f"{name} must be a rectangular array of numbers; got ragged input ({exc})"
        ) from None
    if arr.dtype == bool:
        raise TypeError(f"{name} must hold numbers, not booleans; got dtype bool")
    if arr.dtype == object:
        huge = [v for v in arr.ravel() if isinstance(v, int) and abs(v) >= 2**64]
        if huge:  # numpy keeps Python ints of 65+ bits as objects: not a ragged table
            raise ValueError(
                f"{name} must hold numbers of at most 64 bits (|count| < 2**64); got {huge[0]}"
            )
        # nested lists of unequal length or mixed types
        raise ValueError(
            f"{name} must be a rectangular array of numbers; got {describe(x)} "
            "which is ragged or holds non-numbers"
        )
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(
            f"{name} must hold integers or floats; got dtype {arr.dtype} ({describe(x)})"
        )
    return arr
