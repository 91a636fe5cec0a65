"""Sparse form of the paired model: a Dirichlet over the (true class, prediction_1, ...,
prediction_k) tuples that carry prior or posterior mass, never over all M^(k+1) of them.

Design notes: docs/design.md#analysis-tuples
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.describe import describe
from .._core.priors import DEFAULT_PRIOR, PRIOR_PRESETS, describe_prior, resolve_prior

__all__ = [
    "PAIRED_PRIOR",
    "MAX_PRIOR_CELLS",
    "count_tuples",
    "marginal_counts",
    "paired_alpha",
    "joint_prior",
    "posterior_tuples",
]

#: Name of the paired model's default prior (also chosen by ``alpha=None`` and by the
#: library's default preset name, which the gate and the command line pass).
PAIRED_PRIOR = "paired"

#: Weight of the all-agree patterns relative to the others in the default prior: with two
#: classifiers the pseudo-documents go 1/3 to "A right, B wrong", 1/3 to the reverse and
#: 1/3 to agreement, as Benavoli's Bayesian sign test spreads its prior pseudo-observation.
DEFAULT_AGREE = 0.5

#: Pseudo-documents of the default prior, in all (``DEFAULT_TOTAL / M`` per true class).
DEFAULT_TOTAL = 3.0

#: Most prior cells the shared-error prior may need (``M (1 + (M - 1)(2^k - 1))``).
MAX_PRIOR_CELLS = 1 << 21


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


def paired_alpha(m: int) -> np.ndarray:
    """The default marginal prior (M, M): ``DEFAULT_TOTAL / M`` pseudo-documents a row,
    half on the diagonal, half spread evenly over its M - 1 errors (M = 1: all on it).

    Examples
    --------
    >>> paired_alpha(3).tolist()
    [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]
    >>> float(paired_alpha(10).sum())
    3.0
    """
    s = DEFAULT_TOTAL / m
    if m == 1:
        return np.full((1, 1), s)
    a = np.full((m, m), 0.5 * s / (m - 1))
    np.fill_diagonal(a, 0.5 * s)
    return a


def _is_default(alpha: Any) -> bool:
    return alpha is None or (
        isinstance(alpha, str) and alpha in (PAIRED_PRIOR, PRIOR_PRESETS[DEFAULT_PRIOR][0])
    )


def joint_prior(
    alpha: Any, beta: Any, tuples: np.ndarray, counts: np.ndarray, m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Prior tuples, their concentrations, the prevalence prior (M,) and its statement.

    ``alpha`` is each classifier's marginal prior ``A``: the default (``None``,
    ``"paired"`` or the library's default preset name) is :func:`paired_alpha`; any
    other preset, number or (M, M) array is resolved by
    :func:`f1posterior._core.priors.resolve_prior` on the mean of the k classifiers'
    tables. ``A`` is spread over the tuples by the shared-error construction (module
    docstring). An (M, M^k) array is a prior per joint cell (prediction tuples in
    row-major order, the last classifier varying fastest), taken as given on its cells
    > 0. ``beta="aligned"`` gives ``beta_t`` the total prior of class ``t``'s tuples.
    """
    k = tuples.shape[1] - 1
    mean_table = marginal_counts(tuples, counts, m).mean(axis=0)
    if not isinstance(alpha, str) and alpha is not None and np.shape(alpha) == (m, m**k) and k > 1:
        p_tuples, p_conc = _joint_array(alpha, m, k)
        text = f"paired model; alpha given per joint cell, beta {_beta_text(beta)}"
    else:
        default = _is_default(alpha)
        if default:
            am = paired_alpha(m)
            text = (
                "paired model, shared-error joint prior: 3 pseudo-documents over the classes, "
                "each model right or wrong evenly (all agreeing at half weight), the wrong "
                f"ones on one class; beta {_beta_text(beta)}"
            )
        else:
            am, _ = resolve_prior(alpha, 1.0, mean_table)
            text = (
                "paired model, shared-error joint prior; each model's marginal prior: "
                f"{describe_prior(alpha, beta)}"
            )
        p_tuples, p_conc = shared_error_tuples(am, k, DEFAULT_AGREE if default else 1.0)
    totals = np.bincount(p_tuples[:, 0], p_conc, minlength=m)
    if isinstance(beta, str) and beta == "aligned":
        b = totals
    else:
        _, b = resolve_prior(1.0, beta, mean_table)
    return p_tuples, p_conc, np.asarray(b, dtype=np.float64), text


def _joint_array(alpha: Any, m: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Cells and concentrations of an (M, M^k) prior given per joint cell."""
    a, _ = resolve_prior(alpha, 1.0, np.zeros((m, m**k)))
    cells = np.nonzero(a > 0)
    digits = np.unravel_index(cells[1], (m,) * k)
    return np.column_stack([cells[0], *digits]).astype(np.int64), a[cells]


def shared_error_tuples(a: np.ndarray, k: int, agree: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Cells (L, k + 1) and concentrations (L,) of the shared-error prior of marginal ``a``.

    Class ``t``'s ``s_t = sum_u a[t, u]`` pseudo-documents: correctness pattern ``c``
    (``c_i = 1``: classifier ``i`` wrong) with weight ``r^(k - |c|) (1 - r)^|c|``
    (``r = a[t, t] / s_t``), times ``agree`` if every classifier is right or every
    one wrong; the wrong ones predict ``u`` with probability ``a[t, u] / (s_t -
    a[t, t])``; weights rescaled to sum to ``s_t``. With ``agree = 1`` each
    classifier's marginal is exactly ``a``; with ``r = 1/2`` it is for any ``agree``.

    Examples
    --------
    >>> t, c = shared_error_tuples(np.array([[0.5, 0.5], [0.5, 0.5]]), 2, agree=0.5)
    >>> [(row, round(w, 4)) for row, w in zip(t.tolist(), c.tolist()) if row[0] == 0]
    [([0, 0, 0], 0.1667), ([0, 1, 0], 0.3333), ([0, 0, 1], 0.3333), ([0, 1, 1], 0.1667)]
    """
    m = a.shape[0]
    n_cells = m * (1 + (m - 1) * (2**k - 1))
    if n_cells > MAX_PRIOR_CELLS:
        raise ValueError(
            f"the paired prior of {k} classifiers over {m} classes needs {n_cells:,} prior "
            f"cells (more than {MAX_PRIOR_CELLS:,}); compare fewer classifiers at once, or "
            f"give alpha as an (M, M^k) array of the joint cells to use"
        )
    # every pattern but "all right" (bit i set = classifier i wrong); "all right" once a row
    pats = (np.arange(1, 2**k)[:, None] >> np.arange(k)[None, :]) & 1  # (P, k)
    n_wrong = pats.sum(axis=1)
    rows_t, rows_c = [], []
    for t in range(m):
        s = float(a[t].sum())
        r = float(a[t, t]) / s
        err = np.delete(np.arange(m), t)
        off = a[t, err]
        w_pat = r ** (k - n_wrong) * (1 - r) ** n_wrong * np.where(n_wrong == k, agree, 1.0)
        if off.sum() <= 0:
            w_pat = np.zeros_like(w_pat)
        w_right = r**k * agree
        scale = s / (w_right + w_pat.sum())
        if w_right > 0:
            rows_t.append(np.full((1, k + 1), t))
            rows_c.append(np.array([scale * w_right]))
        if not w_pat.any():
            continue
        e = off / off.sum()
        conc = (scale * w_pat[None, :] * e[:, None]).reshape(-1)  # (M - 1) x P
        preds = np.where(pats[None, :, :] == 1, err[:, None, None], t).reshape(-1, k)
        keep = conc > 0
        rows_t.append(np.column_stack([np.full(int(keep.sum()), t), preds[keep]]))
        rows_c.append(conc[keep])
    return np.concatenate(rows_t).astype(np.int64), np.concatenate(rows_c)


def _beta_text(beta: Any) -> str:
    if beta in ("hierarchical", "adaptive", "perks"):  # each preset's prevalence prior
        return "1/M"
    return beta if isinstance(beta, str) else f"as given ({describe(beta)})"


def posterior_tuples(
    tuples: np.ndarray, counts: np.ndarray, p_tuples: np.ndarray, p_conc: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Union of observed and prior tuples, sorted, with concentrations count + prior."""
    both = np.concatenate([tuples, p_tuples])
    uniq, inverse = np.unique(both, axis=0, return_inverse=True)
    conc = np.bincount(inverse.reshape(-1), np.concatenate([counts, p_conc]), len(uniq))
    return uniq, conc
