"""Closed-form posteriors: under the aligned prior, and per-class recall under any Dirichlet prior.

The incomplete beta function comes from scipy (optional), imported only when needed.

Design notes: docs/design.md#posterior-exact
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.priors import PriorArg, describe_prior, resolve
from .._core.results import plain, value_equality
from .._core.validation import check_choice, check_counts, check_prob, check_ref
from ._closed_forms import ANY_PRIOR_METRICS, EXACT_METRICS, has_exact, is_aligned
from ._summary import MetricSummary

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "ANY_PRIOR_METRICS",
    "EXACT_METRICS",
    "BetaPosterior",
    "exact_posterior",
    "exact_summary",
    "has_exact",
    "is_aligned",
    "scipy_available",
]


_GRID = 25  # coarse grid of lower-tail masses for the HDI search
_GOLDEN = 40  # golden-section refinements of the HDI search
_SERIES = 90  # terms of the hypergeometric series (each term shrinks by > 2x)


def special() -> Any:
    """Import scipy.special lazily, with a message naming the optional extra."""
    try:
        import scipy.special as sp
    except ImportError:  # pragma: no cover - exercised by monkeypatching in tests
        raise ImportError(
            "exact posteriors need scipy: pip install 'f1posterior[exact]' "
            "(without it f1posterior samples instead)"
        ) from None
    return sp


def scipy_available() -> bool:
    """True when scipy can be imported, so exact posteriors are available.

    Examples
    --------
    >>> isinstance(scipy_available(), bool)
    True
    """
    try:
        special()
    except ImportError:
        return False
    return True


@value_equality
@dataclass(frozen=True, eq=False)
class BetaPosterior:
    """Posterior of a metric ``X = g(B)``, ``B ~ Beta(a, b)``, ``g`` increasing.

    Attributes
    ----------
    a, b : ndarray
        Beta parameters, of the metric's shape (``(*batch)``, or
        ``(*batch, M)`` for a per-class metric).
    transform : {"identity", "f1"}
        ``g(B) = B``, or ``g(B) = 2B / (1 + B)`` (F1 from the Jaccard index).

    See Also
    --------
    f1posterior.exact_posterior : The function that returns it.

    Examples
    --------
    >>> post = exact_posterior([[40, 10], [5, 45]], "micro_f1")
    >>> post.a, post.b
    (array(87.), array(17.))
    >>> round(float(post.cdf(0.8)), 4)
    0.1559
    """

    a: np.ndarray
    b: np.ndarray
    transform: str = "identity"

    # -- the transform -------------------------------------------------------------
    def _to_b(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(B, 1 - B)`` at metric value ``t`` (clipped to [0, 1]), without cancellation."""
        t = np.clip(np.asarray(t, dtype=float), 0.0, 1.0)
        if self.transform == "f1":
            return t / (2.0 - t), (2.0 - 2.0 * t) / (2.0 - t)
        return t, 1.0 - t

    def _from_b(self, x: np.ndarray) -> np.ndarray:
        return 2.0 * x / (1.0 + x) if self.transform == "f1" else x

    # -- distribution functions ----------------------------------------------------
    def cdf(self, t: ArrayLike) -> np.ndarray:
        """P(X <= t) (= P(X < t): the distribution is continuous); broadcasts."""
        sp = special()
        x, _ = self._to_b(np.asarray(t))
        return np.asarray(sp.betainc(self.a, self.b, x))

    def sf(self, t: ArrayLike) -> np.ndarray:
        """P(X > t) = P(X >= t), computed without the cancellation of ``1 - cdf``."""
        sp = special()
        _, y = self._to_b(np.asarray(t))
        return np.asarray(sp.betainc(self.b, self.a, y))

    def ppf(self, q: ArrayLike) -> np.ndarray:
        """Quantile function: the ``q`` quantile of X; broadcasts."""
        sp = special()
        return self._from_b(np.asarray(sp.betaincinv(self.a, self.b, q)))

    def pdf(self, t: ArrayLike) -> np.ndarray:
        """Density of X at ``t`` (of the metric, Jacobian included)."""
        sp = special()
        t = np.asarray(t, dtype=float)
        x, y = self._to_b(t)
        with np.errstate(divide="ignore", invalid="ignore"):
            logf = sp.xlogy(self.a - 1.0, x) + sp.xlogy(self.b - 1.0, y) - sp.betaln(self.a, self.b)
            if self.transform == "f1":
                logf = logf + np.log(2.0) - 2.0 * np.log(2.0 - np.clip(t, 0.0, 1.0))
        inside = (t >= 0.0) & (t <= 1.0)
        return np.where(inside, np.exp(logf), 0.0)

    # -- moments -------------------------------------------------------------------
    def _inverse_moments(self) -> tuple[np.ndarray, np.ndarray]:
        """E[1/(1+B)] and E[1/(1+B)^2] by Pfaff-transformed hypergeometric series.

        E[(1+B)^-k] = 2F1(k, a; a+b; -1) = 2^-k 2F1(k, b; a+b; 1/2), whose terms
        shrink by more than half each, so ``_SERIES`` terms reach double precision.
        """
        a, b = np.broadcast_arrays(np.asarray(self.a, float), np.asarray(self.b, float))
        term = np.ones_like(a)
        s1 = np.zeros_like(a)
        s2 = np.zeros_like(a)
        for n in range(_SERIES):
            s1 = s1 + term
            s2 = s2 + (n + 1) * term
            term = term * (b + n) / (a + b + n) * 0.5
        return 0.5 * s1, 0.25 * s2

    def mean(self) -> np.ndarray:
        """Exact posterior mean."""
        if self.transform == "f1":
            m1, _ = self._inverse_moments()
            return 2.0 - 2.0 * m1
        return np.asarray(self.a / (self.a + self.b))

    def std(self) -> np.ndarray:
        """Exact posterior standard deviation."""
        if self.transform == "f1":
            m1, m2 = self._inverse_moments()
            return 2.0 * np.sqrt(np.maximum(m2 - m1 * m1, 0.0))
        s = self.a + self.b
        return np.asarray(np.sqrt(self.a * self.b / (s * s * (s + 1.0))))

    # -- intervals -----------------------------------------------------------------
    def eti(self, ci_prob: float = 0.95) -> np.ndarray:
        """Equal-tailed interval, shape ``(..., 2)``."""
        p = check_prob(ci_prob, "ci_prob")
        return np.stack([self.ppf((1 - p) / 2), self.ppf((1 + p) / 2)], axis=-1)

    def hdi(self, ci_prob: float = 0.95) -> np.ndarray:
        """Highest-density interval of X, shape ``(..., 2)``.

        The shortest interval ``[Q(q), Q(q + ci_prob)]`` of the metric's own
        quantile function ``Q``: a coarse grid over the lower tail mass
        ``q`` in ``[0, 1 - ci_prob]`` (robust to boundary optima and to
        non-unimodal densities), then golden-section refinement around the
        best grid point. At an interior optimum the density is equal at both
        ends, the defining property of the HDI.
        """
        p = check_prob(ci_prob, "ci_prob")
        a = np.asarray(self.a, float)[..., None]
        b = np.asarray(self.b, float)[..., None]
        sub = BetaPosterior(a, b, self.transform)
        span = 1.0 - p

        def width(q: np.ndarray) -> np.ndarray:
            return sub.ppf(np.minimum(q + p, 1.0)) - sub.ppf(q)

        grid = np.linspace(0.0, span, _GRID)
        w = width(np.broadcast_to(grid, a.shape[:-1] + (_GRID,)))
        i = np.argmin(w, axis=-1)[..., None]
        best_q = grid[i]
        best_w = np.take_along_axis(w, i, -1)
        step = span / (_GRID - 1)
        lo, hi = np.maximum(best_q - step, 0.0), np.minimum(best_q + step, span)
        g = (np.sqrt(5.0) - 1.0) / 2.0
        x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
        f1, f2 = width(x1), width(x2)
        for _ in range(_GOLDEN):
            left = f1 <= f2  # minimum in [lo, x2]: drop (x2, hi]; else drop [lo, x1)
            hi, lo = np.where(left, x2, hi), np.where(left, lo, x1)
            xn = np.where(left, hi - g * (hi - lo), lo + g * (hi - lo))
            fn = width(xn)
            x1, x2, f1, f2 = (
                np.where(left, xn, x2),
                np.where(left, x1, xn),
                np.where(left, fn, f2),
                np.where(left, f1, fn),
            )
        q = np.where(f1 <= f2, x1, x2)
        fq = np.minimum(f1, f2)
        q = np.where(fq < best_w, q, best_q)[..., 0]
        return np.stack([sub.ppf(q[..., None])[..., 0], sub.ppf(q[..., None] + p)[..., 0]], -1)

    def summary(
        self, *, score: ArrayLike, ci_prob: float = 0.95, ref: float | None = None
    ) -> MetricSummary:
        """Exact :class:`~f1posterior.posterior.MetricSummary` (``mc_error`` 0,
        ``draws`` 0)."""
        prob = check_prob(ci_prob, "ci_prob")
        r = check_ref(ref)
        mean = self.mean()
        return MetricSummary(
            score=plain(score),
            mean=plain(mean),
            median=plain(self.ppf(0.5)),
            std=plain(self.std()),
            mc_error=plain(np.zeros_like(mean)),
            hdi=self.hdi(prob),
            eti=self.eti(prob),
            p_below=None if r is None else plain(self.cdf(r)),
            p_above=None if r is None else plain(self.sf(r)),
            ci_prob=prob,
            ref=r,
            draws=0,
            exact=True,
        )


def posterior_from_concentration(conc: np.ndarray, metric: str) -> BetaPosterior:
    """The exact posterior of ``metric`` given the cell concentrations ``A = alpha + C``.

    ``conc`` has shape ``(*batch, M, M)``; no validation (internal use by
    :func:`f1posterior.evaluate` and :func:`exact_posterior`).
    """
    diag = np.diagonal(conc, axis1=-2, axis2=-1)
    if metric in ("micro_f1", "accuracy"):
        tr = diag.sum(axis=-1)
        return BetaPosterior(np.asarray(tr), np.asarray(conc.sum(axis=(-2, -1)) - tr))
    rows, cols = conc.sum(axis=-1), conc.sum(axis=-2)
    if metric == "precision":
        return BetaPosterior(diag.copy(), cols - diag)
    if metric == "recall":
        return BetaPosterior(diag.copy(), rows - diag)
    return BetaPosterior(diag.copy(), rows + cols - 2.0 * diag, "f1")


def _check_exact(counts: Any, metric: Any, alpha: Any, beta: Any) -> tuple[np.ndarray, np.ndarray]:
    c = check_counts(counts)
    check_choice(metric, "metric", EXACT_METRICS)
    prior = resolve(alpha, beta, c)
    if prior.mixture is not None:
        raise ValueError(
            f"the hierarchical prior has no closed-form posterior of {metric!r} (recall is a "
            "mixture of Betas under it): use evaluate, which samples it exactly, or an aligned "
            f"prior; got {describe_prior(alpha, beta)}"
        )
    a, b = prior.alpha, prior.beta
    if metric not in ANY_PRIOR_METRICS and not is_aligned(a, b):
        raise ValueError(
            "alpha and beta must form an aligned prior (beta_j = sum_k alpha_jk, e.g. "
            f'beta="aligned") for a closed-form posterior of {metric!r} (only recall has '
            f"one under any prior); got {describe_prior(alpha, beta)}"
        )
    if c.shape[-1] < 2:
        raise ValueError(
            f"counts must have M >= 2 classes for a closed-form posterior; got shape {c.shape}"
        )
    return c, a + c


def exact_posterior(
    counts: ArrayLike, metric: str, *, alpha: PriorArg = 1.0, beta: PriorArg = "aligned"
) -> BetaPosterior:
    """Closed-form posterior of a metric under an aligned prior (recall: any Dirichlet prior).

    Parameters
    ----------
    counts : array_like, shape (*batch, M, M)
        Confusion matrices (rows = true class), M >= 2.
    metric : {"micro_f1", "accuracy", "precision", "recall", "f1"}
        ``precision``, ``recall`` and ``f1`` are per class (trailing class axis).
    alpha, beta : prior
        Must be aligned: ``beta_j = sum_k alpha_jk`` (the default ``"aligned"``),
        except for ``recall``, which is ``Beta(A_jj, r_j - A_jj)`` under any
        Dirichlet prior (not under the hierarchical prior, a mixture).

    Returns
    -------
    BetaPosterior
        With ``cdf``, ``sf``, ``ppf``, ``pdf``, ``mean``, ``std``, ``hdi``,
        ``eti`` and ``summary``; parameters of shape ``(*batch)`` or ``(*batch, M)``.

    See Also
    --------
    f1posterior.exact_summary : Its summary.
    f1posterior.evaluate : Every metric, exact or sampled.

    Examples
    --------
    >>> post = exact_posterior([[40, 10], [5, 45]], "f1")
    >>> post.a, post.b
    (array([41., 46.]), array([17., 17.]))
    >>> post.hdi(0.95).round(3)
    array([[0.745, 0.904],
           [0.768, 0.913]])
    """
    _, conc = _check_exact(counts, metric, alpha, beta)
    return posterior_from_concentration(conc, metric)


def exact_summary(
    counts: ArrayLike,
    metric: str,
    *,
    alpha: PriorArg = 1.0,
    beta: PriorArg = "aligned",
    ci_prob: float = 0.95,
    ref: float | None = None,
) -> MetricSummary:
    """Exact :class:`~f1posterior.posterior.MetricSummary` of a metric under an aligned
    prior.

    ``recall`` has one under any Dirichlet prior (see :func:`exact_posterior`).

    Same fields as :func:`f1posterior.evaluate`'s summaries, with
    ``mc_error`` 0, ``draws`` 0 and ``exact`` True.

    Parameters
    ----------
    counts : array_like of int, shape (..., M, M)
        Confusion counts; rows are true classes.
    metric : str
        A named metric with a closed form (see :func:`exact_posterior`).
    alpha : float, array_like or str, default 1.0
        Prior of the rows, as in :func:`f1posterior.evaluate`.
    beta : float, array_like or str, default "aligned"
        Prior of the prevalences; the closed forms need ``"aligned"`` (but ``recall``).
    ci_prob : float, default 0.95
        Probability of the intervals.
    ref : float, optional
        Reference value of ``p_below`` and ``p_above``.

    Returns
    -------
    MetricSummary
        The summary, computed without draws.

    See Also
    --------
    f1posterior.exact_posterior : The Beta posterior itself.
    f1posterior.evaluate : Every metric, exact or sampled.

    Examples
    --------
    >>> s = exact_summary([[40, 10], [5, 45]], "micro_f1", ref=0.8)
    >>> round(s.mean, 4), round(s.p_below, 4), s.exact
    (0.8365, 0.1559, True)
    """
    from ..metrics import METRICS

    c, conc = _check_exact(counts, metric, alpha, beta)
    score = METRICS[metric](c)
    return posterior_from_concentration(conc, metric).summary(score=score, ci_prob=ci_prob, ref=ref)
