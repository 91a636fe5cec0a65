"""One process against a Dask cluster of processes, for docs/batch.md "When to move to a cluster".

Run from the repository root (needs ``pip install 'f1posterior[distributed]'``)::

    python benchmarks/bench_cluster.py          # 20,000 4 x 4 matrices, 1,000 draws
    python benchmarks/bench_cluster.py --quick  # 2,000 matrices

Measures, best of ``--repeat`` runs each, on the same stack and seed:

* ``evaluate(..., workers=1)`` and ``workers=2`` (threads) in this process;
* ``f1posterior.integrations.dask.evaluate`` on ``LocalCluster(processes=True, n_workers=2,
  threads_per_worker=1)`` with 8 blocks (cluster start-up timed apart);
* ``f1posterior.integrations.dask_files.evaluate_files`` on the same cluster, 4 JSON-lines files
  to 4 CSV files (reading and writing included), against ``evaluate`` of the
  in-memory stack.

Checks that the cluster's summaries equal the in-memory ones bit for bit. Writes
``benchmarks/results/bench_cluster.json`` (``_quick`` with ``--quick``).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import dask.array as da
import numpy as np
from _common import best_of, machine

from f1posterior import evaluate
from f1posterior.integrations import dask as f1dask
from f1posterior.integrations import dask_files

RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--draws", type=int, default=1_000)
    args = ap.parse_args()
    b, m = (2_000 if args.quick else 20_000), 4
    rng = np.random.default_rng(0)
    c = rng.integers(0, 40, size=(b, m, m))
    c[:, np.arange(m), np.arange(m)] += 60
    kw = dict(metrics=("micro_f1", "macro_f1"), draws=args.draws, rng=1)
    out: dict = {"machine": machine(), "batch": b, "m": m, "draws": args.draws, "times_s": {}}
    t = out["times_s"]
    ref = evaluate(c, workers=1, **kw)
    t["evaluate_workers_1"] = best_of(lambda: evaluate(c, workers=1, **kw), args.repeat)
    t["evaluate_workers_2"] = best_of(lambda: evaluate(c, workers=2, **kw), args.repeat)

    from distributed import Client, LocalCluster

    t0 = time.perf_counter()
    with (
        LocalCluster(
            processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        Client(cluster),
    ):
        t["cluster_start"] = time.perf_counter() - t0
        x = da.from_array(c, chunks=(b // 8, m, m))
        res = f1dask.evaluate(x, **kw)
        for name in ref:
            assert np.array_equal(res[name].mean, ref[name].mean), name
            assert np.array_equal(res[name].hdi, ref[name].hdi), name
        t["dask_cluster_2_processes"] = best_of(lambda: f1dask.evaluate(x, **kw), args.repeat)
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for k, part in enumerate(np.array_split(c, 4)):
                p = Path(d) / f"part{k}.jsonl"
                p.write_text("".join(json.dumps(mat.tolist()) + "\n" for mat in part))
                paths.append(p)
            t["evaluate_files_cluster_2_processes"] = best_of(
                lambda: dask_files.evaluate_files(paths, d, **kw), args.repeat
            )
    t1 = t["evaluate_workers_1"]
    out["speedup_vs_workers_1"] = {k: t1 / v for k, v in t.items() if k != "cluster_start"}
    out["load_average_after"] = __import__("os").getloadavg()
    RESULTS.mkdir(exist_ok=True)
    name = "bench_cluster_quick.json" if args.quick else "bench_cluster.json"
    (RESULTS / name).write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
