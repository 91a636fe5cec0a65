"""Sparse form of the paired model: a Dirichlet over the (true class, prediction_1, ...,
prediction_k) tuples that carry posterior mass, never over all M^(k+1) of them.

The prior (stated in :mod:`f1posterior.analysis.comparison` and ``docs/compare.md``)
is the *concordant* joint prior: for every true class ``t`` and class ``u`` it puts the
marginal prior ``A[t, u]`` on the one tuple ``(t, u, u, ..., u)`` in which every
classifier predicts ``u``, and nothing on tuples where classifiers disagree (the limit
of ``Dir(epsilon)`` on those cells as ``epsilon -> 0``). Summed over the other
classifiers' predictions it gives each classifier exactly the marginal prior ``A``
(aggregation property of the Dirichlet), so each classifier's posterior is the core
model's; only documents on which the classifiers disagree carry evidence of a
difference, as in the Bayesian sign test, whose prior pseudo-observation lies at zero
difference (Benavoli, Corani, Demsar & Zaffalon, JMLR 18(77), 2017). The posterior is a
Dirichlet over the observed tuples and the M^2 concordant ones: at most N + M^2 cells for
N documents, whatever k.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.priors import describe_prior, resolve_prior

__all__ = ["count_tuples", "marginal_counts", "concordant_prior", "posterior_tuples"]


def count_tuples(codes_t: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct (true, pred_1, ..., pred_k) tuples, sorted, and how many documents have each.

    Parameters
    ----------
    codes_t : ndarray of int, shape (N,)
        True class codes.
    codes : ndarray of int, shape (k, N)
        Each classifier's predicted class codes.

    Returns
    -------
    tuples : ndarray of int64, shape (L, k + 1)
        Distinct tuples in lexicographic order (true class first).
    counts : ndarray of float64, shape (L,)
        Number of documents with each tuple.

    Examples
    --------
    >>> import numpy as np
    >>> t, c = count_tuples(np.array([0, 0, 1]), np.array([[0, 0, 1], [1, 1, 1]]))
    >>> t.tolist(), c.tolist()
    ([[0, 0, 1], [1, 1, 1]], [2.0, 1.0])
    """
    rows = np.column_stack([codes_t, np.asarray(codes).T]).astype(np.int64)
    uniq, counts = np.unique(rows, axis=0, return_counts=True)
    return uniq, counts.astype(np.float64)


def marginal_counts(tuples: np.ndarray, weights: np.ndarray, m: int) -> np.ndarray:
    """Each classifier's (true, predicted) table of tuple weights, shape (k, M, M)."""
    k = tuples.shape[1] - 1
    out = np.empty((k, m, m))
    for i in range(k):
        key = tuples[:, 0] * m + tuples[:, 1 + i]
        out[i] = np.bincount(key, weights, minlength=m * m).reshape(m, m)
    return out


def concordant_prior(
    alpha: Any, beta: Any, tuples: np.ndarray, counts: np.ndarray, m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Prior tuples, their concentrations, the prevalence prior (M,) and its statement.

    A preset, number or (M, M) array is each classifier's marginal prior ``A``,
    resolved by :func:`f1posterior._core.priors.resolve_prior` on the mean of the k
    classifiers' tables (so ``"adaptive"`` is centred on their mean accuracy) and put on
    the concordant tuples ``(t, u, ..., u)``. An (M, M^k) array is a prior per joint
    cell (prediction tuples in row-major order, the last classifier varying fastest),
    taken as given on its cells > 0; it is the one form that costs M^(k+1) cells.
    ``beta="aligned"`` gives ``beta_t`` the total prior of class ``t``'s tuples.
    """
    k = tuples.shape[1] - 1
    mean_table = marginal_counts(tuples, counts, m).mean(axis=0)
    if alpha is None:
        alpha = "adaptive"
    joint = not isinstance(alpha, str) and np.shape(alpha) == (m, m**k) and k > 1
    if joint:
        a, _ = resolve_prior(alpha, 1.0, np.zeros((m, m**k)))
        cells = np.nonzero(a > 0)
        digits = np.unravel_index(cells[1], (m,) * k)
        p_tuples = np.column_stack([cells[0], *digits]).astype(np.int64)
        p_conc = a[cells]
        totals = a.sum(axis=-1)
        text = f"paired model; alpha given per joint cell, beta {_beta_text(beta)}"
    else:
        am, _ = resolve_prior(alpha, 1.0, mean_table)
        t, u = np.indices((m, m)).reshape(2, -1)
        p_tuples = np.column_stack([t] + [u] * k).astype(np.int64)
        p_conc = am.reshape(-1)
        totals = am.sum(axis=-1)
        text = (
            f"paired model, concordant joint prior; each model's marginal prior: "
            f"{describe_prior(alpha, beta)}"
        )
    if isinstance(beta, str) and beta == "aligned":
        b = np.asarray(totals, dtype=np.float64)
    else:
        _, b = resolve_prior(1.0, beta, mean_table)
    return p_tuples, p_conc, np.asarray(b, dtype=np.float64), text


def _beta_text(beta: Any) -> str:
    return beta if isinstance(beta, str) else "as given"


def posterior_tuples(
    tuples: np.ndarray, counts: np.ndarray, p_tuples: np.ndarray, p_conc: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Union of observed and prior tuples, sorted, with concentrations count + prior."""
    both = np.concatenate([tuples, p_tuples])
    uniq, inverse = np.unique(both, axis=0, return_inverse=True)
    conc = np.bincount(inverse.reshape(-1), np.concatenate([counts, p_conc]), len(uniq))
    return uniq, conc
