"""The batch engine: bit-identical results whatever workers/max_memory, bounded memory."""

from __future__ import annotations

import io
import math
import tracemalloc

import numpy as np
import pytest
from helpers import FIELDS
from helpers import stack as _stack

from f1posterior import evaluate, f1, sample_posterior, summarize_draws
from f1posterior._core.sampling import block_draws, draw_chunks, fill_block
from f1posterior._core.streams import block_stream
from f1posterior.cli._progress import terminal_progress
from f1posterior.metrics._registry import METRICS
from f1posterior.posterior._batch import check_fits, plan
from f1posterior.posterior._summary import summarize_rows

METRICS3 = ("micro_f1", "macro_f1", "f1")


def _smallest_budget(m, draws, widths, itemsize=8):
    """The smallest power of two >= 1 MiB that batch.check_fits accepts for one matrix."""
    budget = 1 << 20
    while True:
        try:
            check_fits(m, draws, widths, itemsize, budget)
            return budget
        except ValueError:
            budget *= 2


def test_a_budget_smaller_than_one_matrix_is_refused_with_the_estimate():
    with pytest.raises(ValueError, match=r"M = 4 classes at 3,000 draws needs about .* MiB"):
        evaluate(_stack(2, 4), draws=3000, max_memory=1 << 20, metrics=METRICS3)


def assert_same(a, b, rows=slice(None)):
    """Every summary field of every metric equal bit for bit (rows of ``a``)."""
    assert list(a) == list(b)
    for name in a:
        for f in FIELDS:
            x, y = getattr(a[name], f), getattr(b[name], f)
            np.testing.assert_array_equal(np.asarray(x)[rows], y, err_msg=f"{name}.{f}")


@pytest.mark.parametrize(
    "b, m, draws, alpha",
    [
        (24, 4, 3000, 1.0),  # many matrices, whole-matrix chunks
        (3, 20, 3000, 1.0),  # draws split into random blocks
        (3, 3, 2001, 0.01),  # log-space path (concentrations below 0.1)
        (2, 300, 5, 1.0),  # one-draw blocks; a one-draw remainder is merged
    ],
)
def test_bit_identical_whatever_workers_and_max_memory(b, m, draws, alpha):
    c = _stack(b, m)
    kw = dict(metrics=METRICS3, draws=draws, alpha=alpha, ref=0.6, rng=7)
    ref = evaluate(c, workers=1, max_memory=1 << 31, **kw)
    small = _smallest_budget(m, draws, [1, 1, m])  # the least check_fits accepts
    for workers, budget in [(1, small), (2, small), (3, 5 * small), (2, None)]:
        assert_same(ref, evaluate(c, workers=workers, max_memory=budget, **kw))


def test_budget_really_changes_the_plan():
    """Guard for the test above: the small budget does split groups and draws."""
    small = plan(24, 4, 3000, [1, 1, 4], 8, 2, 1 << 20)
    big = plan(24, 4, 3000, [1, 1, 4], 8, 1, 1 << 31)
    assert small.group == 1 and big.group == 24
    assert len(draw_chunks(3000, 20, (1 << 19) // (8 * 420 * 2) // block_draws(20))) > 1
    assert block_draws(1000) == 2 and draw_chunks(5, 1000, 1) == [(0, 2), (2, 5)]  # no 1-draw chunk
    assert draw_chunks(1, 1000, 1) == [(0, 1)]


def test_matrix_results_do_not_depend_on_the_batch():
    c = _stack(6, 3, seed=1)
    full = evaluate(c, metrics=METRICS3, draws=2000, rng=3, ref=0.7)
    other = c.copy()
    other[[0, 1, 3, 5]] = _stack(4, 3, seed=99)
    changed = evaluate(other, metrics=METRICS3, draws=2000, rng=3, ref=0.7)
    for b in (2, 4):
        for name in full:
            for f in FIELDS:
                np.testing.assert_array_equal(
                    np.asarray(getattr(full[name], f))[b], np.asarray(getattr(changed[name], f))[b]
                )
    # batched equals one matrix at a time (its flat index as stream key)
    for b in range(6):
        alone = evaluate(c[b], metrics=METRICS3, draws=2000, rng=3, ref=0.7, index_offset=b)
        for name in full:
            for f in FIELDS:
                np.testing.assert_array_equal(
                    np.asarray(getattr(full[name], f))[b], getattr(alone[name], f)
                )
    # and a slice of the batch with its offset equals those rows
    assert_same(
        full,
        evaluate(c[2:5], metrics=METRICS3, draws=2000, rng=3, ref=0.7, index_offset=2),
        rows=slice(2, 5),
    )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_keep_draws_equal_metric_of_sample_posterior(dtype):
    c = _stack(6, 4, seed=2).reshape(2, 3, 4, 4)
    res = evaluate(
        c,
        metrics=METRICS3,
        draws=1500,
        rng=11,
        dtype=dtype,
        keep_draws=True,
        max_memory=_smallest_budget(4, 1500, [1, 1, 4], np.dtype(dtype).itemsize),
    )
    p = sample_posterior(c, draws=1500, rng=11, dtype=dtype)
    assert p.dtype == dtype and p.shape == (2, 3, 1500, 4, 4)
    for name in ("micro_f1", "macro_f1"):
        np.testing.assert_array_equal(res.metric_draws[name], METRICS[name](p))
    np.testing.assert_array_equal(res.metric_draws["f1"], np.moveaxis(f1(p, average=None), -2, -1))
    # the summaries are those of the kept draws
    s = summarize_draws(res.metric_draws["macro_f1"], ci_prob=0.95)
    for f in ("mean", "median", "std", "hdi", "eti"):
        np.testing.assert_array_equal(getattr(res["macro_f1"], f), getattr(s, f))


@pytest.mark.parametrize("n", [7, 80, 81, 999, 1000, 4001])
@pytest.mark.parametrize("prob", [0.5, 0.9, 0.95, 0.99])
def test_one_partition_summary_equals_summarize_draws(n, prob):
    rng = np.random.default_rng(n)
    x = rng.gamma(3.0, size=(5, n))
    x[0] = np.round(x[0], 1)  # ties
    for ref in (None, 3.0):
        a = summarize_rows(x, score=np.arange(5.0), ci_prob=prob, ref=ref)
        b = summarize_draws(x, score=np.arange(5.0), ci_prob=prob, ref=ref)
        for f in FIELDS:
            np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f)


def test_per_cell_and_broadcast_fills_consume_the_stream_identically():
    root = np.random.SeedSequence(5)
    conc = np.array([[3.0, 1.0, 0.5], [2.0, 40.0, 1.0], [1.0, 2.0, 7.5], [9.0, 4.0, 3.0]])
    for dt in (np.float64, np.float32):
        a, b = np.empty((4, 3, 300), dt), np.empty((4, 3, 300), dt)
        fill_block(block_stream(root, 0, 0), conc.tolist(), conc, None, a, per_cell_min=1)
        fill_block(block_stream(root, 0, 0), conc.tolist(), conc, None, b, per_cell_min=10**9)
        np.testing.assert_array_equal(a, b)


def test_working_memory_stays_within_budget():
    c = _stack(1_000, 3, seed=4)
    budget = 2 << 20
    inputs = 12 * c.size * 8  # copies of the counts, concentrations and scores: O(B)

    def peak(max_memory, workers):
        tracemalloc.start()
        tracemalloc.reset_peak()
        evaluate(c, draws=1000, rng=0, ref=0.5, workers=workers, max_memory=max_memory)
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    assert peak(budget, 1) < budget + inputs
    assert peak(budget, 2) < budget + inputs
    # negative control: a generous budget is used, so the bound above is the budget's doing
    assert peak(256 << 20, 1) > 3 * (budget + inputs)


def test_float32_agrees_with_float64_within_monte_carlo_error():
    c = _stack(3, 5, seed=6)
    n = 20_000
    r64 = evaluate(c, metrics=("micro_f1", "macro_f1"), draws=n, rng=1)
    r32 = evaluate(c, metrics=("micro_f1", "macro_f1"), draws=n, rng=1, dtype=np.float32)
    for name in r64:
        sd = r64[name].std
        # SE of a 2.5% quantile of a near-normal posterior is about 2.7 sd / sqrt(n); two
        # independent runs, 5 standard errors. (The HDI's ends are noisier than quantiles,
        # about 4.5 sd / sqrt(n) here by repeated runs, so the quantile bound is checked on
        # the equal-tailed interval, whose standard error this formula gives.)
        tol = 5 * math.sqrt(2) * 2.7 * sd / math.sqrt(n)
        assert np.all(np.abs(r32[name].eti - r64[name].eti) < tol[..., None])
        assert np.all(
            np.abs(r32[name].mean - r64[name].mean) < 5 * math.sqrt(2) * r64[name].mc_error
        )
        assert not np.array_equal(r32[name].hdi, r64[name].hdi)  # really another sampler


def test_progress_reports_matrices_done():
    calls = []
    evaluate(
        _stack(50, 3),
        draws=400,
        rng=0,
        max_memory=1 << 20,
        workers=2,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls[-1] == (50, 50) and len(calls) > 1
    assert all(t == 50 for _, t in calls) and [d for d, _ in calls] == sorted(d for d, _ in calls)


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"workers": 0}, ValueError, r"workers must be None or an integer >= 1; got 0"),
        ({"workers": 1.5}, TypeError, r"workers must be None or an integer >= 1; got 1\.5"),
        ({"workers": True}, TypeError, r"workers must be None or an integer >= 1; got True"),
        (
            {"max_memory": 1000},
            ValueError,
            r"max_memory must be None or a number of bytes >= 1048576 \(1 MiB\); got 1000",
        ),
        (
            {"max_memory": "1GB"},
            TypeError,
            r"max_memory must be None or a number of bytes \(an integer >= 1048576\); got '1GB'",
        ),
        ({"index_offset": -1}, ValueError, r"index_offset must be an integer >= 0; got -1"),
        ({"index_offset": 1.0}, TypeError, r"index_offset must be an integer >= 0; got 1\.0"),
        ({"progress": 3}, TypeError, r"progress must be a callable\(done, total\) or None; got 3"),
    ],
)
def test_bad_engine_arguments(kwargs, err, match):
    with pytest.raises(err, match=match):
        evaluate([[5, 1], [2, 7]], draws=10, **kwargs)


class _Term(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def test_terminal_progress_only_on_a_terminal():
    assert terminal_progress(_Term(False)) is None
    term = _Term(True)
    ticks = iter([0.0, 0.05, 0.5, 0.6])
    report = terminal_progress(term, interval=0.2, clock=lambda: next(ticks))
    report(10, 100)  # drawn
    report(20, 100)  # throttled (0.05 s later)
    report(50, 100)  # drawn
    report(100, 100)  # the end is always drawn, with a newline
    assert term.getvalue() == (
        "\r  10 / 100 matrices (10%)\r  50 / 100 matrices (50%)\r  100 / 100 matrices (100%)\n"
    )
    single = _Term(True)
    terminal_progress(single)(1, 1)
    assert single.getvalue() == ""  # one matrix: no progress line


def test_cli_summarize_prints_no_progress_when_stderr_is_not_a_terminal(tmp_path, capsys):
    from f1posterior.cli import main

    path = tmp_path / "stack.npy"
    np.save(path, _stack(30, 3))
    assert main(["summarize", str(path), "--draws", "300", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and '"rows"' in captured.out


def test_docs_batch_examples_run():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "batch.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 3
    for code in blocks:
        exec(compile(code, "docs/batch.md", "exec"), {})


def test_cli_summarize_one_matrix_passes_workers_and_max_memory(tmp_path, capsys):
    """An in-memory ``summarize`` runs the engine with --workers and --max-memory: the same
    numbers, and a budget one matrix cannot fit is refused on one line (exit 2)."""
    import json

    from f1posterior.cli import main

    path = tmp_path / "one.json"
    path.write_text(json.dumps([[40, 3, 1], [2, 30, 5], [0, 4, 25]]))
    argv = ["summarize", str(path), "--draws", "3000", "--seed", "2", "--format", "json"]
    assert main(argv) == 0
    base = json.loads(capsys.readouterr().out)
    assert main([*argv, "--workers", "2", "--max-memory", "4M"]) == 0
    assert json.loads(capsys.readouterr().out) == base
    assert main([*argv[:3], "200000", *argv[4:], "--max-memory", "1M"]) == 2
    err = capsys.readouterr().err.strip()
    assert "max_memory" in err and "\n" not in err
