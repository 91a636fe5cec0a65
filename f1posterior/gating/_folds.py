"""The gate across folds: :func:`gate_folds`, a baseline check on the mean difference over K
folds, seeds or test sets (:func:`f1posterior.compare_folds`), judged by the gate's one rule.

Design notes: docs/design.md#gating-folds
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.describe import describe
from .._core.priors import DEFAULT_PRIOR, PriorArg, describe_prior
from .._core.streams import DEFAULT_DRAWS, DEFAULT_SEED, child_seed, run_seed
from .._core.validation import SeedLike, check_rng
from ..analysis import compare_folds
from ..posterior import hdi as sample_hdi
from ._checks import NonInferiority, check_metric_name
from ._draws import Evidence, Settings, judge
from ._gate import ADAPT_KEY, DEFAULT_MAX_DRAWS, check_draw_budget
from ._noise import noisy
from ._verdicts import GateResult

__all__ = ["gate_folds"]


def _checks(checks: Any) -> tuple[NonInferiority, ...]:
    if isinstance(checks, NonInferiority):
        checks = [checks]
    if isinstance(checks, (str, bytes)) or not isinstance(checks, Sequence) or not checks:
        raise TypeError(
            f"checks must be a non-empty list of NonInferiority checks; got {describe(checks)}"
        )
    for i, c in enumerate(checks):
        if not isinstance(c, NonInferiority):
            raise TypeError(
                f"checks[{i}] must be a NonInferiority (gate_folds checks the mean difference "
                f"across folds against the baseline; use gate for floors); got {describe(c)}"
            )
        if c.relative:
            raise ValueError(
                f"checks[{i}]: NonInferiority({c.metric!r}, relative=True) is not available "
                "across folds (the check is on the mean difference); give an absolute max_drop"
            )
        check_metric_name(c.metric, f"checks[{i}].metric")
    return tuple(checks)


def _pooled(y_true: Any, pred: Any, folds: Any, labels: list[Any]) -> np.ndarray:
    """The confusion matrix of every fold's documents together (for the gate's settings)."""
    from ..metrics import confusion_matrix

    if folds is None:
        y_true, pred = (
            np.concatenate([np.asarray(v) for v in y_true]),
            np.concatenate([np.asarray(v) for v in pred]),
        )
    return np.asarray(confusion_matrix(y_true, pred, labels=labels), dtype=float)


def gate_folds(
    y_true: ArrayLike | None = None,
    y_pred: ArrayLike | None = None,
    baseline_pred: ArrayLike | None = None,
    checks: Sequence[NonInferiority] = (),
    *,
    folds: ArrayLike | None = None,
    counts: ArrayLike | None = None,
    baseline: ArrayLike | None = None,
    prob: float = 0.95,
    draws: int = DEFAULT_DRAWS,
    max_draws: int = DEFAULT_MAX_DRAWS,
    alpha: PriorArg = DEFAULT_PRIOR,
    beta: PriorArg = DEFAULT_PRIOR,
    rng: SeedLike = DEFAULT_SEED,
    ci_prob: float = 0.95,
    labels: Sequence[Any] | None = None,
    target: str = "folds",
    source: str | None = None,
    baseline_source: str | None = None,
) -> GateResult:
    """Check a model against its baseline across K folds: PASS, FAIL or INCONCLUSIVE.

    Each :class:`~f1posterior.NonInferiority` check asks P(mean over these folds
    of metric(new) - metric(baseline) >= -max_drop | data) >= ``prob``, from
    the posterior of :func:`f1posterior.compare_folds` (the paired model per
    fold from predictions; independent posteriors from ``counts`` and
    ``baseline``), with the adaptive draws and the verdict rule of
    :func:`f1posterior.gate`.

    Parameters
    ----------
    y_true, y_pred, baseline_pred : array_like, optional
        True classes and the new and baseline models' predictions of the same
        documents: flat arrays with ``folds``, or lists of K per-fold arrays.
    checks : sequence of NonInferiority
        The baseline checks (single-number metrics).
    folds : array_like, shape (N,), optional
        The fold of each document.
    counts, baseline : array_like, shape (K, M, M), optional
        Instead of predictions: the new and baseline models' confusion matrix
        on each fold (not paired).
    prob : float, default 0.95
        Required posterior probability, in (0.5, 1).
    draws, max_draws : int, default 50_000 and 1_000_000
        First-round and largest number of draws (adaptive, as in :func:`gate`).
    alpha, beta : prior
        As in :func:`f1posterior.gate`.
    rng : None, int, SeedSequence or Generator, default DEFAULT_SEED
        A fixed default, so that a verdict never flips between runs.
    ci_prob : float, default 0.95
        Probability of the HDIs shown.
    labels : sequence, optional
        Every class, in order (predictions).
    target : {"folds", "population"}, default "folds"
        The difference checked: the mean over these folds, or the
        random-effects mean over a population of folds (as in
        :func:`f1posterior.compare_folds`).
    source, baseline_source : str, optional
        Where the inputs came from (shown in reports).

    Returns
    -------
    GateResult
        One check per NonInferiority, item ``"mean of K folds"``.

    See Also
    --------
    f1posterior.gate : One test set.
    f1posterior.compare_folds : The posterior behind the check.

    Examples
    --------
    >>> import numpy as np
    >>> from f1posterior import NonInferiority, gate_folds
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 900)
    >>> new = np.where(rng.random(900) < 0.9, y, 1 - y)
    >>> old = np.where(rng.random(900) < 0.88, y, 1 - y)
    >>> res = gate_folds(y, new, old, [NonInferiority("accuracy", 0.02)],
    ...                  folds=np.repeat([0, 1, 2], 300), draws=4000)
    >>> res.checks[0].item, res.verdict
    ('mean of 3 folds', 'pass')
    """
    cs = _checks(checks)
    n, most = check_draw_budget(draws, max_draws)
    root = check_rng(rng)
    kw: dict[str, Any] = dict(
        folds=folds, counts_a=counts, counts_b=baseline, alpha=alpha, beta=beta,
        labels=labels, ci_prob=ci_prob, prob=prob, target=target,
    )  # fmt: skip
    first = {c.metric: compare_folds(y_true, y_pred, baseline_pred, metric=c.metric, draws=n,
                                     rng=root, **kw) for c in cs}  # fmt: skip
    res0 = next(iter(first.values()))
    if res0.paired:
        m_labels = list(res0.labels or [])
        pooled = (_pooled(y_true, y_pred, folds, m_labels),
                  _pooled(y_true, baseline_pred, folds, m_labels))  # fmt: skip
    else:
        pooled = (np.sum(counts, axis=0), np.sum(baseline, axis=0))  # type: ignore[arg-type]
    s = Settings(pooled[0], pooled[1], None, False, prob, ci_prob, alpha, beta, None, None)
    design = "paired model per fold" if res0.paired else "independent tables per fold, not paired"
    out = []
    for c in cs:
        res = first[c.metric]
        diff = res.draws
        what = "mean of" if res.target == "folds" else "population mean of"
        e = Evidence(
            items=[f"{what} {len(res.names)} folds"],
            hits=np.array([float(np.sum(diff >= -c.max_drop))]),
            draws=n,
            score=np.array([float(res.difference.score)]),
            hdi=np.asarray(sample_hdi(diff, s.ci_prob), dtype=float).reshape(1, 2),
            flags=np.zeros(1, bool),
            model=f"mean over {len(res.names)} folds ({design})",
        )
        hits, total, r = float(e.hits[0]), n, 0
        while total < most and bool(noisy(np.array(hits), total, s.prob)):
            r += 1
            more = min(total, most - total)
            extra = compare_folds(y_true, y_pred, baseline_pred, metric=c.metric, draws=more,
                                  rng=child_seed(root, ADAPT_KEY, r), **kw)  # fmt: skip
            hits += float(np.sum(extra.draws >= -c.max_drop))
            total += more
        out.append(judge(c, e, 0, hits, total, s))
    return GateResult(
        checks=tuple(out),
        prior=describe_prior(alpha, beta) + f"; {design}",
        draws=n,
        seed=run_seed(root),
        source=source,
        baseline_source=baseline_source,
    )
