"""Confusion matrices from predictions (numpy only; scikit-learn's semantics).

Design notes: docs/design.md#metrics-confusion
"""

from __future__ import annotations

import numbers
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.confusion import ConfusionMatrix
from .._core.describe import describe
from .._core.validation import check_indicator

__all__ = ["ConfusionMatrix", "align_ids", "confusion_matrix", "multilabel_confusion_matrix"]


def label_kind(arr: np.ndarray) -> str:
    """Label category of a 1-D array: "bool", "number", "str", "bytes" or "object".

    Booleans are their own kind: ``True`` and ``1`` are one dictionary key, so a
    bool ``y_true`` with number ``y_pred`` would silently be counted as one class.
    """
    k = arr.dtype.kind
    if k == "b":
        return "bool"
    if k in "iuf":
        return "number"
    if k == "U":
        return "str"
    if k == "S":
        return "bytes"
    if k == "O":
        kinds = set()
        for v in arr:
            if isinstance(v, (bool, np.bool_)):
                kinds.add("bool")
            elif isinstance(v, numbers.Number):
                kinds.add("number")
            elif isinstance(v, str):
                kinds.add("str")
            elif isinstance(v, bytes):
                kinds.add("bytes")
            else:
                kinds.add("object")
        if len(kinds) == 1:
            return kinds.pop()
        return "mixed:" + ",".join(sorted(kinds))
    raise TypeError(f"labels of dtype {arr.dtype} are not supported")


def label_array(y: Any, name: str) -> np.ndarray:
    """A 1-D array of labels; list input never silently coerces numbers to strings."""
    if isinstance(y, (str, bytes)) or not hasattr(y, "__iter__"):
        raise TypeError(f"{name} must be a 1-D sequence of labels; got {describe(y)}")
    if isinstance(y, np.ndarray):
        arr = y
    else:
        seq = list(y)
        ragged = False
        try:
            arr = np.asarray(seq)
        except ValueError:  # ragged nested sequences: tuples of different lengths
            arr, ragged = np.array([], dtype=object), True
        nested = any(isinstance(v, (list, np.ndarray)) for v in seq)
        if nested and ragged:  # lists or arrays: not one label per document
            raise ValueError(
                f"{name} must be a 1-D sequence of labels (one per document); got nested "
                f"sequences of different lengths: {describe(y)}"
            )
        # numpy reads [True, 1] as numbers: keep the elements so the mix is seen
        bools = arr.dtype.kind in "iuf" and any(isinstance(v, (bool, np.bool_)) for v in seq)
        if not nested and (arr.ndim != 1 or arr.dtype.kind in "USO" or bools):
            # strings, tuples or mixed objects: keep each element as it is
            arr = np.fromiter(seq, dtype=object, count=len(seq))
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D sequence of labels (one per document); got shape {arr.shape}"
        )
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"{name} must not contain NaN or infinite labels; got {describe(y)}")
    if arr.dtype.kind == "O":
        for v in arr:
            if isinstance(v, float) and not np.isfinite(v):
                raise ValueError(f"{name} must not contain NaN or infinite labels; got {v!r}")
    kind = label_kind(arr)
    if kind.startswith("mixed"):
        raise TypeError(
            f"{name} must hold labels of one type (all numbers, all strings, or other "
            f"hashables); got a mix ({kind[6:]})"
        )
    return arr


def label_codes(arr: np.ndarray, index: dict[Hashable, int], name: str) -> np.ndarray:
    """Position of each label of ``arr`` in ``index`` (-1 where absent)."""
    if arr.dtype.kind != "O":
        uniq, inv = np.unique(arr, return_inverse=True)
        lut = np.array([index.get(u, -1) for u in uniq.tolist()], dtype=np.intp)
        return lut[inv.reshape(-1)] if lut.size else np.full(arr.shape, -1, np.intp)
    out = np.empty(arr.shape, dtype=np.intp)
    try:
        for i, v in enumerate(arr):
            out[i] = index.get(v, -1)
    except TypeError:
        raise TypeError(
            f"{name} must hold hashable labels; got {describe(arr[i])} at position {i}"
        ) from None
    return out


def _check_confusion_args(
    y_true: Any, y_pred: Any, labels: Any
) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    t = label_array(y_true, "y_true")
    p = label_array(y_pred, "y_pred")
    if t.shape[0] != p.shape[0]:
        raise ValueError(
            f"y_true and y_pred must have one label per document each; got {t.shape[0]} "
            f"and {p.shape[0]} labels"
        )
    if t.shape[0] == 0:
        raise ValueError("y_true must hold at least one document; got 0 labels")
    kt, kp = label_kind(t), label_kind(p)
    if kt != kp:
        raise TypeError(
            f"y_true and y_pred must hold labels of the same type; got {kt} labels in y_true "
            f"and {kp} labels in y_pred"
        )
    if labels is None:
        if t.dtype.kind != "O" and p.dtype.kind != "O":
            lab = np.unique(np.concatenate([t, p])).tolist()
        else:
            try:
                found = set(t.tolist()) | set(p.tolist())
            except TypeError:
                raise TypeError("y_true and y_pred must hold hashable labels") from None
            try:
                lab = sorted(found)
            except TypeError:
                raise TypeError(
                    "labels cannot be sorted (they do not support <); pass labels= to give "
                    f"their order; found {describe(list(found))}"
                ) from None
        return t, p, lab
    if isinstance(labels, (str, bytes)):
        raise TypeError(f"labels must be a sequence of labels or None; got {describe(labels)}")
    try:
        lab = list(labels)
    except TypeError:
        raise TypeError(
            f"labels must be a sequence of labels or None; got {describe(labels)}"
        ) from None
    if not lab:
        raise ValueError("labels must contain at least one label; got an empty sequence")
    try:
        distinct = len(set(lab)) == len(lab)
    except TypeError:
        raise TypeError(f"labels must be hashable; got {describe(lab)}") from None
    if not distinct:
        raise ValueError(f"labels must not repeat a label; got {describe(lab)}")
    return t, p, [v.item() if isinstance(v, np.generic) else v for v in lab]


def confusion_matrix(
    y_true: ArrayLike | Sequence[Any],
    y_pred: ArrayLike | Sequence[Any],
    labels: Sequence[Any] | None = None,
) -> ConfusionMatrix:
    """Confusion matrix of single-label predictions, with its label order.

    ``counts[j, k]`` is the number of documents whose true label is
    ``labels[j]`` and predicted label is ``labels[k]``. Equal to
    ``sklearn.metrics.confusion_matrix(y_true, y_pred, labels=labels)``:

    - ``labels=None``: the sorted union of the labels seen in ``y_true`` and
      ``y_pred``;
    - ``labels`` given: rows and columns in that order; labels never seen
      give rows/columns of zeros, and documents whose true or predicted label
      is not in ``labels`` are not counted. At least one of ``labels`` must
      occur in ``y_true``.

    Differences from scikit-learn (deliberate): repeated ``labels`` are an
    error (scikit-learn returns an all-zero row for the first copy); labels of
    any hashable type are accepted (tuples, enums, ...), and unorderable
    labels only need ``labels=`` to fix the order; ``sample_weight`` and
    ``normalize`` are not offered.

    Parameters
    ----------
    y_true, y_pred : array_like, shape (D,)
        True and predicted label of each document: numbers, strings, or any
        hashables, the same kind in both.
    labels : sequence, optional
        Labels to count, in the order of the rows/columns.

    Returns
    -------
    ConfusionMatrix
        ``counts`` (int64, shape (M, M)) and ``labels`` (list of M labels);
        unpacks as ``counts, labels``.

    Raises
    ------
    ValueError
        Lengths differ, no documents, NaN labels, empty or repeated
        ``labels``, or no label of ``labels`` in ``y_true``.
    TypeError
        Labels of mixed kinds (numbers and strings), or unorderable labels
        without ``labels=``.

    See Also
    --------
    f1posterior.multilabel_confusion_matrix : Per-label tables of multi-label predictions.
    f1posterior.ConfusionMatrix : The result.
    f1posterior.evaluate : Its posterior metrics.

    Examples
    --------
    >>> y_true, y_pred = ["cat", "dog", "dog", "cat"], ["cat", "dog", "cat", "cat"]
    >>> counts, labels = confusion_matrix(y_true, y_pred)
    >>> labels
    ['cat', 'dog']
    >>> counts
    array([[2, 0],
           [1, 1]])
    >>> confusion_matrix([1, 2, 2], [1, 2, 3], labels=[3, 2, 1]).counts
    array([[0, 0, 0],
           [1, 1, 0],
           [0, 0, 1]])
    """
    t, p, lab = _check_confusion_args(y_true, y_pred, labels)
    index = {v: i for i, v in enumerate(lab)}
    ct, cp = label_codes(t, index, "y_true"), label_codes(p, index, "y_pred")
    if labels is not None and not (ct >= 0).any():
        raise ValueError(
            f"labels must include at least one label that occurs in y_true; got {describe(lab)}"
        )
    keep = (ct >= 0) & (cp >= 0)
    m = len(lab)
    flat = np.bincount(ct[keep] * m + cp[keep], minlength=m * m)
    return ConfusionMatrix(counts=flat.reshape(m, m).astype(np.int64), labels=lab)


def grouped_counts(
    y_true: Any, y_pred: Any, groups: np.ndarray, k: int, labels: Sequence[Any]
) -> np.ndarray:
    """One confusion matrix per group, ``(k, M, M)`` int64: group ``g`` counts the documents
    whose code in ``groups`` is ``g`` (0 to ``k - 1``), over the classes ``labels`` (as
    :func:`confusion_matrix` returns them); documents of other labels are not counted."""
    index = {v: i for i, v in enumerate(labels)}
    t = label_codes(label_array(y_true, "y_true"), index, "y_true")
    p = label_codes(label_array(y_pred, "y_pred"), index, "y_pred")
    keep = (t >= 0) & (p >= 0)
    m = len(labels)
    flat = np.bincount((groups[keep] * m + t[keep]) * m + p[keep], minlength=k * m * m)
    return flat.reshape(k, m, m).astype(np.int64)


def multilabel_confusion_matrix(y_true: ArrayLike, y_pred: ArrayLike) -> np.ndarray:
    """Per-label 2 x 2 confusion tables of multi-label indicator matrices.

    For label ``l``: ``tp`` = documents with ``y_true[:, l] = y_pred[:, l] = 1``,
    ``fp`` = predicted but not true, ``fn`` = true but not predicted, ``tn``
    = neither. Equal to ``sklearn.metrics.multilabel_confusion_matrix`` on
    multi-label indicator input (L >= 2). With one column (L = 1) scikit-learn
    reads the input as binary targets and returns two tables (one per class);
    here it is still one label's table.

    Parameters
    ----------
    y_true, y_pred : array_like of 0/1 or bool, shape (D, L)
        Indicator matrices: ``Y[d, l] = 1`` when document ``d`` has (is
        predicted to have) label ``l``. Integers, floats equal to 0 or 1, or
        booleans; dense arrays only.

    Returns
    -------
    ndarray of int64, shape (L, 2, 2)
        ``[[tn, fp], [fn, tp]]`` per label: rows are truth (0, 1), columns
        predictions (0, 1) -- the layout :func:`f1posterior.evaluate_multilabel`
        reads.

    See Also
    --------
    f1posterior.confusion_matrix : Single-label predictions.
    f1posterior.evaluate_multilabel : Posterior metrics of the tables.

    Examples
    --------
    >>> multilabel_confusion_matrix([[1, 0], [0, 1], [1, 1]], [[1, 0], [1, 1], [0, 1]])
    array([[[0, 1],
            [1, 1]],
    <BLANKLINE>
           [[1, 0],
            [0, 2]]])
    """
    t = check_indicator(y_true, "y_true")
    p = check_indicator(y_pred, "y_pred")
    if t.shape != p.shape:
        raise ValueError(
            f"y_true and y_pred must have the same shape (D documents, L labels); got "
            f"{t.shape} and {p.shape}"
        )
    d = t.shape[0]
    tp = np.count_nonzero(t & p, axis=0)
    n_true = np.count_nonzero(t, axis=0)
    n_pred = np.count_nonzero(p, axis=0)
    fn = n_true - tp
    fp = n_pred - tp
    tn = d - tp - fn - fp
    return np.stack([tn, fp, fn, tp], axis=-1).reshape(-1, 2, 2).astype(np.int64)


_SHOW_IDS = 5


def _show_ids(values: list[Any]) -> str:
    """Up to five ids, each echoed with ``repr`` (control characters escaped)."""
    shown = ", ".join(describe(v, 40) for v in values[:_SHOW_IDS])
    if len(values) > _SHOW_IDS:
        shown += f", ... ({len(values) - _SHOW_IDS} more)"
    return shown


def _id_list(ids: Any, name: str) -> list[Any]:
    """``ids`` as a list of hashable Python values, one per document."""
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
        raise TypeError(f"{name} must be a 1-D sequence of document ids; got {describe(ids)}")
    arr = ids if isinstance(ids, np.ndarray) else None
    if arr is not None and arr.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D sequence of document ids (one per document); got shape "
            f"{arr.shape}"
        )
    values = arr.tolist() if arr is not None else list(ids)
    if not values:
        raise ValueError(f"{name} must hold at least one document id; got 0 ids")
    for i, v in enumerate(values):
        if isinstance(v, float) and v != v:
            raise ValueError(f"{name} must not contain NaN ids; got NaN at position {i}")
        try:
            hash(v)
        except TypeError:
            raise TypeError(
                f"{name} must hold hashable document ids; got {describe(v)} at position {i}"
            ) from None
    return values


def _repeated(values: list[Any]) -> list[Any]:
    """Ids that occur more than once, in order of first occurrence."""
    return [v for v, n in Counter(values).items() if n > 1]


def align_ids(
    ids: ArrayLike | Sequence[Any],
    other_ids: ArrayLike | Sequence[Any],
    *,
    name: str = "ids",
    other_name: str = "baseline ids",
) -> np.ndarray:
    """Permutation that puts ``other_ids`` in the order of ``ids``.

    Pairs two predictions of the same documents listed in different row
    orders: with ``perm = align_ids(ids, other_ids)``,
    ``other_ids[perm]`` equals ``ids`` element by element, so
    ``other_pred[perm]`` is the other model's prediction for the documents
    in the order of ``ids``. The ids must match one to one: none may repeat
    on either side and every id must occur on both sides. Runs in linear
    time (one hash table).

    Parameters
    ----------
    ids, other_ids : array_like, shape (D,)
        Document ids (strings, numbers or any hashables), one per document.
        Ids compare as Python values: ``"1"`` and ``1`` are different ids.
    name, other_name : str, optional
        Names of the two sequences in error messages (for instance the
        files they come from).

    Returns
    -------
    ndarray of intp, shape (D,)
        ``perm`` such that ``other_ids[perm[i]] == ids[i]`` for every ``i``.

    Raises
    ------
    ValueError
        An id is repeated in ``ids`` or in ``other_ids``, or ids are
        missing on either side (up to five are named, with how many), or a
        sequence is empty, not 1-D, or holds NaN.
    TypeError
        ``ids`` or ``other_ids`` is not a sequence, or holds unhashable ids.

    Examples
    --------
    >>> import numpy as np
    >>> ids = ["d1", "d2", "d3"]
    >>> other_ids = np.array(["d3", "d1", "d2"])
    >>> perm = align_ids(ids, other_ids)
    >>> perm
    array([1, 2, 0])
    >>> other_ids[perm]
    array(['d1', 'd2', 'd3'], dtype='<U2')
    >>> align_ids(["a", "b"], ["a", "c"], name="new.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: new.csv and baseline ids must hold the same document ids, one to one; ...
    """
    a = _id_list(ids, name)
    b = _id_list(other_ids, other_name)
    for values, label in ((a, name), (b, other_name)):
        repeated = _repeated(values)
        if repeated:
            raise ValueError(
                f"{label} must not repeat a document id (ids must match one to one); "
                f"{len(repeated)} repeated id{'s' if len(repeated) > 1 else ''}: "
                f"{_show_ids(repeated)}"
            )
    index = {v: j for j, v in enumerate(b)}
    perm = np.fromiter((index.get(v, -1) for v in a), dtype=np.intp, count=len(a))
    if (perm < 0).any() or len(a) != len(b):
        in_a = set(a)
        gone_b = [v for v, j in zip(a, perm.tolist(), strict=True) if j < 0]
        gone_a = [v for v in b if v not in in_a]
        parts = []
        for gone, src, dst in ((gone_b, name, other_name), (gone_a, other_name, name)):
            if gone:
                n = len(gone)
                verb = "are" if n > 1 else "is"
                parts.append(
                    f"{n} id{'s' if n > 1 else ''} of {src} {verb} missing from {dst}: "
                    f"{_show_ids(gone)}"
                )
        raise ValueError(
            f"{name} and {other_name} must hold the same document ids, one to one; "
            + "; ".join(parts)
        )
    return perm
