"""Summaries of posterior draws: HDI, equal-tailed interval, and the summary record.

Draws of a scalar metric have shape ``(*batch, draws)``: the draws axis is
last, so ``hdi(x)`` gives ``(*batch, 2)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.describe import describe
from .._core.results import plain, plain_fields, value_equality
from .._core.validation import check_prob, check_ref

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["hdi", "eti", "MetricSummary", "summarize_draws", "summarize_rows"]


def _draws_last(x: ArrayLike, axis: int, name: str = "x") -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"{name} must be an array of real numbers; got {describe(x)}")
    if arr.ndim == 0:
        raise ValueError(f"{name} must have a draws axis; got a 0-d array")
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"axis must be in [-{arr.ndim}, {arr.ndim}); got {axis}")
    arr = np.moveaxis(arr, axis, -1)
    if arr.shape[-1] == 0:
        raise ValueError(f"{name} must hold at least one draw along axis {axis}")
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN")
    return arr


def hdi(x: ArrayLike, ci_prob: float = 0.95, axis: int = -1) -> np.ndarray:
    """Highest-density interval: the shortest interval holding ``ci_prob`` of the draws.

    The sorted-window estimator: among all windows of ``k = ceil(ci_prob * n)``
    consecutive order statistics, the narrowest. Only the two tails that can
    hold an endpoint are sorted (after two O(n) single-cut partitions), so it
    is faster than a full sort except on short rows, where it is one; it is
    vectorised over every other axis.

    Parameters
    ----------
    x : array_like, shape (..., draws, ...)
        Draws of a scalar quantity.
    ci_prob : float, default 0.95
        Probability mass of the interval, in (0, 1).
    axis : int, default -1
        The draws axis.

    Returns
    -------
    ndarray, shape (..., 2)
        Lower and upper bounds (the draws axis replaced by a trailing axis of 2).

    See Also
    --------
    f1posterior.eti : The equal-tailed interval.
    f1posterior.summarize_draws : Every summary at once.

    Examples
    --------
    >>> import numpy as np
    >>> hdi(np.arange(100.0), ci_prob=0.9)
    array([ 0., 89.])
    >>> hdi(np.zeros((3, 2, 50)), ci_prob=0.5).shape
    (3, 2, 2)
    """
    p = check_prob(ci_prob, "ci_prob")
    arr = _draws_last(x, axis)
    n = arr.shape[-1]
    k = min(n, max(1, math.ceil(p * n - 1e-9)))  # points inside the window
    work = np.array(arr, copy=True)  # sorted or partitioned in place
    lows, highs, _ = _select(work, n - k + 1, k, median=False)
    return _shortest(lows, highs)


#: At most this many draws a row, or values in all, are fully sorted: numpy's sort
#: is then as fast as the selection below, which makes more (and smaller) calls.
SORT_ROW, SORT_TOTAL = 512, 4096


def _select(
    work: np.ndarray, nw: int, k: int, *, median: bool
) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """Place the order statistics a summary needs, in place along the last axis.

    Returns ``lows``, the ``nw`` smallest values of each row, sorted; ``highs``,
    the ``n - k + 1`` largest, sorted (views of ``work``); and with ``median``,
    the order statistics ``(n - 1) // 2`` and ``n // 2``. The values are those
    of a full sort of each row, bit for bit (only order statistics are read), so
    the result does not depend on whether rows were sorted or partitioned
    (docs/design.md#posterior-summary).
    """
    n = work.shape[-1]
    m0 = (n - 1) // 2
    if 2 * nw >= n or n <= SORT_ROW or work.size <= SORT_TOTAL:
        work.sort(axis=-1)
        med = (work[..., m0], work[..., n // 2]) if median else None
        return work[..., :nw], work[..., k - 1 :], med
    # 2 nw < n gives nw - 1 < m0 and k - 1 = n - nw > m0: each tail lies in one half
    if median:
        work.partition(m0, axis=-1)
        upper = work[..., m0 + 1 :]
        j = k - 1 - (m0 + 1)
        work[..., :m0].partition(nw - 1, axis=-1)
        upper.partition(j, axis=-1)
        # order statistic n // 2: the median itself, or the smallest value above it
        hi = work[..., m0] if n % 2 else upper[..., : j + 1].min(axis=-1)
        med = (work[..., m0], hi)
    else:
        work.partition(k - 1, axis=-1)
        work[..., : k - 1].partition(nw - 1, axis=-1)
        med = None
    lows, highs = work[..., :nw], work[..., k - 1 :]
    lows.sort(axis=-1)
    highs.sort(axis=-1)
    return lows, highs, med


def _shortest(lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
    """The narrowest window ``(lows[i], highs[i])`` of each row, shape ``(..., 2)``.

    The first narrowest where several tie (:func:`numpy.argmin`). A window whose
    two ends are the same infinity has an undefined width (``inf - inf``); it counts
    as infinitely wide, so finite windows win (as when a few draws are infinite).
    """
    lead = lows.shape[:-1]
    with np.errstate(invalid="ignore"):
        width = highs - lows
    if width.dtype.kind == "f":  # integer draws have no infinities
        width[np.isnan(width)] = np.inf
    if not lead:  # one row (one matrix)
        i = int(width.argmin())
        return np.array([lows[i], highs[i]], dtype=np.result_type(lows, highs))
    best = width.reshape(-1, width.shape[-1]).argmin(axis=-1)
    rows = np.arange(best.size)
    out = np.empty((best.size, 2), dtype=np.result_type(lows, highs))
    out[:, 0] = lows.reshape(-1, lows.shape[-1])[rows, best]
    out[:, 1] = highs.reshape(-1, highs.shape[-1])[rows, best]
    return out.reshape((*lead, 2))


def eti(x: ArrayLike, ci_prob: float = 0.95, axis: int = -1) -> np.ndarray:
    """Equal-tailed interval: the ``(1 - ci_prob)/2`` and ``(1 + ci_prob)/2`` quantiles.

    Uses :func:`numpy.quantile` with its default (linear) interpolation.

    Parameters
    ----------
    x : array_like, shape (..., draws, ...)
    ci_prob : float, default 0.95
    axis : int, default -1

    Returns
    -------
    ndarray, shape (..., 2)

    See Also
    --------
    f1posterior.hdi : The shortest interval.
    f1posterior.summarize_draws : Every summary at once.

    Examples
    --------
    >>> import numpy as np
    >>> eti(np.arange(101.0), ci_prob=0.9)
    array([ 5., 95.])
    """
    p = check_prob(ci_prob, "ci_prob")
    arr = _draws_last(x, axis)
    q = np.quantile(arr, [(1 - p) / 2, (1 + p) / 2], axis=-1)
    return np.moveaxis(q, 0, -1)


Value = Any  # float for one matrix, ndarray of the batch shape otherwise


@value_equality
@dataclass(frozen=True, eq=False)
class MetricSummary:
    """Posterior summary of one metric (for one matrix or a batch).

    Each field is a float for one matrix, or an array of the batch shape
    (plus a trailing class axis for per-class metrics); interval fields have
    one more trailing axis of length 2.

    Attributes
    ----------
    score : float or ndarray
        The metric on the observed counts (the plug-in estimate).
    mean, median, std : float or ndarray
        Posterior mean, median and standard deviation.
    mc_error : float or ndarray
        Monte Carlo standard error of ``mean`` (``std / sqrt(draws)``: the
        draws are independent); 0 where the summary is exact.
    hdi : ndarray, shape (..., 2)
        Highest-density interval of probability ``ci_prob``.
    eti : ndarray, shape (..., 2)
        Equal-tailed interval of probability ``ci_prob``.
    p_below, p_above : float, ndarray or None
        P(metric < ref) and P(metric > ref); None when no ``ref`` was given.
    ci_prob : float
        Probability of the intervals.
    ref : float or None
        The reference value.
    draws : int
        Number of posterior draws (0 for an exact summary).
    exact : bool
        True when computed from a closed form rather than from draws.
    prior_shift : float, ndarray or None
        How far the prior moves the posterior mean from a vanishing prior's, in
        posterior standard deviations: ``|mean - score| / std``. Under a
        vanishing prior the posterior mean of a recall or of accuracy
        (micro-F1) is exactly the observed score; for the other metrics it is
        to first order. None when not checked.
    prior_dominated : bool, ndarray or None
        True where the prior dominates: ``prior_shift`` exceeds 1/2 by more
        than three Monte Carlo standard errors, the observed score is
        undefined, or no document informs the metric at all (a per-class
        metric whose denominator counts are zero).
    chance : float, ndarray or None
        Posterior mean of the metric of the *chance table* of each draw: the
        table with the same row and column sums whose prediction is independent
        of the truth, ``c_uv = r_u k_v`` (``evaluate(..., chance=True)``).
    chance_score : float, ndarray or None
        The metric of the observed table's chance table.
    p_above_chance : float, ndarray or None
        P(metric > its chance level), the two compared draw by draw.

    See Also
    --------
    f1posterior.evaluate : Summaries of named metrics.
    f1posterior.summarize_draws : The summary of any draws.

    Examples
    --------
    >>> from f1posterior import evaluate
    >>> s = evaluate([[40, 10], [5, 45]], metrics="micro_f1", draws=2000, rng=0)["micro_f1"]
    >>> s.score, s.draws, s.hdi.shape
    (0.85, 2000, (2,))
    """

    score: Value
    mean: Value
    median: Value
    std: Value
    mc_error: Value
    hdi: np.ndarray
    eti: np.ndarray
    p_below: Value = None
    p_above: Value = None
    ci_prob: float = 0.95
    ref: float | None = None
    draws: int = 0
    exact: bool = field(default=False)
    prior_shift: Value = None
    prior_dominated: Value = None
    chance: Value = None
    chance_score: Value = None
    p_above_chance: Value = None

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python (JSON-ready) dictionary of the fields (the chance fields only when set)."""
        return plain_fields(self, _CHANCE_FIELDS if self.p_above_chance is None else ())

    def __getitem__(self, index: Any) -> MetricSummary:
        """The summary of some matrices of a batch: ``index`` selects leading (batch) axes.

        Examples
        --------
        >>> s = summarize_draws(np.arange(12.0).reshape(3, 4))
        >>> s[1].mean, s[1:].hdi.shape
        (5.5, (2, 2))
        """
        if np.ndim(self.mean) == 0:
            raise IndexError("a summary of one matrix (scalar fields) cannot be indexed")

        def take(v: Any) -> Any:
            return v if v is None or np.ndim(v) == 0 else plain(np.asarray(v)[index])

        fields = {k: getattr(self, k) for k in self.__dataclass_fields__}
        fields.update({k: take(fields[k]) for k in _ARRAY_FIELDS})
        for key in ("hdi", "eti"):
            fields[key] = np.asarray(fields[key])
        return MetricSummary(**fields)

    @classmethod
    def concat(cls, parts: Sequence[MetricSummary], batch: tuple[int, ...]) -> MetricSummary:
        """Join the summaries of consecutive blocks of a flat batch, then restore ``batch``.

        Parameters
        ----------
        parts : sequence of MetricSummary
            Summaries whose array fields have a leading (flat) batch axis, in order;
            ``ci_prob``, ``ref``, ``draws`` and ``exact`` are the first part's (the
            parts come from one run).
        batch : tuple of int
            The shape the joined leading axis takes (trailing class axes are kept).

        Returns
        -------
        MetricSummary
            One summary of every part's matrices.

        See Also
        --------
        MetricSummary.__getitem__ : The inverse: the summary of some matrices.

        Examples
        --------
        >>> x = np.arange(12.0).reshape(3, 4)
        >>> s = MetricSummary.concat([summarize_draws(x[:1]), summarize_draws(x[1:])], (3,))
        >>> bool(np.array_equal(s.hdi, summarize_draws(x).hdi))
        True
        """
        first = parts[0]
        fields: dict[str, Any] = {}
        for key in _ARRAY_FIELDS:
            vals = [getattr(p, key) for p in parts]
            if vals[0] is None:
                fields[key] = None
                continue
            if all(np.ndim(v) == 0 and v != v for v in vals):  # no score given: NaN
                fields[key] = vals[0]
                continue
            arr = np.concatenate([np.atleast_1d(v) for v in vals], axis=0)
            fields[key] = plain(arr.reshape(batch + arr.shape[1:]))
        for key in ("hdi", "eti"):
            fields[key] = np.asarray(fields[key])
        return cls(
            **fields, ci_prob=first.ci_prob, ref=first.ref, draws=first.draws, exact=first.exact
        )


_CHANCE_FIELDS = ("chance", "chance_score", "p_above_chance")
#: Fields with one value per matrix (and class): what indexing and ``concat`` act on.
_ARRAY_FIELDS = (
    "score", "mean", "median", "std", "mc_error", "hdi", "eti", "p_below", "p_above",
    "prior_shift", "prior_dominated", *_CHANCE_FIELDS,
)  # fmt: skip


def summarize_draws(
    x: ArrayLike,
    *,
    score: ArrayLike | None = None,
    ci_prob: float = 0.95,
    ref: float | None = None,
) -> MetricSummary:
    """Summarise draws of shape ``(..., draws)`` into a :class:`MetricSummary`.

    Parameters
    ----------
    x : array_like, shape (..., draws)
        Draws of a metric, the draws on the last axis.
    score : array_like, optional
        The observed value, shape ``x.shape[:-1]``.
    ci_prob : float, default 0.95
        Probability of the intervals.
    ref : float, optional
        Reference value of ``p_below`` and ``p_above``.

    Returns
    -------
    MetricSummary
        Mean, median, standard deviation, Monte Carlo error and intervals.

    See Also
    --------
    f1posterior.hdi, f1posterior.eti : The two intervals.
    f1posterior.MetricSummary : The result.

    Examples
    --------
    >>> import numpy as np
    >>> s = summarize_draws(np.linspace(0.7, 0.9, 1001), score=0.8, ref=0.75)
    >>> round(s.mean, 6), round(s.p_below, 3)
    (0.8, 0.25)
    """
    prob = check_prob(ci_prob, "ci_prob")
    r = check_ref(ref)
    arr = _draws_last(x, -1)
    n = arr.shape[-1]
    with np.errstate(over="ignore", invalid="ignore"):  # sums past the float range: inf
        std = arr.std(axis=-1, ddof=1) if n > 1 else np.zeros(arr.shape[:-1])
        mean = arr.mean(axis=-1)
    median = np.median(arr, axis=-1)
    return _from_stats(arr, score, mean, median, std, hdi(arr, prob), eti(arr, prob), prob, r)


def _from_stats(
    arr: np.ndarray, score: Any, mean: Any, median: Any, std: Any, hdi: Any, eti: Any,
    ci_prob: float, ref: float | None,
) -> MetricSummary:  # fmt: skip
    """The summary of draws ``arr`` (..., n) from their statistics."""
    n = arr.shape[-1]
    return MetricSummary(
        score=plain(np.asarray(np.nan if score is None else score, dtype=float)),
        mean=plain(mean),
        median=plain(median),
        std=plain(std),
        mc_error=plain(std / math.sqrt(n)),
        hdi=hdi,
        eti=eti,
        p_below=None if ref is None else plain(np.count_nonzero(arr < ref, axis=-1) / n),
        p_above=None if ref is None else plain(np.count_nonzero(arr > ref, axis=-1) / n),
        ci_prob=ci_prob,
        ref=ref,
        draws=n,
    )


def summarize_rows(
    x: np.ndarray,
    *,
    score: Any = None,
    ci_prob: float = 0.95,
    ref: float | None = None,
    work: np.ndarray | None = None,
) -> MetricSummary:
    """:func:`f1posterior.summarize_draws` of finite draws ``(..., draws)``, selected in place.

    Three single-cut partitions of each row (at the median, then one in each
    half) place the HDI's candidate tails, the median and the equal-tailed
    interval's order statistics; only the two tails (``1 - ci_prob`` of the
    draws) are then sorted (short rows and small batches are simply sorted:
    that is faster there; see :func:`f1posterior.posterior._summary._select`). The values equal
    :func:`~f1posterior.summarize_draws`'s bit for bit (the median and the
    interval are functions of order statistics, and the interpolation repeats
    :func:`numpy.quantile`'s ``linear`` rule). Falls back to
    :func:`~f1posterior.summarize_draws` when the draws are too few for the
    tails to be disjoint.

    ``work``, a flat float64 array with room for ``x.size`` values, holds the
    temporaries (deviations from the mean, then the sorted or partitioned
    copy) instead of fresh arrays; ``x`` itself is never modified.
    """
    arr = np.asarray(x, dtype=np.float64)
    n = arr.shape[-1]
    if work is None or work.size < arr.size:
        work = np.empty(arr.size)
    scratch = work[: arr.size].reshape(arr.shape)
    k = min(n, max(1, math.ceil(ci_prob * n - 1e-9)))
    nw = n - k + 1
    # numpy.quantile's linear rule in Python floats (the same IEEE operations)
    virtual = [(n - 1) * ((1 - ci_prob) / 2), (n - 1) * ((1 + ci_prob) / 2)]
    prev = [math.floor(v) for v in virtual]
    gamma = [v - math.floor(v) for v in virtual]
    if not (2 * nw < n and prev[0] + 1 < nw and prev[1] >= k - 1 and prev[1] + 1 < n):
        return summarize_draws(arr, score=score, ci_prob=ci_prob, ref=ref)
    # mean and standard deviation as numpy's mean and std(ddof=1) compute them, bit for
    # bit (sum / n; sum of squared deviations / (n - 1), square root), the deviations
    # in the scratch array. Draws of an unbounded metric (a likelihood or odds ratio under
    # a vanishing prior) can sum past the float range: the mean is then inf, as it should be
    with np.errstate(over="ignore", invalid="ignore"):
        mean = np.add.reduce(arr, axis=-1, keepdims=True) / n  # what ndarray.mean computes
        if n > 1:
            dev = np.subtract(arr, mean, out=scratch)
            np.multiply(dev, dev, out=dev)
            std = np.sqrt(np.add.reduce(dev, axis=-1) / (n - 1))
        else:
            std = np.zeros(arr.shape[:-1])
    np.copyto(scratch, arr)  # sorted or partitioned in place
    lows, highs, med = _select(scratch, nw, k, median=True)
    hdi = _shortest(lows, highs)
    assert med is not None
    median = med[0] / 1.0 if n % 2 else (med[0] + med[1]) / 2.0
    eti = np.empty((*arr.shape[:-1], 2))
    for j, (a, b, t) in enumerate(
        (
            (lows[..., prev[0]], lows[..., prev[0] + 1], gamma[0]),
            (highs[..., prev[1] - k + 1], highs[..., prev[1] - k + 2], gamma[1]),
        )
    ):
        diff = b - a
        eti[..., j] = b - diff * (1 - t) if t >= 0.5 else a + diff * t

    return _from_stats(arr, score, mean[..., 0], median, std, hdi, eti, ci_prob, ref)
