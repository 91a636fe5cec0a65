"""Checks of the gate's arguments, and `Check` objects built from posterior draws
(floors and baselines)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._core.describe import describe
from .._core.validation import check_counts, check_prob, did_you_mean
from ..metrics.registry import METRIC_RANGES, METRICS
from ..posterior.multilabel import MULTILABEL_METRICS, check_tables
from ..posterior.summary import MetricSummary
from ..posterior.summary import hdi as sample_hdi
from .draws import (
    _noise,
)
from .verdicts import Check, _verdict

#: Metrics of a multi-label gate (``multilabel=True``): scores, higher is better.
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


def _check_metric_name(name: Any, arg: str, known: Sequence[str] = tuple(METRICS)) -> str:
    if isinstance(name, str) and name in LOWER_IS_BETTER and name in known:
        raise ValueError(
            f"{arg}: {name} is lower-is-better and a gate checks floors and drops of scores; "
            f"gate {LOWER_IS_BETTER[name]} instead; got {name!r}"
        )
    if name == "hamming_loss" and known is GATE_MULTILABEL_METRICS:
        raise ValueError(
            f"{arg}: hamming_loss is a loss (lower is better) and a gate checks floors of "
            f"scores; gate one of {', '.join(known)}"
        )
    if not isinstance(name, str) or name not in known:
        raise ValueError(
            f"{arg} must name known metrics ({', '.join(known)}); got {describe(name)}"
            + did_you_mean(name, list(known))
        )
    return name


def _check_threshold(value: Any, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in [{low:g}, {high:g}]; got {describe(value)}")
    v = float(value)
    if not (low <= v <= high and math.isfinite(v)):
        raise ValueError(f"{name} must be a number in [{low:g}, {high:g}]; got {value!r}")
    return v


def _check_minimums(
    minimums: Any, known: Sequence[str] = tuple(METRICS)
) -> list[tuple[str, float]]:
    if minimums is None:
        return []
    items = list(minimums.items()) if isinstance(minimums, Mapping) else minimums
    try:
        pairs = [(m, t) for m, t in items]
    except (TypeError, ValueError):
        raise TypeError(
            "minimums must be a mapping or a sequence of (metric, threshold) pairs; got "
            f"{describe(minimums)}"
        ) from None
    return [
        (
            _check_metric_name(m, "minimums", known),
            _check_threshold(t, f"minimums[{m!r}]", *METRIC_RANGES.get(m, (0.0, 1.0))),
        )
        for m, t in pairs
    ]


def _check_gate_args(
    counts: Any,
    minimums: Any,
    baseline: Any,
    compare: Any,
    max_drop: Any,
    prob: Any,
    names: Any,
    multilabel: bool = False,
) -> tuple[np.ndarray, list[tuple[str, float]], np.ndarray | None, list[str], float, float]:
    if not isinstance(multilabel, bool):
        raise TypeError(f"multilabel must be True or False; got {describe(multilabel)}")
    known: Sequence[str] = GATE_MULTILABEL_METRICS if multilabel else tuple(METRICS)
    core = 3 if multilabel else 2  # trailing axes of one input: (L, 2, 2) or (M, M)
    if multilabel:
        c = check_tables(counts, "counts")
        base = None if baseline is None else check_tables(baseline, "baseline")
    else:
        c = check_counts(counts)
        base = None if baseline is None else check_counts(baseline, "baseline")
    mins = _check_minimums(minimums, known)
    if multilabel and base is not None and base.shape[-3] != c.shape[-3]:
        raise ValueError(
            f"baseline must have the {c.shape[-3]} labels of counts: tables of shape "
            f"(..., {c.shape[-3]}, 2, 2); got shape {base.shape}"
        )
    if base is not None and base.shape[-1] != c.shape[-1]:
        raise ValueError(
            f"baseline must have the classes of counts: {c.shape[-1]} x {c.shape[-1]}; got "
            f"shape {base.shape}"
        )
    if base is not None:
        try:
            np.broadcast_shapes(base.shape, c.shape)
        except ValueError:
            raise ValueError(
                f"baseline must be one matrix or a batch like counts {c.shape}; got shape "
                f"{base.shape}"
            ) from None
    if compare is None:
        comp = ["micro_f1"] if base is not None else []
    else:
        if isinstance(compare, str):
            compare = [compare]
        comp = [_check_metric_name(m, "compare", known) for m in compare]
        if comp and base is None:
            raise ValueError(f"compare needs a baseline; got compare={comp} and baseline=None")
    if len(set(comp)) != len(comp):
        raise ValueError(f"compare must not repeat a metric; got {comp}")
    if not mins and not comp:
        raise ValueError("a gate needs at least one check: give minimums and/or a baseline")
    drop = _check_threshold(max_drop, "max_drop", 0.0, 1.0)
    p = check_prob(prob, "prob")
    if not p > 0.5:
        raise ValueError(
            f"prob must be in (0.5, 1): a check passes when P(condition) >= prob and fails "
            f"when P(opposite) >= prob, which only exclude each other above 0.5; got {prob!r}"
        )
    if names is not None:
        batch = np.broadcast_shapes(c.shape, base.shape if base is not None else c.shape)[:-core]
        if len(batch) != 1 or len(names) != batch[0]:
            raise ValueError(
                f"names must name each matrix of a 1-D batch; got {len(names)} names for batch "
                f"shape {batch}"
            )
    return c, mins, base, comp, drop, p


def _items(
    shape: tuple[int, ...],
    n_batch: int,
    per_class: bool,
    labels: Any,
    names: Any,
    unit: str = "class",
) -> list[tuple[tuple[int, ...], str]]:
    out = []
    for idx in np.ndindex(*shape):
        parts = []
        bidx = idx[:n_batch]
        if bidx:
            parts.append(str(names[bidx[0]]) if names is not None else ",".join(map(str, bidx)))
        if per_class:
            k = idx[-1]
            parts.append(f"{unit} {labels[k] if labels is not None else k}")
        out.append((idx, " ".join(parts)))
    return out


def _make_check(
    kind: str,
    metric: str,
    item: str,
    threshold: float,
    pr: float,
    required: float,
    score: Any,
    interval: Any,
    ci_prob: float,
    is_exact: bool,
    draws: int,
    model: str,
    prior_dominated: bool = False,
) -> Check:
    if is_exact:
        se, noisy, settle, n = 0.0, False, None, 0
    else:
        se, noisy, settle = _noise(pr, required, draws)
        n = draws
    return Check(
        kind=kind,
        metric=metric,
        item=item,
        threshold=threshold,
        prob=pr,
        required=required,
        verdict=_verdict(pr, required),
        score=float(score),
        hdi=(float(interval[0]), float(interval[1])),
        ci_prob=ci_prob,
        exact=is_exact,
        mc_error=se,
        draws=n,
        within_noise=noisy,
        draws_to_settle=settle,
        model=model,
        prior_dominated=prior_dominated,
    )


def dominated(*flags: Any) -> np.ndarray:
    """Prior-dominance flags broadcast to ``shape`` (the last argument): the OR of every
    :attr:`~f1posterior.MetricSummary.prior_dominated` given (None counts as False).

    Examples
    --------
    >>> dominated(True, None, (2,)).tolist()
    [True, True]
    >>> dominated(np.array([True, False]), False, (2,)).tolist()
    [True, False]
    """
    *values, shape = flags
    out = np.zeros(shape, dtype=bool)
    for v in values:
        if v is not None:
            out |= np.broadcast_to(np.asarray(v, dtype=bool), shape)
    return out


def with_prior_flags(s: MetricSummary, name: str, tables: np.ndarray) -> MetricSummary:
    """``s`` with ``prior_dominated`` filled by
    :func:`f1posterior.posterior.assemble.check_prior_dominance` when its evaluation left
    it empty (multi-label summaries): the shift of the posterior mean from the observed
    score, in posterior SDs (no single-label margins: every label has both classes)."""
    if s.prior_dominated is not None:
        return s
    from ..posterior.assemble import check_prior_dominance

    def own(table: np.ndarray) -> Any:  # not a single-label metric: no margin checks
        raise NotImplementedError

    return check_prior_dominance({name: s}, {name: own}, tables)[name]


def _baseline_checks(
    name: str,
    drop: float,
    pr: np.ndarray,
    diff: np.ndarray,
    score: Any,
    items: Any,
    p: float,
    hp: float,
    draws: int,
    model: str,
    prior_dominated: Any = None,
) -> list[Check]:
    """One "baseline" check per item: P(new - base >= -drop) in ``pr``, draws ``diff``
    (``prior_dominated``: flags of the difference, either model's; see :func:`dominated`)."""
    interval = sample_hdi(diff, hp)
    score = np.broadcast_to(score, pr.shape)
    flags = dominated(prior_dominated, pr.shape)
    return [
        _make_check(
            "baseline",
            name,
            item,
            0.0 - drop,
            float(pr[idx]),
            p,
            score[idx],
            interval[idx],
            hp,
            False,
            draws,
            model,
            bool(flags[idx]),
        )
        for idx, item in items
    ]


def _floor_checks(
    name: str,
    t: float,
    pr: np.ndarray,
    s: MetricSummary,
    items: Any,
    p: float,
    hp: float,
    draws: int,
    cls: tuple[np.ndarray, int | None, bool, str] | None = None,
) -> list[Check]:
    """One "min" check per (matrix, class or label) item: P(metric >= t) in ``pr``.

    ``cls`` (per-class floors): the support per class, ``min_support``,
    ``joint`` and the unit ("class" or "label"); each check carries its
    class's support and is skipped below ``min_support``.
    """
    flags = dominated(s.prior_dominated, pr.shape)
    checks = [
        _make_check(
            "min",
            name,
            item,
            t,
            float(pr[idx]),
            p,
            np.asarray(s.score)[idx],
            np.asarray(s.hdi)[idx],
            hp,
            s.exact,
            draws,
            "",
            bool(flags[idx]),
        )
        for idx, item in items
    ]
    if cls is None:
        return checks
    from .classes import with_support

    support = np.broadcast_to(cls[0], pr.shape)
    return [
        with_support(c, int(support[idx]), cls[1], cls[3])
        for c, (idx, _) in zip(checks, items, strict=True)
    ]
