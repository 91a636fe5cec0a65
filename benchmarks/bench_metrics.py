"""Cost of the named metrics on posterior draws, against numpy's raw Gamma variates.

For each class count M, one stack of ``draws`` cell-probability tables ``(draws, M, M)``
is drawn once; each named metric is timed on it (best of 3) and reported as a multiple of
``numpy.random.Generator.standard_gamma`` for the same ``draws * M * M`` variates (the
floor of any sampler of this model). Also ``evaluate`` with the F1 defaults against
``evaluate`` with every named metric. Results go to ``benchmarks/results/metrics.json``.

    python benchmarks/bench_metrics.py            # M = 2, 10 (20,000 draws), 50 (2,000)
    python benchmarks/bench_metrics.py --quick    # a smoke run
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from _common import best_of, machine

from f1posterior import evaluate, sample_posterior
from f1posterior.metrics._registry import METRICS

OUT = Path(__file__).resolve().parent / "results" / "metrics.json"


def main() -> None:
    quick = "--quick" in sys.argv
    rows = []
    for m in (2, 10) if quick else (2, 10, 50):
        draws = 2_000 if quick or m > 10 else 20_000
        counts = np.random.default_rng(m).integers(0, 30, (m, m)) + 40 * np.eye(m, dtype=int)
        cells = sample_posterior(counts, draws=draws, rng=1)
        gen = np.random.default_rng(0)
        gamma = best_of(lambda: gen.standard_gamma(1.5, size=(draws, m, m)))  # noqa: B023
        row: dict = {"m": m, "draws": draws, "gamma_s": gamma, "metrics": {}}
        for name, fn in METRICS.items():
            t = best_of(lambda: fn(cells))  # noqa: B023
            row["metrics"][name] = {"seconds": t, "x_gamma": t / gamma}
        base = best_of(lambda: evaluate(counts, draws=draws, rng=1), 2)  # noqa: B023
        every = best_of(lambda: evaluate(counts, metrics=tuple(METRICS), draws=draws, rng=1), 2)  # noqa: B023
        row["evaluate_default_s"], row["evaluate_all_metrics_s"] = base, every
        rows.append(row)
        slow = sorted(row["metrics"].items(), key=lambda kv: -kv[1]["x_gamma"])[:4]
        print(
            f"M = {m:3d}: gamma {gamma * 1e3:7.1f} ms; slowest "
            + ", ".join(f"{k} {v['x_gamma']:.2f}x" for k, v in slow)
            + f"; evaluate default {base:.2f} s, all {len(METRICS)} metrics {every:.2f} s"
        )
    if not quick:
        OUT.write_text(json.dumps({"machine": machine(), "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
