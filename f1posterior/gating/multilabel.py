"""The gate on multi-label tables: per-label and micro checks from label posteriors."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.priors import resolve
from .._core.streams import child_seed, run_seed
from ..posterior.multilabel import PER_LABEL_METRICS
from .checks import (
    _baseline_checks,
    _floor_checks,
    _items,
    _make_check,
    dominated,
    with_prior_flags,
)
from .draws import (
    _difference_draws,
)
from .verdicts import Check, GateResult


def _gate_multilabel(
    c: np.ndarray,
    mins: list[tuple[str, float]],
    base: np.ndarray | None,
    comp: list[str],
    drop: float,
    p: float,
    draws: int,
    alpha: Any,
    beta: Any,
    root: np.random.SeedSequence,
    hp: float,
    labels: Any,
    names: Any,
    f_beta: float,
    source: str | None,
    baseline_source: str | None,
    cls: tuple[np.ndarray, int | None, bool, str],
) -> GateResult:
    """:func:`gate` of per-label tables ``(*batch, L, 2, 2)`` (arguments validated).

    Floors: one :func:`evaluate_multilabel` run per distinct threshold ``T``
    with ``ref=T``, so that sampled probabilities come from the summaries
    (``P(metric >= T) = 1 - p_below``) and memory stays bounded whatever
    ``L``; exact per-label floors use the closed form's survival function.
    Baseline checks need the metric draws of both tables.
    """
    from ..posterior.multilabel import evaluate_multilabel, label_posterior

    kw: dict[str, Any] = dict(
        draws=draws, alpha=alpha, beta=beta, ci_prob=hp, labels=labels, f_beta=f_beta
    )
    from .classes import joint_checks

    joint = [n for n in dict.fromkeys(n for n, _ in mins) if cls[2] and n in PER_LABEL_METRICS]
    joint_ev = None
    if joint:
        joint_ev = evaluate_multilabel(c, metrics=joint, rng=root, keep_draws=True, **kw)
    by_threshold: dict[float, list[str]] = {}
    for name, t in mins:
        if name in joint:
            continue
        listed = by_threshold.setdefault(t, [])
        if name not in listed:
            listed.append(name)
    at = {
        t: evaluate_multilabel(c, metrics=ns, ref=t, rng=root, **kw)
        for t, ns in by_threshold.items()
    }
    a = resolve(alpha, beta, c).alpha  # used by exact (aligned, Dirichlet) checks only
    n_batch = c.ndim - 3
    lab = None if labels is None else [str(x) for x in labels]
    checks: list[Check] = []
    for name, t in mins:
        if joint_ev is not None and name in joint:
            assert joint_ev.metric_draws is not None
            checks += joint_checks(
                _make_check, name, t, joint_ev.metric_draws[name],
                np.asarray(joint_ev[name].score), cls[0], cls[1], names, "label", p, hp, draws,
            )  # fmt: skip
            continue
        s = with_prior_flags(at[t][name], name, c)
        if s.exact:
            pr = np.asarray(label_posterior(a + c, name).sf(t))
        else:  # count of draws >= t, recovered exactly from p_below = count(< t) / draws
            below = np.rint(np.asarray(s.p_below) * draws)
            pr = (draws - below) / draws
        per_label = name in PER_LABEL_METRICS
        items = _items(pr.shape, n_batch, per_label, lab, names, "label")
        checks += _floor_checks(name, t, pr, s, items, p, hp, draws, cls if per_label else None)
    results = list(at.values()) + ([joint_ev] if joint_ev is not None else [])
    if base is not None:
        new_ev = evaluate_multilabel(c, metrics=comp, rng=root, keep_draws=True, **kw)
        base_ev = evaluate_multilabel(
            base, metrics=comp, rng=child_seed(root, 0), keep_draws=True, **kw
        )
        results.append(new_ev)
        for name in comp:
            diff, score, model = _difference_draws(new_ev, base_ev, name)
            pr = np.mean(diff >= -drop, axis=-1)
            per_label = name in PER_LABEL_METRICS
            items = _items(pr.shape, diff.ndim - 1 - per_label, per_label, lab, names, "label")
            flags = dominated(
                with_prior_flags(new_ev[name], name, c).prior_dominated,
                with_prior_flags(base_ev[name], name, base).prior_dominated,
                pr.shape,
            )
            checks += _baseline_checks(
                name, drop, pr, diff, score, items, p, hp, draws, model, flags
            )
    return GateResult(
        checks=tuple(checks),
        prior=results[0].prior,
        draws=results[0].draws,
        seed=run_seed(root),
        source=source,
        baseline_source=baseline_source,
    )
