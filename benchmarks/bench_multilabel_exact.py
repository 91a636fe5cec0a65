"""Multi-label: exact per-label summaries (aligned prior) vs sampled ones, and the gate.

Per-label f1, precision and recall of L labels: closed forms (``beta="aligned"``)
against the sampler (a prior a hair off alignment: the same posterior, no
closed form), and ``gate_multilabel`` with per-label floors.

Run: python benchmarks/bench_multilabel_exact.py [--quick]
  ->  benchmarks/results/multilabel_exact.json
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path

import numpy as np
from _common import best_of, machine

from f1posterior import Floor, evaluate_multilabel, gate_multilabel

PER_LABEL = ["f1", "precision", "recall"]


def main(quick: bool = False) -> None:
    rng = np.random.default_rng(0)
    sizes = (100, 1000) if quick else (100, 1000, 10_000)
    draws = 10_000
    out: dict = {"machine": machine(), "draws": draws, "cases": []}
    for n_labels in sizes:
        tn = rng.integers(500, 1000, n_labels)
        fp, fn, tp = (rng.integers(0, 60, n_labels) for _ in range(3))
        tables = np.stack([np.stack([tn, fp], -1), np.stack([fn, tp], -1)], -2)  # (L, 2, 2)
        near = dict(alpha=1.0, beta=np.full(2, 2.0 * (1 + 1e-9)))  # aligned to 1e-9, sampled
        exact_s = best_of(partial(evaluate_multilabel, tables, metrics=PER_LABEL, beta="aligned"))
        sampled_s = best_of(
            partial(evaluate_multilabel, tables, metrics=PER_LABEL, draws=draws, rng=0, **near),
            repeat=1,
        )
        floors = [Floor("f1", 0.3), Floor("micro_f1", 0.5)]
        gate_exact_s = best_of(
            partial(gate_multilabel, tables, floors, beta="aligned", draws=draws)
        )
        gate_sampled_s = best_of(
            partial(gate_multilabel, tables, floors, draws=draws, **near), repeat=1
        )
        case = {
            "L": n_labels,
            "exact_s": exact_s,
            "sampled_s": sampled_s,
            "speedup": sampled_s / exact_s,
            "gate_exact_floors_s": gate_exact_s,
            "gate_sampled_floors_s": gate_sampled_s,
        }
        out["cases"].append(case)
        print(json.dumps(case))
    name = "multilabel_exact_quick.json" if quick else "multilabel_exact.json"
    (Path(__file__).parent / "results" / name).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
