"""The gate's Monte Carlo noise rule: no verdict on a sampled probability within noise.

Design notes: docs/design.md#gating-draws
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["NOISE_SIGMAS", "SETTLE_SIGMAS", "noise", "noisy"]

#: A sampled probability within this many Monte Carlo standard errors of ``prob`` or
#: ``1 - prob`` is never decided: it is drawn again, and INCONCLUSIVE at ``max_draws``.
NOISE_SIGMAS = 3.0
#: The draws suggested to settle a noisy verdict put it this many standard errors away.
SETTLE_SIGMAS = 4.0


def noise(prob: float, required: float, n: int) -> tuple[float, bool, int | None]:
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


def noisy(
    hits: np.ndarray,
    n: np.ndarray | int,
    required: float,
    fail_at: np.ndarray | None = None,
    *,
    joint: bool = False,
) -> np.ndarray:
    """Sampled probabilities ``hits / n`` within NOISE_SIGMAS standard errors of the bounds.

    The bounds are ``required`` (PASS) and ``1 - fail_at`` (FAIL; ``fail_at``
    defaults to ``required``, and a NaN has no FAIL bound). With ``joint``, the
    rows of joint floors: ``hits`` ``(items, 1 + K)``, ``fail_at`` ``(items,)``,
    within noise when the first column is near ``required`` or a part's near
    ``1 - fail_at``; otherwise elementwise, whatever the shape. The
    standard error is binomial, with ``(k + 1/2) / (n + 1)`` near 0 and 1.
    """
    h = np.asarray(hits, dtype=float)
    low = 1.0 - np.asarray(required if fail_at is None else fail_at, dtype=float)
    if joint and not (h.ndim == 2 and low.shape == (len(h),)):
        raise ValueError(
            f"joint rows need hits (items, 1 + K) and fail_at (items,); got {h.shape}, {low.shape}"
        )
    k = np.asarray(n)[..., None] if joint and np.ndim(n) else np.asarray(n)
    pr, pc = h / k, (h + 0.5) / (k + 1)
    se = NOISE_SIGMAS * np.sqrt(pc * (1.0 - pc) / k)
    if joint:
        parts = np.abs(pr[:, 1:] - low[..., None]) <= se[:, 1:]  # NaN (left out): False
        return np.asarray(np.abs(pr[:, 0] - required) <= se[:, 0]) | parts.any(axis=1)
    return np.asarray(np.fmin(np.abs(pr - required), np.abs(pr - low)) <= se)  # fmin: NaN
