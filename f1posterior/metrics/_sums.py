"""Per-class sums of confusion tables: the one representation of the metric path.

Design notes: docs/design.md#metrics-sums
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from .._core.rowsums import EINSUM_DRAWS_BELOW, row_sums

__all__ = ["shared_class_sums", "class_sums", "one_vs_rest"]

_SHARED = threading.local()


@contextmanager
def shared_class_sums(table: np.ndarray) -> Iterator[None]:
    """Within the block, metrics of ``table`` (this very object) share its class sums.

    The batch engine passes each chunk of cell draws through several metrics; the
    diagonal, column sums and row sums (and the one-vs-rest cells) are then computed
    once, by the same numpy calls, and reused (read-only), so every metric's value is
    unchanged bit for bit. Per thread; blocks may nest.
    """
    previous = getattr(_SHARED, "entry", None)
    _SHARED.entry = [table, {}]
    try:
        yield
    finally:
        _SHARED.entry = previous


def _cached(table: np.ndarray, key: str, make: Callable[[np.ndarray], Any]) -> Any:
    entry = getattr(_SHARED, "entry", None)
    if entry is not None and entry[0] is table:
        if key not in entry[1]:
            entry[1][key] = make(table)
        return entry[1][key]
    return make(table)


def _class_sums_of(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    tp = np.diagonal(table, axis1=-2, axis2=-1)
    if table.shape[-1] == 2:  # the same sums, bit for bit, without reducing axes of length 2
        return tp, table[..., 0, :] + table[..., 1, :], table[..., :, 0] + table[..., :, 1]
    return tp, table.sum(axis=-2), _true_totals(table)


def _true_totals(table: np.ndarray) -> np.ndarray:
    """``table.sum(axis=-1)``; for the sampler's short chunks of draws (``(..., d, M, M)``
    views of cells ``(..., M, M, d)`` in C order, ``2 <= d < EINSUM_DRAWS_BELOW``) by
    :func:`row_sums`: the same sums, bit for bit, in the reduction's layout (the draws
    fastest), about twice as fast."""
    d, size = (table.shape[-3] if table.ndim >= 3 else 0), table.itemsize
    if not (
        2 <= d < EINSUM_DRAWS_BELOW
        and table.strides[-3:-2] + table.strides[-1:] == (size, d * size)
    ):
        return table.sum(axis=-1)
    x = np.moveaxis(table, -3, -1)  # (..., M, M, d): the cells' memory order
    out = np.empty((*x.shape[:-2], x.shape[-1]), table.dtype)  # (..., M, d)
    return np.moveaxis(row_sums(x, out), -1, -2)


def class_sums(
    table: np.ndarray, labels: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``tp``, predicted totals and true totals per class, shape ``(..., K)`` each.

    ``labels`` (indices) selects and orders the classes. No validation.

    Examples
    --------
    >>> [x.tolist() for x in class_sums(np.array([[8.0, 2.0], [1.0, 9.0]]))]
    [[8.0, 9.0], [9.0, 11.0], [10.0, 10.0]]
    """
    tp, pred, true = _cached(table, "sums", _class_sums_of)
    if labels is not None:
        tp, pred, true = tp[..., labels], pred[..., labels], true[..., labels]
    return tp, pred, true


def _exclusive(x: np.ndarray, axis: int) -> np.ndarray:
    """``out[j] = sum of x[k] for k != j`` along ``axis``: prefix plus suffix sums."""
    x = np.moveaxis(x, axis, -1)
    zero = np.zeros((*x.shape[:-1], 1), dtype=x.dtype)
    before = np.concatenate([zero, np.cumsum(x[..., :-1], axis=-1)], axis=-1)
    after = np.concatenate([np.cumsum(x[..., :0:-1], axis=-1)[..., ::-1], zero], axis=-1)
    return np.moveaxis(before + after, -1, axis)


def _one_vs_rest_exact(table: np.ndarray) -> np.ndarray:
    """``tn`` of every class as sums of cells only (prefix and suffix sums): no cancellation."""
    rows_but = _exclusive(table, -1)  # [u, j] = sum over v != j of p[u, v]
    return np.diagonal(_exclusive(rows_but, -2), axis1=-2, axis2=-1)


#: ``tn_j`` is taken by subtraction where it is at least this fraction of the table's total
#: (relative error below ~1e-12); below it, the table's ``tn`` is summed exactly.
_TN_SUBTRACT = 2.0**-10


def _one_vs_rest_of(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    m = table.shape[-1]
    tp = np.diagonal(table, axis1=-2, axis2=-1)
    if m == 2:  # the cells themselves; class 0's are class 1's mirrored
        tn = tp[..., ::-1]
        fp = np.stack([table[..., 1, 0], table[..., 0, 1]], axis=-1)
        fn = fp[..., ::-1]
        return tp, fp, fn, tn
    off = table * (1 - np.eye(m, dtype=table.dtype))  # the errors: sums without cancellation
    fn, fp = off.sum(axis=-1), off.sum(axis=-2)
    total = (tp + fn).sum(axis=-1, keepdims=True)
    tn = total - tp - fn - fp
    # A class holding nearly all of a table's rows and columns (a draw whose other classes sit
    # at the sampler's prevalence floor) has a tiny tn that subtraction would lose: sum it.
    small = np.any(tn < _TN_SUBTRACT * total, axis=-1)
    if np.any(small):
        tn[small] = _one_vs_rest_exact(table[small])
    return tp, fp, fn, tn


def one_vs_rest(
    table: np.ndarray, labels: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``tp, fp, fn, tn`` of each class against the rest, shape ``(..., K)`` each.

    The layout of scikit-learn's ``multilabel_confusion_matrix``: class ``j``'s
    2 x 2 table is ``[[tn_j, fp_j], [fn_j, tp_j]]``. Each is a sum of cells
    (``tn_j`` sums the cells of neither class ``j``'s row nor its column), with
    no subtraction. ``labels`` (indices) selects and orders the classes.

    Examples
    --------
    >>> t = np.array([[5.0, 1.0, 0.0], [2.0, 3.0, 1.0], [0.0, 0.0, 4.0]])
    >>> [x.tolist() for x in one_vs_rest(t)]
    [[5.0, 3.0, 4.0], [2.0, 1.0, 1.0], [1.0, 3.0, 0.0], [8.0, 9.0, 11.0]]
    """
    if table.shape[-1] == 2 and labels is not None:
        picked = np.arange(2)[labels]
        if picked.size == 1:  # one class of a 2 x 2 table: its cells, as views
            c = int(picked[0])
            d = 1 - c
            return (
                table[..., c, c, None],
                table[..., d, c, None],
                table[..., c, d, None],
                (table[..., d, d, None]),
            )
    tp, fp, fn, tn = _cached(table, "ovr", _one_vs_rest_of)
    if labels is not None:
        tp, fp, fn, tn = tp[..., labels], fp[..., labels], fn[..., labels], tn[..., labels]
    return tp, fp, fn, tn
