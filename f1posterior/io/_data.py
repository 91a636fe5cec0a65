"""Embedded example: the confusion matrix of Figure 3 and Table 1 of Zhang et al. (2015).

Zhang, Wang & Zhao, "Estimating the uncertainty of average F1 scores",
ICTIR 2015. Rows are true classes, columns predicted classes.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FIGURE3_MATRIX", "FIGURE3_LABELS", "TABLE1", "figure3"]

#: The paper's Figure 3 confusion matrix (rows = truth), 1,391 documents.
FIGURE3_MATRIX: tuple[tuple[int, ...], ...] = (
    (145, 1, 2, 1, 0),
    (5, 256, 22, 9, 6),
    (5, 24, 234, 36, 19),
    (1, 18, 32, 243, 25),
    (1, 5, 9, 38, 254),
)
FIGURE3_LABELS: tuple[str, ...] = ("0", "1", "2", "3", "4")

#: The paper's Table 1 (PyMC3 Metropolis, 50,000 samples, prior alpha = beta = 1,
#: reference value 0.8, 95% HDI). Percentages are "% below" and "% above" 0.8.
TABLE1: dict[str, dict[str, float | tuple[float, float]]] = {
    "micro_f1": {
        "score": 0.814, "mean": 0.803, "std": 0.011, "mc_error": 0.000,
        "pct_below": 39.6, "pct_above": 60.4, "hdi": (0.782, 0.823),
    },
    "macro_f1": {
        "score": 0.828, "mean": 0.815, "std": 0.010, "mc_error": 0.000,
        "pct_below": 6.1, "pct_above": 93.9, "hdi": (0.796, 0.835),
    },
}  # fmt: skip


def figure3() -> np.ndarray:
    """The Figure 3 matrix as a new integer array of shape (5, 5).

    Examples
    --------
    >>> figure3().sum()
    np.int64(1391)
    """
    return np.array(FIGURE3_MATRIX, dtype=np.int64)
