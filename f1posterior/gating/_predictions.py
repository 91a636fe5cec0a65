"""Predictions given to :func:`f1posterior.gate` directly: ``y_true``, ``y_pred``, ...

``gate(y_true=..., y_pred=...)`` is ``gate(counts)`` with ``counts`` the
confusion matrix of the predictions (whose label order names the classes).
``baseline_pred=`` is the baseline model's predictions of the **same**
documents: the comparison is then paired (the paired model of
:func:`f1posterior.compare_predictions`). The two prediction sequences are
paired position by position, or with ``ids=`` and ``baseline_ids=`` by
document id (:func:`f1posterior.metrics.align_ids`: one to one).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.describe import describe

__all__ = ["resolve_predictions"]


def _given(**kw: Any) -> list[str]:
    return [k for k, v in kw.items() if v is not None]


def resolve_predictions(
    counts: Any,
    *,
    baseline: Any,
    labels: Any,
    y_true: Any,
    y_pred: Any,
    baseline_pred: Any,
    ids: Any,
    baseline_ids: Any,
    cluster: Any = None,
) -> tuple[Any, Any, Any, Any, Any]:
    """``(counts, baseline, paired, labels, clusters)`` for :func:`gate`, from counts or
    predictions.

    ``paired`` is ``(y_true, pred_new, pred_baseline)`` when both models' predictions
    are given, else None. ``clusters`` is the :class:`~f1posterior.ClusterTables` of
    ``cluster`` (one id per document of ``y_true``), else None.

    Raises
    ------
    TypeError
        Neither or both of ``counts`` and ``y_true``/``y_pred``; one of
        ``y_true``/``y_pred`` without the other; ``baseline_pred`` with
        ``baseline``; ``ids`` without ``baseline_ids`` or the other way round.
    ValueError
        Predictions of different lengths, ids that do not match one to one
        (from :func:`~f1posterior.metrics.align_ids`), and the errors of
        :func:`~f1posterior.metrics.confusion_matrix`.
    """
    preds = _given(y_true=y_true, y_pred=y_pred)
    extras = _given(
        baseline_pred=baseline_pred, ids=ids, baseline_ids=baseline_ids, cluster=cluster
    )
    if not preds:
        if counts is None:
            raise TypeError(
                "gate() needs the model's counts (a confusion matrix) or its predictions "
                "(y_true= and y_pred=); got neither"
            )
        if extras:
            raise TypeError(
                f"{extras[0]}= goes with predictions (y_true= and y_pred=); got counts instead"
            )
        return counts, baseline, None, labels, None
    if counts is not None:
        raise TypeError(
            "give either counts or predictions (y_true= and y_pred=), not both; got counts "
            f"{describe(counts)} and {' and '.join(p + '=' for p in preds)}"
        )
    if len(preds) == 1:
        missing = "y_pred" if preds[0] == "y_true" else "y_true"
        raise TypeError(f"{preds[0]}= needs {missing}= (the predictions of the same documents)")
    if baseline_pred is not None and baseline is not None:
        raise TypeError(
            "give either baseline= (counts) or baseline_pred= (predictions), not both; got both"
        )
    if (ids is None) != (baseline_ids is None):
        have, lack = ("ids", "baseline_ids") if ids is not None else ("baseline_ids", "ids")
        raise TypeError(
            f"{have}= pairs baseline_pred= with y_pred= by document id and needs {lack}= too "
            "(the ids of y_true/y_pred and of baseline_pred); without ids the predictions are "
            "paired position by position"
        )
    if baseline_ids is not None and baseline_pred is None:
        raise TypeError("ids= and baseline_ids= align baseline_pred=, which was not given")
    n = _length(y_true, "y_true")
    if baseline_pred is not None:
        nb = _length(baseline_pred, "baseline_pred")
        if ids is not None:
            from ..metrics import align_ids

            if _length(ids, "ids") != n:
                raise ValueError(
                    f"ids must give one id per document of y_true ({n}); got {_length(ids, 'ids')}"
                )
            if _length(baseline_ids, "baseline_ids") != nb:
                raise ValueError(
                    f"baseline_ids must give one id per document of baseline_pred ({nb}); got "
                    f"{_length(baseline_ids, 'baseline_ids')}"
                )
            perm = align_ids(ids, baseline_ids, name="ids", other_name="baseline_ids")
            listed = _as_list(baseline_pred)
            baseline_pred = [listed[i] for i in perm.tolist()]
        elif nb != n:
            raise ValueError(
                f"baseline_pred must predict the {n} documents of y_true, in the same order (or "
                f"give ids= and baseline_ids= to pair them by id); got {nb} predictions"
            )
    from ..metrics import confusion_matrix

    cm = confusion_matrix(y_true, y_pred, labels=labels)
    clusters = None
    if cluster is not None:
        from ..posterior import cluster_tables

        clusters = cluster_tables(y_true, y_pred, cluster, cm.labels)
    if baseline_pred is None:
        return cm.counts, baseline, None, cm.labels, clusters
    base_cm = confusion_matrix(y_true, baseline_pred, labels=cm.labels)
    pair = (_as_list(y_true), _as_list(y_pred), _as_list(baseline_pred))
    return cm.counts, base_cm.counts, pair, cm.labels, clusters


def _length(seq: Any, name: str) -> int:
    if isinstance(seq, (str, bytes)) or not hasattr(seq, "__len__"):
        raise TypeError(f"{name} must be a sequence, one entry per document; got {describe(seq)}")
    return len(seq)


def _as_list(seq: Any) -> list[Any]:
    return seq.tolist() if isinstance(seq, np.ndarray) else list(seq)
