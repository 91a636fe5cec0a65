"""Issue 16, item 5 (speed): the faster selection, stream creation and grouping change no number.

The summaries' order statistics now come from single-cut partitions (or a full
sort on short rows); they are compared here with an independent full-sort
implementation of every definition, on random, tied and degenerate data, on
both sides of the sort/select switch. Grouping for several workers and the
direct seeding of a few streams are checked for bit-identity.
"""

from __future__ import annotations

import concurrent.futures as futures
import math

import numpy as np
import pytest
from helpers import stack as _stack

from f1posterior import evaluate, hdi, summarize_draws
from f1posterior._core import streams
from f1posterior.posterior import _batch as batch
from f1posterior.posterior._batch import plan
from f1posterior.posterior._forked import ForkedWorker
from f1posterior.posterior._summary import SORT_ROW, SORT_TOTAL, summarize_rows


def reference(x: np.ndarray, prob: float, ref: float | None = None) -> dict[str, np.ndarray]:
    """Every summary from one full sort of each row, written from the definitions."""
    s = np.sort(np.asarray(x, dtype=np.float64), axis=-1)
    n = s.shape[-1]
    k = min(n, max(1, math.ceil(prob * n - 1e-9)))
    widths = s[..., k - 1 :] - s[..., : n - k + 1]
    i = np.argmin(widths, axis=-1)[..., None]
    out = {
        "hdi": np.concatenate(
            [np.take_along_axis(s, i, -1), np.take_along_axis(s, i + k - 1, -1)], axis=-1
        ),
        "median": (s[..., (n - 1) // 2] + s[..., n // 2]) / 2.0,
        "eti": np.moveaxis(np.quantile(s, [(1 - prob) / 2, (1 + prob) / 2], axis=-1), 0, -1)
        if np.isfinite(s).all()
        else None,
        "mean": s.mean(axis=-1),
    }
    if ref is not None:
        out["p_below"] = (s < ref).sum(axis=-1) / n
        out["p_above"] = (s > ref).sum(axis=-1) / n
    return out


def datasets() -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(16)
    out = []
    # both sides of the sort/select switch: short rows, a small total, large rows and batches
    for rows, n in [(1, 7), (3, 100), (1, SORT_ROW + 1), (8, SORT_ROW + 1), (1, 4001),
                    (5, 1000), (4, 1001), (2, 10_000), (1, 50_000)]:  # fmt: skip
        out.append((f"beta{rows}x{n}", rng.beta(40, 10, size=(rows, n))))
    out.append(("ties", rng.integers(0, 4, size=(6, 3001)).astype(float) / 4))
    out.append(("constant", np.full((3, 2000), 0.5)))
    out.append(("two values", np.repeat([[0.25, 0.75]], 1500, axis=0).T.reshape(2, 1500)))
    heavy = rng.standard_cauchy(size=(3, 5000))
    heavy[0, :10] = np.inf
    out.append(("heavy tails with inf", heavy))
    out.append(("3-d", rng.beta(5, 5, size=(2, 3, 1200))))
    return out


DATA = datasets()


@pytest.mark.parametrize("prob", [0.95, 0.5, 0.9, 0.999])
@pytest.mark.parametrize("name,x", DATA, ids=[d[0] for d in DATA])
def test_hdi_equals_full_sort_reference(name, x, prob):
    np.testing.assert_array_equal(hdi(x, prob), reference(x, prob)["hdi"])


FINITE = [d for d in DATA if np.isfinite(d[1]).all()]  # the engine's draws are finite


@pytest.mark.parametrize("prob", [0.95, 0.8])
@pytest.mark.parametrize("name,x", FINITE, ids=[d[0] for d in FINITE])
def test_summarize_rows_equals_full_sort_reference(name, x, prob):
    ref = reference(x, prob, ref=0.6)
    for s in (
        summarize_rows(x, ci_prob=prob, ref=0.6),
        summarize_draws(x, ci_prob=prob, ref=0.6),
    ):
        np.testing.assert_array_equal(s.hdi, ref["hdi"])
        np.testing.assert_array_equal(s.median, ref["median"])
        np.testing.assert_array_equal(s.eti, ref["eti"])
        np.testing.assert_array_equal(s.p_below, ref["p_below"])
        np.testing.assert_array_equal(s.p_above, ref["p_above"])
        np.testing.assert_allclose(s.mean, ref["mean"], rtol=1e-14)


@pytest.mark.parametrize("n", [SORT_ROW, SORT_ROW + 1, 3000, 3001])
def test_summarize_rows_is_bit_identical_to_summarize_draws(n):
    """The engine's summary and the public one agree bit for bit, sorted or selected."""
    x = np.random.default_rng(n).beta(3, 7, size=(SORT_TOTAL // n + 2, n))
    fast, slow = summarize_rows(x, ref=0.3), summarize_draws(x, ref=0.3)
    for field in ("mean", "median", "std", "mc_error", "hdi", "eti", "p_below", "p_above"):
        np.testing.assert_array_equal(getattr(fast, field), getattr(slow, field), err_msg=field)


def test_hdi_keeps_integer_dtype_and_leaves_input_alone():
    x = np.random.default_rng(1).integers(0, 1000, size=(3, 6000))
    before = x.copy()
    out = hdi(x, 0.9)
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(x, before)
    np.testing.assert_array_equal(out, reference(x, 0.9)["hdi"].astype(x.dtype))


def test_p_below_is_a_count_over_n():
    x = np.linspace(0.0, 1.0, 4001)[None, :]
    s = summarize_rows(x, ref=0.25)
    assert s.p_below == 1000 / 4001 and s.p_above == 3000 / 4001


@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_few_streams_are_seeded_directly_with_the_same_draws(n):
    root = np.random.SeedSequence(2024)
    bs, ks = streams.block_keys(5, 5 + n, 0, 1)
    for g, b in zip(streams.block_streams(root, bs, ks), bs.tolist(), strict=True):
        np.testing.assert_array_equal(g.random(4), streams.block_stream(root, b, 0).random(4))


@pytest.mark.parametrize("n_mat,workers", [(5, 2), (40, 2), (41, 3), (2000, 2), (3, 2)])
def test_groups_are_balanced_across_workers_within_the_budget(n_mat, workers):
    one = plan(n_mat, 4, 1000, [1, 1], 8, 1, 1 << 28)
    p = plan(n_mat, 4, 1000, [1, 1], 8, workers, 1 << 28)
    n_groups = math.ceil(n_mat / p.group)
    assert p.group <= max(one.group, 1)
    if n_mat > workers:
        assert n_groups >= min(n_mat, 4 * workers) - workers


@pytest.mark.parametrize("b,m,draws", [(41, 3, 1200), (9, 4, 3000), (1, 2, 1000)])
def test_bit_identical_across_workers_and_budgets(b, m, draws):
    rng = np.random.default_rng(b)
    c = rng.integers(0, 20, size=(b, m, m))
    c[..., np.arange(m), np.arange(m)] += 30
    kw = dict(draws=draws, rng=9, ref=0.7, metrics=("micro_f1", "macro_f1", "f1"))
    base = evaluate(c, workers=1, **kw)
    for workers, budget in [(2, None), (3, None), (2, 1 << 24)]:
        other = evaluate(c, workers=workers, max_memory=budget, **kw)
        for name in base:
            for field in ("mean", "median", "std", "hdi", "eti", "p_below", "p_above"):
                np.testing.assert_array_equal(
                    getattr(other[name], field), getattr(base[name], field), err_msg=field
                )


def forked_pools(monkeypatch) -> list:
    """Run every batch on forked processes; the list gets each pool's ``max_workers``."""
    opened = []

    class Recording(futures.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            opened.append(kwargs.get("max_workers"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(futures, "ProcessPoolExecutor", Recording)
    monkeypatch.setattr(batch, "PROCESS_MIN_VARIATES", 0)
    monkeypatch.setattr(batch, "can_fork", lambda: True)  # pytest may run helper threads
    return opened


def test_process_pool_is_bit_identical_to_one_thread(monkeypatch):
    """Large batches on several workers run on forked processes: same numbers, same progress."""
    opened = forked_pools(monkeypatch)
    c = _stack(30, 3)
    kw = dict(draws=1500, rng=4, ref=0.7, metrics=("micro_f1", "macro_f1", "f1"))
    base = evaluate(c, workers=1, **kw)
    seen: list[tuple[int, int]] = []
    other = evaluate(c, workers=2, progress=lambda d, t: seen.append((d, t)), **kw)
    assert opened == [2]
    assert ForkedWorker.engine is None  # set in the forked workers only
    assert seen[-1] == (30, 30) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    for name in base:
        for field in ("score", "mean", "median", "std", "hdi", "eti", "p_below", "p_above"):
            np.testing.assert_array_equal(
                getattr(other[name], field), getattr(base[name], field), err_msg=field
            )


def test_process_pool_reports_a_metric_error(monkeypatch):
    monkeypatch.setattr(batch, "PROCESS_MIN_VARIATES", 0)
    monkeypatch.setattr(batch, "can_fork", lambda: True)

    def broken(table):
        return np.full(table.shape[:-2], np.nan)

    with pytest.raises(ValueError, match="non-finite"):
        evaluate(_stack(8, 3), draws=500, rng=0, workers=2, metrics=[broken])


def test_no_process_pool_for_small_batches(monkeypatch):
    opened = []
    monkeypatch.setattr(futures, "ProcessPoolExecutor", lambda *a, **k: opened.append(1))
    monkeypatch.setattr(batch, "can_fork", lambda: True)
    evaluate(_stack(8, 3), draws=500, rng=0, workers=2)  # below PROCESS_MIN_VARIATES
    evaluate(_stack(8, 3), draws=500, rng=0, workers=2, keep_draws=True)
    assert opened == []


@pytest.mark.parametrize("chance", [False, True])
def test_kept_draws_of_a_batch_on_processes(monkeypatch, chance):
    """Forked workers write the kept draws of their groups to shared memory: the same
    draws and summaries as one worker, per-class metrics (a class axis) included."""
    c = _stack(24, 3).reshape(4, 6, 3, 3)
    kw = dict(draws=800, rng=5, ref=0.6, keep_draws=True, chance=chance,
              metrics=("micro_f1", "f1", "macro_f1"))  # fmt: skip
    base = evaluate(c, workers=1, **kw)
    opened = forked_pools(monkeypatch)
    other = evaluate(c, workers=2, **kw)
    assert opened == [2]
    for name in base:
        assert other.metric_draws[name].shape == base.metric_draws[name].shape
        np.testing.assert_array_equal(other.metric_draws[name], base.metric_draws[name])
        for field in ("mean", "median", "std", "hdi", "eti", "p_below", "chance"):
            np.testing.assert_array_equal(
                getattr(other[name], field), getattr(base[name], field), err_msg=field
            )


@pytest.mark.parametrize("chance", [False, True])
def test_one_matrix_split_over_its_draws_on_processes(monkeypatch, chance):
    """Fewer tables than workers: ranges of the draws run on forked processes and send
    back their metric draws; kept draws and summaries equal one worker's bit for bit."""
    c = _stack(1, 20)[0]  # 624 draws a random block
    kw = dict(draws=2000, rng=7, ref=0.6, keep_draws=True, chance=chance,
              metrics=("micro_f1", "macro_f1", "f1"))  # fmt: skip
    base = evaluate(c, workers=1, **kw)
    opened = forked_pools(monkeypatch)
    ranges = []
    tasks = batch._tasks
    monkeypatch.setattr(batch, "_tasks", lambda *a: ranges.append(tasks(*a)) or ranges[-1])
    other = evaluate(c, workers=2, **kw)
    assert opened == [2] and len(ranges) == 1 and len(ranges[0]) >= 2  # several ranges
    for name in base:
        np.testing.assert_array_equal(other.metric_draws[name], base.metric_draws[name])
        for field in ("mean", "median", "std", "hdi", "eti", "p_below", "chance"):
            np.testing.assert_array_equal(
                getattr(other[name], field), getattr(base[name], field), err_msg=field
            )


def test_one_matrix_split_on_processes_reports_a_metric_error(monkeypatch):
    """A metric that fails in a forked worker's range of draws fails the call, in the caller."""
    monkeypatch.setattr(batch, "PROCESS_MIN_VARIATES", 0)
    monkeypatch.setattr(batch, "can_fork", lambda: True)

    def counts_only(table):  # the observed counts pass; posterior draws fail, in a worker
        if not np.array_equal(table, np.round(table)):
            raise RuntimeError("counts_only takes counts")
        return table[..., 0, 0]

    with pytest.raises(RuntimeError, match="counts_only takes counts"):
        evaluate(_stack(1, 20)[0], draws=2000, rng=0, workers=2, metrics=[counts_only])
