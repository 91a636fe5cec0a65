"""Speed of the cluster-aware calls against the plain ones on the same documents.

For D documents in C clusters (three classes), best wall time of:

- ``evaluate_clusters(y, pred, cluster)`` (micro- and macro-F1) against
  ``evaluate_documents`` of the same documents as one-hot indicator rows
  (``subset_accuracy``: the document-level bootstrap of accuracy = micro-F1) and against
  ``evaluate`` of the pooled confusion matrix;
- ``compare_predictions(..., cluster=)`` against ``compare_predictions`` (paired model);
- ``gate(y_true=, y_pred=, cluster=)`` against ``gate`` on the predictions.

All at the default 50,000 draws, one BLAS thread (the machine is shared).

Run: python benchmarks/bench_clustered_documents.py [--quick]
 ->  benchmarks/results/bench_clustered_documents{,_quick}.json
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from _common import interleaved, machine  # noqa: E402

from f1posterior import (  # noqa: E402
    Floor,
    compare_predictions,
    confusion_matrix,
    evaluate,
    evaluate_clusters,
    evaluate_documents,
    gate,
)

RESULTS = Path(__file__).resolve().parent / "results"


def data(d: int, c: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    cluster = rng.integers(0, c, d)
    skill = rng.uniform(0.6, 0.95, c)[cluster]
    y = rng.integers(0, 3, d)
    a = np.where(rng.random(d) < skill, y, (y + 1) % 3)
    b = np.where(rng.random(d) < skill - 0.05, y, (y + 2) % 3)
    return y, a, b, cluster


def row(d: int, c: int, repeat: int) -> dict:
    y, a, b, cl = data(d, c)
    eye = np.eye(3, dtype=int)
    counts = confusion_matrix(y, a).counts
    floor = [Floor("macro_f1", 0.5)]
    t = interleaved(
        {
            "evaluate_clusters": lambda: evaluate_clusters(y, a, cl, rng=0),
            "evaluate_documents": lambda: evaluate_documents(
                eye[y], eye[a], metrics="subset_accuracy", rng=0
            ),
            "evaluate": lambda: evaluate(counts, rng=0),
            "compare_clusters": lambda: compare_predictions(y, a, b, cluster=cl, rng=0),
            "compare_paired": lambda: compare_predictions(y, a, b, rng=0),
            "gate_clusters": lambda: gate(y_true=y, y_pred=a, cluster=cl, checks=floor),
            "gate": lambda: gate(y_true=y, y_pred=a, checks=floor),
        },
        repeat,
    )
    out = {"documents": d, "clusters": c, "seconds": t}
    out["ratio_to_evaluate_documents"] = t["evaluate_clusters"] / t["evaluate_documents"]
    out["ratio_to_evaluate"] = t["evaluate_clusters"] / t["evaluate"]
    out["compare_ratio"] = t["compare_clusters"] / t["compare_paired"]
    out["gate_ratio"] = t["gate_clusters"] / t["gate"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    sizes = [(1_000, 50), (10_000, 200)] + ([] if args.quick else [(100_000, 1_000)])
    rows = []
    for d, c in sizes:
        r = row(d, c, 2 if args.quick else 3)
        rows.append(r)
        s = r["seconds"]
        print(
            f"D {d:>7,} C {c:>5,}: evaluate_clusters {s['evaluate_clusters']:.3f} s, "
            f"evaluate_documents {s['evaluate_documents']:.3f} s "
            f"({r['ratio_to_evaluate_documents']:.2f}x), evaluate {s['evaluate']:.3f} s "
            f"({r['ratio_to_evaluate']:.1f}x); compare {r['compare_ratio']:.1f}x; "
            f"gate {r['gate_ratio']:.1f}x",
            flush=True,
        )
    name = "bench_clustered_documents" + ("_quick" if args.quick else "")
    RESULTS.mkdir(exist_ok=True)
    out = {"rows": rows, "machine": machine()}
    (RESULTS / f"{name}.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
