"""The normal-normal random-effects model behind :func:`f1posterior.aggregate`.

``tau`` is drawn from its grid posterior and ``mu`` exactly given ``tau``: nothing is
iterated.

Design notes: docs/design.md#analysis-random-effects
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.describe import describe
from .._core.validation import check_positive

__all__ = [
    "SCALES",
    "TAU_PRIORS",
    "DEFAULT_TAU_PRIOR",
    "DEFAULT_TAU_MULTIPLE",
    "default_tau_prior",
    "to_scale",
    "from_scale",
    "population_mean",
    "TauPosterior",
    "tau_posterior",
    "typical_variance",
    "cochran_q",
    "draw_mu_tau",
    "draw_population",
    "check_tau_scale",
    "tau_posterior_of",
    "tau_prior_text",
]

#: Families of the prior of ``tau``.
TAU_PRIORS = ("half_normal", "half_cauchy")

#: The default prior of ``tau`` (:func:`default_tau_prior`): its family, and its scale
#: as a multiple of the tables' typical within-table standard deviation (chosen by
#: benchmarks/aggregate_calibration.py).
DEFAULT_TAU_PRIOR = "half_cauchy"
DEFAULT_TAU_MULTIPLE = 3.0

#: Working scales: name -> (range of the metric, what it is called in reports).
SCALES: dict[str, tuple[tuple[float, float], str]] = {
    "logit": ((0.0, 1.0), "logit"),
    "fisher_z": ((-1.0, 1.0), "Fisher z (atanh)"),
    "log": ((0.0, np.inf), "log"),
    "identity": ((-np.inf, np.inf), "identity"),
}

#: Draws at the very edge of a bounded range are moved this far inside it (relative),
#: so that a draw of exactly 0 or 1 (floating-point underflow) maps to a finite value.
_EDGE = 1e-12

#: Cells of the tau grid: a fine part that covers where the likelihood lives and a
#: coarse part up to where the prior has no mass left.
_FINE, _COARSE = 4000, 2000

#: Gauss-Hermite nodes of the mean over the population of tables. The integrand's
#: poles (at +-i pi for the logistic, +-i pi / 2 for tanh) set the error: below 1e-6
#: (logit) and 1e-4 (Fisher z) at tau = 2.5, below 1e-10 for tau <= 1.
_NODES = {"logit": 32, "fisher_z": 64}


def to_scale(x: np.ndarray, scale: str, what: str = "metric draws") -> np.ndarray:
    """``g(x)`` on the working ``scale``; a ValueError if ``x`` leaves the scale's range."""
    lo, hi = SCALES[scale][0]
    x = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(x)) and scale != "log":
        raise ValueError(
            f"{what} must be finite for the {scale!r} scale; got non-finite values (choose "
            "another scale, or a metric that stays finite)"
        )
    if x.size and (np.min(x) < lo or np.max(x) > hi):
        raise ValueError(
            f"{what} must lie in [{lo:g}, {hi:g}] for the {scale!r} scale; got values in "
            f"[{np.min(x):.6g}, {np.max(x):.6g}] (pass scale='identity' or a scale that "
            "fits the metric)"
        )
    if scale == "logit":
        x = np.clip(x, _EDGE, 1.0 - _EDGE)
        return np.log(x) - np.log1p(-x)
    if scale == "fisher_z":
        return np.arctanh(np.clip(x, -1.0 + _EDGE, 1.0 - _EDGE))
    if scale == "log":
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{what} must be finite for the 'log' scale; got infinite values")
        return np.log(np.maximum(x, np.finfo(float).tiny))
    return x.copy()


def from_scale(z: np.ndarray, scale: str) -> np.ndarray:
    """The inverse of :func:`to_scale`."""
    z = np.asarray(z, dtype=np.float64)
    if scale == "logit":
        # the logistic function as 1/2 + tanh(z / 2) / 2: one transcendental call, and
        # no overflow for any z
        out = np.tanh(0.5 * z)
        out *= 0.5
        out += 0.5
        return out
    if scale == "fisher_z":
        return np.tanh(z)
    if scale == "log":
        return np.exp(z)
    return z.copy()


def population_mean(mu: np.ndarray, tau: np.ndarray, scale: str) -> np.ndarray:
    """``E[g^-1(mu + tau Z)]``, ``Z ~ N(0, 1)``: the mean metric over the population of tables.

    Identity: ``mu``; log: ``exp(mu + tau^2 / 2)`` (closed forms); logit and
    Fisher z: Gauss-Hermite quadrature with 32 and 64 nodes (the integrand is
    smooth and bounded; the error is far below the Monte Carlo error of the
    draws).
    """
    mu, tau = np.asarray(mu, dtype=np.float64), np.asarray(tau, dtype=np.float64)
    if scale == "identity":
        return mu.copy()
    if scale == "log":
        return np.exp(mu + 0.5 * tau**2)
    nodes, weights = np.polynomial.hermite_e.hermegauss(_NODES[scale])
    weights = weights / np.sqrt(2.0 * np.pi)
    out = np.empty(np.broadcast_shapes(mu.shape, tau.shape))
    flat_mu, flat_tau = np.broadcast_to(mu, out.shape).ravel(), np.broadcast_to(tau, out.shape)
    flat_tau = flat_tau.ravel()
    res = out.reshape(-1)
    step = 8192
    for i in range(0, res.size, step):
        pts = flat_mu[i : i + step, None] + flat_tau[i : i + step, None] * nodes
        res[i : i + step] = from_scale(pts, scale) @ weights
    return out


def typical_variance(s2: np.ndarray) -> float:
    """Higgins & Thompson's (2002, eq. 9) typical within-table variance of ``K >= 2`` tables."""
    w = 1.0 / np.asarray(s2, dtype=np.float64)
    k = w.size
    den = w.sum() ** 2 - np.sum(w**2)
    return float((k - 1) * w.sum() / den) if den > 0 else float(np.mean(s2))


def default_tau_prior(s2: Any, scale: str = "logit") -> tuple[float, str]:
    """The default prior of ``tau`` for tables of working-scale variances ``s2``: its
    scale and family.

    On the logit, Fisher z and identity scales: ``(3 s, "half_cauchy")``, ``s`` the
    tables' typical within-table standard deviation (:func:`typical_variance`). On
    the log scale: ``(0.5, "half_normal")``, because the population mean
    ``exp(mu + tau^2 / 2)`` needs a light tail of tau.

    Chosen by simulation over tau from 0 to 1 and 3 to 20 tables
    (docs/aggregation.md): of the candidates whose population-mean interval
    covered at least 93% wherever any candidate did, the narrowest when the
    tables agree. A scale tied to the tables' own standard errors does not
    depend on the units of the working scale or on the size of the tables, and
    the half-Cauchy's heavy tail lets the data show a tau far above it. Use::

        a, family = default_tau_prior(s2, scale)
        post = tau_posterior(y, s2, a, prior=family)
    """
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(map(repr, SCALES))}; got {scale!r}")
    arr = np.asarray(s2, dtype=np.float64)
    if arr.ndim != 1 or arr.size < 2 or not np.all(np.isfinite(arr) & (arr > 0)):
        raise ValueError(
            "s2 must be the working-scale variances of at least 2 tables, each positive "
            f"and finite; got {describe(arr.tolist())}"
        )
    if scale == "log":
        return 0.5, "half_normal"
    return DEFAULT_TAU_MULTIPLE * float(np.sqrt(typical_variance(arr))), DEFAULT_TAU_PRIOR


def cochran_q(y: np.ndarray, s2: np.ndarray) -> float:
    """Cochran's Q: ``sum_k w_k (y_k - y_FE)^2`` with fixed-effect weights ``w_k = 1 / s_k^2``."""
    w = 1.0 / np.asarray(s2, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    return float(np.sum(w * (y - np.sum(w * y) / w.sum()) ** 2))


def _log_prior(tau: np.ndarray, scale: float, prior: str) -> np.ndarray:
    """``log p(tau)`` up to a constant: half-normal or half-Cauchy of scale ``scale``."""
    if prior == "half_cauchy":
        return -np.log1p((tau / scale) ** 2)
    return -0.5 * (tau / scale) ** 2


def _log_marginal(
    tau: np.ndarray, y: np.ndarray, s2: np.ndarray, scale: float, prior: str = "half_normal"
) -> np.ndarray:
    """``log p(tau | y)`` up to a constant, for a half-normal or half-Cauchy prior of
    scale ``scale`` (BDA3 eq. 5.21)."""
    var = s2[None, :] + tau[:, None] ** 2
    w = 1.0 / var
    v = 1.0 / w.sum(axis=1)
    mu_hat = v * (w * y[None, :]).sum(axis=1)
    ll = -0.5 * (np.log(var) + w * (y[None, :] - mu_hat[:, None]) ** 2).sum(axis=1)
    return ll + 0.5 * np.log(v) + _log_prior(tau, scale, prior)


@dataclass(frozen=True)
class TauPosterior:
    """The grid posterior of ``tau``: cell edges and masses (piecewise-constant density).

    Attributes
    ----------
    edges : ndarray, shape (n + 1,)
        Cell edges, from 0.
    mass : ndarray, shape (n,)
        Posterior probability of each cell (sums to 1).
    y, s2 : ndarray, shape (K,)
        The tables' working-scale means and variances.
    prior_scale : float
        Scale of the prior of ``tau``.
    prior : {"half_normal", "half_cauchy"}
        Family of the prior of ``tau``.
    """

    edges: np.ndarray
    mass: np.ndarray
    y: np.ndarray
    s2: np.ndarray
    prior_scale: float
    prior: str = "half_normal"

    def quantile(self, q: Any) -> np.ndarray:
        """Quantiles of ``tau`` (the CDF is linear within each cell: exact for the grid)."""
        cdf = np.concatenate([[0.0], np.cumsum(self.mass)])
        cdf[-1] = 1.0
        return np.interp(np.asarray(q, dtype=float), cdf, self.edges)

    def mean(self) -> float:
        """Posterior mean of ``tau``."""
        return float(np.sum(self.mass * 0.5 * (self.edges[1:] + self.edges[:-1])))

    def conditional(self, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``mu_hat(tau)`` and ``V(tau)``: ``mu | tau, y`` is normal with this mean and variance."""
        w = 1.0 / (self.s2[None, :] + np.asarray(tau, dtype=float)[:, None] ** 2)
        v = 1.0 / w.sum(axis=1)
        return v * (w * self.y[None, :]).sum(axis=1), v


def tau_posterior(
    y: Any, s2: Any, prior_scale: float, *, prior: str = "half_normal"
) -> TauPosterior:
    """The grid posterior of ``tau`` given working-scale means ``y`` and variances ``s2``.

    ``prior`` is the family of the prior of ``tau`` (:data:`TAU_PRIORS`), of scale
    ``prior_scale``. The grid has a fine part of 4,000 equal cells on ``[0, t1]``,
    where ``t1 = 6 max(sd(y), rms(s))`` covers the likelihood, and a coarse part of
    2,000 cells on ``[t1, t2]``. Half-normal: equal cells, ``t2 = max(8 A, 2 t1)``
    leaves less than ``1e-15`` of the prior's mass out (the likelihood only falls
    beyond ``t1``). Half-Cauchy: geometric cells (0.7% wide) up to
    ``t2 = 1e6 max(A, t1)``; beyond ``t1`` the posterior falls at least as fast as
    ``tau^-3``, so less than about ``1e-12`` of its mass is left out.
    """
    if prior not in TAU_PRIORS:
        raise ValueError(f"prior must be one of {', '.join(map(repr, TAU_PRIORS))}; got {prior!r}")
    y = np.asarray(y, dtype=np.float64)
    s2 = np.asarray(s2, dtype=np.float64)
    if y.ndim != 1 or y.shape != s2.shape or y.size < 2:
        raise ValueError(f"y and s2 must be 1-D of one length >= 2; got {describe(y)}")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(s2)) and np.all(s2 > 0)):
        raise ValueError(
            "every table's posterior must have a finite mean and a positive, finite variance "
            f"on the working scale; got means {y.tolist()} and variances {s2.tolist()}"
        )
    spread = max(float(np.std(y, ddof=1)), float(np.sqrt(np.mean(s2))))
    t1 = 6.0 * spread
    if prior == "half_normal":
        t2 = max(8.0 * prior_scale, 2.0 * t1)
        coarse = np.linspace(t1, t2, _COARSE + 1)[1:]
    else:
        t2 = 1e6 * max(prior_scale, t1)
        coarse = np.geomspace(t1, t2, _COARSE + 1)[1:]
    edges = np.concatenate([np.linspace(0.0, t1, _FINE + 1), coarse])
    mid = 0.5 * (edges[1:] + edges[:-1])
    step = max(1, 2**20 // y.size)  # (cells x K) temporaries of at most 8 MiB
    logp = np.concatenate(
        [
            _log_marginal(mid[i : i + step], y, s2, prior_scale, prior)
            for i in range(0, mid.size, step)
        ]
    )
    logp += np.log(np.diff(edges))
    p = np.exp(logp - logp.max())
    return TauPosterior(edges, p / p.sum(), y, s2, float(prior_scale), prior)


def draw_mu_tau(
    post: TauPosterior, n: int, gen: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` joint draws ``(mu, tau)`` from the grid posterior: cell, uniform in the cell,
    then ``mu | tau`` exactly."""
    cdf = np.cumsum(post.mass)
    cdf /= cdf[-1]
    u = gen.random(n)
    cell = np.minimum(np.searchsorted(cdf, u, side="right"), cdf.size - 1)
    lo, hi = post.edges[cell], post.edges[cell + 1]
    tau = lo + (hi - lo) * gen.random(n)
    mu = np.empty(n)
    z = gen.standard_normal(n)
    step = max(1, 2**20 // post.y.size)  # (draws x K) temporaries of at most 8 MiB
    for i in range(0, n, step):
        mu_hat, v = post.conditional(tau[i : i + step])
        mu[i : i + step] = mu_hat + np.sqrt(v) * z[i : i + step]
    return mu, tau


def draw_population(
    post: TauPosterior, n: int, gen: np.random.Generator, scale: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` draws of the population mean and of a new unit's value (the metric's scale),
    and the ``tau`` draws behind them."""
    mu, tau = draw_mu_tau(post, n, gen)
    population = population_mean(mu, tau, scale)
    return population, from_scale(mu + tau * gen.standard_normal(n), scale), tau


def check_tau_scale(tau_scale: Any, scale: str, most: float) -> float | None:
    """A fixed scale of tau's prior (at most ``most``), or None for ``"auto"``."""
    if isinstance(tau_scale, str):
        if tau_scale == "auto":
            return None
        raise ValueError(
            f"tau_scale must be 'auto' or a number > 0 and at most {most:g}; got {tau_scale!r}"
        )
    a = check_positive(tau_scale, "tau_scale")
    if a > most:
        raise ValueError(
            f"tau_scale must be at most {most:g} (the scale of tau on the {scale} "
            f"working scale; larger values make the heterogeneity overflow); got {tau_scale!r}"
        )
    return a


def tau_posterior_of(
    y: np.ndarray, s2: np.ndarray, scale: str, a_fixed: float | None, family: str
) -> TauPosterior:
    """The grid posterior of tau under the given prior, ``"auto"`` parts by the rule."""
    if not np.all(np.isfinite(s2) & (s2 > 0)):  # refused by tau_posterior, by name
        return tau_posterior(y, s2, 1.0)
    a_auto, family_auto = default_tau_prior(s2, scale)
    a = a_auto if a_fixed is None else a_fixed
    return tau_posterior(y, s2, a, prior=family_auto if family == "auto" else family)


def tau_prior_text(post: TauPosterior, tied: bool, units: str = "tables") -> str:
    """``half-Cauchy(0.18 = the tables' typical sd)`` (a scale ``tied`` to the
    variances of the ``units`` by the default rule), or ``half-normal(0.5)``."""
    name = {"half_cauchy": "half-Cauchy", "half_normal": "half-normal"}[post.prior]
    m = DEFAULT_TAU_MULTIPLE
    times = "" if m == 1 else f"{m:g} x "
    how = f" = {times}the {units}' typical sd" if tied else ""
    return f"{name}({post.prior_scale:.3g}{how})"
