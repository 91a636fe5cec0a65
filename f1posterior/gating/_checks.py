"""The checks of a gate as values: :class:`Floor`, :class:`JointFloor`, :class:`SliceFloor`
and :class:`NonInferiority`.

A check is a small frozen object that says what is required; :func:`f1posterior.gate`
(and :func:`f1posterior.gate_multilabel`) takes a list of them and returns one
verdict per metric, matrix and class. The checks validate their own fields;
whether a metric exists is checked by the gate, which knows the mode
(single-label or multi-label).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from .._core.describe import describe
from .._core.validation import check_min_support, did_you_mean
from ..metrics import (
    METRIC_RANGES,
    METRICS,
    MULTILABEL_METRICS,
    PER_CLASS_METRICS,
    PER_LABEL_METRICS,
)

__all__ = ["Floor", "JointFloor", "SliceFloor", "NonInferiority", "GateCheck"]

#: Metrics of a multi-label gate: scores, higher is better.
GATE_MULTILABEL_METRICS = tuple(m for m in MULTILABEL_METRICS if m != "hamming_loss")

#: Metrics where lower is better, and the score to gate instead (a gate checks floors).
LOWER_IS_BETTER = {
    "fpr": "specificity = 1 - fpr",
    "fnr": "recall = 1 - fnr",
    "fdr": "precision = 1 - fdr",
    "macro_fpr": "macro_specificity = 1 - macro_fpr",
    "macro_fnr": "macro_recall = 1 - macro_fnr",
    "macro_fdr": "macro_precision = 1 - macro_fdr",
    "negative_likelihood_ratio": "recall or specificity",
}


def per_class_metrics(multilabel: bool) -> Collection[str]:
    """The metrics whose floors are per class (per label): where ``min_support`` applies."""
    return PER_LABEL_METRICS if multilabel else PER_CLASS_METRICS - LOWER_IS_BETTER.keys()


def _number(value: Any, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in [{low:g}, {high:g}]; got {describe(value)}")
    v = float(value)
    if not (low <= v <= high and math.isfinite(v)):
        raise ValueError(f"{name} must be a number in [{low:g}, {high:g}]; got {value!r}")
    return v


def _metric(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must be a metric name (a string); got {describe(value)}")
    return value


def _check_floor(check: Any, kind: str, bounds: tuple[float, float] | None = None) -> None:
    """Check and set a floor's ``threshold`` (in ``bounds``, default the metric's range)
    and ``min_support``, naming the field as ``Kind('metric').field``."""
    m = _metric(check.metric, f"{kind}.metric")
    low, high = bounds or METRIC_RANGES.get(m, (0.0, 1.0))
    t = _number(check.threshold, f"{kind}({m!r}).threshold", low, high)
    object.__setattr__(check, "threshold", t)
    s = check_min_support(check.min_support, f"{kind}({m!r}).min_support")
    object.__setattr__(check, "min_support", s)


@dataclass(frozen=True)
class Floor:
    """A floor: PASS when P(metric >= threshold | data) >= the gate's ``prob``.

    A per-class metric (``f1``, ``precision``, ``recall``; per-label metrics of a
    multi-label gate) is one check per class.

    Parameters
    ----------
    metric : str
        A metric of :func:`f1posterior.evaluate` (of
        :func:`f1posterior.evaluate_multilabel` for :func:`f1posterior.gate_multilabel`).
    threshold : float
        The floor ``T``, in the metric's range (``[0, 1]`` for most).
    min_support : int, optional
        Per-class floors only: a class with fewer true documents (a label with
        fewer positive documents) is not judged; its check is "skipped" and the
        overall verdict ignores it. By default every class is judged.

    See Also
    --------
    JointFloor : One check that every class clears the floor.
    NonInferiority : A margin against a baseline model.
    f1posterior.gate : Runs the checks.

    Examples
    --------
    >>> from f1posterior import Floor, gate
    >>> gate([[40, 10], [5, 45]], [Floor("micro_f1", 0.75)], beta="aligned").verdict
    'pass'
    """

    metric: str
    threshold: float
    min_support: int | None = None

    def __post_init__(self) -> None:
        _check_floor(self, "Floor")


@dataclass(frozen=True)
class JointFloor:
    """One check that every class clears a floor: P(min over classes >= threshold | data).

    Estimated from the joint posterior draws (the fraction of draws in which
    the smallest per-class value clears the floor), so always sampled, with
    adaptive draws like any sampled check; the observed score and the HDI are
    those of the minimum over the judged classes. It PASSes when that
    probability is at least ``prob``. It FAILs only when a class is credibly
    below the floor, ``P(class < T) >= 1 - (1 - prob) / J`` over the ``J``
    judged classes (the bar of :class:`SliceFloor`'s slices), and the reason
    names it; the minimum's own ``P(some class < T)`` reaches ``prob`` with
    every class at the floor (see docs/ci-gate.md), so it does not FAIL.

    Parameters
    ----------
    metric : str
        A per-class metric (``f1``, ``precision``, ``recall``; per-label metrics
        of a multi-label gate).
    threshold : float
        The floor ``T`` in [0, 1].
    min_support : int, optional
        Leave out of the condition the classes with fewer true (positive)
        documents; when every class has fewer, the check is "skipped".

    See Also
    --------
    Floor : One check per class.
    f1posterior.gate : Runs the checks.

    Examples
    --------
    >>> from f1posterior import JointFloor, gate
    >>> res = gate([[40, 10], [5, 45]], [JointFloor("recall", 0.6)], draws=4_000)
    >>> res.checks[0].item, res.verdict
    ('every class', 'pass')
    """

    metric: str
    threshold: float
    min_support: int | None = None

    def __post_init__(self) -> None:
        _check_floor(self, "JointFloor", (0.0, 1.0))


@dataclass(frozen=True)
class SliceFloor:
    """Every slice at or above a floor: P(min over slices of metric >= threshold | data).

    The matrices of the gate's 1-D batch are the slices (``names=`` names
    them; on the command line ``--slice-col``). The check is one row per
    slice, ``P(metric >= T)`` of that slice, and one joint row, ``P(every
    judged slice >= T)``, the fraction of the joint draws in which no slice
    falls below the floor, all from the same draws. The slices' posteriors are
    independent (their documents are disjoint), so the joint probability is
    at most the smallest per-slice one; a gate that passed when every slice
    passed on its own would pass too often (see docs/slices.md). The FAIL
    side is shared: a slice row FAILs when ``P(metric < T) >= 1 - (1 - prob)
    / J`` over the ``J`` judged slices, and the joint row only when a slice
    row FAILs, so a FAIL names a slice below the floor.

    Parameters
    ----------
    metric : str
        A single-number metric of :func:`f1posterior.evaluate` (``micro_f1``,
        ``macro_f1``, ``accuracy``, ...).
    threshold : float
        The floor ``T``, in the metric's range.
    min_support : int, optional
        Slices with fewer documents are not judged: their rows are "skipped"
        with the reason, and the joint row leaves them out.

    See Also
    --------
    JointFloor : Every class of one matrix clears a floor.
    f1posterior.evaluate_slices : The slices' posteriors and table.

    Examples
    --------
    >>> from f1posterior import SliceFloor, gate
    >>> tables = [[[40, 2], [3, 45]], [[38, 4], [2, 41]]]
    >>> res = gate(tables, [SliceFloor("accuracy", 0.8)], names=["eu", "us"], draws=4_000)
    >>> [(c.item, c.verdict) for c in res.checks]
    [('slice eu', 'pass'), ('slice us', 'pass'), ('every slice', 'pass')]
    """

    metric: str
    threshold: float
    min_support: int | None = None

    def __post_init__(self) -> None:
        _check_floor(self, "SliceFloor")


@dataclass(frozen=True)
class NonInferiority:
    """A non-inferiority margin against the baseline: P(new - baseline >= -max_drop | data) >= prob.

    With ``relative=True`` the margin is a fraction of the baseline:
    P(new >= (1 - max_drop) * baseline | data) >= prob, the condition checked
    on each joint posterior draw of the two models.

    Parameters
    ----------
    metric : str
        The metric compared (per-class metrics: one check per class).
    max_drop : float, default 0
        The allowed drop ``D`` in [0, 1]; with 0 a model no different from its
        baseline is inconclusive. With ``relative=True`` the allowed drop as a
        fraction of the baseline's score, in [0, 1).
    relative : bool, default False
        Read ``max_drop`` as a relative drop (``f1posterior gate
        --max-relative-drop``); the check's verdict then reports the ratio
        new / baseline and its floor ``1 - max_drop``. Not for paired
        predictions (``baseline_pred=``), which take an absolute margin.

    See Also
    --------
    Floor : A floor on the model alone.
    f1posterior.gate : Runs the checks (``baseline=`` or ``baseline_pred=``).

    Examples
    --------
    >>> from f1posterior import NonInferiority, gate
    >>> cm = [[40, 10], [5, 45]]
    >>> gate(cm, [NonInferiority("micro_f1", 0.2)], baseline=cm, draws=4_000).verdict
    'pass'
    >>> rel = NonInferiority("micro_f1", 0.05, relative=True)  # new >= 0.95 x baseline
    >>> gate(cm, [rel], baseline=cm, draws=4_000).checks[0].condition
    'micro_f1: new / baseline >= 0.95'
    """

    metric: str
    max_drop: float = 0.0
    relative: bool = False

    def __post_init__(self) -> None:
        m = _metric(self.metric, "NonInferiority.metric")
        if not isinstance(self.relative, bool):
            raise TypeError(
                f"NonInferiority({m!r}).relative must be True or False; got "
                f"{describe(self.relative)}"
            )
        d = _number(self.max_drop, f"NonInferiority({m!r}).max_drop", 0.0, 1.0)
        if self.relative and d == 1.0:
            raise ValueError(
                f"NonInferiority({m!r}).max_drop must be a number in [0, 1) with relative=True "
                "(a relative drop of 1 allows any score); got 1.0"
            )
        object.__setattr__(self, "max_drop", d)


#: Any check of a gate.
GateCheck = Floor | JointFloor | SliceFloor | NonInferiority


def fail_bar(prob: float, judged: int) -> float:
    """``P(part < T)`` that FAILs "every part >= T": ``judged`` parts share ``1 - prob``.

    The one FAIL bar of a slice of a :class:`SliceFloor` and a class of a
    :class:`JointFloor` (Bonferroni): ``1 - (1 - prob) / judged``.
    """
    return 1.0 - (1.0 - prob) / judged


#: The check classes, for isinstance.
CHECK_TYPES = (Floor, JointFloor, SliceFloor, NonInferiority)


def check_metric_name(name: str, where: str, multilabel: bool = False) -> str:
    """``name`` if the gate of this mode can check it, else a ValueError naming ``where``."""
    known = GATE_MULTILABEL_METRICS if multilabel else tuple(METRICS)
    if name in LOWER_IS_BETTER and not multilabel:
        raise ValueError(
            f"{where}: {name} is lower-is-better and a gate checks floors and drops of scores; "
            f"gate {LOWER_IS_BETTER[name]} instead; got {name!r}"
        )
    if name == "hamming_loss" and multilabel:
        raise ValueError(
            f"{where}: hamming_loss is a loss (lower is better) and a gate checks floors of "
            f"scores; gate one of {', '.join(known)}"
        )
    if name not in known:
        raise ValueError(
            f"{where} must name a known metric ({', '.join(known)}); got {describe(name)}"
            + did_you_mean(name, list(known))
        )
    return name


def check_checks(checks: Any, multilabel: bool, baseline: bool) -> tuple[GateCheck, ...]:
    """The gate's ``checks``: a non-empty sequence of check objects valid in this mode."""
    if isinstance(checks, CHECK_TYPES):
        checks = [checks]
    if isinstance(checks, (str, bytes)) or not isinstance(checks, Sequence):
        raise TypeError(
            "checks must be a list of Floor, JointFloor, SliceFloor and NonInferiority objects; "
            "got "
            f"{describe(checks)}"
        )
    if not checks:
        raise ValueError("a gate needs at least one check; got checks=[]")
    per = per_class_metrics(multilabel)
    unit = "label" if multilabel else "class"
    for i, c in enumerate(checks):
        if not isinstance(c, CHECK_TYPES):
            raise TypeError(
                f"checks[{i}] must be a Floor, JointFloor, SliceFloor or NonInferiority; got "
                f"{describe(c)}"
            )
        check_metric_name(c.metric, f"checks[{i}].metric", multilabel)
        if isinstance(c, SliceFloor):
            check_slice_floor(c, i, multilabel)
            continue
        needs_per = isinstance(c, JointFloor) or getattr(c, "min_support", None) is not None
        if needs_per and c.metric not in per:
            what = "JointFloor" if isinstance(c, JointFloor) else "min_support"
            raise ValueError(
                f"checks[{i}]: {what} applies to per-{unit} metrics ({', '.join(sorted(per))}); "
                f"got {c.metric!r}"
            )
        if isinstance(c, NonInferiority) and not baseline:
            raise ValueError(
                f"checks[{i}]: NonInferiority({c.metric!r}) needs a baseline (baseline= or "
                "baseline_pred=); got none"
            )
    if baseline and not any(isinstance(c, NonInferiority) for c in checks):
        raise ValueError("a baseline is given but no NonInferiority check compares with it")
    return tuple(checks)


def check_slice_floor(c: SliceFloor, i: int, multilabel: bool) -> None:
    """A SliceFloor takes a single-number metric of a single-label gate."""
    if multilabel:
        raise ValueError(
            f"checks[{i}]: SliceFloor checks slices of a single-label gate (one confusion "
            "matrix per slice); got a multi-label gate"
        )
    if c.metric in PER_CLASS_METRICS:
        raise ValueError(
            f"checks[{i}]: SliceFloor takes a single-number metric (micro_f1, macro_f1, "
            f"accuracy, ...); for per-class floors of each slice use Floor; got {c.metric!r}"
        )
