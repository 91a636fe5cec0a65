"""Slices: one confusion matrix per value of a slice column (region, language, source, ...).

:func:`slice_tables` counts predictions into ``(S, M, M)`` tables, one per
slice; :func:`read_sliced_predictions` does it for a predictions CSV with a
slice column (``--slice-col`` on the command line).

Design notes: docs/design.md#posterior-slices
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._core.describe import describe
from ._predictions import label_order, read_prediction_table, sort_labels
from ._sources import MatrixInput

__all__ = ["SliceTables", "slice_tables", "read_sliced_predictions"]


@dataclass(frozen=True)
class SliceTables:
    """Confusion matrices of the slices of a test set, one per slice value.

    Attributes
    ----------
    counts : ndarray, shape (S, M, M)
        One confusion matrix per slice (int64, rows = true class).
    labels : list
        The classes, in the order of the rows and columns.
    names : list of str
        The slice of each matrix, as text.
    support : ndarray, shape (S,)
        Documents counted per slice (those whose labels are among ``labels``).

    See Also
    --------
    slice_tables : Makes it.
    f1posterior.evaluate_slices : The posterior of each slice.

    Examples
    --------
    >>> from f1posterior.io import slice_tables
    >>> t = slice_tables([0, 1, 1], [0, 1, 0], ["eu", "us", "us"])
    >>> t.names, t.support.tolist()
    (['eu', 'us'], [1, 2])
    """

    counts: np.ndarray
    labels: list[Any]
    names: list[str]
    support: np.ndarray


def _slice_order(groups: np.ndarray) -> list[Any]:
    """The distinct slice values, sorted when they can be, else in order of appearance."""
    seen = list(dict.fromkeys(groups.tolist()))
    try:
        return sorted(seen)
    except TypeError:
        return seen


def slice_tables(
    y_true: Any, y_pred: Any, groups: Any, labels: Sequence[Any] | None = None
) -> SliceTables:
    """One confusion matrix per slice: the documents of each value of ``groups``.

    Every slice shares the class order of the whole test set (``labels``, or
    the sorted labels seen), so a class absent from a slice is a row of zeros.

    Parameters
    ----------
    y_true, y_pred : array_like, shape (D,)
        True and predicted label of each document.
    groups : array_like, shape (D,)
        The slice of each document (any hashable values of one kind).
    labels : sequence, optional
        Class labels and their order, as in :func:`f1posterior.confusion_matrix`.

    Returns
    -------
    SliceTables
        ``counts`` (S, M, M), ``labels``, slice ``names`` and ``support``.

    See Also
    --------
    f1posterior.evaluate_slices : The posterior of each slice, from the predictions.
    f1posterior.SliceFloor : The gate's check of every slice (``names=t.names``).

    Examples
    --------
    >>> t = slice_tables(["a", "b", "a", "b"], ["a", "b", "b", "b"], ["x", "x", "y", "y"])
    >>> t.names, t.counts.tolist(), t.support.tolist()
    (['x', 'y'], [[[1, 0], [0, 1]], [[0, 1], [0, 1]]], [2, 2])
    """
    from ..metrics import confusion_matrix, grouped_counts, label_array, label_codes

    whole = confusion_matrix(y_true, y_pred, labels)  # validates y_true, y_pred and labels
    g = label_array(groups, "groups")
    n = len(label_array(y_true, "y_true"))
    if g.shape[0] != n:
        raise ValueError(
            f"groups must give one slice per document: {n} documents; got {g.shape[0]} values"
        )
    order = _slice_order(g)
    names = [str(v) for v in order]
    if len(set(names)) != len(names):
        dup = next(x for x in names if names.count(x) > 1)
        raise ValueError(f"groups must name each slice once as text; {dup!r} names two slices")
    blank = [v for v, name in zip(order, names, strict=True) if not name.strip()]
    if blank:  # a report's row (and the gate's check) would have no name
        raise ValueError(
            f"groups must name each slice with visible text; got {blank[0]!r} for "
            f"{int(np.sum(g == blank[0]))} documents"
        )
    lab = list(whole.labels)
    s = label_codes(g, {v: i for i, v in enumerate(order)}, "groups")
    counts = grouped_counts(y_true, y_pred, s, len(order), lab)
    return SliceTables(counts, lab, names, counts.sum(axis=(1, 2)))


def read_sliced_predictions(
    path: str | Path,
    *,
    slice_col: str,
    true_col: str = "y_true",
    pred_col: str = "y_pred",
    labels: Sequence[Any] | None = None,
    input_format: str | None = None,
) -> MatrixInput:
    """A predictions CSV as one confusion matrix per value of its slice column.

    Labels are read as text and ordered as by :func:`read_predictions`; the
    slices are the values of ``slice_col`` in text order (numeric order when
    every one is an integer).

    Parameters
    ----------
    path : str or Path
        The CSV (``-``: standard input).
    slice_col : str
        The column naming each document's slice.
    true_col, pred_col : str
        The columns of true and predicted labels.
    labels : sequence, optional
        The classes and their order; a label in the file not among them is an
        error naming its line.
    input_format : str, optional
        The format of standard input.

    Returns
    -------
    MatrixInput
        ``counts`` (S, M, M), ``labels``, ``names`` (the slices) and ``source``.

    See Also
    --------
    slice_tables : The same from arrays.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "pred.csv"
    >>> _ = f.write_text("region,y_true,y_pred\\neu,1,1\\nus,0,1\\neu,0,0\\n")
    >>> m = read_sliced_predictions(f, slice_col="region")
    >>> m.names, m.counts.tolist()
    (['eu', 'us'], [[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 0.0]]])
    """
    if not isinstance(slice_col, str) or not slice_col:
        raise TypeError(f"slice_col must be a column name; got {describe(slice_col)}")
    if slice_col in (true_col, pred_col):
        raise ValueError(
            f"slice_col must be a column other than the labels ({true_col!r}, {pred_col!r}); "
            f"got {slice_col!r}"
        )
    t = read_prediction_table(
        path, true_col, [pred_col], min_models=1, slice_col=slice_col, input_format=input_format
    )
    assert t.slices is not None
    order = label_order(t, true_col, pred_col, labels)
    slices = sort_labels(set(t.slices))
    index = {v: i for i, v in enumerate(slices)}
    tables = slice_tables(t.y_true, t.preds[pred_col], [index[v] for v in t.slices], order)
    return MatrixInput(
        counts=tables.counts.astype(np.float64), labels=order, names=slices, source=t.source
    )
