"""Which metrics have a closed-form posterior, and whether a prior is aligned: numpy only,
so that a sampled run need not load the closed forms (:mod:`._exact`, with scipy).

Design notes: docs/design.md#posterior-exact
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["ANY_PRIOR_METRICS", "EXACT_METRICS", "has_exact", "is_aligned"]

#: Metric names with a closed-form posterior under the aligned prior.
EXACT_METRICS = ("micro_f1", "accuracy", "precision", "recall", "f1")
#: Of those, the metrics whose closed form holds under any Dirichlet prior, aligned or not.
ANY_PRIOR_METRICS = ("recall",)


def has_exact(metric: Any, m: int) -> bool:
    """True when ``metric`` has a closed form under the aligned prior for ``M = m``.

    ``M = 1`` is excluded: every metric is then identically 1.

    Examples
    --------
    >>> has_exact("micro_f1", 3), has_exact("macro_f1", 3), has_exact("f1", 1)
    (True, False, False)
    """
    return isinstance(metric, str) and metric in EXACT_METRICS and m >= 2


def is_aligned(alpha: np.ndarray, beta: np.ndarray) -> bool:
    """True when resolved priors satisfy ``beta_j = sum_k alpha_jk`` (to 1e-12 relative).

    Parameters
    ----------
    alpha : ndarray, shape (*batch, M, M)
    beta : ndarray, shape (*batch, M)
        As returned by :func:`f1posterior._core.priors.resolve_prior`.

    Examples
    --------
    >>> from f1posterior._core.priors import resolve_prior
    >>> is_aligned(*resolve_prior(1.0, "aligned", (3, 3))), is_aligned(
    ...     *resolve_prior(1.0, 1.0, (3, 3)))
    (True, False)
    """
    a, b = np.asarray(alpha, dtype=float), np.asarray(beta, dtype=float)
    rows = a.sum(axis=-1)
    return bool(np.all(np.abs(b - rows) <= 1e-12 * rows))
