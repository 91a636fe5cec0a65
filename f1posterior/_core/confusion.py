"""The type of a labelled confusion matrix (built by :mod:`f1posterior.metrics._confusion`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .results import value_equality


@value_equality
@dataclass(frozen=True, eq=False)
class ConfusionMatrix:
    """Counts of single-label predictions and the order of their labels.

    Unpacks as a pair: ``counts, labels = confusion_matrix(y_true, y_pred)``.

    Attributes
    ----------
    counts : ndarray of int64, shape (M, M)
        ``counts[j, k]`` = documents of true label ``labels[j]`` predicted as
        ``labels[k]``.
    labels : list
        The labels of the rows and columns, in order (Python scalars for
        numeric and string labels).

    See Also
    --------
    f1posterior.confusion_matrix : Build one from labels.
    f1posterior.evaluate : Posterior summaries of its metrics.

    Examples
    --------
    >>> from f1posterior import confusion_matrix
    >>> m = confusion_matrix(["a", "b", "a"], ["a", "a", "a"])
    >>> m.labels, m.counts.tolist()
    (['a', 'b'], [[2, 0], [1, 0]])
    """

    counts: np.ndarray
    labels: list[Any]

    def __iter__(self) -> Iterator[Any]:
        yield self.counts
        yield self.labels

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """The counts as an array, so ``np.asarray(cm)`` and numpy functions take the matrix.

        Examples
        --------
        >>> cm = ConfusionMatrix(np.array([[3, 1], [0, 2]]), ["a", "b"])
        >>> np.asarray(cm).sum(), np.trace(cm)
        (np.int64(6), np.int64(5))
        """
        if copy is False and dtype is not None and np.dtype(dtype) != self.counts.dtype:
            raise ValueError("copy=False: the counts cannot be converted without a copy")
        out = self.counts if dtype is None else self.counts.astype(dtype, copy=False)
        if copy:
            return out.copy()
        view = out.view()
        view.flags.writeable = False  # the matrix is frozen: no write through the array
        return view
