"""Benchmark of the batch engine: floor, threads, float32, memory, scaling, peers.

Run from the repository root::

    python benchmarks/bench_batch.py          # full run (several minutes)
    python benchmarks/bench_batch.py --quick  # smaller sizes, for a smoke test

Writes ``benchmarks/results/bench_batch.json`` (``bench_batch_quick.json`` with
``--quick``). Every time is the best of a few repeats (the machine is shared;
the load average before and after is recorded). Peers, if installed
(``pip install --group bench``; never runtime dependencies):
``prob_conf_mat`` (the same Dirichlet model, one matrix per ``Study``) and
``confidenceinterval`` (delta-method intervals from label vectors).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import machine

from f1posterior import evaluate
from f1posterior._core.priors import resolve_prior
from f1posterior._core.sampling import concentrations

RESULTS = Path(__file__).resolve().parent / "results"
METRICS = ("micro_f1", "macro_f1")


def best(fn: Any, repeats: int) -> float:
    """Shortest wall time of ``repeats`` calls (seconds)."""
    out = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t0)
    return out


def stack(b: int, m: int, seed: int = 0) -> np.ndarray:
    """``b`` random ``m``-class confusion matrices with a strong diagonal."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 30, size=(b, m, m))
    c[..., np.arange(m), np.arange(m)] += 50
    return c


def full_conc(c: np.ndarray) -> np.ndarray:
    a, b = resolve_prior(1.0, 1.0, c.shape)
    return concentrations(c.astype(float), a, b)


def gamma_floor(c: np.ndarray, draws: int, repeats: int, dtype: Any = np.float64) -> dict:
    """numpy's raw Gamma cost for the same shapes: one broadcasting call, and one call per cell."""
    conc = full_conc(c)
    b, m1, m = conc.shape
    gen = np.random.default_rng(1)
    out = np.empty((b, m1, m, draws), dtype=dtype)
    shape = conc[..., None]
    broadcast = best(lambda: gen.standard_gamma(shape, dtype=dtype, out=out), repeats)
    rows = conc.tolist()

    def per_cell() -> None:
        for i in range(b):
            for r in range(m1):
                for k in range(m):
                    gen.standard_gamma(rows[i][r][k], None, dtype, out[i, r, k])

    return {"broadcast_s": broadcast, "per_cell_s": best(per_cell, repeats), "variates": out.size}


def run_eval(c: np.ndarray, draws: int, **kw: Any) -> None:
    evaluate(c, metrics=METRICS, draws=draws, rng=0, **kw)


def floor_threads_dtype(cases: list[tuple[int, int, int]], repeats: int) -> list[dict]:
    rows = []
    for b, m, draws in cases:
        c = stack(b, m)
        floor = gamma_floor(c, draws, repeats)
        floor32 = gamma_floor(c, draws, repeats, np.float32)
        t1 = best(lambda c=c, d=draws: run_eval(c, d, workers=1), repeats)
        t2 = best(lambda c=c, d=draws: run_eval(c, d, workers=2), repeats)
        t32 = best(lambda c=c, d=draws: run_eval(c, d, workers=1, dtype=np.float32), repeats)
        rows.append(
            {
                "batch": b,
                "classes": m,
                "draws": draws,
                "variates": floor["variates"],
                "gamma_broadcast_s": floor["broadcast_s"],
                "gamma_per_cell_s": floor["per_cell_s"],
                "gamma32_broadcast_s": floor32["broadcast_s"],
                "evaluate_1_worker_s": t1,
                "evaluate_2_workers_s": t2,
                "evaluate_float32_s": t32,
                "ratio_vs_gamma_broadcast": t1 / floor["broadcast_s"],
                "ratio_vs_gamma_per_cell": t1 / floor["per_cell_s"],
                "speedup_2_workers": t1 / t2,
                "speedup_float32": t1 / t32,
                "ns_per_variate": 1e9 * t1 / floor["variates"],
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    return rows


_RSS_CHILD = """
import resource, sys, time, numpy as np
from f1posterior import evaluate

def hwm():
    # peak RSS of this process image: VmHWM is reset by exec, unlike ru_maxrss,
    # which Linux carries over from the (large) parent across fork + exec
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

b, draws = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(0)
c = rng.integers(0, 30, size=(b, 3, 3)); c[..., [0, 1, 2], [0, 1, 2]] += 50
base = hwm()
t0 = time.perf_counter()
res = evaluate(c, metrics=("micro_f1", "macro_f1"), draws=draws, rng=0)
t = time.perf_counter() - t0
print(base, hwm(), t, float(res["macro_f1"].mean.mean()))
"""


def peak_rss(b: int, draws: int) -> dict:
    """Peak resident memory of a fresh process evaluating ``b`` 3x3 matrices."""
    out = subprocess.run(
        [sys.executable, "-c", _RSS_CHILD, str(b), str(draws)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    base, peak, seconds = int(out[0]), int(out[1]), float(out[2])
    row = {
        "batch": b,
        "classes": 3,
        "draws": draws,
        "peak_rss_bytes": peak,
        "rss_before_evaluate_bytes": base,
        "seconds": seconds,
        "ns_per_variate": 1e9 * seconds / (b * draws * 12),
        "below_1_GiB": peak < (1 << 30),
    }
    print(json.dumps(row), flush=True)
    return row


def scaling(quick: bool, repeats: int) -> dict:
    f = 10 if quick else 1
    curves: dict[str, list[dict]] = {"draws": [], "classes": [], "batch": []}
    c = stack(10, 5)
    for d in (1_000, 10_000, 100_000 // f):
        t = best(lambda d=d: run_eval(c, d, workers=1), repeats)
        curves["draws"].append(
            {
                "batch": 10,
                "classes": 5,
                "draws": d,
                "seconds": t,
                "ns_per_variate": 1e9 * t / (10 * d * 30),
            }
        )
    for m, d in (
        (2, 20_000),
        (5, 20_000),
        (10, 5_000),
        (30, 1_000),
        (100, 100),
        (300, 10),
        (1000, 4 if quick else 20),
    ):
        cm = stack(1, m)
        t = best(lambda cm=cm, d=d: run_eval(cm, d, workers=1), repeats)
        curves["classes"].append(
            {
                "batch": 1,
                "classes": m,
                "draws": d,
                "seconds": t,
                "ns_per_variate": 1e9 * t / (d * m * (m + 1)),
            }
        )
    for b in (100, 1_000, 10_000, 100_000 // f):
        cb = stack(b, 3)
        t = best(lambda cb=cb: run_eval(cb, 1_000, workers=1), 1 if b >= 10_000 else repeats)
        curves["batch"].append(
            {
                "batch": b,
                "classes": 3,
                "draws": 1_000,
                "seconds": t,
                "ns_per_variate": 1e9 * t / (b * 1_000 * 12),
            }
        )
    for name, rows in curves.items():
        for r in rows:
            print(name, json.dumps(r), flush=True)
    return curves


def peers(n_mat: int, repeats: int) -> dict:
    """Per-matrix cost on 10-class matrices at 10,000 draws against the peer packages."""
    c = stack(n_mat, 10, seed=3)
    ours1 = best(lambda: run_eval(c, 10_000, workers=1), repeats) / n_mat
    ours2 = best(lambda: run_eval(c, 10_000, workers=2), repeats) / n_mat
    out: dict[str, Any] = {
        "matrices": n_mat,
        "classes": 10,
        "draws": 10_000,
        "f1posterior_s_per_matrix_1_worker": ours1,
        "f1posterior_s_per_matrix_2_workers": ours2,
    }
    try:
        import warnings

        from prob_conf_mat import Study

        def pcm() -> None:
            for i in range(n_mat):
                s = Study(seed=i, num_samples=10_000, ci_probability=0.95)
                s.add_experiment(
                    "g/e", confusion_matrix=c[i], prevalence_prior=1.0, confusion_prior=1.0
                )
                s.add_metric("acc")
                s.add_metric("f1@macro")
                s.report_metric_summaries("acc", table_fmt="records")
                s.report_metric_summaries("f1@macro", table_fmt="records")

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = best(pcm, repeats) / n_mat
        out["prob_conf_mat_s_per_matrix"] = t
        out["speedup_vs_prob_conf_mat_1_worker"] = t / ours1
        out["speedup_vs_prob_conf_mat_2_workers"] = t / ours2
    except ImportError:
        out["prob_conf_mat"] = "not installed"
    try:
        import confidenceinterval as ci

        labels = []
        for i in range(n_mat):
            t_idx, p_idx = np.nonzero(c[i])
            reps = c[i][t_idx, p_idx]
            labels.append((np.repeat(t_idx, reps).tolist(), np.repeat(p_idx, reps).tolist()))

        def delta() -> None:
            for yt, yp in labels:
                ci.f1_score(yt, yp, average="micro", method="takahashi")
                ci.f1_score(yt, yp, average="macro", method="takahashi")

        t = best(delta, repeats) / n_mat
        out["confidenceinterval_s_per_matrix"] = t
        out["ratio_confidenceinterval_over_f1posterior_1_worker"] = t / ours1
    except ImportError:
        out["confidenceinterval"] = "not installed"
    print(json.dumps(out), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    args = ap.parse_args(argv)
    q = args.quick
    repeats = 2 if q else 3
    info = machine()
    print(json.dumps(info), flush=True)
    cases = (
        [(200, 3, 1_000), (1, 5, 20_000), (20, 10, 1_000)]
        if q
        else [(2_000, 3, 1_000), (1, 5, 200_000), (200, 10, 1_000), (20, 5, 50_000)]
    )
    result = {
        "machine": info,
        "quick": q,
        "metrics": list(METRICS),
        "floor_threads_dtype": floor_threads_dtype(cases, repeats),
        "peak_rss": peak_rss(20_000 if q else 200_000, 1_000),
        "scaling": scaling(q, repeats),
        "peers": peers(3 if q else 20, repeats),
    }
    result["machine"]["load_average_after"] = os.getloadavg()
    result["machine"]["max_rss_of_benchmark_bytes"] = (
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    )
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / ("bench_batch_quick.json" if q else "bench_batch.json")
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
