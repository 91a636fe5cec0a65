"""One random-stream block of Gamma variates: :func:`fill_block`, under a Dirichlet prior
or the hierarchical prior's mixture (the stream's order is documented in
:mod:`f1posterior._core.sampling`)."""

from __future__ import annotations

import numpy as np

from .hierarchical import mixture_shapes, shrink_diagonal

__all__ = ["LOG_SPACE_BELOW", "fill_block"]

#: Concentrations below this are sampled in log space.
LOG_SPACE_BELOW = 0.1
#: Blocks with at least this many draws are filled one cell at a time (a scalar
#: shape per call is ~5 ns per variate cheaper than numpy's broadcasting path;
#: below this the ~0.7 us cost of a call dominates).
_PER_CELL_MIN_DRAWS = 128


def fill_block(
    gen: np.random.Generator,
    rows: list[list[float]],
    conc: np.ndarray,
    small: np.ndarray | None,
    out: np.ndarray,
    per_cell_min: int = _PER_CELL_MIN_DRAWS,
    mix: tuple[np.ndarray, ...] | None = None,
) -> None:
    """Fill one block ``out`` (M+1, M, nb) (last axis contiguous) with Gamma variates.

    The stream is consumed cell by cell in row-major order, ``nb`` draws per
    cell; both code paths below consume it identically. With ``small`` (the
    mask of concentrations below ``LOG_SPACE_BELOW``), uniforms for the small
    cells follow, and rows are rescaled by a positive constant per draw.
    With ``mix`` (one table's ``(cdf, by_row, guide)`` grid weights under the
    hierarchical prior, :mod:`f1posterior._core.hierarchical`), the block's
    grid points and components are drawn first (uniforms), the diagonal cells
    get their per-draw shapes, and the extra Gammas come last.
    """
    nb = out.shape[-1]
    dt = out.dtype
    if mix is not None:
        _fill_mixture(gen, rows, conc, small, out, mix)
        return
    if small is None and nb >= per_cell_min:
        gamma = gen.standard_gamma
        for r, row in enumerate(rows):
            out_r = out[r]
            for c, a in enumerate(row):
                gamma(a, None, dt, out_r[c])
        return
    tmp = out if out.flags.c_contiguous else np.empty(out.shape, dt)
    if small is None:
        gen.standard_gamma(conc[..., None], dtype=dt, out=tmp)
    else:
        gen.standard_gamma((conc + small)[..., None], dtype=dt, out=tmp)
        _to_log_space(gen, tmp, conc, small)
        _rescale_log_rows(tmp)
    if tmp is not out:
        out[...] = tmp


def _to_log_space(
    gen: np.random.Generator, tmp: np.ndarray, conc: np.ndarray, small: np.ndarray
) -> None:
    """Logs of a block's Gammas, the small cells' corrected: ``+ log(U) / a``."""
    where = np.nonzero(small)
    u = gen.random((len(where[0]), tmp.shape[-1]), dtype=tmp.dtype)
    with np.errstate(divide="ignore"):  # log(0) = -inf: a Gamma below float range
        np.log(tmp, out=tmp)
    inv = (1.0 / conc[where]).astype(tmp.dtype)
    tmp[where] += np.log1p(-u) * inv[:, None]  # log(1 - u), 1 - u in (0, 1]


def _rescale_log_rows(tmp: np.ndarray) -> np.ndarray:
    """Subtract each row's maximum (per draw) and exponentiate, in place; the maxima."""
    top = tmp.max(axis=1, keepdims=True)
    tmp -= top
    np.exp(tmp, out=tmp)
    return top[:, 0]


def _fill_mixture(
    gen: np.random.Generator,
    rows: list[list[float]],
    conc: np.ndarray,
    small: np.ndarray | None,
    out: np.ndarray,
    mix: tuple[np.ndarray, ...],
) -> None:
    """:func:`fill_block` under the hierarchical prior (see there for the stream's order)."""
    nb, dt = out.shape[-1], out.dtype
    shapes, extra = mixture_shapes(gen, mix, np.diagonal(conc).copy(), nb)
    tmp = out if small is None or out.flags.c_contiguous else np.empty(out.shape, dt)
    gamma = gen.standard_gamma
    for r, row in enumerate(rows):
        out_r = tmp[r]
        if small is None:
            for c, a in enumerate(row):
                gamma(shapes[r] if c == r else a, None, dt, out_r[c])
            continue
        lift = conc[r] + small[r]  # the log-space cells draw Gamma(a + 1)
        if r < len(shapes):
            gamma(lift[:r, None], dtype=dt, out=out_r[:r])
            gamma(shapes[r], None, dt, out_r[r])
            gamma(lift[r + 1 :, None], dtype=dt, out=out_r[r + 1 :])
        else:
            gamma(lift[:, None], dtype=dt, out=out_r)
    top = None
    if small is not None:
        _to_log_space(gen, tmp, conc, small)
        top = _rescale_log_rows(tmp)
    if extra is not None:
        shrink_diagonal(gen, tmp, extra, top)
    if tmp is not out:
        out[...] = tmp
