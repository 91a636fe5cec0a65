"""Large tables (M above about 128): random blocks under 128 draws are drawn in place.

Such a block is drawn in one call with an array of shapes, which numpy writes only into a
contiguous array; the batch engine's chunks are then one block long, and the shapes are
written into the block and replaced by their variates in place. The numbers are those of
longer chunks (strided blocks through a copy) and of a separate array of shapes.
"""

from __future__ import annotations

import numpy as np
import pytest

from f1posterior import evaluate
from f1posterior._core import blocks, rowsums
from f1posterior._core.sampling import block_draws, short_blocks
from f1posterior.metrics._sums import class_sums
from f1posterior.posterior import _batch


def _counts(m: int, seed: int = 3) -> np.ndarray:
    c = np.random.default_rng(seed).integers(0, 6, size=(m, m))
    c[np.arange(m), np.arange(m)] += 20
    c[7] = 0  # an empty class
    return c


def test_short_blocks_start_where_blocks_fall_under_128_draws():
    assert not short_blocks(100) and block_draws(100) >= 128
    assert short_blocks(130) and block_draws(130) < 128


def test_a_large_table_is_planned_one_block_a_chunk():
    p = _batch.plan(1, 300, 10_000, [1.0, 1.0], 8, 1, 1 << 30, mixture=True)
    assert p.chunk_draws == block_draws(300) == 23
    q = _batch.plan(1, 100, 10_000, [1.0, 1.0], 8, 1, 1 << 30, mixture=True)
    assert q.chunk_draws == block_draws(100) == 207  # a block over the chunk's bytes: alone
    r = _batch.plan(1, 20, 10_000, [1.0, 1.0], 8, 1, 1 << 30, mixture=True)
    assert r.chunk_draws > block_draws(20)  # small blocks: several a chunk


@pytest.mark.parametrize("prior", ["hierarchical", "paper"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_one_block_chunks_equal_longer_chunks(monkeypatch, prior, dtype):
    """A 130x130 table (123-draw blocks), 250 draws (a short last block): drawn one block a
    chunk (in place) and, with the rule off, several blocks a chunk (strided, copied)."""
    c = _counts(130)
    kw = dict(draws=250, rng=8, workers=1, keep_draws=True, metrics=("micro_f1", "f1"),
              alpha=prior, beta=prior, dtype=dtype)  # fmt: skip
    chunks = []
    task = _batch.Engine.task

    def recording(self, args):
        chunks.extend(args[2])
        return task(self, args)

    monkeypatch.setattr(_batch.Engine, "task", recording)
    fast = evaluate(c, **kw)
    assert {d1 - d0 for _, _, d0, d1 in chunks} == {123, 4}  # one block each
    chunks.clear()
    monkeypatch.setattr(_batch, "short_blocks", lambda m: False)
    monkeypatch.setattr(_batch, "CHUNK_BYTES", 1 << 40)  # nor a block a chunk by its bytes
    slow = evaluate(c, **kw)
    assert {d1 - d0 for _, _, d0, d1 in chunks} == {250}  # both blocks in one chunk
    for name in ("micro_f1", "f1"):
        np.testing.assert_array_equal(fast.metric_draws[name], slow.metric_draws[name])
        np.testing.assert_array_equal(fast[name].hdi, slow[name].hdi)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("contiguous", [True, False])
def test_mixture_cells_in_place_equal_a_separate_array_of_shapes(dtype, contiguous):
    """The shapes written into the block (float64, rounded once to ``dtype``, the per-draw
    diagonal among them) and drawn in place: numpy's draws from a separate float64 array
    of the same shapes, on the same stream; a strided block goes through a copy."""
    m, nb = 6, 9
    conc = np.random.default_rng(1).uniform(0.05, 4.0, size=(m + 1, m))
    diag = np.random.default_rng(2).uniform(0.5, 3.0, size=(m, nb))
    full = np.broadcast_to(conc[..., None], (m + 1, m, nb)).copy()
    full[np.arange(m), np.arange(m)] = diag
    want = np.random.default_rng(5).standard_gamma(full, dtype=dtype)
    host = np.full((m + 1, m, 2 * nb), -1.0, dtype=dtype)
    out = host[..., :nb] if not contiguous else np.empty((m + 1, m, nb), dtype=dtype)
    assert blocks._fill_cells(np.random.default_rng(5), conc, None, out, diag) is None
    np.testing.assert_array_equal(out, want)
    if not contiguous:
        assert (host[..., nb:] == -1.0).all()  # the rest of the chunk untouched


def test_mixture_cells_in_place_log_rows_take_a_plus_one():
    """A row of small concentrations (log space) takes Gamma(a + 1), computed in float64."""
    m, nb = 5, 4
    conc = np.random.default_rng(1).uniform(0.5, 4.0, size=(m + 1, m))
    conc[m] = 0.01  # the prevalences of a table without documents
    diag = np.random.default_rng(2).uniform(0.5, 3.0, size=(m, nb))
    full = np.broadcast_to(conc[..., None], (m + 1, m, nb)).copy()
    full[m] += 1.0
    full[np.arange(m), np.arange(m)] = diag
    gen = np.random.default_rng(5)
    want = gen.standard_gamma(full)
    log_row = np.log(want[m]) + np.log1p(-gen.random((m, nb))) * (1.0 / conc[m])[:, None]
    out = np.empty((m + 1, m, nb))
    top = blocks._fill_cells(np.random.default_rng(5), conc, conc < 0.1, out, diag)
    assert top is not None and top[:m].max() == 0.0
    np.testing.assert_array_equal(out[:m], want[:m])  # rows not in log space: as drawn
    np.testing.assert_array_equal(top[m], log_row.max(axis=0))
    np.testing.assert_array_equal(out[m], np.exp(log_row - log_row.max(axis=0)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("n", "m", "d"), [(1, 300, 23), (2, 130, 2), (3, 4, 5), (1, 400, 13),
                                           (1, 130, 127), (2, 150, 1), (1, 100, 300)])  # fmt: skip
def test_row_sums_equal_the_reduction_bit_for_bit(dtype, n, m, d):
    """einsum's sums (short chunks) are numpy's reduction's, zeros, subnormals and an
    infinity among the Gammas; one draw and long chunks take the reduction itself."""
    rng = np.random.default_rng(n * m + d)
    shapes = rng.uniform(0.001, 30.0, size=(n, m + 1, m, 1))
    x = rng.standard_gamma(shapes, size=(n, m + 1, m, d)).astype(dtype)
    x[0, 0, :3] = 0.0
    x[0, 1, 1] = np.finfo(dtype).smallest_subnormal
    x[-1, -1, -1] = np.inf
    out = np.empty((n, m + 1, d), dtype)
    assert rowsums.row_sums(x, out) is out
    np.testing.assert_array_equal(out, np.add.reduce(x, axis=-2))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("n", "m", "d"), [(1, 300, 23), (2, 130, 2), (3, 4, 5), (1, 130, 127),
                                           (2, 5, 1), (1, 6, 200)])  # fmt: skip
def test_class_sums_of_short_chunks_equal_the_reduction_bit_for_bit(dtype, n, m, d):
    """The true totals of the sampler's cell views ((n, d, M, M) of (n, M + 1, M, d) in C
    order) taken by row_sums for short chunks: numpy's reduction's, values and layout."""
    rng = np.random.default_rng(n * m + d)
    shapes = rng.uniform(0.001, 30.0, size=(n, m + 1, m, 1))
    table = rng.standard_gamma(shapes, size=(n, m + 1, m, d)).astype(dtype)[:, :m]
    table = table.transpose(0, 3, 1, 2)
    tp, pred, true = class_sums(table)
    want = table.sum(axis=-1)
    np.testing.assert_array_equal(true, want)
    assert true.strides == want.strides
    np.testing.assert_array_equal(pred, table.sum(axis=-2))
