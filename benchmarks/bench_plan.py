"""Run time of ``plan`` (test-set planning, Bayesian assurance): small matrices and 10 classes.

Run: python benchmarks/bench_plan.py  ->  table on stdout and benchmarks/results/bench_plan.json
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from _common import machine

from f1posterior import plan

TABLE2 = [[45, 5], [8, 42]]
TABLE4 = [[40, 4, 3, 3], [5, 38, 4, 3], [2, 3, 41, 4], [3, 2, 5, 40]]


def _table10(right: int) -> list[list[int]]:
    """Ten classes of 54 documents (540), errors on the next two classes."""
    rows = []
    for j in range(10):
        row = [0] * 10
        row[j], row[(j + 1) % 10], row[(j + 2) % 10] = right, (54 - right) // 2, 0
        row[(j + 2) % 10] = 54 - right - row[(j + 1) % 10]
        rows.append(row)
    return rows


TABLE10, BASE10 = _table10(48), _table10(47)
CASES = [
    ("2x2 recall >= 0.8 (exact per table)", TABLE2, dict(metric="recall", threshold=0.8)),
    ("2x2 micro_f1 >= 0.85 (sampled)", TABLE2, dict(metric="micro_f1", threshold=0.85)),
    ("4x4 macro_f1 >= 0.8 (sampled)", TABLE4, dict(metric="macro_f1", threshold=0.8)),
    (
        "2x2 micro_f1 vs baseline, D = 0.02",
        TABLE2,
        dict(metric="micro_f1", baseline=[[40, 10], [9, 41]], max_drop=0.02),
    ),
    ("10x10 macro_f1 >= 0.88 (540 documents)", TABLE10, dict(metric="macro_f1", threshold=0.88)),
    ("10x10 macro_f1 vs baseline, D = 0", TABLE10, dict(metric="macro_f1", baseline=BASE10)),
]


def main() -> None:
    rows = []
    for name, table, kw in CASES:
        t0 = time.perf_counter()
        res = plan(table, simulations=500, rng=1, **kw)  # type: ignore[arg-type]
        wall = time.perf_counter() - t0
        rows.append(
            {
                "case": name,
                "seconds": round(wall, 2),
                "sizes_tried": len(res.curve) - 1,
                "additional_documents": res.additional_documents,
                "monotone": all(
                    a.assurance <= b.assurance
                    for a, b in zip(res.curve, res.curve[1:], strict=False)
                ),
            }
        )
    print(f"{'case':<40} {'seconds':>8} {'sizes':>6} {'answer':>8} {'monotone':>9}")
    for r in rows:
        print(
            f"{r['case']:<40} {r['seconds']:>8.2f} {r['sizes_tried']:>6} "
            f"{r['additional_documents']!s:>8} {r['monotone']!s:>9}"
        )
    out = Path(__file__).parent / "results" / "bench_plan.json"
    out.write_text(json.dumps({"machine": machine(), "simulations": 500, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
