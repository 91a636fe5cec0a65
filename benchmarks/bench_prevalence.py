"""Cost of ``evaluate(..., prevalence=)`` and ``evaluate(..., chance=True)``.

1,000 4x4 matrices at 2,000 draws, metrics macro-F1, micro-F1 and per-class
precision, ``workers=1``: the plain run against a fixed target prevalence, an
uncertain one (``("dirichlet", a)``: 4 more Gamma variates a draw, from streams
of their own), the chance baseline, and both. As a floor, numpy's raw cost of
the same Gamma variates (``20`` a draw, the ``(M + 1) x M`` concentrations, one
``standard_gamma`` call per matrix).

Micro-F1 alone is drawn from the whole table, as with other metrics; its own lines
show its cost without and with a target.

Every variant runs interleaved, ``--repeat`` rounds, the minimum kept (the
machine is shared with other processes).

Run: python benchmarks/bench_prevalence.py [--repeat 5]
  -> benchmarks/results/prevalence.json and prevalence.md
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _common import interleaved as _interleaved
from _common import machine

from f1posterior import evaluate

OUT = Path(__file__).parent / "results"
B, M, DRAWS = 1000, 4, 2000
METRICS = ("macro_f1", "micro_f1", "precision")
PI = [0.7, 0.2, 0.07, 0.03]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    g = np.random.default_rng(0)
    counts = g.integers(0, 20, size=(B, M, M)) + np.eye(M, dtype=int) * 150
    conc = np.concatenate([counts + 0.5, counts.sum(-1)[:, None, :] + 0.25], axis=1)

    def raw() -> None:
        gen = np.random.default_rng(1)
        for c in conc:
            gen.standard_gamma(c[..., None], size=(M + 1, M, DRAWS))

    def ev(metrics: Any = METRICS, **kw: Any) -> Callable[[], Any]:
        return lambda: evaluate(counts, metrics=metrics, draws=DRAWS, rng=1, workers=1, **kw)

    fns = {
        "numpy Gamma variates (floor)": raw,
        "evaluate": ev(),
        "prevalence fixed": ev(prevalence=PI),
        "prevalence dirichlet": ev(prevalence=("dirichlet", [70, 20, 7, 3])),
        "chance": ev(chance=True),
        "prevalence dirichlet + chance": ev(prevalence=("dirichlet", [70, 20, 7, 3]), chance=True),
        "micro_f1 alone": ev("micro_f1"),
        "micro_f1 alone, prevalence fixed": ev("micro_f1", prevalence=PI),
    }
    best = _interleaved(fns, args.repeat)
    base = best["evaluate"]
    rows = [
        {"variant": k, "seconds": round(v, 4), "vs_evaluate": round(v / base, 3)}
        for k, v in best.items()
    ]
    OUT.mkdir(exist_ok=True)
    record = {"case": f"{B} matrices {M}x{M}, {DRAWS} draws, {METRICS}, workers=1",
              "repeat": args.repeat, "rows": rows, "machine": machine()}  # fmt: skip
    (OUT / "prevalence.json").write_text(json.dumps(record, indent=2) + "\n")
    lines = [
        f"# evaluate with prevalence= / chance=True: {record['case']}",
        "",
        f"| variant | seconds (best of {args.repeat}) | x evaluate |",
        "|---|---|---|",
        *(f"| {r['variant']} | {r['seconds']:.3f} | {r['vs_evaluate']:.2f} |" for r in rows),
        "",
        f"Shared 2-core machine (load average {record['machine']['load_average']}).",
    ]
    (OUT / "prevalence.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
