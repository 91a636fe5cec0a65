"""Sums over the cells of a row, elementwise over the draws: :func:`row_sums`, the one
reduction of the Gamma variates' rows (cell normalisation, the hierarchical prior's
off-diagonal sums)."""

from __future__ import annotations

import numpy as np

__all__ = ["EINSUM_DRAWS_BELOW", "row_sums"]

#: :func:`row_sums` reduces chunks of fewer draws than this with ``einsum``.
EINSUM_DRAWS_BELOW = 128


def row_sums(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``np.add.reduce(x, axis=-2, out=out)`` for ``x`` (..., M, d), last axis contiguous.

    With ``2 <= d < EINSUM_DRAWS_BELOW`` (the one-block chunks of large tables) numpy's
    ``einsum`` gives the same sums, bit for bit (each cell added in order, elementwise
    over the draws), about twice as fast: the reduction's inner loop is only ``d`` long.
    With ``d = 1`` both sum along the contiguous axis, in different orders; the reduction
    is kept there, and for longer chunks, where it is the faster.
    """
    if 2 <= x.shape[-1] < EINSUM_DRAWS_BELOW:
        return np.einsum("...cd->...d", x, out=out)
    return np.add.reduce(x, axis=-2, out=out)
