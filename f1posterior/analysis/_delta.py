"""Delta-method (Wald) intervals for metrics of one confusion matrix (`delta_interval`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.describe import describe
from .._core.validation import check_choice, check_counts, check_flag, check_prob
from ..metrics import METRICS
from ._frequentist import FrequentistInterval, divide_or_zero, normal_quantile, scalar

#: Metrics with an analytic delta-method gradient.
DELTA_METRICS = (
    "micro_f1",
    "accuracy",
    "macro_f1",
    "macro_f1_star",
    "macro_precision",
    "macro_recall",
    "binary_f1",
)


def _gradient(p: np.ndarray, name: str, pos: int) -> np.ndarray:
    """Analytic gradient ``d metric / d p`` of shape (..., M, M) at normalised ``p``.

    Every metric here is homogeneous of degree 0 in ``p``, so its partial
    derivatives satisfy ``sum(p * g) = 0``; adding a constant to ``g`` would
    not change the variance either (the multinomial covariance annihilates
    the all-ones table). Each diagonal entry is written as ``(1 - score) / d``
    so that a cell whose score is exactly 1 has exactly zero gradient, and a
    table whose metric cannot move gets ``std_error == 0`` exactly.
    """
    m = p.shape[-1]
    eye = np.eye(m, dtype=bool)
    tp = np.diagonal(p, axis1=-2, axis2=-1)
    row = p.sum(axis=-1)  # true class totals
    col = p.sum(axis=-2)  # predicted class totals
    if name in ("micro_f1", "accuracy"):
        # f = trace(p) / sum(p): df/dp_ab = [a == b] - f (sum(p) = 1)
        f = divide_or_zero(tp.sum(axis=-1), p.sum(axis=(-2, -1)))[..., None, None]
        return np.where(eye, 1.0 - f, -f)
    if name in ("macro_f1", "binary_f1"):
        # F_i = 2 tp_i / d_i, d_i = row_i + col_i; cell (a, b) lies in row a and column b:
        # dF_i/dp_ab = [a == b == i] 2 / d_i - (F_i / d_i) ([a == i] + [b == i])
        d = row + col
        f = divide_or_zero(2.0 * tp, d)
        u = divide_or_zero(f, d)
        diag = divide_or_zero(2.0 * (1.0 - f), d)
        if name == "binary_f1":
            sel = np.zeros(m)
            sel[pos] = 1.0
            off = -u[..., pos, None, None] * (sel[:, None] + sel[None, :])
            on = np.where(sel.astype(bool), diag[..., pos, None], 0.0)
            return np.where(eye, on[..., :, None], off)
        off = -(u[..., :, None] + u[..., None, :])
        return np.where(eye, diag[..., :, None], off) / m
    if name == "macro_recall":
        # R_a = tp_a / row_a: dR_a/dp_ab = ([a == b] - R_a) / row_a
        inv, r = divide_or_zero(np.ones_like(row), row), divide_or_zero(tp, row)
        return (eye - r[..., :, None]) * inv[..., :, None] / m
    if name == "macro_precision":
        # P_b = tp_b / col_b: dP_b/dp_ab = ([a == b] - P_b) / col_b
        inv, q = divide_or_zero(np.ones_like(col), col), divide_or_zero(tp, col)
        return (eye - q[..., None, :]) * inv[..., None, :] / m
    if name == "macro_f1_star":
        # F* = 2 P R / (P + R): dF*/dP = 2 R^2 / (P + R)^2, dF*/dR = 2 P^2 / (P + R)^2
        prec = divide_or_zero(tp, col).mean(axis=-1)
        rec = divide_or_zero(tp, row).mean(axis=-1)
        s2 = (prec + rec) ** 2
        dp = divide_or_zero(2.0 * rec * rec, s2)[..., None, None]
        dr = divide_or_zero(2.0 * prec * prec, s2)[..., None, None]
        return dp * _gradient(p, "macro_precision", pos) + dr * _gradient(p, "macro_recall", pos)
    raise AssertionError(name)  # unreachable: names are validated


def _delta_variance(p: np.ndarray, g: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``g^T (diag(p) - p p^T) g / n`` over the flattened cells, vectorised."""
    pg = (p * g).sum(axis=(-2, -1))
    var = ((p * g * g).sum(axis=(-2, -1)) - pg * pg) / n
    return np.maximum(var, 0.0)  # rounding can leave -1e-18 where the variance is 0


def _check_delta(
    counts: Any, metric: Any, confidence_level: Any, pos_label: Any, clip: Any
) -> tuple[np.ndarray, str, float, int, bool]:
    c = check_counts(counts)
    if not isinstance(metric, str):
        raise TypeError(
            f"metric must be one of {', '.join(DELTA_METRICS)} (the delta method needs an "
            f"analytic gradient; use bootstrap_interval for other metrics); got {describe(metric)}"
        )
    name = check_choice(metric, "metric", DELTA_METRICS)
    lev = check_prob(confidence_level, "confidence_level")
    flag = check_flag(clip, "clip")
    m = c.shape[-1]
    if name == "binary_f1":
        if m != 2:
            raise ValueError(
                f'metric="binary_f1" needs 2 x 2 tables; got M = {m} classes (use "macro_f1", '
                '"micro_f1", or reduce the table to one class against the rest)'
            )
        pos = 1 if pos_label is None else pos_label
        if isinstance(pos, bool) or pos not in (0, 1):
            raise ValueError(
                f"pos_label must be 0 or 1 (the positive class's index) with "
                f'metric="binary_f1"; got {describe(pos_label)}'
            )
    elif pos_label is not None:
        raise ValueError(f'pos_label is only used with metric="binary_f1"; got {pos_label!r}')
    else:
        pos = 1
    return c, name, lev, int(pos), flag


def delta_interval(
    counts: ArrayLike,
    metric: str,
    *,
    confidence_level: float = 0.95,
    pos_label: int | None = None,
    clip: bool = False,
) -> FrequentistInterval:
    """Delta-method (Wald) confidence interval of a metric of confusion matrices.

    ``std_error = sqrt(g^T (diag(p) - p p^T) g / N)`` with ``p = C / N`` and
    ``g`` the analytic gradient of the metric at ``p``; the interval is
    ``estimate +- z_{(1+confidence_level)/2} std_error`` (Takahashi et al. 2022 for
    micro- and macro-F1).

    Parameters
    ----------
    counts : array_like, shape (*batch, M, M)
        Confusion matrices of whole-number counts; rows are true classes.
    metric : str
        One of ``micro_f1`` (= ``accuracy``), ``macro_f1`` (mean of per-class
        F1), ``macro_f1_star`` (harmonic mean of macro precision and macro
        recall), ``macro_precision``, ``macro_recall``, ``binary_f1``
        (2 x 2 tables, F1 of class ``pos_label``).
    confidence_level : float, default 0.95
        Confidence level, in (0, 1).
    pos_label : int, optional
        Positive class of ``binary_f1`` (0 or 1; default 1, as scikit-learn).
        Must be None for the other metrics.
    clip : bool, default False
        Clip the interval to [0, 1]. Off by default, so the published
        formulas are reproduced exactly (their intervals can pass 1).

    Returns
    -------
    FrequentistInterval
        ``estimate`` and ``std_error`` of shape ``(*batch)`` (floats for one
        table), ``interval`` of shape ``(*batch, 2)``.

    See Also
    --------
    f1posterior.bootstrap_interval : The bootstrap interval.
    f1posterior.evaluate : The Bayesian posterior.

    Examples
    --------
    The example of Takahashi et al. (2022), rows = truth:

    >>> res = delta_interval([[3, 0, 0], [0, 8, 0], [2, 1, 6]], "macro_f1")
    >>> round(res.estimate, 4), round(res.std_error, 4)
    (0.8304, 0.0891)
    >>> res.interval.round(3)
    array([0.656, 1.005])
    >>> delta_interval([[3, 0, 0], [0, 8, 0], [2, 1, 6]], "micro_f1").interval.round(4)
    array([0.6935, 1.0065])
    """
    c, name, lev, pos, flag = _check_delta(counts, metric, confidence_level, pos_label, clip)
    n = c.sum(axis=(-2, -1))
    p = c / n[..., None, None]
    if name == "binary_f1":
        est = METRICS["f1"](c)[..., pos]
    else:
        est = METRICS["micro_f1" if name == "accuracy" else name](c)
    se = np.sqrt(_delta_variance(p, _gradient(p, name, pos), n))
    half = normal_quantile(lev) * se
    interval = np.stack([est - half, est + half], axis=-1)
    if flag:
        interval = np.clip(interval, 0.0, 1.0)
    return FrequentistInterval(
        estimate=scalar(np.asarray(est, dtype=float)),
        std_error=scalar(se),
        interval=interval,
        confidence_level=lev,
        metric=name,
        method="delta",
        n=scalar(n),
        clipped=flag,
    )
