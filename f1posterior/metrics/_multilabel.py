"""Multi-label metrics: the multi-class metric path on per-label 2 x 2 stacks.

Design notes: docs/design.md#metrics-multilabel
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping

import numpy as np

from ._divide import safe_divide
from ._multiclass import fbeta_values, precision_values, recall_values
from ._rates import rate

__all__ = [
    "PER_LABEL_METRICS",
    "AGGREGATE_METRICS",
    "MULTILABEL_METRICS",
    "label_metric",
    "term_names",
    "LabelTerms",
    "aggregate",
]

#: Per-label metrics (trailing label axis).
PER_LABEL_METRICS = ("f1", "fbeta", "precision", "recall", "jaccard")
#: Metrics across labels (one value per set of tables).
AGGREGATE_METRICS = (
    "micro_f1",
    "macro_f1",
    "weighted_f1",
    "micro_fbeta",
    "macro_fbeta",
    "weighted_fbeta",
    "micro_precision",
    "micro_recall",
    "macro_precision",
    "macro_recall",
    "hamming_loss",
    "micro_jaccard",
    "macro_jaccard",
)
#: Every multi-label metric name (``evaluate_multilabel``, the gate with ``multilabel``).
MULTILABEL_METRICS = AGGREGATE_METRICS + PER_LABEL_METRICS
_POSITIVE = slice(1, 2)  # the positive class of each label's table (a view, not a copy)
_Z = 0.0  # zero_division on counts: scikit-learn's default value, silently


def label_metric(t: np.ndarray, name: str, b2: float = 1.0) -> np.ndarray:
    """A per-label metric of ``(..., L, 2, 2)`` tables (no validation) -> ``(..., L)``.

    ``b2`` is ``f_beta ** 2`` for ``"fbeta"``. The multi-class function's value of
    class 1.

    Examples
    --------
    >>> t = np.array([[[5.0, 1.0], [2.0, 2.0]], [[3.0, 0.0], [1.0, 6.0]]])
    >>> label_metric(t, "f1").round(4)
    array([0.5714, 0.9231])
    """
    if name == "f1" or (name == "fbeta" and b2 == 1.0):
        out = fbeta_values(t, 1.0, None, _POSITIVE, _Z)
    elif name == "fbeta":
        out = fbeta_values(t, b2, None, _POSITIVE, _Z)
    elif name == "precision":
        out = precision_values(t, None, _POSITIVE, _Z)
    elif name == "recall":
        out = recall_values(t, None, _POSITIVE, _Z)
    else:
        out = rate(t, "jaccard", None, _POSITIVE, _Z)
    return out[..., 0]


#: The per-label metric whose mean (macro) or support-weighted sum (weighted) each
#: aggregate needs.
_MACRO = {
    "macro_f1": "f1",
    "macro_fbeta": "fbeta",
    "macro_precision": "precision",
    "macro_recall": "recall",
    "macro_jaccard": "jaccard",
}
_WEIGHTED = {"weighted_f1": "f1", "weighted_fbeta": "fbeta"}


def term_names(names: Collection[str]) -> list[str]:
    """The sums over labels that the aggregate metrics ``names`` need."""
    keys: list[str] = []
    for n in names:
        if n in _MACRO:
            keys.append(_MACRO[n])
        elif n in _WEIGHTED:
            keys += ["support", "w_" + _WEIGHTED[n]]
        elif n in AGGREGATE_METRICS:  # micro and hamming: the pooled table
            keys += ["tn", "fp", "fn", "tp"]
    return list(dict.fromkeys(keys))


class LabelTerms(Mapping[str, np.ndarray]):
    """Per-label terms ``(..., L)`` of ``(..., L, 2, 2)`` tables, to be summed over labels.

    Keys (see :func:`term_names`): the four cells ``tn``, ``fp``, ``fn``, ``tp``; the
    per-label metrics (for macro averages); ``support`` (``tp + fn``) and
    ``w_<metric>`` (support times the metric, for weighted averages). Each is computed
    on first access, once. ``b2`` is ``f_beta ** 2``.
    """

    def __init__(self, t: np.ndarray, b2: float = 1.0) -> None:
        self._t, self._b2 = t, b2
        self._done: dict[str, np.ndarray] = {}

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._done:
            self._done[key] = self._make(key)
        return self._done[key]

    def _make(self, key: str) -> np.ndarray:
        t = self._t
        cells = {"tn": (0, 0), "fp": (0, 1), "fn": (1, 0), "tp": (1, 1)}
        if key in cells:
            u, v = cells[key]
            return t[..., u, v]
        if key in PER_LABEL_METRICS:
            return label_metric(t, key, self._b2)
        if key == "support":
            return self["tp"] + self["fn"]
        if key.startswith("w_") and key[2:] in PER_LABEL_METRICS:
            return self["support"] * self[key[2:]]
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._done)

    def __len__(self) -> int:
        return len(self._done)


def aggregate(name: str, sums: dict[str, np.ndarray], n_labels: int, b2: float = 1.0) -> np.ndarray:
    """An across-label metric from the terms of :class:`LabelTerms` summed over labels.

    Examples
    --------
    >>> t = np.array([[[5.0, 1.0], [2.0, 2.0]], [[3.0, 0.0], [1.0, 6.0]]])
    >>> keys = term_names(["micro_f1", "macro_f1"])
    >>> terms = LabelTerms(t)
    >>> sums = {k: terms[k].sum(axis=-1) for k in keys}
    >>> [round(float(aggregate(n, sums, 2)), 4) for n in ("micro_f1", "macro_f1")]
    [0.8, 0.7473]
    """
    if name in _MACRO:
        return np.asarray(sums[_MACRO[name]] / n_labels)
    if name in _WEIGHTED:
        return safe_divide(sums["w_" + _WEIGHTED[name]], sums["support"])
    pooled = np.stack(
        [np.stack([sums["tn"], sums["fp"]], -1), np.stack([sums["fn"], sums["tp"]], -1)], -2
    )
    if name == "hamming_loss":
        return safe_divide(sums["fp"] + sums["fn"], pooled.sum(axis=(-2, -1)))
    return label_metric(pooled, name.removeprefix("micro_"), b2)
