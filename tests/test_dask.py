"""f1posterior.integrations.dask.evaluate against the in-memory evaluate, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import DIAGNOSTICS, FIELDS
from helpers import stack as _stack

from f1posterior import evaluate

da = pytest.importorskip("dask.array")  # CI installs dask with the test dependency group
import dask  # noqa: E402

from f1posterior.integrations import dask as f1dask  # noqa: E402


def assert_same(a, b):
    assert list(a) == list(b)
    for name in a:
        assert a[name].draws == b[name].draws and a[name].exact == b[name].exact
        for f in FIELDS + DIAGNOSTICS:
            np.testing.assert_array_equal(getattr(a[name], f), getattr(b[name], f), err_msg=f)


@pytest.mark.parametrize("chunks", [5, (1, 4, 6), 11])
def test_dask_equals_in_memory_bit_for_bit(chunks):
    c = _stack(11, 4)
    kw = dict(metrics=("micro_f1", "macro_f1", "f1"), draws=1500, ref=0.6, rng=21)
    x = da.from_array(c, chunks=(chunks, 4, 4))
    with dask.config.set(scheduler="threads"):
        res = f1dask.evaluate(x, **kw)
    mem = evaluate(c, **kw)
    assert res.batch_shape == mem.batch_shape == (11,)
    assert res.draws == mem.draws and res.seed == mem.seed and res.prior == mem.prior
    assert_same(res, mem)


def test_dask_class_axes_rechunked_and_exact_metrics_and_float32():
    c = _stack(6, 3, seed=1)
    x = da.from_array(c, chunks=(2, 2, 2))  # class axes split: rechunked
    kw = dict(metrics=("micro_f1", "macro_f1"), draws=800, rng=4, dtype=np.float32)
    with dask.config.set(scheduler="synchronous"):
        assert_same(f1dask.evaluate(x, **kw), evaluate(c, **kw))
        kw_aligned = dict(kw, beta="aligned")  # micro_f1 has a closed form here
        assert_same(f1dask.evaluate(x, **kw_aligned), evaluate(c, **kw_aligned))


@pytest.mark.parametrize(
    "counts, kwargs, err, match",
    [
        (
            np.ones((2, 3, 3)),
            {},
            TypeError,
            r"counts must be a dask.array.Array of shape \(B, M, M\)",
        ),
        (
            "dask2d",
            {},
            ValueError,
            r"counts must be a dask array of shape \(B, M, M\) \(one batch axis\); got shape \(3, 3\)",
        ),
        (
            "dask",
            {"alpha": np.ones((2, 3, 3))},
            ValueError,
            r"alpha must be the same for every matrix with f1posterior.integrations.dask \(at most 2 dimensions\)",
        ),
        ("dask", {"draws": 0}, ValueError, r"draws must be an integer >= 1; got 0"),
    ],
)
def test_dask_bad_input(counts, kwargs, err, match):
    if isinstance(counts, str) and counts == "dask2d":
        counts = da.ones((3, 3), chunks=3)
    elif isinstance(counts, str):
        counts = da.ones((2, 3, 3), chunks=1)
    with pytest.raises(err, match=match):
        f1dask.evaluate(counts, **kwargs)
