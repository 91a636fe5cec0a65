"""Quality gates: pass a model only when its metrics are credibly good enough.

Design notes: docs/design.md#gating-gate
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.describe import describe
from .._core.labelled import labelled_counts
from .._core.priors import DEFAULT_PRIOR, PriorArg, describe_prior
from .._core.streams import DEFAULT_DRAWS, DEFAULT_SEED, child_seed, run_seed
from .._core.validation import SeedLike, check_draws, check_rng
from ._checks import GateCheck, check_checks
from ._draws import Settings, cluster_prior_text, evidence, judge
from ._noise import noisy
from ._verdicts import Check, GateResult

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["DEFAULT_MAX_DRAWS", "MIN_DRAWS", "gate", "gate_multilabel", "assert_gate"]

#: Fewer draws than this are raised to it: there is never a verdict from a handful of draws.
MIN_DRAWS = 1_000
#: Default ceiling of the adaptive draws (``max_draws``, ``--max-draws``).
DEFAULT_MAX_DRAWS = 1_000_000
#: The largest ``max_draws`` accepted.
MAX_DRAWS_LIMIT = 100_000_000
#: Spawn-key word of the adaptive rounds' streams (``root.spawn_key + (ADAPT_KEY, round)``).
ADAPT_KEY = 0x61647074


def gate(
    counts: ArrayLike | None = None,
    checks: Sequence[GateCheck] = (),
    *,
    baseline: ArrayLike | None = None,
    prob: float = 0.95,
    draws: int = DEFAULT_DRAWS,
    max_draws: int = DEFAULT_MAX_DRAWS,
    alpha: PriorArg = DEFAULT_PRIOR,
    beta: PriorArg = DEFAULT_PRIOR,
    rng: SeedLike = DEFAULT_SEED,
    ci_prob: float = 0.95,
    labels: Sequence[Any] | None = None,
    names: Sequence[str] | None = None,
    source: str | None = None,
    baseline_source: str | None = None,
    y_true: ArrayLike | None = None,
    y_pred: ArrayLike | None = None,
    baseline_pred: ArrayLike | None = None,
    ids: ArrayLike | None = None,
    baseline_ids: ArrayLike | None = None,
    cluster: ArrayLike | None = None,
    groups: ArrayLike | None = None,
) -> GateResult:
    """Three-state checks of a classifier: PASS, FAIL or INCONCLUSIVE.

    Parameters
    ----------
    counts : array_like, shape (*batch, M, M), optional
        Confusion matrices of the model under test (rows = true class), or a
        labelled table (pandas DataFrame, :class:`f1posterior.ConfusionMatrix`).
        Give either ``counts`` or the predictions ``y_true`` and ``y_pred``.
    checks : sequence of Floor, JointFloor and NonInferiority
        The requirements, in the order of the report.
    baseline : array_like, shape (M, M) or like ``counts``, optional
        Confusion matrix of the baseline (e.g. production) model, an
        independent sample; needed by :class:`~f1posterior.NonInferiority`.
    prob : float, default 0.95
        Required posterior probability, in (0.5, 1).
    draws : int, default 50_000
        Posterior draws per matrix for probabilities without a closed form
        (values below :data:`MIN_DRAWS` are raised to it).
    max_draws : int, default 1_000_000
        Ceiling of the adaptive draws: a check still within Monte Carlo noise
        at ``max_draws`` is INCONCLUSIVE, with the reason.
    alpha, beta : prior
        As in :func:`f1posterior.evaluate`; with ``beta="aligned"`` the floors
        of micro-F1, accuracy and per-class F1, precision and recall are exact.
    rng : None, int, SeedSequence or Generator, default DEFAULT_SEED
        A fixed default, so that a verdict never flips between runs; a
        SeedSequence is never consumed.
    ci_prob : float, default 0.95
        Probability of the HDIs shown.
    labels : sequence, optional
        Class labels for per-class checks.
    names : sequence of str, optional
        Names of the matrices of a 1-D batch.
    source, baseline_source : str, optional
        Where the counts came from (shown in reports).
    y_true, y_pred : sequence, optional
        The model's predictions instead of ``counts``: true and predicted label
        per document. ``counts`` is then their confusion matrix and ``labels``
        its label order (``labels=`` fixes it).
    baseline_pred : sequence, optional
        The baseline model's predictions of the same documents (instead of
        ``baseline``): the comparison then uses the paired model of
        :func:`f1posterior.compare_predictions` (single-number metrics; far
        more decisive than independent samples).
    ids, baseline_ids : sequence, optional
        Document ids of ``y_true``/``y_pred`` and of ``baseline_pred``: the
        baseline predictions are paired with the model's by id, in any order
        (one to one). Without them they are paired position by position.
    cluster : sequence, optional
        The cluster (user, conversation, source, ...) of each document of
        ``y_true``: the checks then use the Bayesian bootstrap over clusters of
        :func:`f1posterior.evaluate_clusters` (and, with ``baseline_pred``, of
        :func:`f1posterior.compare_predictions`); ``alpha``/``beta`` are unused
        and no floor is exact.
    groups : sequence, optional
        The slice of each document of ``y_true``/``y_pred``: ``counts`` is then
        one confusion matrix per slice, named by its value (as
        :func:`f1posterior.io.slice_tables` makes them), for
        :class:`~f1posterior.SliceFloor`. Not with ``names``, ``baseline_pred``
        or ``ids``.

    Returns
    -------
    GateResult
        ``verdict``, ``passed``, ``checks``; text (``str``), ``to_dict``,
        ``to_markdown`` and ``to_junit_xml``.

    See Also
    --------
    gate_multilabel : The gate of multi-label classifiers.
    assert_gate : The gate as an assertion, for test suites.
    f1posterior.plan : How many more documents would make an inconclusive check conclusive.

    Examples
    --------
    >>> from f1posterior import Floor, NonInferiority, gate
    >>> res = gate([[40, 10], [5, 45]], [Floor("micro_f1", 0.75)], beta="aligned")
    >>> res.passed
    True
    >>> print(res.checks[0].text)  # doctest: +ELLIPSIS
    PASS  micro_f1 >= 0.75: P = 0.9903 >= 0.95 required; observed 0.850, 95% HDI ...; exact
    >>> res = gate([[40, 10], [5, 45]], [NonInferiority("micro_f1", max_drop=0.02)],
    ...            baseline=[[42, 8], [6, 44]], draws=4_000)
    >>> res.verdict
    'inconclusive'
    """
    from ._predictions import resolve_predictions

    if groups is not None:
        from ._slices import slice_predictions

        counts, names, labels = slice_predictions(
            counts, y_true, y_pred, groups, labels, names=names, baseline_pred=baseline_pred,
            ids=ids, baseline_ids=baseline_ids, cluster=cluster,
        )  # fmt: skip
        y_true = y_pred = None
    counts, baseline, paired, labels, clusters = resolve_predictions(
        counts, baseline=baseline, labels=labels, y_true=y_true, y_pred=y_pred,
        baseline_pred=baseline_pred, ids=ids, baseline_ids=baseline_ids, cluster=cluster,
    )  # fmt: skip
    counts, labels = labelled_counts(counts, labels)  # a DataFrame or ConfusionMatrix: its labels
    baseline = labelled_counts(baseline, labels, "baseline")[0]  # in the classes' order
    s = Settings(counts, baseline, paired, False, prob, ci_prob, alpha, beta, labels, names,
                 clusters=clusters)  # fmt: skip
    return _run(
        check_checks(checks, False, baseline is not None),
        s,
        draws,
        max_draws,
        rng,
        source,
        baseline_source,
    )


def gate_multilabel(
    tables: ArrayLike,
    checks: Sequence[GateCheck],
    *,
    baseline: ArrayLike | None = None,
    prob: float = 0.95,
    draws: int = DEFAULT_DRAWS,
    max_draws: int = DEFAULT_MAX_DRAWS,
    alpha: PriorArg = DEFAULT_PRIOR,
    beta: PriorArg = DEFAULT_PRIOR,
    rng: SeedLike = DEFAULT_SEED,
    ci_prob: float = 0.95,
    labels: Sequence[Any] | None = None,
    names: Sequence[str] | None = None,
    source: str | None = None,
    baseline_source: str | None = None,
    f_beta: float = 1.0,
) -> GateResult:
    """Three-state checks of a multi-label classifier, on its per-label 2 x 2 tables.

    The metrics are those of :func:`f1posterior.evaluate_multilabel` but
    ``hamming_loss`` (a loss): a per-label metric (``f1``, ``fbeta``,
    ``precision``, ``recall``, ``jaccard``) is a floor for every label, exact
    under the aligned prior (``fbeta`` only when ``f_beta`` is 1). A baseline is
    compared as an independent sample.

    Parameters
    ----------
    tables : array_like, shape (*batch, L, 2, 2)
        ``[[tn, fp], [fn, tp]]`` per label
        (:func:`f1posterior.metrics.multilabel_confusion_matrix` of
        indicator predictions).
    checks : sequence of Floor, JointFloor and NonInferiority
        The requirements; ``min_support`` and :class:`~f1posterior.JointFloor`
        count a label's positive documents.
    baseline : array_like, shape (L, 2, 2) or like ``tables``, optional
        The baseline model's tables.
    prob : float, default 0.95
        Required posterior probability, in (0.5, 1).
    draws, max_draws : int, default 50_000 and 1_000_000
        First-round and largest number of posterior draws (adaptive draws, as in
        :func:`gate`).
    alpha, beta : prior
        As in :func:`f1posterior.evaluate_multilabel`.
    rng : None, int, SeedSequence or Generator, default DEFAULT_SEED
        As in :func:`gate`.
    ci_prob : float, default 0.95
        Probability of the HDIs shown.
    labels : sequence, optional
        Label names.
    names : sequence of str, optional
        Names of the tables of a 1-D batch.
    source, baseline_source : str, optional
        Where the tables came from (shown in reports).
    f_beta : float, default 1.0
        The ``beta`` of the F-beta metrics (``*_fbeta``, ``fbeta``).

    Returns
    -------
    GateResult
        As :func:`gate`.

    See Also
    --------
    gate : The single-label gate.
    assert_gate : Raises unless the result passes.
    f1posterior.evaluate_multilabel : The posteriors behind the checks.

    Examples
    --------
    >>> from f1posterior import Floor, gate_multilabel
    >>> tables = [[[50, 3], [7, 40]], [[80, 2], [4, 14]]]
    >>> res = gate_multilabel(tables, [Floor("f1", 0.6)], beta="aligned",
    ...                       labels=["sports", "politics"])
    >>> for check in res.checks:
    ...     print(check.text)  # doctest: +ELLIPSIS
    PASS  f1 [label sports] >= 0.6: P = 1.0000 >= 0.95 required; observed 0.889, ...; exact
    PASS  f1 [label politics] >= 0.6: P = 0.9899 >= 0.95 required; observed 0.824, ...; exact
    """
    s = Settings(tables, baseline, None, True, prob, ci_prob, alpha, beta, labels, names, f_beta)
    return _run(
        check_checks(checks, True, baseline is not None),
        s,
        draws,
        max_draws,
        rng,
        source,
        baseline_source,
    )


def check_draw_budget(draws: Any, max_draws: Any) -> tuple[int, int]:
    """The first round's draws (at least ``MIN_DRAWS``) and the most draws of a check."""
    n = max(check_draws(draws), MIN_DRAWS)
    most = check_draws(max_draws, "max_draws")
    if most > MAX_DRAWS_LIMIT:
        raise ValueError(f"max_draws must be at most {MAX_DRAWS_LIMIT:,}; got {most:,}")
    if n > most:
        raise ValueError(f"draws ({n:,}) must not exceed max_draws ({most:,})")
    return n, most


def _run(
    checks: Sequence[GateCheck],
    s: Settings,
    draws: Any,
    max_draws: Any,
    rng: Any,
    source: str | None,
    baseline_source: str | None,
) -> GateResult:
    """The gate's rounds of draws, then one verdict per item of each check."""
    n, most = check_draw_budget(draws, max_draws)
    root = check_rng(rng)  # never consumed: every stream is a child_seed of it
    evs = evidence(checks, s, n, root)
    hits = [e.hits.copy() for e in evs]
    totals = [np.full(len(e.items), max(e.draws, 1)) for e in evs]
    # Each item is drawn again only while it is itself within noise, so its draws (and P)
    # are the same whatever other checks the gate holds.
    active = [
        np.zeros(len(e.items), bool)
        if e.draws == 0
        else noisy(e.hits, e.draws, s.prob, e.fail_at, joint=e.parts is not None)
        & np.array([not r for r in (e.skip or [""] * len(e.items))])
        for e in evs
    ]
    total, r = n, 0
    while total < most and any(a.any() for a in active):
        r += 1
        more = min(total, most - total)
        todo = [k for k, a in enumerate(active) if a.any()]
        extra = evidence([checks[k] for k in todo], s, more, child_seed(root, ADAPT_KEY, r))
        total += more
        for k, e in zip(todo, extra, strict=True):
            a = active[k]
            hits[k][a] += e.hits[a]
            totals[k][a] = total
            joint = evs[k].parts is not None
            active[k] = a & noisy(hits[k], totals[k], s.prob, evs[k].fail_at, joint=joint)
    out: list[Check] = []
    for k, (c, e) in enumerate(zip(checks, evs, strict=True)):
        for i in range(len(e.items)):  # a joint row (fail_at NaN) FAILs with the rows before it
            failed = [x.item for x in out[len(out) - i :] if x.verdict == "fail"]
            out.append(judge(c, e, i, hits[k][i], int(totals[k][i]), s, failed))
    prior = describe_prior(s.alpha, s.beta) + (" per label (M = 2 model)" if s.multilabel else "")
    if s.clusters is not None:
        prior = cluster_prior_text(s.clusters)
    return GateResult(
        checks=tuple(out),
        prior=prior,
        draws=n,
        seed=run_seed(root),
        source=source,
        baseline_source=baseline_source,
    )


def assert_gate(
    counts: ArrayLike | GateResult | None = None,
    checks: Sequence[GateCheck] = (),
    *,
    inconclusive: str = "fail",
    **kwargs: Any,
) -> GateResult:
    """:func:`gate`, raising ``AssertionError`` with the verdict text unless it passes.

    For test suites: ``assert_gate(cm, [Floor("macro_f1", 0.8)])`` inside a
    pytest test fails the test with the same report as ``f1posterior gate``.
    Its own frame is hidden from pytest tracebacks (``__tracebackhide__``).

    Parameters
    ----------
    counts : array_like or GateResult, optional
        As in :func:`gate`; or a result already computed (for instance by
        :func:`gate_multilabel`), judged as it is.
    checks : sequence of Floor, JointFloor and NonInferiority
        As in :func:`gate`.
    inconclusive : {"fail", "pass"}, default "fail"
        Whether an INCONCLUSIVE verdict raises.
    **kwargs
        The keyword arguments of :func:`gate` (``baseline``, ``y_true``, ...).

    Returns
    -------
    GateResult
        The result, when it passes (or is inconclusive with ``inconclusive="pass"``).

    Raises
    ------
    AssertionError
        On a FAIL, and on an INCONCLUSIVE verdict unless ``inconclusive="pass"``.

    See Also
    --------
    gate : The gate itself.

    Examples
    --------
    >>> from f1posterior import Floor, assert_gate
    >>> _ = assert_gate([[40, 10], [5, 45]], [Floor("micro_f1", 0.75)], beta="aligned")
    >>> assert_gate([[40, 10], [5, 45]], [Floor("micro_f1", 0.85)], beta="aligned")
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
    if isinstance(counts, GateResult) and (checks or kwargs):
        raise TypeError("a GateResult is judged as it is; give no checks or gate arguments with it")
    result = counts if isinstance(counts, GateResult) else gate(counts, checks, **kwargs)
    if result.verdict == "fail" or (result.verdict == "inconclusive" and inconclusive == "fail"):
        raise AssertionError(str(result))
    return result
