"""The batch engine's fast paths give exactly what the plain paths give.

Bulk random streams (seed words of many SeedSequence children computed at
once), class sums shared between metrics, reused working buffers and the
cheaper checks in the metric helpers are all pure speed-ups: every test here
compares with the plain computation bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from f1posterior import evaluate, sample_posterior
from f1posterior._core import sampling, streams
from f1posterior._core.priors import adaptive_alpha
from f1posterior._core.sampling import block_draws, concentrations
from f1posterior.metrics import _multiclass as mt
from f1posterior.metrics import _registry as registry
from f1posterior.metrics import _sums as sums
from f1posterior.metrics._divide import UndefinedMetricWarning
from f1posterior.posterior._summary import summarize_rows

ROOTS = [
    np.random.SeedSequence(0),
    np.random.SeedSequence(1),
    np.random.SeedSequence(2**200 + 5),  # entropy longer than the pool
    np.random.SeedSequence([1, 2, 3]),  # entropy given as a sequence
    np.random.SeedSequence(7, spawn_key=(3,)),  # a root that is itself a child
    np.random.SeedSequence(12345).spawn(3)[2],
    np.random.SeedSequence(9, pool_size=8),
    np.random.SeedSequence(9, pool_size=8, spawn_key=(1, 2, 3, 4, 5)),
    np.random.SeedSequence(),  # fresh OS entropy
]


def _child_words(root, b, k):
    child = np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, b, k), pool_size=root.pool_size
    )
    return child.generate_state(4, np.uint64)


@pytest.mark.parametrize("root", ROOTS, ids=range(len(ROOTS)))
def test_bulk_seed_words_equal_numpy_seedsequence(root):
    rng = np.random.default_rng(0)
    bs = np.r_[0, 1, 2**32 - 1, rng.integers(0, 2**32, 60)]
    ks = np.r_[0, 2**32 - 1, 5, rng.integers(0, 2**32, 60)]
    ours = streams.seed_words(streams.seed_prefix(root), bs, ks)
    ref = np.array([_child_words(root, int(b), int(k)) for b, k in zip(bs, ks, strict=True)])
    assert ours.dtype == np.uint64
    np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("root", ROOTS[:3], ids=range(3))
def test_bulk_streams_draw_what_single_streams_draw(root):
    bs, ks = np.array([0, 3, 3, 2**31, 2**32 + 7]), np.array([0, 0, 1, 4, 2])  # last: 2 words
    for keys in ((bs[:4], ks[:4]), (bs, ks)):  # bulk path, and the per-stream fallback
        gens = streams.block_streams(root, *keys)
        for g, b, k in zip(gens, *keys, strict=True):
            ref = streams.block_stream(root, int(b), int(k))
            np.testing.assert_array_equal(g.standard_gamma(2.5, 7), ref.standard_gamma(2.5, 7))


def test_streams_fall_back_to_numpy_if_the_hash_differs(monkeypatch):
    root = np.random.SeedSequence(31)
    monkeypatch.setattr(streams, "seed_prefix", lambda r: ([1, 2, 3, 4], 5))  # wrong
    assert streams.checked_prefix(root) is None
    gens = streams.block_streams(root, np.array([0, 1]), np.array([0, 0]))
    for g, b in zip(gens, (0, 1), strict=True):
        np.testing.assert_array_equal(g.random(5), streams.block_stream(root, b, 0).random(5))


@pytest.mark.parametrize("prior", ["paper", "adaptive"])
def test_sample_posterior_follows_the_documented_stream_layout(prior):
    """Independent oracle: numpy generators seeded as docs/batch.md states, cell by cell."""
    counts = np.array([[[30, 5], [4, 25]], [[3, 9], [8, 2]]])
    m, draws = 2, block_draws(2) + 3  # two random blocks per matrix
    root = np.random.SeedSequence(2024)
    if prior == "paper":
        alpha, beta = np.ones((2, 2)), np.ones(2)
    else:  # the default: one adaptive alpha per matrix of the batch, beta = 1/M
        alpha, beta = adaptive_alpha(counts.astype(float)), np.full((2, m), 1.0 / m)
    conc = concentrations(counts.astype(float), alpha, beta)
    gammas = np.empty((2, m + 1, m, draws))
    for b in range(2):
        for k, d0 in enumerate(range(0, draws, block_draws(m))):
            d1 = min(draws, d0 + block_draws(m))
            child = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, b, k))
            gen = np.random.Generator(np.random.PCG64(child))
            for r in range(m + 1):
                for c in range(m):
                    gammas[b, r, c, d0:d1] = gen.standard_gamma(conc[b, r, c], d1 - d0)
    mu = gammas[:, m] / gammas[:, m].sum(axis=1, keepdims=True)  # (2, M, draws)
    theta = gammas[:, :m] / gammas[:, :m].sum(axis=2, keepdims=True)
    expected = np.moveaxis(mu[:, :, None, :] * theta, -1, 1)
    kw = {"alpha": prior, "beta": prior} if prior == "paper" else {}  # default: adaptive
    got = sample_posterior(counts, draws=draws, rng=root, **kw)
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=0)


def _cells(n=5, m=3, d=400, seed=0):
    c = np.random.default_rng(seed).integers(0, 30, size=(n, m, m)) + 20 * np.eye(m, dtype=int)
    return sample_posterior(c, draws=d, rng=seed)  # (n, d, M, M), draws fastest in memory


def test_shared_class_sums_leave_every_metric_unchanged():
    t = _cells()
    plain = {name: fn(t) for name, fn in registry.METRICS.items()}
    with sums.shared_class_sums(t):
        shared = {name: fn(t) for name, fn in registry.METRICS.items()}
        first, again = sums.class_sums(t, None), sums.class_sums(t, None)
        assert all(a is b for a, b in zip(first, again, strict=True))  # computed once
        other = t.copy()  # another table is not served from the cache
        assert sums.class_sums(other, None)[1] is not first[1]
        with sums.shared_class_sums(other):
            assert sums.class_sums(t, None)[1] is not first[1]
        assert sums.class_sums(t, None)[1] is first[1]  # the outer block is back
    assert sums.class_sums(t, None)[1] is not first[1]  # nothing cached outside
    for name in registry.METRICS:
        np.testing.assert_array_equal(shared[name], plain[name], err_msg=name)


def test_metric_helpers_keep_zero_division_and_nan_rules():
    # a 0/0 class: the cheap "all denominators positive" check must not skip it
    with pytest.warns(UndefinedMetricWarning):
        assert mt.f1([[5, 0, 0], [1, 4, 0], [0, 0, 0]], average=None)[2] == 0.0
    table = np.array([[5, 0, 0], [1, 4, 0], [0, 0, 0]])
    assert mt.f1(table, average="macro", zero_division=np.nan) == pytest.approx(
        np.mean([10 / 11, 8 / 9])
    )  # NaN classes are left out of the mean, as scikit-learn does
    assert mt.precision(table, average="macro", zero_division=1.0) == pytest.approx(
        np.mean([5 / 6, 1.0, 1.0])
    )


def test_cells_and_summary_scratch_buffers_change_nothing():
    rng = np.random.default_rng(3)
    buf = rng.gamma(2.0, size=(4, 4, 3, 300))
    a = sampling.cells_inplace(buf.copy())
    b = sampling.cells_inplace(buf.copy(), np.full(10_000, np.nan))  # oversized, dirty
    np.testing.assert_array_equal(a, b)
    x = rng.beta(8, 2, size=(6, 1000))
    x_before = x.copy()
    plain = summarize_rows(x, score=np.zeros(6), ref=0.8)
    work = np.full(x.size + 17, -1.0)
    reused = summarize_rows(x, score=np.zeros(6), ref=0.8, work=work)
    np.testing.assert_array_equal(x, x_before)  # the draws are not touched
    for f in ("mean", "median", "std", "mc_error", "hdi", "eti", "p_below", "p_above"):
        np.testing.assert_array_equal(getattr(reused, f), getattr(plain, f), err_msg=f)


def test_evaluate_reuses_buffers_without_mixing_groups():
    """Groups processed one after another on reused buffers (tiny budget, one thread)
    give what each matrix gives alone."""
    c = np.random.default_rng(4).integers(0, 40, size=(9, 3, 3)) + 30 * np.eye(3, dtype=int)
    kw = dict(metrics=("micro_f1", "macro_f1", "f1"), draws=700, rng=5, ref=0.7, workers=1)
    together = evaluate(c, max_memory=1 << 20, **kw)
    for b in (0, 4, 8):
        alone = evaluate(c[b], index_offset=b, **kw)
        for name in together:
            for f in ("mean", "median", "std", "hdi", "eti", "p_below"):
                np.testing.assert_array_equal(
                    np.asarray(getattr(together[name], f))[b], getattr(alone[name], f)
                )
