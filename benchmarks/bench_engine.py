"""The batch engine against numpy's Gamma floor, in one run.

Single-threaded, float64, metrics ``micro_f1`` and ``macro_f1``, default
prior (``"hierarchical"``), and the previous default (``"adaptive"``) interleaved
with it on the same tables. For each case the floor is numpy's own cost of the same Gamma variates
with the same concentrations (the faster of one broadcasting
``standard_gamma`` call and one scalar-shape call per cell, into one reused
array); ``evaluate`` and ``sample_posterior`` are timed in the same process,
interleaved with the floor, and each figure is the minimum over ``--repeat``
rounds. Both wall time and the process's CPU time are recorded: on a shared
machine the CPU time of a single thread is the steadier of the two, and the
ratios below use it. Then: two workers (threads, and forked processes, which
the engine uses for large batches) against one (wall time, CPU time, context
switches), the public ``hdi`` against a full-sort HDI, and the
summaries' selection against the alternatives measured for it.

Under the default prior each engine case also has the mixture's floor: numpy's cost
of every variate its exact sampler needs (:func:`mixture_floor_fn`).

Run from the repository root::

    python benchmarks/bench_engine.py            # about 3 minutes on an idle machine
    python benchmarks/bench_engine.py --quick    # smaller batches

Writes ``benchmarks/results/engine.json`` and ``engine.md`` (``engine_quick.*``
with ``--quick``); with ``--engine-only``, the engine cases alone (both priors) to
the first free ``engine_priors.*``, ``engine_priors_2.*``, ...
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _common import machine

from f1posterior import evaluate, hdi, sample_posterior
from f1posterior._core import hierarchical as hier
from f1posterior._core.priors import resolve
from f1posterior._core.sampling import concentrations
from f1posterior.posterior import _batch as batch

RESULTS = Path(__file__).resolve().parent / "results"
METRICS = ("micro_f1", "macro_f1")


def clock(fn: Callable[[], Any]) -> tuple[float, float]:
    """Wall and process CPU seconds of one call."""
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def interleaved(fns: dict[str, Callable[[], Any]], rounds: int) -> dict[str, dict[str, float]]:
    """Minimum wall and CPU time of each function over ``rounds`` interleaved rounds."""
    out = {k: {"wall_s": math.inf, "cpu_s": math.inf} for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            w, c = clock(fn)
            out[k]["wall_s"] = min(out[k]["wall_s"], w)
            out[k]["cpu_s"] = min(out[k]["cpu_s"], c)
    return out


def alternating(
    a: dict[str, Callable[[], Any]], b: dict[str, Callable[[], Any]], rounds: int
) -> dict[str, dict[str, float]]:
    """:func:`interleaved`, ``a`` before ``b`` in even rounds and after it in odd ones.

    Whichever runs second in a round can find the allocator's pages already touched by
    the first (a 2x2 batch's ``sample_posterior``, the same code under both priors,
    measured 1.75x slower when always run first), so each side gets both places."""
    out = {k: {"wall_s": math.inf, "cpu_s": math.inf} for k in (*a, *b)}
    for r in range(max(2, rounds)):
        for part in (a, b) if r % 2 == 0 else (b, a):
            for k, t in interleaved(part, 1).items():
                for clock_ in ("wall_s", "cpu_s"):
                    out[k][clock_] = min(out[k][clock_], t[clock_])
    return out


def stack(b: int, m: int, seed: int = 0, off: int = 30, diag: int = 50) -> np.ndarray:
    """``b`` random ``m``-class confusion matrices: off-diagonal cells uniform on
    ``0 .. off - 1``, diagonal cells ``diag`` more (the defaults: a weak classifier from
    M = 4 on, recall about 0.6 at M = 4 and 0.2 at M = 20)."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, off, size=(b, m, m))
    c[..., np.arange(m), np.arange(m)] += diag
    return c


def sparse(m: int, right: int = 90, nxt: int = 10) -> np.ndarray:
    """A sparse real-looking ``m``-class matrix: ``right`` on the diagonal, ``nxt`` to the
    next class (neighbour errors), every other off-diagonal cell empty."""
    c = np.diag(np.full(m, right))
    c[np.arange(m), (np.arange(m) + 1) % m] = nxt
    return c


def sparse_case(name: str, c: np.ndarray, draws: int, rounds: int) -> dict[str, Any]:
    """The default prior against the paper prior on the same (sparse) matrix, with each
    prior's own floor (numpy's Gamma variates for its concentrations), interleaved."""
    fns = {"floor_default": floor_fns(c, draws)["floor_per_cell"],
           "floor_paper": floor_fns(c, draws, "paper")["floor_per_cell"]}  # fmt: skip
    own = mixture_floor_fn(c, draws)
    if own is not None:
        fns["floor_mixture"] = own
    for prior in ("hierarchical", "paper", "adaptive"):
        fns[f"evaluate_{prior}"] = lambda p=prior: evaluate(
            c, draws=draws, rng=0, workers=1, metrics=METRICS, alpha=p, beta=p
        )
    fns["evaluate_hierarchical"]()  # warm
    t = interleaved(fns, rounds)
    cpu = {k: v["cpu_s"] for k, v in t.items()}
    return {
        "case": name,
        "draws": draws,
        "cpu_s": cpu,
        "default_vs_paper": cpu["evaluate_hierarchical"] / cpu["evaluate_paper"],
        "adaptive_vs_paper": cpu["evaluate_adaptive"] / cpu["evaluate_paper"],
        "floor_default_vs_paper": cpu["floor_default"] / cpu["floor_paper"],
        "default_vs_its_floor": cpu["evaluate_hierarchical"] / cpu["floor_default"],
        "default_vs_mixture_floor": cpu["evaluate_hierarchical"]
        / cpu.get("floor_mixture", math.nan),
    }


def floor_fns(
    c: np.ndarray, draws: int, prior: str = "hierarchical"
) -> dict[str, Callable[[], Any]]:
    """numpy's Gamma variates for the concentrations ``evaluate`` samples (default prior:
    those of its own component; the mixture's uniforms and extra Gammas are not counted),
    into a cache-sized buffer: one broadcasting call at most 2^20 variates at a time, or
    one scalar-shape call per cell into one reused vector of ``draws``."""
    c = np.asarray(c, dtype=float)
    r = resolve(prior, prior, c)
    conc = concentrations(c, r.alpha, r.beta).reshape((-1, c.shape[-1] + 1, c.shape[-1]))
    gen = np.random.default_rng(1)
    per = max(1, min(draws, (1 << 20) // conc.size))
    out = np.empty((*conc.shape, per))
    tail = np.empty((*conc.shape, draws % per))
    vec = np.empty(draws)
    shape = conc[..., None]
    values = conc.reshape(-1).tolist()

    def broadcast() -> None:
        for _ in range(draws // per):
            gen.standard_gamma(shape, out=out)
        if tail.size:
            gen.standard_gamma(shape, out=tail)

    def per_cell() -> None:
        g = gen.standard_gamma
        for v in values:
            g(v, None, np.float64, vec)

    return {"floor_broadcast": broadcast, "floor_per_cell": per_cell}


def mixture_variates(
    c: np.ndarray, draws: int, seed: int = 2
) -> tuple[list[list[float]], list[np.ndarray]] | None:
    """The random variates the default prior's exact sampler needs for tables ``c``, as
    numpy calls (None: the prior is one Dirichlet here, no mixture).

    Per table: ``(M + 1) draws`` uniforms (the grid point, then each row's component),
    one scalar-shape Gamma call per cell off the diagonal (the prevalences included),
    and the diagonal cells' per-draw shapes with the extra Gammas' shapes in one
    array-shape call. The shapes are those of one draw of the mixture, chosen here with
    numpy from the posterior grid weights (its own uniforms, not the engine's stream):
    grid point ``g`` by inverse CDF, row ``j`` pooled with probability ``by_row[j, g]``;
    pooled adds ``GRID_SHIFT[g]`` to the diagonal shape, and below a centre of 1/2 needs
    an extra Gamma of shape ``GRID_EXTRA[g]`` plus the row's off-diagonal
    concentrations. Returns, per table, the scalar shapes and the array of shapes.
    """
    c = np.asarray(c, dtype=float)
    m = c.shape[-1]
    r = resolve("hierarchical", "hierarchical", c)
    if r.mixture is None:
        return None
    conc = concentrations(c, r.alpha, r.beta).reshape((-1, m + 1, m))
    w = r.mixture.flat().weights()
    gen = np.random.default_rng(seed)
    idx = np.arange(m)
    n_low = int(np.count_nonzero(hier.GRID_M < 0.5))
    scalars, arrays = [], []
    for i in range(len(conc)):
        g = np.searchsorted(w.cdf[i], gen.random(draws), side="right")
        pooled = gen.random((m, draws)) < w.by_row[i][:, g]
        diag = conc[i, idx, idx][:, None] + pooled * hier.GRID_SHIFT[g]
        off = conc[i, :m].sum(axis=-1) - conc[i, idx, idx]
        extra = (hier.GRID_EXTRA[g] + off[:, None])[pooled & (g < n_low)]
        arrays.append(np.concatenate([diag.ravel(), extra]))
        cells = ~np.eye(m + 1, m, dtype=bool)
        scalars.append(conc[i][cells].tolist())
    return scalars, arrays


def mixture_floor_fn(c: np.ndarray, draws: int) -> Callable[[], Any] | None:
    """numpy's cost of exactly the variates :func:`mixture_variates` lists, a table at a
    time into reused buffers: the uniforms in one call, each cell off the diagonal in
    one scalar-shape call, the per-draw shapes in one array-shape call (None: no
    mixture)."""
    variates = mixture_variates(c, draws)
    if variates is None:
        return None
    scalars, arrays = variates
    m = np.shape(c)[-1]
    gen = np.random.default_rng(1)
    uniforms = np.empty((m + 1) * draws)
    vec = np.empty(draws)
    out = np.empty(max(len(a) for a in arrays))

    def own_floor() -> None:
        g = gen.standard_gamma
        for cells, shapes in zip(scalars, arrays, strict=True):
            gen.random(out=uniforms)
            for v in cells:
                g(v, None, np.float64, vec)
            g(shapes, None, np.float64, out[: len(shapes)])

    return own_floor


def engine_case(name: str, c: np.ndarray, draws: int, rounds: int) -> dict[str, Any]:
    fns = floor_fns(c, draws)
    old = {"alpha": "adaptive", "beta": "adaptive"}  # the previous default, same tables
    new = {
        "evaluate": lambda: evaluate(c, draws=draws, rng=0, workers=1, metrics=METRICS),
        "sample_posterior": lambda: sample_posterior(c, draws=draws, rng=0),
    }
    previous = {
        "evaluate_adaptive": lambda: evaluate(
            c, draws=draws, rng=0, workers=1, metrics=METRICS, **old
        ),
        "sample_posterior_adaptive": lambda: sample_posterior(c, draws=draws, rng=0, **old),
    }
    own = mixture_floor_fn(c, draws)
    if own is not None:
        fns["floor_mixture"] = own
    evaluate(c[..., :1, :, :] if c.ndim == 3 else c, draws=draws, rng=0, workers=1)  # warm
    t = interleaved(fns, rounds)
    t.update(alternating(new, previous, rounds))
    row: dict[str, Any] = {"case": name, "draws": draws, "shape": list(np.shape(c)), **t}
    for clock_ in ("wall_s", "cpu_s"):
        floor = min(t["floor_broadcast"][clock_], t["floor_per_cell"][clock_])
        row[f"floor_{clock_}"] = floor
        row[f"evaluate_ratio_{clock_[:-2]}"] = t["evaluate"][clock_] / floor
        row[f"sample_ratio_{clock_[:-2]}"] = t["sample_posterior"][clock_] / floor
    if own is not None:  # the mixture's own floor: every variate its exact sampler needs
        for clock_ in ("wall_s", "cpu_s"):
            mix = t["floor_mixture"][clock_]
            row[f"evaluate_vs_mixture_floor_{clock_[:-2]}"] = t["evaluate"][clock_] / mix
            row[f"sample_vs_mixture_floor_{clock_[:-2]}"] = t["sample_posterior"][clock_] / mix
            row[f"mixture_floor_vs_floor_{clock_[:-2]}"] = mix / row[f"floor_{clock_}"]
    row["overhead_ms_cpu"] = 1e3 * (t["evaluate"]["cpu_s"] - row["floor_cpu_s"])
    for fn in ("evaluate", "sample_posterior"):  # the new default against the previous one
        row[f"{fn}_vs_adaptive_cpu"] = t[fn]["cpu_s"] / t[f"{fn}_adaptive"]["cpu_s"]
    return row


def large_case(name: str, c: np.ndarray, draws: int, rounds: int) -> dict[str, Any]:
    """One matrix of many classes: ``evaluate`` (default prior) against its floor."""
    fns = {
        **floor_fns(c, draws),
        "evaluate": lambda: evaluate(c, draws=draws, rng=0, workers=1, metrics=METRICS),
    }
    t = interleaved(fns, rounds)
    cpu = {k: v["cpu_s"] for k, v in t.items()}
    floor = min(cpu["floor_broadcast"], cpu["floor_per_cell"])
    return {
        "case": name,
        "draws": draws,
        "cpu_s": cpu,
        "evaluate_vs_floor": cpu["evaluate"] / floor,
    }


def sampler_cases(info: dict[str, Any], quick: bool, rounds: int) -> int:
    """Sparse real-looking matrices (default prior against the paper prior) and one matrix
    of M = 50, 100, 300 classes at 10,000 draws; to ``results/sampler[_quick].json/.md``."""
    draws = 2000 if quick else 10_000
    sparse_rows = [sparse_case(f"sparse {m}x{m} (90 right, 10 to the next class)", sparse(m),
                               draws, 3 * rounds) for m in (10, 20)]  # fmt: skip
    large = [large_case(f"one {m}x{m}", stack(1, m), draws, rounds) for m in (50, 100, 300)]
    info["load_average_after"] = os.getloadavg()
    result = {"machine": info, "argv": sys.argv[1:], "sparse": sparse_rows, "large": large}
    m = info
    lines = [
        f"Machine: {m['cpu_model']}, {m['cores']} cores, NumPy {m['numpy']}; load average "
        f"{m['load_average'][0]:.1f} before, {m['load_average_after'][0]:.1f} after; "
        f"{draws:,} draws, single thread, CPU time, minimum of interleaved rounds.",
        "",
        "| sparse case | default / paper (evaluate) | adaptive / paper | their floors, "
        "default / paper | default / its floor | default / the mixture's floor |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in sparse_rows:
        lines.append(
            f"| {r['case']} | {r['default_vs_paper']:.2f}x | {r['adaptive_vs_paper']:.2f}x "
            f"| {r['floor_default_vs_paper']:.2f}x | {r['default_vs_its_floor']:.2f}x "
            f"| {r['default_vs_mixture_floor']:.2f}x |"
        )
    lines += [
        "",
        "| one matrix | floor (s) | evaluate (s) | evaluate / floor |",
        "|---|---:|---:|---:|",
    ]
    for r in large:
        fl = min(r["cpu_s"]["floor_broadcast"], r["cpu_s"]["floor_per_cell"])
        lines.append(f"| {r['case']} | {fl:.2f} | {r['cpu_s']['evaluate']:.2f} "
                     f"| {r['evaluate_vs_floor']:.2f}x |")  # fmt: skip
    RESULTS.mkdir(exist_ok=True)
    stem = "sampler_quick" if quick else "sampler"
    (RESULTS / f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


def scaling_case(
    name: str, c: np.ndarray, draws: int, rounds: int, chosen: bool = False
) -> dict[str, Any]:
    """One worker, two threads and two worker processes (and, with ``chosen``, two
    workers as the engine chooses), interleaved; wall time, CPU time of this process
    and its children, and context switches."""
    res: dict[str, Any] = {"case": name, "draws": draws, "shape": list(c.shape)}
    best: dict[str, dict[str, float]] = {}
    default = batch.PROCESS_MIN_VARIATES
    modes = {"workers_1": (1, default),
             "threads_2": (2, 1 << 62),
             "processes_2": (2, 0)}  # fmt: skip
    if chosen:
        modes["chosen_2"] = (2, default)
    try:
        for _ in range(rounds):
            for mode, (w, threshold) in modes.items():
                batch.PROCESS_MIN_VARIATES = threshold
                r0 = resource.getrusage(resource.RUSAGE_SELF)
                k0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                wall, _ = clock(lambda w=w: evaluate(c, draws=draws, rng=0, workers=w))
                r1 = resource.getrusage(resource.RUSAGE_SELF)
                k1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = sum(b.ru_utime + b.ru_stime - a.ru_utime - a.ru_stime
                          for a, b in ((r0, r1), (k0, k1)))  # fmt: skip
                switches = sum(b.ru_nvcsw + b.ru_nivcsw - a.ru_nvcsw - a.ru_nivcsw
                               for a, b in ((r0, r1), (k0, k1)))  # fmt: skip
                if wall < best.get(mode, {}).get("wall_s", math.inf):
                    best[mode] = {"wall_s": wall, "cpu_s": cpu, "context_switches": switches}
    finally:
        batch.PROCESS_MIN_VARIATES = default
    res.update(best)
    res["speedup_threads"] = best["workers_1"]["wall_s"] / best["threads_2"]["wall_s"]
    res["speedup_processes"] = best["workers_1"]["wall_s"] / best["processes_2"]["wall_s"]
    if chosen:
        res["speedup_chosen"] = best["workers_1"]["wall_s"] / best["chosen_2"]["wall_s"]
    # what two free cores would give at most: one worker's CPU time over half the CPU
    # time of two (threads that wait for the GIL or processes that fork pay for it here),
    # a figure that the machine's other load changes far less than the wall times
    for mode in ("threads_2", "processes_2", *(("chosen_2",) if chosen else ())):
        res[f"cpu_bound_{mode}"] = 2 * best["workers_1"]["cpu_s"] / best[mode]["cpu_s"]
    return res


#: (name, tables, classes, draws): batches and single matrices
SCALING_CASES = [
    ("2x2 x 10,000, 1,000 draws", 10_000, 2, 1000),
    ("4x4 x 4,000, 1,000 draws", 4000, 4, 1000),
    ("4x4 x 500, 1,000 draws", 500, 4, 1000),
    ("4x4 x 100, 1,000 draws", 100, 4, 1000),
    ("20x20 x 200, 1,000 draws", 200, 20, 1000),
    ("one 50x50, 10,000 draws", 1, 50, 10_000),
    ("one 100x100, 10,000 draws", 1, 100, 10_000),
    ("one 300x300, 1,000 draws", 1, 300, 1000),
]


def scaling_cases(info: dict[str, Any], quick: bool, rounds: int) -> int:
    """Two workers against one on every shape (threads and processes forced, and the
    engine's own choice), wall time, interleaved; to ``results/scaling[_quick].json/.md``."""
    rows = []
    for name, b, m, draws in SCALING_CASES:
        b = max(1, b // 4) if quick and b > 1 else b
        row = scaling_case(name, stack(b, m), draws, rounds, chosen=True)
        rows.append(row)
        print(f"{name}: threads {row['speedup_threads']:.2f}x, processes "
              f"{row['speedup_processes']:.2f}x, chosen {row['speedup_chosen']:.2f}x; bounds "
              f"{row['cpu_bound_threads_2']:.2f}x, {row['cpu_bound_processes_2']:.2f}x "
              f"(load {os.getloadavg()[0]:.1f})", flush=True)  # fmt: skip
    info["load_average_after"] = os.getloadavg()
    m = info
    lines = [
        f"Machine: {m['cpu_model']}, {m['cores']} cores, NumPy {m['numpy']}; load average "
        f"{m['load_average'][0]:.1f} before, {m['load_average_after'][0]:.1f} after. Wall "
        "time, minimum of interleaved rounds; two workers against one.",
        "",
        "Bound: twice one worker's CPU time over the CPU time of two (this process and its "
        "worker processes), the speed-up two free cores would give at most.",
        "",
        "| case | 1 worker (s) | 2 threads (bound) | 2 processes (bound) "
        "| 2 workers, the engine's choice (bound) |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['case']} | {r['workers_1']['wall_s']:.2f} | {r['speedup_threads']:.2f}x "
            f"({r['cpu_bound_threads_2']:.2f}x) | {r['speedup_processes']:.2f}x "
            f"({r['cpu_bound_processes_2']:.2f}x) | {r['speedup_chosen']:.2f}x "
            f"({r['cpu_bound_chosen_2']:.2f}x) |"
        )
    RESULTS.mkdir(exist_ok=True)
    stem = "scaling_quick" if quick else "scaling"
    result = {"machine": info, "argv": sys.argv[1:], "scaling": rows}
    (RESULTS / f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


def hdi_case(rows: int, n: int, rounds: int) -> dict[str, Any]:
    x = np.random.default_rng(rows + n).beta(40, 10, size=(rows, n))
    k = math.ceil(0.95 * n - 1e-9)

    def full_sort_hdi() -> np.ndarray:
        s = np.sort(x, axis=-1)
        i = np.argmin(s[..., k - 1 :] - s[..., : n - k + 1], axis=-1)
        r = np.arange(rows)
        return np.stack([s[r, i], s[r, i + k - 1]], axis=-1)

    assert np.array_equal(hdi(x), full_sort_hdi())
    t = interleaved({"hdi": lambda: hdi(x), "full_sort": full_sort_hdi}, rounds)
    return {"rows": rows, "draws": n, **t, "ratio_cpu": t["hdi"]["cpu_s"] / t["full_sort"]["cpu_s"]}


def selection_case(rows: int, n: int, rounds: int) -> dict[str, Any]:
    """The summary's order statistics: the alternatives measured for summarize_rows."""
    x = np.random.default_rng(rows * n).beta(40, 10, size=(rows, n))
    w = np.empty_like(x)
    k = math.ceil(0.95 * n - 1e-9)
    nw, m0 = n - k + 1, (n - 1) // 2

    def full_sort() -> None:
        np.copyto(w, x)
        w.sort(axis=-1)

    def multi_kth() -> None:  # the previous engine: one partition, four kth
        np.copyto(w, x)
        w.partition(sorted({nw - 1, m0, n // 2, k - 1}), axis=-1)
        w[..., :nw].sort(axis=-1)
        w[..., k - 1 :].sort(axis=-1)

    def cuts_from_the_top() -> None:  # k - 1, then nw - 1 below it, then the median between
        np.copyto(w, x)
        w.partition(k - 1, axis=-1)
        w[..., : k - 1].partition(nw - 1, axis=-1)
        w[..., nw : k - 1].partition(m0 - nw, axis=-1)
        w[..., :nw].sort(axis=-1)
        w[..., k - 1 :].sort(axis=-1)

    def median_then_halves() -> None:  # the engine now
        np.copyto(w, x)
        w.partition(m0, axis=-1)
        w[..., :m0].partition(nw - 1, axis=-1)
        w[..., m0 + 1 :].partition(k - 1 - (m0 + 1), axis=-1)
        w[..., :nw].sort(axis=-1)
        w[..., k - 1 :].sort(axis=-1)

    fns = {
        "full_sort": full_sort,
        "multi_kth": multi_kth,
        "cuts_from_the_top": cuts_from_the_top,
        "median_then_halves": median_then_halves,
    }
    t = interleaved(fns, rounds)
    base = t["full_sort"]["cpu_s"]
    return {"rows": rows, "draws": n, **{k: v["cpu_s"] / base for k, v in t.items()}}


def engine_markdown(result: dict[str, Any]) -> list[str]:
    """The engine cases' table (both priors)."""
    m = result["machine"]
    lines = [
        "# Engine against numpy's Gamma floor",
        "",
        f"Machine: {m['cpu_model']}, {m['cores']} cores, Python {m['python']}, NumPy "
        f"{m['numpy']}; load average {m['load_average'][0]:.1f} before, "
        f"{m['load_average_after'][0]:.1f} after. Single thread, float64, micro+macro F1, "
        "default prior (hierarchical); minimum of interleaved rounds; ratios use process CPU "
        "time. Last two columns: the default against the previous default (adaptive) on the "
        "same tables.",
        "",
        "| case | floor (ms) | evaluate (ms) | evaluate / floor | sample_posterior / floor "
        "| mixture's floor / floor | evaluate / mixture's floor "
        "| evaluate, hierarchical / adaptive | sample_posterior, hierarchical / adaptive |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["engine"]:
        mix = r.get("mixture_floor_vs_floor_cpu")
        lines.append(
            f"| {r['case']} | {1e3 * r['floor_cpu_s']:,.2f} | {1e3 * r['evaluate']['cpu_s']:,.2f} "
            f"| {r['evaluate_ratio_cpu']:.2f}x | {r['sample_ratio_cpu']:.2f}x "
            + (
                "| - | - "
                if mix is None
                else f"| {mix:.2f}x | {r['evaluate_vs_mixture_floor_cpu']:.2f}x "
            )  # fmt: skip
            + f"| {r['evaluate_vs_adaptive_cpu']:.2f}x "
            f"| {r['sample_posterior_vs_adaptive_cpu']:.2f}x |"
        )
    lines += [
        "",
        "Floor: numpy's `standard_gamma` for the concentrations evaluate samples (under the "
        "default prior, its own component's). Mixture's floor: numpy's cost of exactly the "
        "variates the default prior's exact sampler needs (per draw, the grid point's and "
        "each row's uniform, the diagonal cells' per-draw shapes and the extra Gammas; "
        "`mixture_floor_fn`); '-': no mixture (M < 4).",
    ]
    return lines


def markdown(result: dict[str, Any]) -> str:
    lines = engine_markdown(result)
    one = result["engine"][0]
    lines += [
        "",
        f"Fixed overhead of one small matrix ({one['case']}): "
        f"{one['overhead_ms_cpu']:.2f} ms above the floor.",
        "",
        "**Two workers** (wall time, minimum of interleaved rounds; the speed-up needs the "
        "second core free; CPU time includes the worker processes'):",
        "",
        "| case | 1 worker (s) | 2 threads | 2 processes (the default here) "
        "| context switches, threads / processes |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in result["scaling"]:
        w1, t2, p2 = r["workers_1"], r["threads_2"], r["processes_2"]
        lines.append(
            f"| {r['case']} | {w1['wall_s']:.2f} | {t2['wall_s']:.2f} s, "
            f"{r['speedup_threads']:.2f}x | {p2['wall_s']:.2f} s, {r['speedup_processes']:.2f}x "
            f"| {t2['context_switches']:,} / {p2['context_switches']:,} |"
        )
    lines += ["", "**`hdi()` against a full-sort HDI** (CPU time ratio; below 1 is faster):", ""]
    lines += ["| rows x draws | hdi / full sort |", "|---|---:|"]
    for r in result["hdi"]:
        lines.append(f"| {r['rows']:,} x {r['draws']:,} | {r['ratio_cpu']:.2f} |")
    lines += ["", "**Summary selection** (CPU time relative to a full sort of every row):", ""]
    names = [k for k in result["selection"][0] if k not in ("rows", "draws")]
    lines += ["| rows x draws | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for r in result["selection"]:
        cells = " | ".join(f"{r[k]:.2f}" for k in names)
        lines.append(f"| {r['rows']:,} x {r['draws']:,} | {cells} |")
    return "\n".join(lines) + "\n"


def write_priors(info: dict[str, Any], engine: list[dict[str, Any]], quick: bool) -> int:
    """Write the engine cases alone to the first free ``engine_priors[_k].json/.md``."""
    info["load_average_after"] = os.getloadavg()
    result = {"machine": info, "argv": sys.argv[1:], "engine": engine}
    RESULTS.mkdir(exist_ok=True)
    stem, k = "engine_priors_quick" if quick else "engine_priors", 1
    path = RESULTS / stem
    while path.with_suffix(".json").exists():
        k += 1
        path = RESULTS / f"{stem}_{k}"
    path.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    text = "\n".join(engine_markdown(result)) + "\n"
    path.with_suffix(".md").write_text(text)
    print(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller batches, fewer rounds")
    ap.add_argument("--repeat", type=int, default=None, help="interleaved rounds")
    ap.add_argument(
        "--engine-only",
        action="store_true",
        help="only the engine cases (both priors), written to engine_priors*.json/.md",
    )
    ap.add_argument(
        "--sampler",
        action="store_true",
        help="sparse matrices (default vs paper prior) and M = 50/100/300, to sampler*.json/.md",
    )
    ap.add_argument(
        "--scaling",
        action="store_true",
        help="two workers against one on every shape, to scaling*.json/.md",
    )
    args = ap.parse_args(argv)
    q = args.quick
    rounds = args.repeat or (2 if q else 3)
    info = machine()
    print(json.dumps(info), flush=True)
    if args.sampler:
        return sampler_cases(info, q, args.repeat or 2)
    if args.scaling:
        return scaling_cases(info, q, rounds)
    cases = [
        ("one 2x2 matrix, 1,000 draws", np.array([[40, 10], [5, 45]]), 1000, 20 * rounds),
        ("2x2 x 10,000, 1,000 draws", stack(1000 if q else 10_000, 2), 1000, rounds),
        ("4x4 x 2,000, 1,000 draws", stack(300 if q else 2000, 4), 1000, rounds),
        (
            "4x4 x 2,000 accurate (0.94), 1,000 draws",
            stack(300 if q else 2000, 4, 0, 5, 80),
            1000,
            rounds,
        ),  # fmt: skip
        ("20x20 x 100, 1,000 draws", stack(20 if q else 100, 20), 1000, rounds),
        ("sparse 10x10 x 100, 1,000 draws", np.stack([sparse(10)] * 100), 1000, rounds),
        ("300x300 x 1, 300 draws", stack(1, 300), 100 if q else 300, rounds),
    ]
    engine = []
    for name, c, draws, r in cases:
        row = engine_case(name, c, draws, r)
        engine.append(row)
        print(
            f"{name}: floor {1e3 * row['floor_cpu_s']:.2f} ms, evaluate "
            f"{row['evaluate_ratio_cpu']:.2f}x, sample_posterior {row['sample_ratio_cpu']:.2f}x "
            + (
                ""
                if "mixture_floor_vs_floor_cpu" not in row
                else f"(mixture's floor: {row['mixture_floor_vs_floor_cpu']:.2f}x the floor, "
                f"evaluate {row['evaluate_vs_mixture_floor_cpu']:.2f}x it) "
            )
            + f"(CPU time; wall {row['evaluate_ratio_wall']:.2f}x); hierarchical / adaptive: "
            f"evaluate {row['evaluate_vs_adaptive_cpu']:.2f}x, sample_posterior "
            f"{row['sample_posterior_vs_adaptive_cpu']:.2f}x",
            flush=True,
        )
    if args.engine_only:
        return write_priors(info, engine, q)
    scaling = []
    for name, c, draws in [
        ("4x4 x 4,000, 1,000 draws", stack(500 if q else 4000, 4), 1000),
        ("20x20 x 200, 1,000 draws", stack(20 if q else 200, 20), 1000),
    ]:
        row = scaling_case(name, c, draws, rounds)
        scaling.append(row)
        print(
            f"{name}: 2 threads {row['speedup_threads']:.2f}x, "
            f"2 processes {row['speedup_processes']:.2f}x",
            flush=True,
        )
    hdis = [hdi_case(r, n, 5 * rounds) for r, n in [(1, 50_000), (1, 10**6), (1000, 10_000)]]
    for h in hdis:
        print(f"hdi {h['rows']} x {h['draws']}: {h['ratio_cpu']:.2f} of a full sort", flush=True)
    shapes = [(1, 1000), (400, 1000), (1, 10_000), (50, 10_000), (1, 50_000), (10, 50_000)]
    selection = [selection_case(r, n, 5 * rounds) for r, n in shapes]
    info["load_average_after"] = os.getloadavg()
    result = {
        "machine": info,
        "argv": sys.argv[1:],
        "engine": engine,
        "scaling": scaling,
        "hdi": hdis,
        "selection": selection,
    }
    RESULTS.mkdir(exist_ok=True)
    stem = "engine_quick" if q else "engine"
    (RESULTS / f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / f"{stem}.md").write_text(markdown(result))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
