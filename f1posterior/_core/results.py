"""Equality and hashing of result objects, by value, and their plain values.

:func:`value_equality` gives frozen dataclasses holding numpy arrays an ``==`` by value
(NaN equal to NaN) and a hash of their shapes. It imports nothing from the package.

Design notes: docs/design.md#core-results
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Collection, Mapping
from typing import Any, TypeVar

import numpy as np

__all__ = ["plain", "plain_fields", "value_equality", "values_equal", "value_hash_key"]

_T = TypeVar("_T", bound=type)


def plain(v: Any, *, lists: bool = False) -> Any:
    """``v`` with numpy values made Python values: the one value converter of results.

    A numpy scalar or 0-d array becomes its Python scalar (float, int, bool or
    str); a larger array stays an array (a result field: a float for one
    matrix, an array for a batch). With ``lists=True`` everything is made
    JSON-ready: arrays become nested lists, results their ``to_dict()``, a
    run seed its ``to_json()``, mappings, lists and tuples item by item.
    Anything else is returned as it is.

    Examples
    --------
    >>> plain(np.float64(0.5)), plain(np.arange(2.0)), plain((np.arange(2),), lists=True)
    (0.5, array([0., 1.]), [[0, 1]])
    """
    if lists:
        if hasattr(v, "to_dict") or hasattr(v, "to_json"):
            return v.to_dict() if hasattr(v, "to_dict") else v.to_json()
        if isinstance(v, Mapping):
            return {k: plain(x, lists=True) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [plain(x, lists=True) for x in v]
    if not isinstance(v, np.ndarray | np.generic):
        return v
    return v if v.ndim and not lists else v.tolist()


def plain_fields(result: Any, skip: Collection[str] = ()) -> dict[str, Any]:
    """The fields of a result dataclass but ``skip``, JSON-ready (:func:`plain`): a ``to_dict``."""
    return {
        f.name: plain(getattr(result, f.name), lists=True)
        for f in dataclasses.fields(result)
        if f.name not in skip
    }


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
    """Class decorator (above ``@dataclass(frozen=True, eq=False)``): ``==`` and ``hash`` by
    value (module notes). ``eq=False``: the dataclass's own would be replaced, and Python
    3.11 compiles each generated method (a cost every import of a result class pays)."""
    cls.__eq__ = _eq  # type: ignore[assignment]
    cls.__hash__ = _hash  # type: ignore[assignment]
    return cls
