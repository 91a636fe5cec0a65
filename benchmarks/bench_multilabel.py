"""Time and peak memory of evaluate_multilabel (L up to 30,000) and evaluate_documents.

Each configuration runs in a fresh Python process so that its peak resident
memory (``ru_maxrss``) is its own. Results go to
``benchmarks/results/multilabel.json``.

    python benchmarks/bench_multilabel.py            # the recorded sizes
    python benchmarks/bench_multilabel.py --quick    # small sizes, a smoke run
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
import numpy as np
kind, a, b, draws = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
import f1posterior
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rng = np.random.default_rng(0)
if kind == "multilabel":
    n_labels, d = a, b
    tp, fp, fn = (rng.integers(0, d // 20, n_labels) for _ in range(3))
    t = np.stack([d - tp - fp - fn, fp, fn, tp], -1).reshape(n_labels, 2, 2)
    t0 = time.perf_counter()
    res = f1posterior.evaluate_multilabel(
        t, metrics=["micro_f1", "macro_f1", "hamming_loss", "f1"], draws=draws, rng=1
    )
    elapsed = time.perf_counter() - t0
    check = float(res["micro_f1"].mean)
else:
    d, n_labels = a, b
    yt = rng.random((d, n_labels)) < 0.1
    yp = np.where(rng.random((d, n_labels)) < 0.9, yt, ~yt)
    s = rng.random((d, n_labels)) + 0.5 * yt
    t0 = time.perf_counter()
    res = f1posterior.evaluate_documents(yt, yp, s, draws=draws, rng=1)
    elapsed = time.perf_counter() - t0
    check = float(res["samples_f1"].mean)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "peak_rss_mib": peak / 1024,
                  "import_rss_mib": base / 1024, "check": check}))
"""


def run(kind: str, a: int, b: int, draws: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(a), str(b), str(draws)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    quick = "--quick" in sys.argv
    configs = (
        [("multilabel", 1_000, 1_000, 500), ("documents", 1_000, 50, 2_000)]
        if quick
        else [
            ("multilabel", 3_000, 10_000, 2_000),
            ("multilabel", 30_000, 10_000, 200),
            ("multilabel", 30_000, 10_000, 2_000),
            ("documents", 10_000, 100, 10_000),
            ("documents", 100_000, 20, 10_000),
        ]
    )
    results = []
    for kind, a, b, draws in configs:
        r = run(kind, a, b, draws)
        size = (
            {"labels": a, "documents": b} if kind == "multilabel" else {"documents": a, "labels": b}
        )
        row = {"function": f"evaluate_{kind}", **size, "draws": draws, **r}
        results.append(row)
        print(json.dumps(row))
    if quick:
        return
    meta = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, shared with other jobs",
        "python": platform.python_version(),
        "note": "multilabel metrics: micro_f1, macro_f1, hamming_loss, per-label f1; documents: "
        "default metrics (samples_f1, hamming_loss, subset_accuracy, average_precision, "
        "one_error, ranking_loss, coverage)",
    }
    path = Path(__file__).resolve().parent / "results" / "multilabel.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
