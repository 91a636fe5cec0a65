"""Input validation: one place where every public argument is checked.

Each ``check_*`` function takes what a user passed and returns a normalised
value, or raises ``TypeError``/``ValueError`` whose message names the argument,
says what is allowed and echoes what was received. Nothing is silently
coerced: a float table of non-integers is an error, not a rounding.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "as_counts",
    "labelled_counts",
    "check_counts",
    "check_batch_names",
    "check_draws",
    "check_prob",
    "check_ref",
    "check_dtype",
    "check_rng",
    "check_choice",
    "check_labels",
    "check_zero_division",
    "check_table",
    "check_scores",
    "check_metric_names",
    "check_positive",
    "check_indicator",
    "check_nonnegative",
    "check_flag",
    "check_workers",
    "check_max_memory",
    "check_index_offset",
    "describe",
]


def describe(value: Any, limit: int = 60) -> str:
    """Short printable echo of a received value for error messages."""
    text = repr(value)
    if isinstance(value, np.ndarray):
        text = f"array of shape {value.shape} and dtype {value.dtype}"
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def _as_numeric_array(x: Any, name: str) -> np.ndarray:
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


def _is_dataframe(x: Any) -> bool:
    """A pandas DataFrame (or a look-alike), recognised without importing pandas."""
    return (
        not isinstance(x, (type, np.ndarray))
        and hasattr(x, "index")
        and hasattr(x, "columns")
        and callable(getattr(x, "to_numpy", None))
    )


def _is_confusion_matrix(x: Any) -> bool:
    from .confusion import ConfusionMatrix

    return isinstance(x, ConfusionMatrix)


def _is_labelled(x: Any) -> bool:
    return _is_dataframe(x) or _is_confusion_matrix(x)


def _plain_label(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _label_kind(v: Any) -> str:
    if isinstance(v, str):
        return "str"
    if isinstance(v, numbers.Number) and not isinstance(v, bool):
        return "number"
    return type(v).__name__


def _distinct_labels(values: Any, what: str) -> list[Any]:
    """Python scalars of an index or label list, refusing repeats."""
    out = [_plain_label(v) for v in values]
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
    values = _as_numeric_array(df.to_numpy(), name)
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
        table = _as_numeric_array(counts.counts, name)
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


def as_counts(
    counts: Any, labels: Sequence[Any] | None = None, name: str = "counts"
) -> tuple[np.ndarray, Sequence[Any] | None]:
    """Validated counts and their class labels: :func:`labelled_counts`, then :func:`check_counts`.

    Every public function that takes counts reads them through this (or
    through :func:`check_counts`, which aligns a labelled table the same way
    but drops its labels).

    Examples
    --------
    >>> from f1posterior import confusion_matrix
    >>> c, lab = as_counts(confusion_matrix(["b", "a", "a"], ["b", "a", "b"]), labels=["b", "a"])
    >>> c.tolist(), lab
    ([[1.0, 0.0], [1.0, 1.0]], ['b', 'a'])
    """
    table, lab = labelled_counts(counts, labels, name)
    return check_counts(table, name), lab


def check_batch_names(names: Any, batch: tuple[int, ...], name: str = "names") -> list[str] | None:
    """Optional distinct string names, one per matrix of a 1-D batch of shape ``batch``."""
    if names is None:
        return None
    if len(batch) != 1:
        raise ValueError(
            f"{name} must name the matrices of a 1-D batch (counts of shape (B, M, M)); got "
            f"counts of batch shape {batch}"
        )
    if isinstance(names, (str, bytes)) or not hasattr(names, "__len__"):
        raise TypeError(f"{name} must be a sequence of strings; got {describe(names)}")
    out = list(names)
    if len(out) != batch[0]:
        raise ValueError(f"{name} must give one name per matrix ({batch[0]}); got {len(out)} names")
    bad = [v for v in out if not isinstance(v, str)]
    if bad:
        raise TypeError(f"{name} must be strings; got {describe(bad[0])}")
    seen: set[str] = set()
    for v in out:
        if v in seen:
            raise ValueError(f"{name} must be unique; got {v!r} twice")
        seen.add(v)
    return out


def check_counts(counts: Any, name: str = "counts") -> np.ndarray:
    """Validate confusion-matrix counts of shape ``(*batch, M, M)``.

    Returns a float64 copy. Rejects non-square, non-numeric, negative,
    non-finite and non-integer entries, and any matrix whose total is zero.
    Labelled tables (a pandas DataFrame, a
    :class:`~f1posterior._core.confusion.ConfusionMatrix`, or a list of them) are
    aligned first by :func:`labelled_counts`; use :func:`as_counts` to keep
    their labels.
    """
    counts, _ = labelled_counts(counts, None, name)
    arr = _as_numeric_array(counts, name)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2] or arr.shape[-1] < 2:
        raise ValueError(
            f"{name} must be square confusion matrices of shape (*batch, M, M) with M >= 2 "
            f"classes (rows = true class, columns = predicted class); got shape {arr.shape}"
        )
    if 0 in arr.shape:
        raise ValueError(f"{name} must not be empty; got shape {arr.shape}")
    arr = arr.astype(np.float64, copy=True)
    if not np.all(np.isfinite(arr)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(f"{name} must be finite; got {arr[bad]} at index {bad}")
    if np.any(arr < 0):
        bad = tuple(int(i) for i in np.argwhere(arr < 0)[0])
        raise ValueError(f"{name} must be non-negative counts; got {arr[bad]:g} at index {bad}")
    if np.any(arr != np.round(arr)):
        bad = tuple(int(i) for i in np.argwhere(arr != np.round(arr))[0])
        rows = arr.sum(axis=-1)
        hint = ""
        if np.allclose(rows, 1.0) or np.isclose(arr.sum(axis=(-2, -1)), 1.0).all():
            hint = (
                " (the table looks normalised: its rows or total sum to 1; pass the "
                "raw document counts, not proportions)"
            )
        raise ValueError(
            f"{name} must be whole-number document counts; got {arr[bad]:g} at index {bad}{hint}"
        )
    totals = arr.sum(axis=(-2, -1))
    if np.any(totals == 0):
        first = tuple(int(i) for i in np.argwhere(totals == 0)[0])
        where = f" at batch index {first}" if first else ""
        raise ValueError(
            f"{name} must count at least one document per matrix; got an all-zero table{where}"
        )
    return arr


def check_draws(draws: Any, name: str = "draws") -> int:
    """A positive whole number of posterior draws."""
    if isinstance(draws, bool) or not isinstance(draws, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 1; got {describe(draws)}")
    if draws < 1:
        raise ValueError(f"{name} must be an integer >= 1; got {draws}")
    return int(draws)


def check_prob(prob: Any, name: str) -> float:
    """A probability strictly between 0 and 1."""
    if isinstance(prob, bool) or not isinstance(prob, numbers.Real):
        raise TypeError(
            f"{name} must be a number in the open interval (0, 1); got {describe(prob)}"
        )
    if not 0.0 < float(prob) < 1.0:
        raise ValueError(f"{name} must be in the open interval (0, 1); got {prob!r}")
    return float(prob)


def check_ref(ref: Any, name: str = "ref") -> float | None:
    """An optional finite reference value (None means no reference)."""
    if ref is None:
        return None
    if isinstance(ref, bool) or not isinstance(ref, numbers.Real):
        raise TypeError(f"{name} must be a finite number or None; got {describe(ref)}")
    if not np.isfinite(float(ref)):
        raise ValueError(f"{name} must be a finite number or None; got {ref!r}")
    return float(ref)


def check_dtype(dtype: Any, name: str = "dtype") -> np.dtype:
    """float64 or float32."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(
            f"{name} must be numpy.float64 or numpy.float32; got {describe(dtype)}"
        ) from None
    if dt not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(f"{name} must be numpy.float64 or numpy.float32; got {dt}")
    return dt


def check_rng(rng: Any, name: str = "rng") -> np.random.SeedSequence:
    """Turn ``rng`` into the root :class:`numpy.random.SeedSequence` of a computation.

    ``None``, an int or a SeedSequence goes through :func:`numpy.random.default_rng`
    and its seed sequence is used. A Generator is advanced: four 63-bit words
    drawn from it seed the root, so repeated calls with one Generator differ,
    as with any consumer of a Generator.
    """
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(rng.integers(0, 2**63, size=4).tolist())
    if isinstance(rng, bool) or not (
        rng is None or isinstance(rng, (numbers.Integral, np.random.SeedSequence))
    ):
        raise TypeError(
            f"{name} must be None, an int, a numpy.random.SeedSequence or a "
            f"numpy.random.Generator; got {describe(rng)}"
        )
    if isinstance(rng, numbers.Integral) and rng < 0:
        raise ValueError(f"{name} must be a non-negative integer seed; got {rng}")
    seq = np.random.default_rng(
        None if rng is None else rng if isinstance(rng, np.random.SeedSequence) else int(rng)
    ).bit_generator.seed_seq
    assert isinstance(seq, np.random.SeedSequence)
    return seq


def child_seed(root: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """The stream ``SeedSequence(root.entropy, spawn_key=root.spawn_key + key)``.

    Derived from the root's entropy and spawn key only, so ``root`` is never
    consumed (``root.spawn`` would advance it, and a second call with the same
    root would get other children); the same root and key give the same stream.
    """
    return np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, *key), pool_size=root.pool_size
    )


def check_choice(value: Any, name: str, allowed: Sequence[Any]) -> Any:
    """One of a fixed set of options."""
    if value not in allowed or isinstance(value, bool) and True not in allowed:
        shown = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{name} must be one of {shown}; got {describe(value)}")
    return value


def check_labels(labels: Any, m: int, name: str = "labels") -> np.ndarray | None:
    """Optional sequence of distinct class indices in ``[0, m)``."""
    if labels is None:
        return None
    arr = np.asarray(labels)
    if arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(
            f"{name} must be a non-empty 1-D sequence of class indices (integers in "
            f"[0, {m})); got {describe(labels)}"
        )
    if arr.min() < 0 or arr.max() >= m:
        raise ValueError(f"{name} must be class indices in [0, {m}); got {arr.tolist()}")
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{name} must not repeat a class; got {arr.tolist()}")
    return arr.astype(np.intp)


def check_zero_division(value: Any, name: str = "zero_division") -> float | str:
    """scikit-learn's ``zero_division``: "warn", 0, 1 or nan."""
    if isinstance(value, str):
        if value != "warn":
            raise ValueError(f'{name} must be "warn", 0, 1 or numpy.nan; got {value!r}')
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if np.isnan(float(value)) or value in (0, 1):
            return float(value)
    raise ValueError(f'{name} must be "warn", 0, 1 or numpy.nan; got {describe(value)}')


def check_table(table: Any, name: str = "table") -> np.ndarray:
    """A table of non-negative finite numbers of shape ``(..., M, M)``.

    Counts or probabilities: unlike :func:`check_counts`, whole numbers are
    not required, and all-zero tables are allowed (their scores follow
    ``zero_division``).
    """
    arr = _as_numeric_array(table, name)
    if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2] or arr.shape[-1] < 1:
        raise ValueError(
            f"{name} must have shape (..., M, M) with M >= 1 (rows = true class, "
            f"columns = predicted class); got shape {arr.shape}"
        )
    if not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; got a NaN or infinite entry")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative; got minimum {arr.min():g}")
    return arr


def check_positive(value: Any, name: str) -> float:
    """A finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a finite number > 0; got {describe(value)}")
    if not (np.isfinite(float(value)) and float(value) > 0):
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return float(value)


def check_indicator(
    y: Any, name: str, shape: tuple[int, ...] | None = None, like: str = ""
) -> np.ndarray:
    """0/1 indicators as bool: a ``(D, L)`` matrix (documents x labels), or exactly ``shape``.

    Accepts booleans, integers, and floats equal to 0 or 1; rejects any other
    value (including NaN), other shapes and empty matrices. ``like`` names the
    argument whose shape ``shape`` is (for the message).
    """
    if isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be an array of 0/1 indicators; got {describe(y)}")
    try:
        arr = np.asarray(y)
    except ValueError:
        raise ValueError(
            f"{name} must be a rectangular array of 0/1 indicators; got ragged input"
        ) from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold 0/1 indicators as bools, integers or floats; got dtype "
            f"{arr.dtype} ({describe(y)})"
        )
    if shape is not None:
        if arr.shape != shape:
            raise ValueError(
                f"{name} must have the same shape as {like}, {shape}; got shape {arr.shape}"
            )
    elif arr.ndim != 2 or 0 in arr.shape:
        raise ValueError(
            f"{name} must be a non-empty 0/1 indicator matrix of shape (D documents, L labels); "
            f"got shape {arr.shape}"
        )
    if arr.dtype.kind == "b":
        return arr
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name} must hold only 0 and 1; got {arr[idx].item()!r} at index {idx}")
    return arr == 1


def check_nonnegative(value: Any, name: str) -> float:
    """A finite number >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a finite number >= 0; got {describe(value)}")
    if not (np.isfinite(float(value)) and float(value) >= 0):
        raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")
    return float(value)


def check_flag(value: Any, name: str) -> bool:
    """A true/false switch (Python or numpy bool, not 0/1 or a string)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {describe(value)}")
    return bool(value)


def check_class_names(labels: Any, m: int, name: str = "labels") -> list[Any] | None:
    """Optional display labels of the ``m`` classes: a sequence (not a string) of length ``m``."""
    if labels is None:
        return None
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
        raise TypeError(
            f"{name} must be a sequence of {m} class labels (a list, not a string); got "
            f"{describe(labels)}"
        )
    out = list(labels)
    if len(out) != m:
        raise ValueError(
            f"{name} must give one label per class ({m}, one per row of counts); got "
            f"{len(out)}: {describe(out)}"
        )
    return out


def check_workers(workers: Any, name: str = "workers") -> int:
    """Number of threads: None (every core, ``os.cpu_count()``) or an integer >= 1."""
    if workers is None:
        import os

        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral):
        raise TypeError(f"{name} must be None or an integer >= 1; got {describe(workers)}")
    if workers < 1:
        raise ValueError(f"{name} must be None or an integer >= 1; got {workers}")
    return int(workers)


#: Default byte budget of the batch engine's working arrays (256 MiB).
DEFAULT_MAX_MEMORY = 256 << 20
#: Smallest accepted budget (1 MiB): below it chunks would be a few draws each.
MIN_MAX_MEMORY = 1 << 20


def check_max_memory(max_memory: Any, name: str = "max_memory") -> int:
    """Byte budget of working arrays: None (``DEFAULT_MAX_MEMORY``) or an integer >= 1 MiB."""
    if max_memory is None:
        return DEFAULT_MAX_MEMORY
    if isinstance(max_memory, bool) or not isinstance(max_memory, numbers.Integral):
        raise TypeError(
            f"{name} must be None or a number of bytes (an integer >= {MIN_MAX_MEMORY}); "
            f"got {describe(max_memory)}"
        )
    if max_memory < MIN_MAX_MEMORY:
        raise ValueError(
            f"{name} must be None or a number of bytes >= {MIN_MAX_MEMORY} (1 MiB); "
            f"got {max_memory}"
        )
    return int(max_memory)


def check_index_offset(index_offset: Any, name: str = "index_offset") -> int:
    """Flat batch index of a first matrix: an integer >= 0."""
    if isinstance(index_offset, bool) or not isinstance(index_offset, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 0; got {describe(index_offset)}")
    if index_offset < 0:
        raise ValueError(f"{name} must be an integer >= 0; got {index_offset}")
    return int(index_offset)


def check_metric_names(metrics: Any, allowed: Sequence[str], name: str = "metrics") -> list[str]:
    """A metric name or a non-empty sequence of distinct names from ``allowed``."""
    if isinstance(metrics, str):
        metrics = (metrics,)
    try:
        names = list(metrics)
    except TypeError:
        raise TypeError(
            f"{name} must be a metric name or a sequence of names; got {describe(metrics)}"
        ) from None
    if not names:
        raise ValueError(f"{name} must name at least one metric; got an empty sequence")
    for n in names:
        if not isinstance(n, str) or n not in allowed:
            raise ValueError(f"{name} must be names from {', '.join(allowed)}; got {describe(n)}")
    if len(set(names)) != len(names):
        raise ValueError(f"{name} must not repeat a name; got {names}")
    return names


def check_scores(
    scores: Any, name: str = "scores", shape: tuple[int, ...] | None = None, like: str = ""
) -> np.ndarray:
    """Finite real scores as float64: shape ``(n,)`` or ``(D, L)``, or exactly ``shape``.

    ``like`` names the argument whose shape ``shape`` is (for the message).
    """
    if isinstance(scores, (str, bytes)):
        raise TypeError(f"{name} must be an array of real numbers; got {describe(scores)}")
    try:
        arr = np.asarray(scores)
    except ValueError:
        raise ValueError(
            f"{name} must be a rectangular array of numbers; got ragged input"
        ) from None
    if arr.dtype.kind not in "iuf":
        raise TypeError(
            f"{name} must hold integers or floats; got dtype {arr.dtype} ({describe(scores)})"
        )
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have the shape of {like}, {shape}; got shape {arr.shape}")
    if arr.ndim not in (1, 2) or 0 in arr.shape:
        raise ValueError(
            f"{name} must be a non-empty array of shape (n,) or (D documents, L labels); "
            f"got shape {arr.shape}"
        )
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        idx = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(f"{name} must be finite (no NaN or inf); got {arr[idx]} at index {idx}")
    return arr
