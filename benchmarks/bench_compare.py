"""Benchmark of f1posterior.analysis._comparison: time per call at 50,000 draws.

Writes benchmarks/results/compare.json. Run: python benchmarks/bench_compare.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from _common import best_of, machine

from f1posterior.analysis._comparison import compare
from f1posterior.analysis._paired import compare_predictions
from f1posterior.analysis._ranking import rank_predictions


def case(m, n_docs=2_000, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, m, n_docs)
    a = np.where(rng.random(n_docs) < 0.8, y, rng.integers(0, m, n_docs))
    b = np.where(rng.random(n_docs) < 0.9, a, rng.integers(0, m, n_docs))
    c = np.where(rng.random(n_docs) < 0.7, y, rng.integers(0, m, n_docs))
    return y, a, b, c


def main() -> None:
    draws = 50_000
    rows = []
    for m in (2, 3, 10):
        y, a, b, c = case(m)
        ca = np.zeros((m, m))
        np.add.at(ca, (y, a), 1)
        cb = np.zeros((m, m))
        np.add.at(cb, (y, b), 1)
        rows.append(
            {
                "M": m,
                "draws": draws,
                "compare_independent_s": best_of(
                    lambda ca=ca, cb=cb: compare(ca, cb, draws=draws, rng=0)
                ),
                "compare_predictions_paired_s": best_of(
                    lambda y=y, a=a, b=b: compare_predictions(y, a, b, draws=draws, rng=0)
                ),
                "rank_predictions_k3_s": (
                    best_of(
                        lambda y=y, a=a, b=b, c=c: rank_predictions(
                            y, {"a": a, "b": b, "c": c}, draws=draws, rng=0
                        ),
                        repeat=1,
                    )
                    if m <= 10
                    else None
                ),
            }
        )
        print(rows[-1])
    out = {
        "benchmark": "compare",
        "machine": machine(),
        "note": "sparse paired model (observed tuples + concordant prior tuples); 2 shared cores",
        "metric": "macro_f1",
        "results": rows,
    }
    path = Path(__file__).resolve().parent / "results" / "compare.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
