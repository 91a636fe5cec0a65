"""Quality gates: pass a model only when its metrics are credibly good enough.

A gate is a list of checks, each a posterior probability compared with a
required probability ``prob`` (default 0.95):

``min``
    P(metric >= T | data) >= prob. For a per-class metric (``f1``,
    ``precision``, ``recall``) every class is checked: a per-class floor.
``baseline``
    P(metric(new) - metric(baseline) >= -D | data) >= prob, ``D`` the
    allowed drop (default 0). The two confusion matrices are treated as
    independent samples, so the two posteriors are independent (the
    ``model`` field says so; a paired model needs the predictions of both
    models on the same documents and slots in as another way of drawing the
    difference, see :func:`_difference_draws`).

Each check is PASS when P(condition) >= prob, FAIL when P(opposite) =
1 - P(condition) >= prob, and INCONCLUSIVE otherwise (``prob`` in (0.5, 1)).
Probabilities are exact where a closed form exists (aligned prior; see
:mod:`f1posterior.posterior.exact`) and Monte Carlo estimates otherwise. A fixed default
seed makes every verdict repeatable. A sampled probability within
``NOISE_SIGMAS`` Monte Carlo standard errors of ``prob`` or ``1 - prob`` is
never decided: the gate draws again (adaptive draws, doubling the total each
round from fresh streams derived from the seed, all rounds pooled) until it
is clear or ``max_draws`` is reached, and then it is INCONCLUSIVE with the
reason "within Monte Carlo noise at N draws".

:func:`gate` returns a :class:`GateResult` (text, JSON and Markdown
renderings); :func:`assert_gate` raises ``AssertionError`` with the same
verdict text, for test suites. The command line ``f1posterior gate`` is a
thin layer over :func:`gate`.

Multi-label classifiers (``gate(tables, multilabel=True, ...)``) are gated
the same way on their per-label 2 x 2 tables ``(*batch, L, 2, 2)`` with the
metrics of :func:`f1posterior.evaluate_multilabel`: a per-label metric
(``f1``, ``fbeta``, ``precision``, ``recall``, ``jaccard``) is a floor for
every label, exact under the aligned prior (except ``fbeta`` with
``f_beta != 1``). ``hamming_loss`` is a loss, not a score, and cannot be given
a floor.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.describe import describe
from .._core.labelled import labelled_counts
from .._core.priors import DEFAULT_PRIOR, PriorArg, resolve
from .._core.streams import DEFAULT_DRAWS, DEFAULT_SEED, child_seed, run_seed
from .._core.validation import (
    SeedLike,
    check_draws,
    check_positive,
    check_prob,
    check_rng,
)
from ..metrics.registry import PER_CLASS_METRICS
from ..posterior.evaluation import Evaluation, evaluate
from ..posterior.multilabel import PER_LABEL_METRICS
from .checks import (
    LOWER_IS_BETTER,
    _baseline_checks,
    _check_gate_args,
    _floor_checks,
    _items,
    _make_check,
    dominated,
)
from .draws import (
    _difference_draws,
    _noisy,
    _paired_difference,
    _resample,
    _settle,
)
from .multilabel import _gate_multilabel
from .verdicts import Check, GateResult

__all__ = [
    "DEFAULT_MAX_DRAWS",
    "MIN_DRAWS",
    "Check",
    "GateResult",
    "gate",
    "assert_gate",
]

#: Fewer draws than this are raised to it: there is never a verdict from a handful of draws.
MIN_DRAWS = 1_000
#: Default ceiling of the adaptive draws (``max_draws``, ``--max-draws``).
DEFAULT_MAX_DRAWS = 1_000_000
#: The largest ``max_draws`` accepted.
MAX_DRAWS_LIMIT = 100_000_000
#: Spawn-key word of the adaptive rounds' streams (``root.spawn_key + (ADAPT_KEY, round)``).
ADAPT_KEY = 0x61647074


# --- validation ----------------------------------------------------------------------


# --- probabilities --------------------------------------------------------------------


def gate(
    counts: ArrayLike | None = None,
    *,
    minimums: Mapping[str, float] | Sequence[tuple[str, float]] | None = None,
    baseline: ArrayLike | None = None,
    compare: str | Sequence[str] | None = None,
    max_drop: float = 0.0,
    prob: float = 0.95,
    draws: int = DEFAULT_DRAWS,
    alpha: PriorArg = DEFAULT_PRIOR,
    beta: PriorArg = DEFAULT_PRIOR,
    rng: SeedLike = DEFAULT_SEED,
    ci_prob: float = 0.95,
    labels: Sequence[Any] | None = None,
    names: Sequence[str] | None = None,
    source: str | None = None,
    baseline_source: str | None = None,
    paired: Sequence[Any] | None = None,
    multilabel: bool = False,
    f_beta: float = 1.0,
    max_draws: int = DEFAULT_MAX_DRAWS,
    min_support: int | None = None,
    joint: bool = False,
    y_true: Any = None,
    y_pred: Any = None,
    baseline_pred: Any = None,
    ids: Any = None,
    baseline_ids: Any = None,
) -> GateResult:
    """Three-state checks: PASS, FAIL or INCONCLUSIVE, for floors and for a baseline.

    Parameters
    ----------
    counts : array_like, shape (*batch, M, M), optional
        Confusion matrices of the model under test (rows = true class). Give
        either ``counts`` or the predictions ``y_true`` and ``y_pred``.
    minimums : mapping or sequence of (metric, T) pairs, optional
        Each check passes when P(metric >= T | data) >= ``prob``. A per-class
        metric (``f1``, ``precision``, ``recall``) is checked for every class.
    baseline : array_like, shape (M, M) or like ``counts``, optional
        Confusion matrix of the baseline (e.g. production) model, an
        independent sample.
    compare : str or sequence of str, optional
        Metrics compared with the baseline (default ``micro_f1`` when a
        baseline is given): each passes when P(new - baseline >= -max_drop) >= prob.
    max_drop : float, default 0
        Allowed drop ``D`` in [0, 1].
    prob : float, default 0.95
        Required posterior probability, in (0, 1).
    draws : int, default 50_000
        Posterior draws per matrix for probabilities without a closed form
        (values below :data:`MIN_DRAWS` are raised to it).
    max_draws : int, default 1_000_000
        Adaptive draws: while a sampled probability lies within
        :data:`f1posterior.gating.draws.NOISE_SIGMAS` Monte Carlo standard errors of ``prob`` or of
        ``1 - prob``, the gate draws again (doubling the total each round,
        from fresh streams derived from the seed, all rounds pooled) up to
        ``max_draws`` in all; a check still within noise then is
        INCONCLUSIVE, with the reason "within Monte Carlo noise at N draws".
    alpha, beta : prior
        As in :func:`f1posterior.evaluate`; with ``beta="aligned"`` the
        ``min`` checks of micro-F1, accuracy and per-class F1, precision and
        recall are exact.
    rng : None, int, SeedSequence or Generator, default DEFAULT_SEED
        A fixed default, so that a verdict never flips between runs.
    ci_prob : float, default 0.95
        Probability of the HDIs shown.
    labels : sequence, optional
        Class labels for per-class checks.
    names : sequence of str, optional
        Names of the matrices of a 1-D batch.
    source, baseline_source : str, optional
        Where the counts came from (shown in reports).
    paired : (y_true, pred_new, pred_baseline), optional
        Both models' predictions on the same documents, of which ``counts``
        and ``baseline`` are the confusion matrices. The baseline checks then
        use the paired model of :func:`f1posterior.compare_predictions`
        (single-number metrics only; ``alpha`` a number, each model's
        marginal prior), which is far more decisive than independent samples.
    multilabel : bool, default False
        ``counts`` (and ``baseline``) are per-label 2 x 2 tables of shape
        ``(*batch, L, 2, 2)``, ``[[tn, fp], [fn, tp]]`` per label, evaluated
        with :func:`f1posterior.evaluate_multilabel`; metric names from
        :data:`f1posterior.gating.checks.GATE_MULTILABEL_METRICS`, per-label metrics (``f1``,
        ``fbeta``, ``precision``, ``recall``, ``jaccard``) are floors for every
        label, ``labels`` names the labels. With ``beta="aligned"`` the
        per-label floors are exact (``fbeta`` only when ``f_beta`` is 1).
        Baseline checks use independent posteriors (``paired`` is not
        available); a per-label comparison holds ``L x draws`` draws per table.
    f_beta : float, default 1.0
        The ``beta`` of the multi-label F-beta metrics (``*_fbeta``,
        ``fbeta``); only with ``multilabel=True``.
    min_support : int, optional
        Per-class floors skip classes with fewer than ``min_support`` true
        documents (per-label floors: labels with fewer positive documents):
        their checks have verdict "skipped" with the reason, and the overall
        verdict ignores them. By default every class is judged, and a class
        (label) without true (positive) documents usually cannot pass.
        Needs a per-class floor.
    joint : bool, default False
        Turn the per-class floors of each metric into one check,
        P(every class >= T | data), from the joint posterior draws (always
        sampled; adaptive draws as for any sampled check); with
        ``min_support``, over the classes with enough documents. Needs a
        per-class floor. See :mod:`f1posterior.gating.classes`.
    y_true, y_pred : sequence, optional
        The model's predictions instead of ``counts``: true and predicted
        label per document (``multilabel=True``: ``(D, L)`` indicator
        matrices). ``counts`` is then their confusion matrix and ``labels``
        its label order (``labels=`` fixes it).
    baseline_pred : sequence, optional
        The baseline model's predictions of the same documents (instead of
        ``baseline``): the comparison is paired (see ``paired``).
    ids, baseline_ids : sequence, optional
        Document ids of ``y_true``/``y_pred`` and of ``baseline_pred``: the
        baseline predictions are paired with the model's by id, in any order
        (the ids must match one to one). Without them the predictions are
        paired position by position. See :mod:`f1posterior.gating.predictions`.

    Returns
    -------
    GateResult
        ``passed``, ``checks``, and text (``str``), ``to_dict`` and ``to_markdown``.

    Examples
    --------
    >>> res = gate([[40, 10], [5, 45]], minimums={"micro_f1": 0.75}, beta="aligned")
    >>> res.passed
    True
    >>> print(res.checks[0].text)  # doctest: +ELLIPSIS
    PASS  micro_f1 >= 0.75: P = 0.9903 >= 0.95 required; observed 0.850, 95% HDI ...; exact

    Multi-label: per-label tables, a floor for every label.

    >>> tables = [[[50, 3], [7, 40]], [[80, 2], [4, 14]]]
    >>> res = gate(tables, multilabel=True, minimums={"f1": 0.6}, beta="aligned",
    ...            labels=["sports", "politics"])
    >>> for check in res.checks:
    ...     print(check.text)  # doctest: +ELLIPSIS
    PASS  f1 [label sports] >= 0.6: P = 1.0000 >= 0.95 required; observed 0.889, ...; exact
    PASS  f1 [label politics] >= 0.6: P = 0.9899 >= 0.95 required; observed 0.824, ...; exact
    """
    from .classes import check_joint, check_min_support
    from .predictions import resolve_predictions

    counts, baseline, paired, labels = resolve_predictions(
        counts, baseline=baseline, paired=paired, labels=labels, multilabel=multilabel,
        y_true=y_true, y_pred=y_pred, baseline_pred=baseline_pred, ids=ids,
        baseline_ids=baseline_ids,
    )  # fmt: skip
    counts, labels = labelled_counts(counts, labels)  # a DataFrame or ConfusionMatrix: its labels
    baseline = labelled_counts(baseline, labels, "baseline")[0]  # in the classes' order
    support_floor, is_joint = check_min_support(min_support), check_joint(joint)
    n = max(check_draws(draws), MIN_DRAWS)
    most = check_draws(max_draws, "max_draws")
    if most > MAX_DRAWS_LIMIT:
        raise ValueError(f"max_draws must be at most {MAX_DRAWS_LIMIT:,}; got {most:,}")
    if n > most:
        raise ValueError(f"draws ({n:,}) must not exceed max_draws ({most:,})")
    # the caller's SeedSequence is never consumed: every stream is a child_seed of it
    root = check_rng(rng)
    kw: dict[str, Any] = dict(
        minimums=minimums, baseline=baseline, compare=compare, max_drop=max_drop, prob=prob,
        alpha=alpha, beta=beta, ci_prob=ci_prob, labels=labels, names=names, source=source,
        baseline_source=baseline_source, paired=paired, multilabel=multilabel, f_beta=f_beta,
        min_support=support_floor, joint=is_joint,
    )  # fmt: skip
    first = _gate_once(counts, draws=n, root=root, **kw)
    checks = list(first.checks)
    hits = [c.prob * c.draws for c in checks]  # draws meeting the condition, pooled
    # Each check is drawn again only while it is itself within noise, so its draws (and
    # P) are the same whatever other checks the gate holds: one draw per call.
    active = [_noisy(c) for c in checks]
    total, r = n, 0
    while total < most and any(active):
        r += 1
        more = min(total, most - total)
        sub = child_seed(root, ADAPT_KEY, r)
        todo = [c for c, a in zip(checks, active, strict=True) if a]
        extra = _gate_once(counts, draws=more, root=sub, **_only(kw, todo))
        redrawn = {_check_key(e): e for e in extra.checks}
        total += more
        for i, c in enumerate(checks):
            if active[i]:
                e = redrawn[_check_key(c)]
                hits[i] += round(e.prob * e.draws)
                checks[i] = _resample(c, hits[i], total)
                active[i] = _noisy(checks[i])
    checks = [_settle(c) for c in checks]
    return GateResult(
        checks=tuple(checks),
        prior=first.prior,
        draws=n,
        seed=first.seed,
        source=first.source,
        baseline_source=first.baseline_source,
    )


def _check_key(c: Check) -> tuple[str, str, str, float]:
    """What identifies a check across the rounds of the adaptive draws."""
    return (c.kind, c.metric, c.item, c.threshold)


def _only(kw: dict[str, Any], todo: Sequence[Check]) -> dict[str, Any]:
    """The gate's arguments (:func:`_gate_once`) restricted to the metrics of ``todo``.

    A metric's draws do not depend on what else is evaluated with it, so a round of
    adaptive draws need only evaluate the metrics of the checks still within noise
    (every threshold of such a metric is kept: their checks are matched by
    :func:`_check_key`).
    """
    floors = {c.metric for c in todo if c.kind == "min"}
    compared = [c.metric for c in todo if c.kind == "baseline"]
    mins = kw["minimums"]
    pairs = list(mins.items()) if isinstance(mins, Mapping) else list(mins or ())
    pairs = [(m, t) for m, t in pairs if m in floors]
    per = PER_LABEL_METRICS if kw["multilabel"] else PER_CLASS_METRICS
    per_class = any(m in per for m, _ in pairs)
    out = dict(kw, minimums=pairs or None, compare=list(dict.fromkeys(compared)) or None)
    if not compared and kw["names"] is None:  # names may need the baseline's batch shape
        out.update(baseline=None, paired=None)
    if not per_class:
        out.update(min_support=None, joint=False)
    return out


# The gate's arguments one by one (as gate() and _check_gate_args take them): one round each.
def _gate_once(
    counts: Any,
    *,
    minimums: Any,
    baseline: Any,
    compare: Any,
    max_drop: Any,
    prob: Any,
    draws: int,
    alpha: Any,
    beta: Any,
    root: np.random.SeedSequence,
    ci_prob: Any,
    labels: Any,
    names: Any,
    source: Any,
    baseline_source: Any,
    paired: Any,
    multilabel: Any,
    f_beta: Any,
    min_support: int | None,
    joint: bool,
) -> GateResult:
    """One round of :func:`gate`: ``draws`` draws from the streams of ``root``."""
    from .classes import check_per_class_option, joint_checks, support_of

    c, mins, base, comp, drop, p = _check_gate_args(
        counts, minimums, baseline, compare, max_drop, prob, names, multilabel
    )
    per: Collection[str] = (
        PER_LABEL_METRICS if multilabel else PER_CLASS_METRICS - LOWER_IS_BETTER.keys()
    )
    unit = "label" if multilabel else "class"
    for option, value in (("min_support", min_support), ("joint", joint)):
        if value:
            check_per_class_option(option, mins, per, unit)
    cls = (support_of(c, multilabel), min_support, joint, unit)
    hp = check_prob(ci_prob, "ci_prob")
    fb = check_positive(f_beta, "f_beta")
    if multilabel:
        if paired is not None:
            raise ValueError(
                "paired predictions are for single-label confusion matrices; a multi-label "
                "baseline is compared as an independent sample (leave paired=None)"
            )
        return _gate_multilabel(
            c,
            mins,
            base,
            comp,
            drop,
            p,
            draws,
            alpha,
            beta,
            root,
            hp,
            labels,
            names,
            fb,
            source,
            baseline_source,
            cls,
        )
    if fb != 1.0:
        raise ValueError(
            f"f_beta applies to the F-beta metrics of a multi-label gate (multilabel=True); "
            f"got f_beta={f_beta!r} with multilabel=False"
        )
    kw: dict[str, Any] = dict(draws=draws, alpha=alpha, beta=beta, ci_prob=hp, labels=labels)
    from ..posterior import exact

    prior = resolve(alpha, beta, c)
    m = c.shape[-1]
    closed = (
        prior.mixture is None
        and exact.is_aligned(prior.alpha, prior.beta)
        and exact.scipy_available()
    )
    min_names = list(dict.fromkeys(n for n, _ in mins))
    no_draws = [
        n
        for n in min_names
        if closed and exact.has_exact(n, m) and n not in comp and not (joint and n in per)
    ]
    with_draws = [n for n in dict.fromkeys([*min_names, *comp]) if n not in no_draws]
    ev: dict[str, Evaluation] = {}
    if no_draws:
        e = evaluate(c, metrics=no_draws, rng=root, **kw)
        ev.update(dict.fromkeys(no_draws, e))
    if with_draws:
        e = evaluate(c, metrics=with_draws, rng=root, keep_draws=True, **kw)
        ev.update(dict.fromkeys(with_draws, e))
    n_batch = len(c.shape) - 2
    lab = None if labels is None else [str(x) for x in labels]
    checks: list[Check] = []
    for name, t in mins:
        s = ev[name][name]
        per_class = name in PER_CLASS_METRICS
        if joint and per_class:
            md = ev[name].metric_draws
            assert md is not None
            jc = joint_checks(
                _make_check, name, t, md[name], np.asarray(s.score), cls[0], min_support,
                names, unit, p, hp, draws,
            )  # fmt: skip
            # a joint check is prior-dominated when any class of its matrix is
            flags = dominated(s.prior_dominated, np.shape(s.score)).reshape(len(jc), -1)
            checks += [
                dataclasses.replace(c, prior_dominated=bool(f.any()))
                for c, f in zip(jc, flags, strict=True)
            ]
            continue
        if s.exact:
            post = exact.posterior_from_concentration(prior.alpha + c, name)
            pr = np.asarray(post.sf(t))
        else:
            md = ev[name].metric_draws
            assert md is not None
            pr = np.mean(md[name] >= t, axis=-1)
        items = _items(pr.shape, n_batch, per_class, lab, names)
        checks += _floor_checks(name, t, pr, s, items, p, hp, draws, cls if per_class else None)
    if base is not None:
        base_ev = evaluate(base, metrics=comp, rng=child_seed(root, 0), keep_draws=True, **kw)
        for name in comp:
            if paired is not None:
                diff, score, model = _paired_difference(
                    paired, name, c, base, alpha, beta, draws, root
                )
            else:
                diff, score, model = _difference_draws(ev[name], base_ev, name)
            pr = np.mean(diff >= -drop, axis=-1)
            per_class = name in PER_CLASS_METRICS
            items = _items(pr.shape, diff.ndim - 1 - per_class, per_class, lab, names)
            flags = dominated(
                ev[name][name].prior_dominated, base_ev[name].prior_dominated, pr.shape
            )
            checks += _baseline_checks(
                name, drop, pr, diff, score, items, p, hp, draws, model, flags
            )
    e0 = next(iter(ev.values()))
    return GateResult(
        checks=tuple(checks),
        prior=e0.prior,
        draws=e0.draws,
        seed=run_seed(root),
        source=source,
        baseline_source=baseline_source,
    )


def assert_gate(
    counts: ArrayLike | None = None, *, inconclusive: str = "fail", **kwargs: Any
) -> GateResult:
    """:func:`gate`, raising ``AssertionError`` with the verdict text unless it passes.

    For test suites: ``assert_gate(cm, minimums={"macro_f1": 0.8})`` inside a
    pytest test fails the test with the same report as ``f1posterior gate``.
    It raises on a FAIL, and on an INCONCLUSIVE verdict unless
    ``inconclusive="pass"``. Takes the keyword arguments of :func:`gate`;
    returns its result otherwise. Its own frame is hidden from pytest
    tracebacks (``__tracebackhide__``). Like :func:`gate` it takes either
    ``counts`` or predictions (``y_true=``, ``y_pred=``, ``baseline_pred=``,
    ``ids=``, ``baseline_ids=``).

    Examples
    --------
    >>> _ = assert_gate([[40, 10], [5, 45]], minimums={"micro_f1": 0.75}, beta="aligned")
    >>> assert_gate([[40, 10], [5, 45]], minimums={"micro_f1": 0.85}, beta="aligned")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: GATE INCONCLUSIVE: 0 of 1 checks passed (1 inconclusive)
    Gate: prior alpha=adaptive (...), beta=aligned ...; seed ...
    INCONCLUSIVE  micro_f1 >= 0.85: P = 0.4483; neither it nor P(opposite) = 0.5517 ...
    GATE INCONCLUSIVE: 0 of 1 checks passed (1 inconclusive)
    """
    __tracebackhide__ = True
    if inconclusive not in ("pass", "fail"):
        raise ValueError(f'inconclusive must be "pass" or "fail"; got {describe(inconclusive)}')
    result = gate(counts, **kwargs)
    if result.verdict == "fail" or (result.verdict == "inconclusive" and inconclusive == "fail"):
        raise AssertionError(str(result))
    return result
