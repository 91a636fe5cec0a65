"""The type of a labelled confusion matrix (built by :mod:`f1posterior.metrics.confusion`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .results import value_equality


@value_equality
@dataclass(frozen=True)
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
    """

    counts: np.ndarray
    labels: list[Any]

    def __iter__(self) -> Iterator[Any]:
        yield self.counts
        yield self.labels
