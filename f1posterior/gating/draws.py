"""Monte Carlo side of the gate: noise bands around a requirement, re-drawing until a
verdict is clear, and draws of differences against a baseline (independent or paired)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from .._core.describe import describe
from .._core.streams import child_seed
from ..metrics.registry import METRICS, PER_CLASS_METRICS
from ..posterior.evaluation import Evaluation
from .verdicts import Check, _fmt_draws, _verdict

#: A sampled probability within this many Monte Carlo standard errors of the requirement
#: is flagged as within noise.
NOISE_SIGMAS = 3.0


#: The draws suggested to settle a noisy verdict put it this many standard errors away.
SETTLE_SIGMAS = 4.0


def _noise(prob: float, required: float, n: int) -> tuple[float, bool, int | None]:
    """MC standard error of a sampled probability, noise flag, and draws to settle it."""
    pc = min(max(prob, 1.0 / n), 1.0 - 1.0 / n)
    var = pc * (1.0 - pc)
    se = math.sqrt(var / n)
    gap = abs(prob - required)
    if gap > NOISE_SIGMAS * se:
        return se, False, None
    if gap == 0.0:
        return se, True, None
    need = SETTLE_SIGMAS**2 * var / gap**2
    digits = 10 ** max(0, int(math.floor(math.log10(need))) - 1)  # 2 significant digits
    return se, True, int(math.ceil(need / digits) * digits)


def _difference_draws(
    new: Evaluation, base: Evaluation, metric: str
) -> tuple[np.ndarray, np.ndarray, str]:
    """Posterior draws of metric(new) - metric(baseline), the observed difference, the model.

    Independent posteriors: the two tables are different samples, so the
    difference of independent draws is a draw of the difference. A paired
    model (both models' predictions on the same documents) would return
    draws from the joint posterior here instead, with its own ``model`` name.
    """
    assert new.metric_draws is not None and base.metric_draws is not None
    diff = new.metric_draws[metric] - base.metric_draws[metric]
    score = np.asarray(new[metric].score) - np.asarray(base[metric].score)
    return diff, score, "independent posteriors"


def _paired_difference(
    paired: Any,
    metric: str,
    counts: np.ndarray,
    base: np.ndarray,
    alpha: Any,
    beta: Any,
    draws: int,
    root: np.random.SeedSequence,
) -> tuple[np.ndarray, np.ndarray, str]:
    """Paired-model draws of metric(new) - metric(baseline) on the same documents."""
    from ..analysis.paired import compare_predictions

    if isinstance(paired, (str, bytes)) or len(paired) != 3:
        raise ValueError(
            f"paired must be (y_true, pred_new, pred_baseline); got {describe(paired)}"
        )
    if metric in PER_CLASS_METRICS:
        raise ValueError(
            f"paired baseline comparisons take single-number metrics; got per-class {metric!r}"
        )
    if counts.ndim != 2:
        raise ValueError(f"paired predictions give one matrix; got counts of shape {counts.shape}")
    y, new, old = paired
    res = compare_predictions(
        y,
        new,
        old,
        metric=metric,
        alpha=alpha,  # each model's marginal prior, resolved as the core resolves it
        beta=beta,
        draws=draws,
        rng=child_seed(root, 2),
    )
    for s, table, what in ((res.a, counts, "counts"), (res.b, base, "baseline")):
        if not np.isclose(s.score, float(METRICS[metric](table)), equal_nan=True):
            raise ValueError(
                f"paired predictions do not match {what}: {metric} is {s.score:.4f} from the "
                f"predictions but {float(METRICS[metric](table)):.4f} from the matrix"
            )
    return res.draws, np.asarray(res.difference.score), "paired model (same documents)"


def _mc_se(hits: float, n: int) -> float:
    """Binomial standard error of a proportion, with (k + 1/2) / (n + 1) near 0 and 1."""
    pc = (hits + 0.5) / (n + 1)
    return math.sqrt(pc * (1.0 - pc) / n)


def _noisy(c: Check) -> bool:
    """A sampled probability within NOISE_SIGMAS standard errors of prob or 1 - prob."""
    if c.exact or c.verdict == "skipped":
        return False
    se = _mc_se(c.prob * c.draws, c.draws)
    return min(abs(c.prob - c.required), abs(c.prob - (1.0 - c.required))) <= NOISE_SIGMAS * se


def _resample(c: Check, hits: float, n: int) -> Check:
    """``c`` with the pooled probability ``hits / n`` of ``n`` draws."""
    pr = hits / n
    se = _noise(pr, c.required, n)[0]
    verdict = c.verdict if c.verdict == "skipped" else _verdict(pr, c.required)
    return dataclasses.replace(c, prob=pr, draws=n, mc_error=se, verdict=verdict)


def _settle(c: Check) -> Check:
    """The final verdict: INCONCLUSIVE, with the reason, when still within Monte Carlo noise."""
    if not _noisy(c):
        return dataclasses.replace(c, within_noise=False, draws_to_settle=None)
    low = 1.0 - c.required
    near = c.required if abs(c.prob - c.required) <= abs(c.prob - low) else low
    return dataclasses.replace(
        c,
        verdict="inconclusive",
        within_noise=True,
        draws_to_settle=_noise(c.prob, near, c.draws)[2],
        reason=f"within Monte Carlo noise at {_fmt_draws(c.draws)} draws",
    )
