"""An independent sampler of the paper's model, for cross-checks in tests.

Random-walk Metropolis-within-Gibbs on the *unnormalised* posterior
(Dirichlet prior densities times multinomial likelihoods), written without
any conjugacy: each simplex (mu, and every row theta_j) is moved in
additive-log-ratio coordinates with the Jacobian of that map, and accepted
or rejected on the full joint log density. Step sizes adapt during burn-in
towards a 30% acceptance rate, then stay fixed. Many independent chains run
in parallel (vectorised), so the Monte Carlo error of a posterior mean is
estimated honestly from the spread of the chains' own means, whatever the
autocorrelation within a chain.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _simplex(z: np.ndarray) -> np.ndarray:
    """ALR inverse: (..., M-1) free coordinates -> (..., M) simplex."""
    full = np.concatenate([z, np.zeros(z.shape[:-1] + (1,))], axis=-1)
    full -= full.max(axis=-1, keepdims=True)
    e = np.exp(full)
    return e / e.sum(axis=-1, keepdims=True)


def log_target(z: np.ndarray, counts: np.ndarray, alpha: np.ndarray, beta: np.ndarray):
    """Unnormalised log posterior in ALR coordinates, z of shape (chains, M+1, M-1)."""
    m = counts.shape[0]
    x = _simplex(z)
    theta, mu = x[:, :m, :], x[:, m, :]
    log_theta, log_mu = np.log(theta), np.log(mu)
    n = counts.sum(axis=1)
    log_prior = ((beta - 1) * log_mu).sum(-1) + ((alpha - 1) * log_theta).sum((-2, -1))
    log_lik = (n * log_mu).sum(-1) + (counts * log_theta).sum((-2, -1))
    log_jacobian = np.log(x).sum((-2, -1))  # |d simplex / d alr| = prod of the simplex entries
    return log_prior + log_lik + log_jacobian


def metropolis(
    counts,
    alpha,
    beta,
    metric: Callable[[np.ndarray], np.ndarray],
    *,
    chains: int = 400,
    burn: int = 1500,
    keep: int = 2000,
    thin: int = 4,
    seed: int = 0,
) -> np.ndarray:
    """Run the chains; return metric draws of shape (chains, keep // thin)."""
    rng = np.random.default_rng(seed)
    counts = np.asarray(counts, float)
    m = counts.shape[0]
    alpha = np.broadcast_to(np.asarray(alpha, float), (m, m))
    beta = np.broadcast_to(np.asarray(beta, float), (m,))
    z = rng.normal(size=(chains, m + 1, m - 1))
    lp = log_target(z, counts, alpha, beta)
    log_step = np.full(m + 1, np.log(0.5))
    out = []
    for it in range(burn + keep):
        for r in range(m + 1):
            prop = z.copy()
            prop[:, r] += np.exp(log_step[r]) * rng.normal(size=(chains, m - 1))
            lp_prop = log_target(prop, counts, alpha, beta)
            accept = np.log(rng.random(chains)) < lp_prop - lp
            z[accept] = prop[accept]
            lp = np.where(accept, lp_prop, lp)
            if it < burn:
                log_step[r] += 0.05 * (accept.mean() - 0.3)
        if it >= burn and (it - burn) % thin == 0:
            x = _simplex(z)
            p = x[:, m, :, None] * x[:, :m, :]
            out.append(metric(p))
    return np.stack(out, axis=1)
