"""Frequentist baselines: delta-method and multinomial-bootstrap confidence intervals.

Design notes: docs/design.md#analysis-frequentist
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from .._core.results import plain, plain_fields, value_equality
from .._core.streams import child_seed
from .._core.validation import (
    SeedLike,
    check_choice,
    check_counts,
    check_draws,
    check_prob,
    check_rng,
)
from ..metrics import resolve_metric, safe_divide
from ..posterior import metric_values

__all__ = ["FrequentistInterval", "DegenerateIntervalWarning", "bootstrap_interval"]

_BOOT_METHODS = ("percentile", "bca")
#: Bytes of resampled tables held at once.
BOOT_BUDGET = 32 << 20

_STD_NORMAL = NormalDist()
_ndtr_object = np.frompyfunc(_STD_NORMAL.cdf, 1, 1)
_ndtri_object = np.frompyfunc(_STD_NORMAL.inv_cdf, 1, 1)


def _ndtr(x: np.ndarray) -> np.ndarray:
    """Standard normal CDF, elementwise (stdlib accuracy; used on batch-sized arrays only)."""
    return np.asarray(_ndtr_object(np.asarray(x, dtype=float)), dtype=float)


def _ndtri(q: np.ndarray) -> np.ndarray:
    """Standard normal quantile of q in (0, 1), elementwise."""
    return np.asarray(_ndtri_object(np.asarray(q, dtype=float)), dtype=float)


class DegenerateIntervalWarning(RuntimeWarning):
    """Some intervals were undefined and set to NaN (see the module's degenerate-table rules).

    See Also
    --------
    f1posterior.delta_interval : The delta-method interval.
    f1posterior.bootstrap_interval : The bootstrap interval.

    Examples
    --------
    >>> import warnings
    >>> from f1posterior import bootstrap_interval
    >>> with warnings.catch_warnings():  # silence it where NaN intervals are expected
    ...     warnings.simplefilter("ignore", DegenerateIntervalWarning)
    ...     res = bootstrap_interval([[5, 0], [0, 5]], "micro_f1", resamples=200, rng=0)
    >>> issubclass(DegenerateIntervalWarning, RuntimeWarning)
    True
    """


@value_equality
@dataclass(frozen=True, eq=False)
class FrequentistInterval:
    """A confidence interval per table, from :func:`delta_interval` or :func:`bootstrap_interval`.

    Attributes
    ----------
    estimate : float or ndarray, shape (*batch) or (*batch, K)
        The plug-in metric of the observed counts.
    std_error : float or ndarray, same shape as ``estimate``
        Delta-method standard error, or the standard deviation of the
        bootstrap distribution (``ddof=1``).
    interval : ndarray, shape (*estimate.shape, 2)
        Lower and upper bounds (NaN where undefined, see the module notes).
    confidence_level : float
        Confidence level.
    metric : str
        Metric name (``__name__`` of a callable).
    method : str
        ``"delta"``, ``"percentile"`` or ``"bca"``.
    n : float or ndarray, shape (*batch)
        Documents per table.
    resamples : int or None
        Bootstrap resamples per table (None for the delta method).
    clipped : bool
        Whether the interval was clipped to [0, 1] (delta method only).

    See Also
    --------
    f1posterior.delta_interval : The delta-method interval.
    f1posterior.bootstrap_interval : The bootstrap interval.

    Examples
    --------
    >>> from f1posterior import delta_interval
    >>> res = delta_interval([[40, 10], [5, 45]], "micro_f1")
    >>> res.method, round(float(res.estimate), 2)
    ('delta', 0.85)
    """

    estimate: Any
    std_error: Any
    interval: np.ndarray
    confidence_level: float
    metric: str
    method: str
    n: Any
    resamples: int | None = None
    clipped: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary (arrays become nested lists, NaN stays float NaN)."""
        return plain_fields(self)


def normal_quantile(level: float) -> float:
    return _STD_NORMAL.inv_cdf(0.5 + level / 2.0)


def divide_or_zero(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, and 0 where den is not > 0 (NaN included): the one divide, zero_division=0."""
    return safe_divide(num, np.where(den > 0, den, 0.0), 0.0)


# --- delta method ------------------------------------------------------------------------


# --- multinomial bootstrap ----------------------------------------------------------------


def quantiles(sorted_x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Linear-interpolation quantiles (numpy's default) of sorted rows, per-row ``q``.

    ``sorted_x`` (..., R) sorted along the last axis, ``q`` (..., k) in [0, 1]
    or NaN; returns (..., k), NaN where ``q`` is NaN.
    """
    r = sorted_x.shape[-1]
    bad = ~np.isfinite(q)
    h = np.where(bad, 0.0, q) * (r - 1)
    lo = np.clip(np.floor(h).astype(np.intp), 0, r - 1)
    hi = np.minimum(lo + 1, r - 1)
    frac = h - lo
    a = np.take_along_axis(sorted_x, lo, axis=-1)
    b = np.take_along_axis(sorted_x, hi, axis=-1)
    out = a + frac * (b - a)
    return np.where(bad, np.nan, out)


def jackknife_acceleration(
    flat: np.ndarray, fn: Callable[[np.ndarray], Any], extra: tuple[int, ...]
) -> np.ndarray:
    """BCa acceleration from the leave-one-document-out jackknife, one value per cell.

    Leaving out any of the ``c_k`` documents of cell ``k`` gives the same
    table ``C - e_k``, so the N jackknife values are the cell values weighted
    by the counts. ``flat`` (G, M, M) -> (G, *extra).
    """
    g, m = flat.shape[0], flat.shape[-1]
    k = m * m
    weights = flat.reshape(g, k)
    loo = flat[:, None] - np.eye(k).reshape(1, k, m, m)
    loo = np.where(weights[:, :, None, None] > 0, loo, flat[:, None])  # empty cells: unused
    vals = np.asarray(fn(loo.reshape(g * k, m, m)), dtype=float).reshape(g, k, *extra)
    w = weights.reshape(g, k, *([1] * len(extra)))
    n = weights.sum(axis=1).reshape(g, *([1] * len(extra)))
    mean = (w * vals).sum(axis=1) / n
    dev = mean[:, None] - vals
    num = (w * dev**3).sum(axis=1)
    den = 6.0 * (w * dev**2).sum(axis=1) ** 1.5
    return divide_or_zero(num, den)  # all jackknife values equal: no skewness, a = 0


def bca_quantile_levels(
    boot: np.ndarray, estimate: np.ndarray, accel: np.ndarray, level: float
) -> np.ndarray:
    """BCa quantile levels (..., 2), NaN where undefined.

    ``z0 = Phi^-1(mid-rank of the estimate among the resamples)`` (ties count
    half, as scipy.stats.bootstrap), ``alpha_i = Phi(z0 + (z0 + z_i) / (1 - a
    (z0 + z_i)))`` for ``z_i = -+ z_{(1+level)/2}``.
    """
    r = boot.shape[-1]
    e = estimate[..., None]
    frac = ((boot < e).sum(axis=-1) + (boot <= e).sum(axis=-1)) / (2.0 * r)
    ok = (frac > 0) & (frac < 1)
    z0 = _ndtri(np.where(ok, frac, 0.5))
    z = normal_quantile(level)
    zs = z0[..., None] + np.array([-z, z])
    den = 1.0 - accel[..., None] * zs
    ok = ok[..., None] & (den > 0)
    arg = z0[..., None] + zs / np.where(ok, den, 1.0)
    return np.where(ok, _ndtr(arg), np.nan)


def _check_bootstrap(
    counts: Any, metric: Any, confidence_level: Any, resamples: Any, method: Any
) -> tuple[np.ndarray, str, Callable[[np.ndarray], Any], float, int, str]:
    c = check_counts(counts)
    name, fn = resolve_metric(metric, "metric")
    lev = check_prob(confidence_level, "confidence_level")
    r = check_draws(resamples, "resamples")
    meth = check_choice(method, "method", _BOOT_METHODS)
    return c, name, fn, lev, r, meth


def bootstrap_interval(
    counts: ArrayLike,
    metric: str | Callable[[np.ndarray], Any],
    *,
    confidence_level: float = 0.95,
    resamples: int = 2000,
    method: Literal["percentile", "bca"] = "percentile",
    rng: SeedLike = None,
) -> FrequentistInterval:
    """Multinomial-bootstrap confidence interval of a metric of confusion matrices.

    Each resample is a table drawn from ``Mult(N, C / N)`` (the same as
    resampling the ``N`` documents with replacement). The percentile interval
    takes the ``(1 -+ confidence_level) / 2`` quantiles of the metric over the resamples
    (numpy's linear interpolation); BCa (Efron 1987) shifts those quantile
    levels by the bias correction ``z0`` and the jackknife acceleration ``a``
    (leave-one-document-out, computed once per non-empty cell).

    Parameters
    ----------
    counts : array_like, shape (*batch, M, M)
        Confusion matrices of whole-number counts; rows are true classes.
    metric : str or callable
        A name from :data:`f1posterior.metrics.METRICS` or a callable mapping
        a float table ``(..., M, M)`` to ``(...)`` or ``(..., K)``.
    confidence_level : float, default 0.95
        Confidence level, in (0, 1).
    resamples : int, default 2000
        Bootstrap tables per matrix.
    method : {"percentile", "bca"}, default "percentile"
    rng : None, int, SeedSequence or Generator
        Source of randomness; the same seed gives the same intervals.

    Returns
    -------
    FrequentistInterval
        ``estimate``, ``std_error`` (standard deviation of the resampled
        metric) of shape ``(*batch)`` or ``(*batch, K)``, ``interval`` with a
        trailing axis of 2.

    See Also
    --------
    f1posterior.delta_interval : The delta-method interval.
    f1posterior.evaluate : The Bayesian posterior.

    Examples
    --------
    >>> res = bootstrap_interval([[40, 10], [5, 45]], "micro_f1", resamples=1000, rng=0)
    >>> res.estimate, res.interval.shape
    (0.85, (2,))
    >>> bool(res.interval[0] < 0.85 < res.interval[1])
    True
    """
    c, name, fn, lev, n_res, meth = _check_bootstrap(
        counts, metric, confidence_level, resamples, method
    )
    out = bootstrap_many(c, [(name, fn)], lev, n_res, (meth,), check_rng(rng))
    return out[name, meth]


def bootstrap_many(
    c: np.ndarray,
    metrics: list[tuple[str, Callable[[np.ndarray], Any]]],
    lev: float,
    n_res: int,
    methods: tuple[str, ...],
    root: np.random.SeedSequence,
) -> dict[tuple[str, str], FrequentistInterval]:
    """Bootstrap intervals of several metrics and methods from one set of resamples.

    Validated inputs; returns ``{(metric name, method): FrequentistInterval}``.
    For one metric and method this is :func:`bootstrap_interval` (the
    calibration study uses it to score every method on the same resamples).
    """
    batch, m = c.shape[:-2], c.shape[-1]
    flat = c.reshape(-1, m, m)
    n_mat = flat.shape[0]
    ests = {name: metric_values(fn, flat, name) for name, fn in metrics}
    group = max(1, BOOT_BUDGET // (8 * max(n_res, m * m) * m * m))
    tail = (1.0 - lev) / 2.0
    bounds: dict[tuple[str, str], list[np.ndarray]] = {
        (n, k): [] for n, _ in metrics for k in methods
    }
    ses: dict[str, list[np.ndarray]] = {name: [] for name, _ in metrics}
    n_undefined = 0
    for g0 in range(0, n_mat, group):
        tabs = flat[g0 : g0 + group]
        g = tabs.shape[0]
        res = np.zeros((g, n_res, m * m))
        for i, table in enumerate(tabs):
            seq = child_seed(root, g0 + i)
            cells = table.ravel()
            nz = np.flatnonzero(cells)
            total = int(cells.sum())
            draws = np.random.default_rng(seq).multinomial(total, cells[nz] / total, size=n_res)
            res[i][:, nz] = draws
        for name, fn in metrics:
            extra = ests[name].shape[1:]
            vals = metric_values(fn, res.reshape(g * n_res, m, m), name).reshape(g, n_res, *extra)
            vals = np.moveaxis(vals, 1, -1)  # (g, *extra, R)
            ses[name].append(vals.std(axis=-1, ddof=1) if n_res > 1 else np.zeros(vals.shape[:-1]))
            srt = np.sort(vals, axis=-1)
            for meth in methods:
                if meth == "percentile":
                    q = np.broadcast_to(np.array([tail, 1.0 - tail]), (*srt.shape[:-1], 2))
                else:
                    accel = jackknife_acceleration(tabs, fn, extra)
                    q = bca_quantile_levels(vals, ests[name][g0 : g0 + g], accel, lev)
                    n_undefined += int(np.isnan(q).any(axis=-1).sum())
                bounds[name, meth].append(quantiles(srt, q))
    if n_undefined:
        warnings.warn(
            f"{n_undefined} BCa interval(s) are undefined (every resample on one side of the "
            "estimate, or 1 - a (z0 + z) <= 0) and are NaN; use method='percentile' there",
            DegenerateIntervalWarning,
            stacklevel=3,
        )
    out = {}
    n_docs = plain(flat.sum(axis=(-2, -1)).reshape(batch))
    for name, _ in metrics:
        extra = ests[name].shape[1:]
        for meth in methods:
            out[name, meth] = FrequentistInterval(
                estimate=plain(ests[name].reshape(batch + extra)),
                std_error=plain(np.concatenate(ses[name]).reshape(batch + extra)),
                interval=np.concatenate(bounds[name, meth]).reshape(batch + extra + (2,)),
                confidence_level=lev,
                metric=name,
                method=meth,
                n=n_docs,
                resamples=n_res,
            )
    return out
