"""The conjugate sampler agrees with an independent Metropolis sampler of the same model."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from mcmc import metropolis

from f1posterior import f1, sample_posterior

Z_MAX = 4.5  # agreement within 4.5 combined Monte Carlo standard errors


def _metrics(p: np.ndarray) -> np.ndarray:
    """micro-F1, macro-F1, F1 of class 0 and their squares (first and second moments)."""
    v = np.stack(
        [
            f1(p, average="micro"),
            f1(p, average="macro"),
            f1(p, average=None)[..., 0],
        ],
        axis=-1,
    )
    return np.concatenate([v, v**2], axis=-1)


def _z_scores(counts, alpha, beta, seed, mcmc_prior=None):
    a_m, b_m = mcmc_prior or (alpha, beta)
    chains = metropolis(counts, a_m, b_m, _metrics, seed=seed)  # (chains, kept, 6)
    chain_means = chains.mean(axis=1)
    mcmc_mean = chain_means.mean(axis=0)
    mcmc_se = chain_means.std(axis=0, ddof=1) / np.sqrt(chain_means.shape[0])
    n = 100_000
    exact = _metrics(sample_posterior(counts, draws=n, alpha=alpha, beta=beta, rng=seed))
    conj_mean = exact.mean(axis=0)
    conj_se = exact.std(axis=0, ddof=1) / np.sqrt(n)
    return np.abs(mcmc_mean - conj_mean) / np.hypot(mcmc_se, conj_se)


matrices = (
    st.integers(2, 3)
    .flatmap(
        lambda m: st.lists(st.integers(0, 8), min_size=m * m, max_size=m * m).map(
            lambda v: np.array(v).reshape(m, m)
        )
    )
    .filter(lambda c: c.sum() > 0)
)
priors = st.sampled_from([0.5, 1.0, 2.0])


@settings(max_examples=6, deadline=None, derandomize=True)
@given(counts=matrices, alpha=priors, beta=priors)
def test_conjugate_sampler_agrees_with_metropolis(counts, alpha, beta):
    z = _z_scores(counts, alpha, beta, seed=int(counts.sum()))
    assert np.all(z < Z_MAX), z


def test_agreement_with_array_priors():
    counts = np.array([[6, 1, 0], [2, 4, 3], [0, 1, 7]])
    alpha = np.array([[2.0, 0.5, 0.5], [1.0, 1.5, 0.7], [0.3, 0.3, 3.0]])
    beta = np.array([0.5, 2.0, 1.0])
    assert np.all(_z_scores(counts, alpha, beta, seed=1) < Z_MAX)


def test_negative_control_detects_a_wrong_prior():
    """The same comparison must fail when the MCMC runs a different prior."""
    counts = np.array([[6, 1, 0], [2, 4, 3], [0, 1, 7]])
    z = _z_scores(counts, 1.0, 1.0, seed=2, mcmc_prior=(2.0, 1.0))
    assert z.max() > 3 * Z_MAX
