"""Before/after benchmark of evaluate's overheads against numpy's Gamma floor.

Runs the same measurement alternately with the package of a reference commit
(exported with ``git archive`` into a temporary directory) and with the
working tree, each in a fresh process, so that both see the same machine load.
Every process measures, for one case, numpy's Gamma floor (the faster of one
broadcasting ``standard_gamma`` call and one call per cell, as in
``bench_batch.py``) and single-thread float64 ``evaluate`` (metrics
``micro_f1`` and ``macro_f1``), each the best of ``--inner`` calls; the
ratio evaluate / floor is taken within the process. Results: the ratios of
every round, their median and best, in ``benchmarks/results/bench_overheads.json``.

Run from the repository root::

    python benchmarks/bench_overheads.py --ref e8b35ab --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from _common import machine

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
CASES = [(5_000, 3, 1_000), (200, 10, 1_000), (20, 5, 50_000)]

_CHILD = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[5])
from bench_batch import gamma_floor, stack
from f1posterior import evaluate
b, m, draws, inner = map(int, sys.argv[1:5])
c = stack(b, m)
evaluate(c[:5], draws=draws, rng=0, workers=1)
best = float("inf")
for _ in range(inner):
    t0 = time.perf_counter()
    evaluate(c, draws=draws, rng=0, workers=1, metrics=("micro_f1", "macro_f1"))
    best = min(best, time.perf_counter() - t0)
floor = gamma_floor(c, draws, inner)
print(json.dumps({"evaluate_s": best, **floor}))
"""


def export(ref: str, into: Path) -> Path:
    """The package ``f1posterior/`` of commit ``ref``, unpacked under ``into``."""
    tar = into / "ref.tar"
    with tar.open("wb") as fh:
        subprocess.run(["git", "archive", ref, "f1posterior"], cwd=ROOT, stdout=fh, check=True)
    with tarfile.open(tar) as t:
        t.extractall(into, filter="data")
    return into


def measure(pkg: Path, case: tuple[int, int, int], inner: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(pkg))
    args = [sys.executable, "-c", _CHILD, *map(str, case), str(inner), str(ROOT / "benchmarks")]
    # run from the package measured: ``python -c`` puts the working directory first on sys.path
    out = subprocess.run(args, env=env, cwd=str(pkg), capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr)
    r = json.loads(out.stdout)
    r["floor_s"] = min(r["broadcast_s"], r["per_cell_s"])
    r["ratio"] = r["evaluate_s"] / r["floor_s"]
    return r


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", required=True, help="commit to compare the working tree with")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds per case")
    ap.add_argument("--inner", type=int, default=2, help="calls per process (best of)")
    args = ap.parse_args(argv)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", args.ref], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    info = machine()
    print(json.dumps(info), flush=True)
    result: dict = {"machine": info, "before": commit, "after": f"{head} (working tree)"}
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        before_pkg = export(args.ref, Path(tmp))
        for case in CASES:
            runs: dict[str, list[dict]] = {"before": [], "after": []}
            for _ in range(args.rounds):
                runs["before"].append(measure(before_pkg, case, args.inner))
                runs["after"].append(measure(ROOT, case, args.inner))
            row: dict = {"batch": case[0], "classes": case[1], "draws": case[2]}
            for k, v in runs.items():
                ratios = [r["ratio"] for r in v]
                row[k] = {
                    "ratios": ratios,
                    "ratio_median": statistics.median(ratios),
                    "ratio_best": min(ratios),
                    "evaluate_best_s": min(r["evaluate_s"] for r in v),
                    "floor_best_s": min(r["floor_s"] for r in v),
                }
            cases.append(row)
            print(
                f"{case[0]:,} x {case[1]} x {case[2]:,}: ratio to floor, median (best) "
                f"before {row['before']['ratio_median']:.2f} ({row['before']['ratio_best']:.2f}),"
                f" after {row['after']['ratio_median']:.2f} ({row['after']['ratio_best']:.2f})",
                flush=True,
            )
    result["cases"] = cases
    result["machine"]["load_average_after"] = os.getloadavg()
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "bench_overheads.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
