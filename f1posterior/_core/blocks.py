"""One random-stream block of Gamma variates: :func:`fill_block`, under a Dirichlet prior
or the hierarchical prior's mixture (the stream's order is documented in
:mod:`f1posterior._core.sampling`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .hierarchical import ExtraGammas, GridWeights

__all__ = ["LOG_SPACE_BELOW", "PER_CELL_MIN_DRAWS", "fill_block", "fill_mixture_chunk"]

#: Concentrations below this are sampled in log space.
LOG_SPACE_BELOW = 0.1
#: Blocks with at least this many draws are filled one cell at a time (a scalar
#: shape per call is ~5 ns per variate cheaper than numpy's broadcasting path;
#: below this the ~0.7 us cost of a call dominates).
_PER_CELL_MIN_DRAWS = 128
#: (The same, for the batch engine's plan: :func:`f1posterior._core.sampling.short_blocks`.)
PER_CELL_MIN_DRAWS = _PER_CELL_MIN_DRAWS


def fill_block(
    gen: np.random.Generator,
    rows: list[list[float]],
    conc: np.ndarray,
    small: np.ndarray | None,
    out: np.ndarray,
    per_cell_min: int = _PER_CELL_MIN_DRAWS,
) -> None:
    """Fill one block ``out`` (M+1, M, nb) (last axis contiguous) with Gamma variates.

    The stream is consumed cell by cell in row-major order, ``nb`` draws per
    cell; both code paths below consume it identically. ``small`` is the mask of
    concentrations below ``LOG_SPACE_BELOW`` (None: none is). A row whose every
    cell is small is drawn in log space: its cells take ``Gamma(a + 1)``, uniforms
    for its cells follow (rows in order), and it is rescaled by a positive constant
    per draw. Every other cell, small or not, is drawn directly: its row has a
    concentration of at least ``LOG_SPACE_BELOW`` and cannot normalise 0/0
    (``f1posterior._core.sampling``, "Small concentrations").
    (Under the hierarchical prior: :func:`fill_mixture_chunk`.)
    """
    nb = out.shape[-1]
    dt = out.dtype
    logs = _log_rows(small)
    if logs is not None:
        rows = [[a + 1.0 for a in row] if r in logs else row for r, row in enumerate(rows)]
    if nb >= per_cell_min:
        gamma = gen.standard_gamma
        for r, row in enumerate(rows):
            out_r = out[r]
            for c, a in enumerate(row):
                gamma(a, None, dt, out_r[c])
    else:
        tmp = out if out.flags.c_contiguous else np.empty(out.shape, dt)
        shape = conc if logs is None else np.array(rows)
        gen.standard_gamma(shape[..., None], dtype=dt, out=tmp)
        if tmp is not out:
            out[...] = tmp
    if logs is not None:
        _to_log_rows(gen, out, conc, logs)


def _log_rows(small: np.ndarray | None) -> list[int] | None:
    """The rows of a block's mask ``small`` whose every cell is small (None: no such row)."""
    if small is None:
        return None
    logs = np.flatnonzero(small.all(axis=-1)).tolist()
    return logs or None


def _to_log_rows(
    gen: np.random.Generator, out: np.ndarray, conc: np.ndarray, logs: list[int]
) -> np.ndarray:
    """Rows ``logs`` of a block of ``Gamma(a + 1)``: ``log G = log Gamma(a + 1) + log(U) / a``,
    minus the row's maximum (per draw), exponentiated, in place; the maxima (M + 1, nb),
    0 in the other rows."""
    dt = out.dtype
    with np.errstate(divide="ignore"):  # log(0) = -inf: a Gamma below float range
        sub = np.log(out[logs])  # (k, M, nb)
    u = gen.random(sub.shape, dtype=dt)
    inv = (1.0 / conc[logs]).astype(dt)
    sub += np.log1p(-u) * inv[..., None]  # log(1 - u), 1 - u in (0, 1]
    top = sub.max(axis=1, keepdims=True)
    sub -= top
    np.exp(sub, out=sub)
    out[logs] = sub
    maxima = np.zeros((out.shape[0], out.shape[-1]))
    maxima[logs] = top[:, 0]
    return maxima


def log_space_tables(conc: np.ndarray, small_any: list[bool]) -> list[bool]:
    """Which tables of a mixture chunk ``conc`` (n, M + 1, M) are drawn in log space.

    Only those with a row whose every concentration is below ``LOG_SPACE_BELOW``: the
    log-space route keeps such a row from normalising 0/0. Under the hierarchical
    prior every row of ``theta`` has a diagonal shape of at least 1/2 (``Gamma(1/2)``
    is below float64's smallest normal with probability about 1e-154, float32's about
    1e-19), so only the prevalences of a table without documents (and ``M > 10``) can
    be such a row; a small off-diagonal cell drawn directly, as under a Dirichlet
    prior without small cells, underflows only where its cell is below float range
    in the table anyway (``f1posterior._core.sampling``, "Small concentrations").
    """
    if not any(small_any):
        return small_any
    whole = (conc.max(axis=-1) < LOG_SPACE_BELOW).any(axis=-1)
    return [bool(s and w) for s, w in zip(small_any, whole.tolist(), strict=True)]


def fill_mixture_chunk(
    gens: list[np.random.Generator],
    conc: np.ndarray,
    small_any: list[bool],
    spans: list[tuple[int, int, int]],
    weights: GridWeights,
    buf: np.ndarray,
) -> None:
    """Gamma variates of a chunk of matrices under the hierarchical prior, into ``buf``.

    ``buf`` is ``(n, M + 1, M, d)``; ``conc`` the matrices' concentrations (the own
    component's), ``(n, M + 1, M)``; ``spans`` the random-stream blocks ``(i, a, b)``
    (matrix ``i``, draws ``a:b`` of the chunk) in the order of ``gens``, one stream
    each. Each stream is consumed in this order: ``(M + 1) nb`` uniforms (the grid
    point, then each row's component); then, in a block of at least
    ``_PER_CELL_MIN_DRAWS`` draws not in log space, the cells off the diagonal
    row-major (a scalar shape each), then the diagonal cells' per-draw shapes and
    the extra Gammas in one call; otherwise the cells as :func:`fill_block` (the
    diagonal cells with their per-draw shapes; log space as there), then the extra
    Gammas. Streams are independent, so the uniforms of every block are drawn first
    and the choices made for the whole chunk at once; so is the extra Gammas'
    correction (:func:`f1posterior._core.hierarchical.shrink_diagonal`).
    """
    from .hierarchical import mixture_shapes, shrink_diagonal  # the mixture's only

    n, m1, m, d = buf.shape
    u = np.empty((n, m1, d))
    for gen, (i, a, b) in zip(gens, spans, strict=True):
        if b - a == d:  # the table's whole chunk: straight into u (the same stream)
            gen.random(out=u[i])
        else:
            u[i, :, a:b] = gen.random((m1, b - a))
    diag = np.diagonal(conc, axis1=-2, axis2=-1)
    off = conc[:, :m].sum(axis=-1) - diag
    shapes, extra = mixture_shapes(u, weights, diag, off, buf.dtype)
    logs = log_space_tables(conc, small_any)
    top = np.zeros((n, m1, d)) if extra is not None and any(logs) else None
    rows = conc.tolist() if max(b - a for _, a, b in spans) >= _PER_CELL_MIN_DRAWS else []
    for gen, (i, a, b) in zip(gens, spans, strict=True):
        out = buf[i, :, :, a:b]
        if not logs[i] and b - a >= _PER_CELL_MIN_DRAWS:
            _fill_per_cell(gen, rows[i], out, shapes[i, :, a:b], extra, (i, a, b))
            continue
        small = conc[i] < LOG_SPACE_BELOW if logs[i] else None
        t = _fill_cells(gen, conc[i], small, out, shapes[i, :, a:b])
        if top is not None and t is not None:
            top[i, :, a:b] = t
        if extra is not None:
            extra.draw(gen, i, a, b)
    if extra is not None:
        shrink_diagonal(buf, extra, top)


def _fill_per_cell(
    gen: np.random.Generator,
    rows: list[list[float]],
    out: np.ndarray,
    diag: np.ndarray,
    extra: ExtraGammas | None,
    span: tuple[int, int, int],
) -> None:
    """One block ``out`` (M + 1, M, nb): the cells off the diagonal one at a time (a
    scalar shape: numpy's cheaper path), then one call for the diagonal cells' per-draw
    shapes ``diag`` (M, nb) followed by the block's extra Gammas (numpy checks an array
    of shapes at every call, about 5 us)."""
    dt = out.dtype
    gamma = gen.standard_gamma
    for r, row in enumerate(rows):
        out_r = out[r]
        for c, a in enumerate(row):
            if c != r:
                gamma(a, None, dt, out_r[c])
    m, nb = diag.shape
    at = None if extra is None else extra.entries(*span)
    shape_extra = None if extra is None or at is None else extra.shape[at]
    if shape_extra is not None and not shape_extra.size:
        shape_extra = None
    if _one_shape_a_row(diag):  # every centre below 1/2, say
        # the same stream as one call: numpy draws an array of shapes element by element
        for r, a in enumerate(diag[:, 0].tolist()):
            gamma(a, None, dt, out[r, r])
        if shape_extra is not None:
            assert extra is not None
            extra.value[at] = gamma(shape_extra, None, dt)
        return
    shape = diag.reshape(-1)
    if shape_extra is not None:
        shape = np.concatenate([shape, shape_extra])
    values = gamma(shape, None, dt)
    if shape_extra is not None:
        assert extra is not None
        extra.value[at] = values[m * nb :]
    if out.flags.c_contiguous:  # the diagonal cells are every (M + 1)-th row of nb
        out.reshape(-1, nb)[: m * m : m + 1] = values[: m * nb].reshape(m, nb)
    else:
        idx = np.arange(m)
        out[idx, idx] = values[: m * nb].reshape(m, nb)


#: Draws compared first by :func:`_one_shape_a_row` (most blocks differ within them).
_PEEK = 8


def _one_shape_a_row(diag: np.ndarray) -> bool:
    """Whether every row of ``diag`` (M, nb) holds one value; the first ``_PEEK`` draws
    are compared first, a cheaper refusal."""
    first = diag[:, :1]
    if not (diag[:, :_PEEK] == first).all():
        return False
    return bool((diag == first).all())


def _fill_cells(
    gen: np.random.Generator,
    conc: np.ndarray,
    small: np.ndarray | None,
    out: np.ndarray,
    diag: np.ndarray,
) -> np.ndarray | None:
    """:func:`fill_block`'s cells in one call, with per-draw shapes ``diag`` (M, nb) for the
    diagonal cells (numpy checks an array of shapes at every call).

    Returns the rows' log maxima (M + 1, nb) on the log-space route (0 in the rows not
    on it), else None.
    """
    dt = out.dtype
    logs = _log_rows(small)
    tmp = out if out.flags.c_contiguous else np.empty(out.shape, dt)
    # the shapes are written into the block and replaced by their variates in place (numpy
    # reads each element's shape before it writes its variate): no array of shapes beside
    # the block; each shape is computed in float64 and rounded once to ``dt``, as numpy
    # rounds a float64 array of shapes
    tmp[...] = conc[..., None]
    if logs is not None:
        tmp[logs] = (conc[logs] + 1.0)[..., None]  # log space: Gamma(a + 1)
    idx = np.arange(len(diag))
    tmp[idx, idx] = diag
    gen.standard_gamma(tmp, dtype=dt, out=tmp)
    if tmp is not out:
        out[...] = tmp
    return None if logs is None else _to_log_rows(gen, out, conc, logs)
