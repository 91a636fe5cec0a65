"""Exact (closed-form, aligned prior) vs sampled summaries: time per call.

Run: python benchmarks/bench_exact.py  ->  benchmarks/results/bench_exact.json
"""

from __future__ import annotations

import json
import platform
from functools import partial
from pathlib import Path

import numpy as np
from _common import best_of

from f1posterior import Floor, evaluate
from f1posterior.gating._gate import gate


def main() -> None:
    rng = np.random.default_rng(0)
    out = {"machine": f"{platform.machine()}, {platform.python_version()}", "cases": []}
    for m, batch in ((2, 1), (10, 1), (10, 100)):
        cm = rng.integers(0, 50, size=(batch, m, m)) + np.eye(m, dtype=int) * 200
        cm = cm[0] if batch == 1 else cm
        for metrics in (["micro_f1"], ["f1", "precision", "recall"]):
            ex = best_of(partial(evaluate, cm, metrics=metrics, beta="aligned", draws=50_000))
            sa = best_of(
                partial(
                    evaluate,
                    cm,
                    metrics=metrics,
                    beta=np.full(m, m * (1 + 1e-9)),  # same posterior, no closed form
                    draws=50_000,
                ),
                repeat=1,
            )
            out["cases"].append(
                {"M": m, "batch": batch, "metrics": metrics, "exact_s": ex, "sampled_50k_s": sa}
            )
            print(out["cases"][-1])
    cm = np.array([[40, 10], [5, 45]])
    out["gate_exact_s"] = best_of(lambda: gate(cm, [Floor("micro_f1", 0.8)], beta="aligned"))
    out["gate_sampled_s"] = best_of(lambda: gate(cm, [Floor("micro_f1", 0.8)]), repeat=1)
    print(out["gate_exact_s"], out["gate_sampled_s"])
    path = Path(__file__).parent / "results" / "bench_exact.json"
    path.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
