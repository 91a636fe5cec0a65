"""Equality and hashing of result objects, by value.

:func:`value_equality` gives frozen dataclasses holding numpy arrays an ``==`` by value
(NaN equal to NaN) and a hash of their shapes. It imports nothing from the package.

Design notes: docs/design.md#core-results
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Mapping
from typing import Any, TypeVar

import numpy as np

__all__ = ["value_equality", "values_equal", "value_hash_key"]

_T = TypeVar("_T", bound=type)


def _is_numeric(v: Any) -> bool:
    return not isinstance(v, str) and isinstance(v, (np.ndarray, np.generic, numbers.Number))


def _fields(v: Any) -> list[Any]:
    return [f.name for f in dataclasses.fields(v) if f.compare]


def values_equal(a: Any, b: Any) -> bool:
    """``a`` equals ``b`` by the rule of :func:`value_equality`."""
    if a is b:
        return True
    if _is_numeric(a) or _is_numeric(b):
        if not (_is_numeric(a) and _is_numeric(b)):
            return False
        x, y = np.asarray(a), np.asarray(b)
        if x.shape != y.shape:
            return False
        if x.dtype.kind in "biufc" and y.dtype.kind in "biufc":
            return bool(np.array_equal(x, y, equal_nan=True))
        return all(values_equal(p, q) for p, q in zip(x.ravel(), y.ravel(), strict=True))
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(values_equal(p, q) for p, q in zip(a, b, strict=False))
    if isinstance(a, Mapping) and not dataclasses.is_dataclass(a):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return all(values_equal(getattr(a, n), getattr(b, n)) for n in _fields(a))
    return bool(a == b)


def value_hash_key(v: Any) -> Any:
    """A hashable key of ``v``, equal for values that :func:`values_equal` calls equal."""
    if _is_numeric(v):
        return ("number", np.shape(v))
    if isinstance(v, (tuple, list)):
        return (type(v).__name__, tuple(value_hash_key(x) for x in v))
    if isinstance(v, Mapping) and not dataclasses.is_dataclass(v):
        return ("mapping", frozenset((k, value_hash_key(x)) for k, x in v.items()))
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return (type(v).__qualname__, tuple(value_hash_key(getattr(v, n)) for n in _fields(v)))
    try:
        hash(v)
    except TypeError:
        return type(v).__qualname__
    return v


def _eq(self: Any, other: Any) -> bool:
    if type(other) is not type(self):
        return NotImplemented
    return all(values_equal(getattr(self, n), getattr(other, n)) for n in _fields(self))


def _hash(self: Any) -> int:
    return hash(value_hash_key(self))


def value_equality(cls: _T) -> _T:
    """Class decorator (above ``@dataclass``): ``==`` and ``hash`` by value (module notes)."""
    cls.__eq__ = _eq  # type: ignore[assignment]
    cls.__hash__ = _hash  # type: ignore[assignment]
    return cls
