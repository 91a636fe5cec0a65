"""Counts and class labels from labelled tables: pandas DataFrames and `ConfusionMatrix`."""

from __future__ import annotations

import numbers
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from .describe import as_numeric_array, describe
from .results import plain


def _is_dataframe(x: Any, columns: bool = True) -> bool:
    """A pandas DataFrame (a Series with ``columns=False``), or a look-alike, recognised
    without importing pandas."""
    return (
        not isinstance(x, (type, np.ndarray))
        and hasattr(x, "index")
        and hasattr(x, "columns") is columns
        and callable(getattr(x, "to_numpy", None))
    )


def _is_confusion_matrix(x: Any) -> bool:
    """A ConfusionMatrix; its module unloaded means no object is one (nothing imported)."""
    module = sys.modules.get(f"{__package__}.confusion")
    return module is not None and isinstance(x, module.ConfusionMatrix)


def _is_labelled(x: Any) -> bool:
    return _is_dataframe(x) or _is_confusion_matrix(x)


def _label_kind(v: Any) -> str:
    if isinstance(v, str):
        return "str"
    if isinstance(v, numbers.Number) and not isinstance(v, bool):
        return "number"
    return type(v).__name__


def _distinct_labels(values: Any, what: str) -> list[Any]:
    """Python scalars of an index or label list, refusing repeats."""
    out = [plain(v) for v in values]
    try:
        seen: set[Any] = set()
        for v in out:
            if v in seen:
                raise ValueError(f"{what} must not repeat a label; got {v!r} twice in {out}")
            seen.add(v)
    except TypeError:
        raise TypeError(f"{what} must be hashable labels; got {describe(out)}") from None
    return out


def _dataframe_table(df: Any, name: str) -> tuple[np.ndarray, list[Any]]:
    """A DataFrame's cells as an (M, M) array, columns matched to the index by label."""
    for axis in ("index", "columns"):
        if getattr(getattr(df, axis), "nlevels", 1) != 1:
            raise ValueError(
                f"{name} must be a DataFrame with one level of labels on the index (true "
                f"classes) and the columns (predicted classes); got a MultiIndex on its {axis}"
            )
    rows = _distinct_labels(df.index, f"{name}'s index (true classes)")
    cols = _distinct_labels(df.columns, f"{name}'s columns (predicted classes)")
    values = as_numeric_array(df.to_numpy(), name)
    if rows and cols and rows[-1] == cols[-1] == "All" and values.shape[0] > 1:
        head = values[:-1, :-1]
        if np.array_equal(values[-1, :-1], head.sum(axis=0)) and np.array_equal(
            values[:-1, -1], head.sum(axis=1)
        ):
            raise ValueError(
                f"{name} must hold one row and column per class; got a last row and column "
                "'All' holding the totals (pd.crosstab(..., margins=True)): drop the margins"
            )
    row_set, col_set = set(rows), set(cols)
    only_rows = [r for r in rows if r not in col_set]  # true classes never predicted
    only_cols = [c for c in cols if c not in row_set]  # predicted classes never true
    kinds = {_label_kind(v) for v in rows + cols}
    if only_rows and only_cols and (len(kinds) > 1 or not row_set & col_set):
        why = (
            f"labels of different types ({', '.join(sorted(kinds))})"
            if len(kinds) > 1
            else "no label in common"
        )
        raise ValueError(
            f"{name} must label its index (true classes) and columns (predicted classes) with "
            f"the same classes; index labels {only_rows} are not among the columns and column "
            f"labels {only_cols} are not in the index, with {why}, so they cannot be matched; "
            f"got index {rows} and columns {cols}"
        )
    order = rows + only_cols
    pos = {v: i for i, v in enumerate(order)}
    m = len(order)
    table = np.zeros((m, m), dtype=values.dtype)
    r_idx = np.array([pos[v] for v in rows], dtype=np.intp)
    c_idx = np.array([pos[v] for v in cols], dtype=np.intp)
    table[np.ix_(r_idx, c_idx)] = values
    return table, order


def _match_labels(
    table: np.ndarray, own: list[Any], wanted: list[Any], name: str, given: str
) -> np.ndarray:
    """``table`` with its classes put in the order of ``wanted`` (the same set as ``own``)."""
    own_set, want_set = set(own), set(wanted)
    extra = [v for v in wanted if v not in own_set]
    missing = [v for v in own if v not in want_set]
    if extra or missing:
        parts = []
        if extra:
            parts.append(f"{extra} not in {name}")
        if missing:
            parts.append(f"{name}'s {missing} missing")
        raise ValueError(
            f"{given} must list the classes of {name}, in any order (the table is reordered "
            f"to it); got {given}={wanted} for a table labelled {own}: {'; '.join(parts)}"
        )
    perm = np.array([own.index(v) for v in wanted], dtype=np.intp)
    return table[..., perm, :][..., :, perm]


def labelled_counts(
    counts: Any, labels: Sequence[Any] | None = None, name: str = "counts"
) -> tuple[Any, Sequence[Any] | None]:
    """Align a labelled confusion matrix and return its cells and class labels.

    The one place where tables that carry their own labels become arrays:

    * a **pandas DataFrame** (``pd.crosstab(y_true, y_pred)``; recognised by
      its ``index``, ``columns`` and ``to_numpy``, without importing pandas):
      the index gives the true classes (rows), the columns the predicted
      classes; the columns are put in the order of the index. A class found
      on one side only gets a zero row (predicted, never true) or a zero
      column (true, never predicted), appended after the index's classes.
      When both sides have labels the other lacks, this is done only if the
      labels are of one type and the sides share a class; otherwise (``0``
      against ``"0"``, or named rows against numbered columns) the unmatched
      labels are an error naming them. A MultiIndex, repeated labels and
      ``margins=True`` totals are errors.
    * a :class:`~f1posterior._core.confusion.ConfusionMatrix`: its counts and labels.
    * a list or tuple of them: a batch ``(B, M, M)``, every table put in the
      class order of the first (they must have the same classes).

    With ``labels`` also given, it must list the same classes in any order,
    and the table is reordered to it (compared by value: ``1`` is not ``"1"``).
    Anything else is returned unchanged with ``labels`` (values are checked by
    :func:`check_counts`).

    Parameters
    ----------
    counts : DataFrame, ConfusionMatrix, sequence of them, or array_like
        The counts.
    labels : sequence, optional
        Class labels in the order wanted.
    name : str, default "counts"
        The argument's name, for error messages.

    Returns
    -------
    table : ndarray or the input
        ``(M, M)`` (or ``(B, M, M)``) cells of a labelled input, rows = true class.
    labels : list, sequence or None
        The labels of the classes in order (a list); ``labels`` itself,
        unchanged, for an unlabelled input.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame([[1, 5], [0, 4]], index=["cat", "dog"], columns=["dog", "cat"])
    >>> table, lab = labelled_counts(df)
    >>> table.tolist(), lab
    ([[5, 1], [4, 0]], ['cat', 'dog'])
    """
    if isinstance(counts, (list, tuple)) and counts and any(_is_labelled(x) for x in counts):
        plain = [i for i, x in enumerate(counts) if not _is_labelled(x)]
        if plain:
            raise TypeError(
                f"{name} must be all labelled tables (DataFrames or ConfusionMatrix) or all "
                f"arrays; got a mix: item {plain[0]} is {describe(counts[plain[0]])}"
            )
        first, first_labels = labelled_counts(counts[0], labels, f"{name}[0]")
        order = list(first_labels or [])
        tables = [np.asarray(first)]
        for i, x in enumerate(counts[1:], start=1):
            t, own = labelled_counts(x, None, f"{name}[{i}]")
            where, like = f"{name}[{i}]", f"the classes of {name}[0]"
            tables.append(_match_labels(np.asarray(t), list(own or []), order, where, like))
        return np.stack(tables), order
    if _is_dataframe(counts):
        table, own = _dataframe_table(counts, name)
    elif _is_confusion_matrix(counts):
        table = as_numeric_array(counts.counts, name)
        own = _distinct_labels(counts.labels, f"{name}.labels")
        if table.ndim != 2 or table.shape != (len(own), len(own)):
            raise ValueError(
                f"{name} must be a ConfusionMatrix with an (M, M) table for its M labels; got "
                f"shape {table.shape} for {len(own)} labels"
            )
    else:
        return counts, labels
    if labels is None:
        return table, own
    if isinstance(labels, (str, bytes)):
        raise TypeError(f"labels must be a sequence of class labels; got {describe(labels)}")
    wanted = _distinct_labels(labels, "labels")
    return _match_labels(table, own, wanted, name, "labels"), wanted


def labelled_vector(values: Any, labels: Sequence[Any] | None, name: str) -> Any:
    """Per-class values put in the class order of ``labels``, matched by label.

    A labelled vector (a pandas Series, or a dict ``{label: value}``) or a labelled
    batch of them (a DataFrame: one row per matrix, one column per class) is
    reordered to ``labels``, the class labels of the counts; its labels must be
    exactly the counts' classes, in any order. Anything else is returned
    unchanged (a plain vector is read in class order).

    Examples
    --------
    >>> labelled_vector({"dog": 0.9, "cat": 0.1}, ["cat", "dog"], "prevalence").tolist()
    [0.1, 0.9]
    >>> labelled_vector([0.1, 0.9], ["cat", "dog"], "prevalence")
    [0.1, 0.9]
    """
    if isinstance(values, dict):
        keys, arr = list(values), np.asarray(list(values.values()))
    elif _is_dataframe(values, columns=False):
        keys, arr = list(values.index), values.to_numpy()
    elif _is_dataframe(values):
        keys, arr = list(values.columns), values.to_numpy()
    else:
        return values
    own = _distinct_labels(keys, f"{name}'s labels")
    if labels is None:
        raise ValueError(
            f"{name} is labelled ({own}) but the counts have no class labels to match it to: "
            "pass labelled counts (a DataFrame or ConfusionMatrix) or labels=, or a plain "
            "vector in class order"
        )
    wanted = [plain(v) for v in labels]
    extra = [v for v in own if v not in wanted]
    missing = [v for v in wanted if v not in own]
    if extra or missing:
        parts = ([f"{extra} not among the counts' classes"] if extra else []) + (
            [f"the counts' {missing} missing"] if missing else []
        )
        raise ValueError(
            f"{name} must be labelled with the classes of the counts, in any order; got "
            f"labels {own} for counts labelled {wanted}: {'; '.join(parts)}"
        )
    perm = np.array([own.index(v) for v in wanted], dtype=np.intp)
    return arr[..., perm]
